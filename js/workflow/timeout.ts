// A `timeout` option on its way to the host, which reads options as JSON: JSON has no NaN or
// Infinity, so such a number is refused here, saying what a timeout must be, rather than as "a
// value that is not JSON". Every other value goes on to the host's own checks.

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
