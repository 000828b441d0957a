// js/test/expect/matchers.ts — What a matcher decides: the judges, one per matcher, and how a
// verdict becomes a failure (`AssertionError` with its `matcherResult`), now or once a promise
// settles.

import { AsymmetricMatcher } from "./asymmetric_matcher.ts";
import { freshRegExp } from "./asymmetric.ts";
import { type EqualityOptions, equals, isObject } from "./equality.ts";
import { constructorName, format } from "./format.ts";
import { comparison, matchedPart } from "./diff.ts";

/** What a failed matcher tells the runner; `headline` and `details` together make the message. */
export interface MatcherResult {
  /** The matcher's name, e.g. `toEqual`. */
  readonly matcher: string;
  /** What the matcher found before `.not` was applied. */
  readonly pass: boolean;
  /** e.g. `expect(received).not.toEqual(expected)`. */
  readonly headline: string;
  /** Expected/Received lines or a line diff; empty when there is nothing more to say. */
  readonly details: string;
  readonly received: unknown;
}

/** Thrown by a failed matcher; bun's JUnit reports use the same name. */
export class AssertionError extends Error {
  override name = "AssertionError";
  readonly matcherResult: MatcherResult;
  constructor(matcherResult: MatcherResult) {
    super(matcherResult.details ? `${matcherResult.headline}\n\n${matcherResult.details}` : matcherResult.headline);
    this.matcherResult = matcherResult;
  }
}

/** Thrown by a judge when the matcher cannot apply (e.g. toHaveLength on a number); fails even under `.not`. */
export class MatcherUsageError extends Error {}

export interface Verdict {
  readonly pass: boolean;
  /** The failure's body, built only when the expectation fails. */
  details(negated: boolean): string;
}

export interface Flags {
  readonly negated: boolean;
  readonly promise: "" | "resolves" | "rejects";
  /** `expect(value, label)`: heads the failure instead of the matcher's signature. */
  readonly label?: string;
}

/** Decides one matcher for a received value (already settled, for `.resolves` / `.rejects`). */
export type Judge = (received: unknown, flags: Flags) => Verdict;

function headlineOf(flags: Flags, matcher: string, signature: string): string {
  if (flags.label !== undefined) return flags.label;
  const promise = flags.promise ? `.${flags.promise}` : "";
  return `expect(received)${promise}${flags.negated ? ".not" : ""}.${matcher}(${signature})`;
}

export function settleNow(flags: Flags, received: unknown, matcher: string, signature: string, judge: Judge): void {
  const headline = headlineOf(flags, matcher, signature);
  let verdict: Verdict;
  try {
    verdict = judge(received, flags);
  } catch (error) {
    if (!(error instanceof MatcherUsageError)) throw error;
    throw new AssertionError({ matcher, pass: false, headline, details: error.message, received });
  }
  if (verdict.pass !== flags.negated) return;
  throw new AssertionError({ matcher, pass: verdict.pass, headline, details: verdict.details(flags.negated), received });
}

type PromiseOutcome = { readonly resolved: true; readonly value: unknown } | { readonly resolved: false; readonly reason: unknown };

/** `.resolves` / `.rejects`: waits for the promise, then judges its value or its reason. */
export function settleLater(flags: Flags, received: unknown, matcher: string, signature: string, judge: Judge): Promise<void> {
  // Made now, while the test's own line is on the stack; an error made after the await would not show it.
  const callSite = new Error();
  const headline = headlineOf(flags, matcher, signature);
  const pointAtCaller = (error: unknown): never => {
    if (error instanceof AssertionError && callSite.stack) {
      Object.defineProperty(error, "stack", { value: callSite.stack, writable: true, configurable: true });
    }
    throw error;
  };
  // bun takes a promise only; jest would also call a function for one.
  const promise = received;
  if (!isThenable(promise)) {
    const details = `Expected promise\nReceived: ${format(received)}`;
    return Promise.reject(new AssertionError({ matcher, pass: false, headline, details, received })).catch(pointAtCaller);
  }
  return Promise.resolve(promise)
    .then(
      (value): PromiseOutcome => ({ resolved: true, value }),
      (reason: unknown): PromiseOutcome => ({ resolved: false, reason }),
    )
    .then((outcome) => {
      if (flags.promise === "resolves" && !outcome.resolved) {
        const details = `Received promise rejected instead of resolved\nRejected to value: ${format(outcome.reason)}`;
        throw new AssertionError({ matcher, pass: false, headline, details, received });
      }
      if (flags.promise === "rejects" && outcome.resolved) {
        const details = `Received promise resolved instead of rejected\nResolved to value: ${format(outcome.value)}`;
        throw new AssertionError({ matcher, pass: false, headline, details, received });
      }
      settleNow(flags, outcome.resolved ? outcome.value : outcome.reason, matcher, signature, judge);
    })
    .catch(pointAtCaller);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (isObject(value) || typeof value === "function") && typeof Reflect.get(value as object, "then") === "function";
}

// ---------------------------------------------------------------------------------------------
// The judges, one per matcher.

export function judgeIdentity(received: unknown, expected: unknown): Verdict {
  return {
    pass: Object.is(received, expected),
    details(negated) {
      if (negated) return `Expected: not ${format(expected)}`;
      if (isObject(received) && equals(received, expected, { strict: true })) {
        return `If this should pass with deep equality, replace "toBe" with "toStrictEqual"\n\nExpected: ${format(expected)}\nReceived: serializes to the same string`;
      }
      return comparison(expected, received);
    },
  };
}

export function judgeEquality(received: unknown, expected: unknown, options: EqualityOptions): Verdict {
  return {
    pass: equals(received, expected, options),
    details(negated) {
      if (!negated) return comparison(expected, received);
      const printedExpected = format(expected);
      const printedReceived = format(received);
      return printedExpected === printedReceived
        ? `Expected: not ${printedExpected}`
        : `Expected: not ${printedExpected}\nReceived: ${printedReceived}`;
    },
  };
}

export function judgeMatchObject(received: unknown, expected: unknown): Verdict {
  if (!isObject(received) && typeof received !== "function") {
    throw new MatcherUsageError(`Received value must be a non-null object\n\nReceived: ${format(received)}`);
  }
  if (!isObject(expected)) throw new MatcherUsageError(`Expected value must be a non-null object\n\nExpected: ${format(expected)}`);
  return {
    pass: equals(received, expected, { subset: true }),
    details(negated) {
      if (negated) return `Expected: not ${format(expected)}\nReceived: ${format(received)}`;
      return comparison(expected, matchedPart(received, expected, new Set()));
    },
  };
}

export function judgeContain(received: unknown, item: unknown, byEquality: boolean): Verdict {
  let pass: boolean;
  if (typeof received === "string" && (!byEquality || typeof item === "string")) {
    if (typeof item !== "string") {
      throw new MatcherUsageError(
        `Received value must be an array type, or both received and expected values must be strings.\n\nReceived: ${format(received)}\nExpected: ${format(item)}`,
      );
    }
    pass = received.includes(item);
  } else if (isObject(received) && typeof Reflect.get(received, Symbol.iterator) === "function") {
    const items = Array.from(received as Iterable<unknown>);
    // toContain is `===`, so NaN is never contained (bun and jest agree); toContainEqual is deep.
    pass = items.some((candidate) => (byEquality ? equals(candidate, item) : candidate === item));
  } else {
    throw new MatcherUsageError(`Received value must be an array type, or both received and expected values must be strings.\n\nReceived: ${format(received)}`);
  }
  const what = byEquality ? "contain equal" : "contain";
  return {
    pass,
    details: (negated) => `Expected to ${negated ? "not " : ""}${what}: ${format(item)}\nReceived: ${format(received)}`,
  };
}

export function judgeLength(received: unknown, length: unknown): Verdict {
  const actual = lengthOf(received);
  if (typeof actual !== "number") {
    throw new MatcherUsageError(`Received value does not have a length property: ${format(received)}`);
  }
  if (typeof length !== "number" || !Number.isInteger(length) || length < 0) {
    throw new MatcherUsageError(`Expected value must be a non-negative integer: ${format(length)}`);
  }
  return {
    pass: actual === length,
    details: (negated) =>
      `Expected length: ${negated ? "not " : ""}${length}\nReceived length: ${actual}\nReceived value: ${format(received)}`,
  };
}

/**
 * A value's `length`; as in bun, what has none but a `size` (a Set, a Map, a Blob,
 * URLSearchParams) has that, and Headers and FormData have their number of entries.
 */
function lengthOf(received: unknown): unknown {
  if (received === null || received === undefined) return undefined;
  const object = Object(received) as object;
  const length: unknown = Reflect.get(object, "length");
  if (typeof length === "number") return length;
  const size: unknown = Reflect.get(object, "size");
  if (typeof size === "number") return size;
  const name = constructorName(object);
  if ((name === "Headers" || name === "FormData") && typeof Reflect.get(object, "entries") === "function") {
    return [...(object as { entries(): Iterable<unknown> }).entries()].length;
  }
  return length;
}

/**
 * bun's reading of a string path: keys between runs of `[`, `]` and `.`; a `.` that starts or
 * ends the path, or follows another `.`, stands for an empty key (`"a.b[1].c"` → `a, b, 1, c`;
 * `"."` → two empty keys). A path with no key at all names nothing (undefined). An array path
 * is taken as it is.
 */
function propertyPath(path: unknown): string[] | undefined {
  if (Array.isArray(path)) return path.map(String);
  if (typeof path !== "string") throw new MatcherUsageError(`Expected path must be a string or an array: ${format(path)}`);
  if (path === "") return [""];
  const separator = (char: string | undefined): boolean => char === "[" || char === "]" || char === ".";
  const keys: string[] = path.startsWith(".") ? [""] : [];
  let index = 0;
  while (index < path.length) {
    if (!separator(path[index])) {
      const start = index;
      while (index < path.length && !separator(path[index])) index++;
      keys.push(path.slice(start, index));
      continue;
    }
    let previous = path[index++];
    while (index < path.length && separator(path[index])) {
      if (previous === "." && path[index] === ".") keys.push("");
      previous = path[index++];
    }
    if (index === path.length && previous === ".") keys.push("");
  }
  return keys.length > 0 ? keys : undefined;
}

export function judgeProperty(received: unknown, path: unknown, value: { expected: unknown } | undefined): Verdict {
  // null and undefined have no property: `.not.toHaveProperty` passes on them, as in bun.
  if (received === null || received === undefined) return { pass: false, details: () => `Received value must not be null nor undefined\n\nReceived: ${format(received)}` };
  const parsed = propertyPath(path);
  const keys = parsed ?? [];
  let current: unknown = received;
  let reached = 0;
  for (const key of keys) {
    if (current === null || current === undefined || !(key in (Object(current) as object))) break;
    current = Reflect.get(Object(current) as object, key);
    reached++;
  }
  const found = parsed !== undefined && reached === keys.length;
  const shownPath = format(Array.isArray(path) ? keys : path);
  return {
    pass: found && (value === undefined || equals(current, value.expected)),
    details(negated) {
      if (negated) {
        const valuePart = value === undefined ? "" : `\n\nExpected value: not ${format(value.expected)}`;
        return `Expected path: not ${shownPath}${valuePart}\nReceived value: ${format(current)}`;
      }
      if (!found) {
        return `Expected path: ${shownPath}\nReceived path: ${format(keys.slice(0, reached).join("."))}\n\nReceived value: ${format(current)}`;
      }
      return `Expected path: ${shownPath}\n\n${comparison(value?.expected, current)}`;
    },
  };
}

export function judgeState(received: unknown, pass: boolean): Verdict {
  return { pass, details: () => `Received: ${format(received)}` };
}

type Comparison = ">" | ">=" | "<" | "<=";

export function judgeOrder(received: unknown, expected: unknown, relation: Comparison): Verdict {
  const isNumeric = (value: unknown): value is number | bigint => typeof value === "number" || typeof value === "bigint";
  if (!isNumeric(received) || !isNumeric(expected)) {
    throw new MatcherUsageError(`Expected and actual values must be numbers or bigints\n\nExpected: ${format(expected)}\nReceived: ${format(received)}`);
  }
  const pass =
    relation === ">" ? received > expected : relation === ">=" ? received >= expected : relation === "<" ? received < expected : received <= expected;
  return {
    pass,
    details: (negated) => `Expected: ${negated ? "not " : ""}${relation} ${format(expected)}\nReceived: ${format(received)}`,
  };
}

export function judgeCloseTo(received: unknown, expected: unknown, precision: unknown): Verdict {
  if (typeof precision !== "number") throw new MatcherUsageError("Expected precision to be a number for 'toBeCloseTo'.");
  if (typeof received !== "number" || typeof expected !== "number") {
    throw new MatcherUsageError(`Expected and received values must be numbers\n\nExpected: ${format(expected)}\nReceived: ${format(received)}`);
  }
  const allowed = 10 ** -precision / 2;
  const difference = Math.abs(expected - received);
  // Equal infinities are close; any other pair involving one is not (jest's rule).
  const pass = (received === Infinity && expected === Infinity) || (received === -Infinity && expected === -Infinity) || difference < allowed;
  return {
    pass,
    details: (negated) =>
      `Expected: ${negated ? "not " : ""}${format(expected)}\nReceived: ${format(received)}\n\nExpected precision: ${precision}\nExpected difference: ${negated ? ">=" : "<"} ${format(allowed)}\nReceived difference: ${format(difference)}`,
  };
}

export function judgeInstance(received: unknown, type: unknown): Verdict {
  if (typeof type !== "function") throw new MatcherUsageError(`Expected value must be a function: ${format(type)}`);
  return {
    pass: received instanceof type,
    details(negated) {
      const receivedType = isObject(received) ? `\nReceived constructor: ${constructorName(received)}` : `\nReceived value: ${format(received)}`;
      return `Expected constructor: ${negated ? "not " : ""}${type.name || "anonymous"}${receivedType}`;
    },
  };
}

export function judgeMatch(received: unknown, pattern: unknown): Verdict {
  if (typeof received !== "string") throw new MatcherUsageError(`Received value must be a string: ${format(received)}`);
  if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
    throw new MatcherUsageError(`Expected value must be a string or a regular expression: ${format(pattern)}`);
  }
  const pass = typeof pattern === "string" ? received.includes(pattern) : freshRegExp(pattern).test(received);
  const kind = typeof pattern === "string" ? "substring" : "pattern";
  return {
    pass,
    details: (negated) => `Expected ${kind}: ${negated ? "not " : ""}${format(pattern)}\nReceived string: ${format(received)}`,
  };
}

/** The text toThrow matches against: an error's message, or the thrown value itself when it has none. */
function thrownMessage(thrown: unknown): string {
  if (isObject(thrown) && "message" in thrown) return String(thrown.message);
  return String(thrown);
}

export function judgeThrow(received: unknown, flags: Flags, expected: { value: unknown } | undefined): Verdict {
  let thrown: { value: unknown } | undefined;
  // After `.resolves` as after `.rejects`, the settled value is what was thrown, as bun has it.
  if (flags.promise) {
    thrown = { value: received };
  } else {
    if (typeof received !== "function") throw new MatcherUsageError(`Received value must be a function\n\nReceived: ${format(received)}`);
    try {
      received();
    } catch (error) {
      thrown = { value: error };
    }
  }
  return judgeThrown(thrown, expected);
}

/** toThrow once it is known what was thrown (`undefined`: nothing); an async function's rejection counts, as in bun. */
export function judgeThrown(thrown: { value: unknown } | undefined, expected: { value: unknown } | undefined): Verdict {
  const pass = thrown !== undefined && (expected === undefined || thrownMatches(thrown.value, expected.value));
  return {
    pass,
    details(negated) {
      if (thrown === undefined) return "Received function did not throw";
      const message = `Received message: ${format(thrownMessage(thrown.value))}`;
      if (expected === undefined) return `Thrown value: ${format(thrown.value)}`;
      const not = negated ? "not " : "";
      const want = expected.value;
      if (typeof want === "function") return `Expected constructor: ${not}${want.name}\nReceived constructor: ${isObject(thrown.value) ? constructorName(thrown.value) : typeof thrown.value}\n${message}`;
      if (typeof want === "string") return `Expected substring: ${not}${format(want)}\n${message}`;
      if (want instanceof RegExp) return `Expected pattern: ${not}${format(want)}\n${message}`;
      if (want instanceof AsymmetricMatcher) return `Expected asymmetric matcher: ${not}${format(want)}\nThrown value: ${format(thrown.value)}`;
      return `Expected message: ${not}${format(thrownMessage(want))}\n${message}`;
    },
  };
}

function thrownMatches(thrown: unknown, expected: unknown): boolean {
  if (typeof expected === "function") return thrown instanceof expected;
  if (typeof expected === "string") return thrownMessage(thrown).includes(expected);
  if (expected instanceof RegExp) return freshRegExp(expected).test(thrownMessage(thrown));
  if (expected instanceof AsymmetricMatcher) return expected.asymmetricMatch(thrown);
  if (isObject(expected)) return thrownMessage(thrown) === thrownMessage(expected);
  throw new MatcherUsageError(`Expected value must be a string, a regular expression, a class, an error or an object: ${format(expected)}`);
}
