// A `timeout` option on its way to the host, which reads options as JSON: JSON has no NaN or
// Infinity, so such a number is refused here, saying what a timeout must be, rather than as "a
// value that is not JSON". Every other value goes on to the host's own checks. And agentswf's
// other spellings of an operation's bound (`timeoutMs`, `deadline`), made into the one timeout.

const DURATION = `a positive number of milliseconds or a duration such as "30s" or "20m"`;

/** `value` (null for undefined), or a TypeError from `where` for NaN and ±Infinity. */
export function timeoutOption(where: string, value: unknown, forms: string = DURATION): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`${where}: timeout must be ${forms}, not ${value}`);
  }
  return value ?? null;
}

/** The forms a tool's timeout takes. */
export const TOOL_TIMEOUT = `${DURATION}, or false`;

/** The options that bound an operation, in agentswf's spellings and awf's: give one of them. */
export const BOUND_OPTIONS = ["timeout", "timeoutMs", "deadline"] as const;

/**
 * An operation's time limit (a turn's, a compaction's) from whichever of agentswf's spellings
 * the spec uses: `timeout` (awf's), `timeoutMs` (milliseconds, the same thing) or `deadline` (a
 * moment, turned into the milliseconds left now). At most one; a deadline already past is
 * refused. `place` is the call, as errors name it: `agent "a": run`.
 */
export function operationTimeout(place: string, spec: { timeout?: unknown; timeoutMs?: unknown; deadline?: unknown }): unknown {
  const given = BOUND_OPTIONS.filter((name) => spec[name] !== undefined);
  if (given.length > 1) {
    throw new TypeError(`${place}(spec): give one of ${given.join(" and ")}, not both; they all bound the turn`);
  }
  if (spec.timeoutMs !== undefined) {
    if (typeof spec.timeoutMs !== "number") {
      throw new TypeError(`${place}({ timeoutMs }): timeoutMs must be a number of milliseconds, e.g. 60000`);
    }
    return spec.timeoutMs;
  }
  if (spec.deadline === undefined) return spec.timeout;
  const deadline = spec.deadline as unknown;
  const at =
    typeof deadline === "number" ? deadline
    : deadline instanceof Date ? deadline.getTime()
    : typeof deadline === "object" && deadline !== null ? (deadline as { unixMilliseconds?: unknown }).unixMilliseconds
    : undefined;
  if (typeof at !== "number" || !Number.isFinite(at)) {
    throw new TypeError(`${place}({ deadline }): deadline must be Unix milliseconds, a Date or { unixMilliseconds }; for a length of time write timeout: "5m"`);
  }
  const left = Math.ceil(at - Date.now());
  if (left <= 0) {
    throw new TypeError(`${place}({ deadline }): the deadline ${new Date(at).toISOString()} has passed; give the turn a later one`);
  }
  return left;
}
