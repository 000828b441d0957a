// Node's argument errors, worded as Node words them, for the node:* modules and host globals:
// `The "path" argument must be of type string. Received type number (1)`, code
// ERR_INVALID_ARG_TYPE; and the `not supported yet` refusal awf gives for options it cannot
// honour, so nothing is silently ignored.

/** How Node names a received value in its messages. */
export function received(value: unknown): string {
  if (value === null) return "Received null";
  if (value === undefined) return "Received undefined";
  if (typeof value === "function") return `Received function ${value.name || "<anonymous>"}`;
  if (typeof value === "object") {
    const name = (value as object).constructor?.name;
    return name ? `Received an instance of ${name}` : "Received [Object: null prototype]";
  }
  let shown = typeof value === "string" ? `'${value}'` : typeof value === "bigint" ? `${value}n` : String(value);
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
  return `Received type ${typeof value} (${shown})`;
}

export function invalidArgType(name: string, expected: string, value: unknown): TypeError {
  const error = new TypeError(`The "${name}" argument must be ${expected}. ${received(value)}`) as TypeError & { code: string };
  error.code = "ERR_INVALID_ARG_TYPE";
  return error;
}

export function invalidArgValue(name: string, value: unknown, reason: string): TypeError {
  const error = new TypeError(`The argument '${name}' ${reason}. Received ${typeof value === "string" ? `'${value}'` : String(value)}`) as TypeError & { code: string };
  error.code = "ERR_INVALID_ARG_VALUE";
  return error;
}

/** An option or form awf does not implement yet. */
export function notSupported(what: string): TypeError {
  const error = new TypeError(`${what} is not supported yet`) as TypeError & { code: string };
  error.code = "ERR_NOT_SUPPORTED";
  return error;
}

/** Refuses any option not in `allowed` (Node's own names), naming it. */
export function checkOptions(api: string, options: object | undefined, allowed: readonly string[]): void {
  if (!options) return;
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key) && (options as Record<string, unknown>)[key] !== undefined) {
      throw notSupported(`${api}: option "${key}"`);
    }
  }
}

export function abortError(cause?: unknown): Error {
  const error = new Error("The operation was aborted", cause === undefined ? undefined : { cause }) as Error & { code: string };
  error.name = "AbortError";
  error.code = "ABORT_ERR";
  return error;
}
