// js/test/expect/extended.ts — The judges of the jest-extended matchers bun ships: type checks
// (toBeArray, toBeString, toBeTypeOf, ...), numbers (toBeEven, toBeWithin, ...), emptiness,
// membership (toBeOneOf, toInclude, toContainKey(s), toContainValue(s), ...), strings
// (toStartWith, toEndWith, toEqualIgnoringWhitespace) and toSatisfy.

import { equals, isObject } from "./equality.ts";
import { bunInspect, format } from "./format.ts";
import { MatcherUsageError, type Verdict } from "./matchers.ts";

/** A judge that only needs to say what it received (and, negated, what it should not have been). */
function plain(received: unknown, pass: boolean, expectation: string): Verdict {
  return { pass, details: (negated) => `Expected: ${negated ? "not " : ""}${expectation}\nReceived: ${format(received)}` };
}

export function judgeKind(received: unknown, kind: string): Verdict {
  const checks: Record<string, (value: unknown) => boolean> = {
    array: Array.isArray,
    boolean: (value) => typeof value === "boolean" || value instanceof Boolean,
    date: (value) => value instanceof Date,
    validDate: (value) => value instanceof Date && !Number.isNaN(value.getTime()),
    function: (value) => typeof value === "function",
    number: (value) => typeof value === "number",
    string: (value) => typeof value === "string" || value instanceof String,
    symbol: (value) => typeof value === "symbol",
    // A function is an object too, as bun has it (a class passes).
    object: (value) => isObject(value) || typeof value === "function",
    true: (value) => value === true,
    false: (value) => value === false,
    nil: (value) => value === null || value === undefined,
    integer: (value) => typeof value === "number" && Number.isInteger(value),
    finite: (value) => typeof value === "number" && Number.isFinite(value),
    positive: (value) => (typeof value === "number" && value > 0 && Number.isFinite(value)) || (typeof value === "bigint" && value > 0n),
    negative: (value) => (typeof value === "number" && value < 0 && Number.isFinite(value)) || (typeof value === "bigint" && value < 0n),
    even: (value) => (typeof value === "number" && Number.isInteger(value) && value % 2 === 0) || (typeof value === "bigint" && value % 2n === 0n),
    odd: (value) => (typeof value === "number" && Number.isInteger(value) && Math.abs(value % 2) === 1) || (typeof value === "bigint" && value % 2n !== 0n),
    // A Map or Set is never an empty object, whatever it holds (bun's rule).
    emptyObject: (value) => isObject(value) && !(value instanceof Map) && !(value instanceof Set) && Object.keys(value).length === 0 && Object.getOwnPropertySymbols(value).length === 0,
  };
  const check = checks[kind];
  if (check === undefined) throw new MatcherUsageError(`unknown kind ${kind}`);
  return plain(received, check(received), kind);
}

const TYPE_NAMES = ["string", "number", "bigint", "boolean", "symbol", "undefined", "object", "function"];

export function judgeTypeOf(received: unknown, type: unknown): Verdict {
  if (typeof type !== "string" || !TYPE_NAMES.includes(type)) {
    throw new MatcherUsageError(`toBeTypeOf() expects one of ${TYPE_NAMES.map((name) => `"${name}"`).join(", ")}\n\nExpected: ${format(type)}`);
  }
  return { pass: typeof received === type, details: (negated) => `Expected type: ${negated ? "not " : ""}${format(type)}\nReceived type: "${typeof received}"` };
}

export function judgeEmpty(received: unknown): Verdict {
  let pass: boolean;
  if (typeof received === "string" || received instanceof String) pass = String(received).length === 0;
  else if (Array.isArray(received)) pass = received.length === 0;
  else if (received instanceof Map || received instanceof Set) pass = received.size === 0;
  else if (isObject(received) && typeof Reflect.get(received, Symbol.iterator) === "function") pass = (received as Iterable<unknown>)[Symbol.iterator]().next().done === true;
  else if (isObject(received)) pass = Object.keys(received).length === 0;
  else pass = false;
  return plain(received, pass, "empty");
}

export function judgeArrayOfSize(received: unknown, size: unknown): Verdict {
  if (typeof size !== "number") throw new MatcherUsageError(`toBeArrayOfSize() expects a number\n\nExpected: ${format(size)}`);
  return plain(received, Array.isArray(received) && received.length === size, `an array of size ${size}`);
}

export function judgeWithin(received: unknown, start: unknown, end: unknown): Verdict {
  if (typeof start !== "number" || typeof end !== "number") throw new MatcherUsageError(`toBeWithin() expects two numbers\n\nStart: ${format(start)}\nEnd: ${format(end)}`);
  return plain(received, typeof received === "number" && received >= start && received < end, `within [${start}, ${end})`);
}

export function judgeOneOf(received: unknown, list: unknown): Verdict {
  if (!isObject(list) || typeof Reflect.get(list, Symbol.iterator) !== "function") {
    throw new MatcherUsageError(`toBeOneOf() expects an array or other iterable\n\nExpected: ${format(list)}`);
  }
  const items = Array.from(list as Iterable<unknown>);
  return plain(received, items.some((item) => equals(received, item)), `one of ${format(items)}`);
}

function requireString(value: unknown, matcher: string): string {
  if (typeof value !== "string") throw new MatcherUsageError(`${matcher}() expects a string\n\nExpected: ${format(value)}`);
  return value;
}

export function judgeString(received: unknown, expected: unknown, how: "include" | "startWith" | "endWith" | "equalIgnoringWhitespace", matcher: string): Verdict {
  const wanted = requireString(expected, matcher);
  const text = typeof received === "string" ? received : undefined;
  const strip = (value: string): string => value.replace(/\s+/g, "");
  const pass =
    text !== undefined &&
    (how === "include" ? text.includes(wanted) : how === "startWith" ? text.startsWith(wanted) : how === "endWith" ? text.endsWith(wanted) : strip(text) === strip(wanted));
  const words = { include: "to include", startWith: "to start with", endWith: "to end with", equalIgnoringWhitespace: "to equal ignoring whitespace" }[how];
  return { pass, details: (negated) => `Expected ${negated ? "not " : ""}${words}: ${format(wanted)}\nReceived: ${format(received)}` };
}

export function judgeIncludeRepeated(received: unknown, expected: unknown, times: unknown): Verdict {
  const wanted = requireString(expected, "toIncludeRepeated");
  if (typeof times !== "number") throw new MatcherUsageError(`toIncludeRepeated() expects a count\n\nTimes: ${format(times)}`);
  const found = typeof received === "string" && wanted.length > 0 ? received.split(wanted).length - 1 : 0;
  return plain(received, typeof received === "string" && found === times, `to include ${format(wanted)} ${times} times`);
}

export function judgeSatisfy(received: unknown, predicate: unknown): Verdict {
  if (typeof predicate !== "function") throw new MatcherUsageError(`toSatisfy() expects a function\n\nExpected: ${format(predicate)}`);
  // What the predicate throws goes through as it is, as bun 1.4.5 does.
  return plain(received, Boolean(predicate(received)), `to satisfy ${format(predicate)}`);
}

/** `expect().pass(message?)` / `.fail(message?)`: jest-extended's explicit verdicts. */
export function judgeVerdict(pass: boolean, message: unknown, matcher: "pass" | "fail"): Verdict {
  if (message !== undefined && typeof message !== "string") throw new MatcherUsageError(`Expected message to be a string for '${matcher}'.`);
  return { pass, details: () => message ?? `${pass ? "passes by .pass()" : "fails by .fail()"} assertion` };
}

function entriesOf(received: unknown, matcher: string): { keys: unknown[]; values: unknown[] } {
  if (received instanceof Map) return { keys: [...received.keys()], values: [...received.values()] };
  if (!isObject(received) && typeof received !== "function") throw new MatcherUsageError(`${matcher}() expects an object\n\nReceived: ${format(received)}`);
  const keys = Reflect.ownKeys(received as object).filter((key) => Object.getOwnPropertyDescriptor(received as object, key)?.enumerable);
  return { keys, values: keys.map((key) => Reflect.get(received as object, key)) };
}

/** A key as a property key: `1` names the key `"1"`, as it would in `object[1]`. */
function sameKey(member: unknown, item: unknown): boolean {
  if (member === item) return true;
  return typeof member === "string" && (typeof item === "string" || typeof item === "number") && member === String(item);
}

/** toContainKey(s), toContainAllKeys, toContainAnyKeys and the same for values. */
export function judgeMembers(received: unknown, expected: unknown, part: "keys" | "values", rule: "one" | "every" | "all" | "any", matcher: string): Verdict {
  const wanted = rule === "one" ? [expected] : expected;
  if (!Array.isArray(wanted)) throw new MatcherUsageError(`${matcher}() expects an array\n\nExpected: ${format(expected)}`);
  const members = entriesOf(received, matcher)[part];
  const same = (member: unknown, item: unknown): boolean => (part === "keys" ? sameKey(member, item) : equals(member, item));
  const has = (item: unknown): boolean => members.some((member) => same(member, item));
  let pass: boolean;
  if (rule === "any") pass = wanted.some(has);
  else if (rule === "all") pass = wanted.every(has) && members.every((member) => wanted.some((item) => same(member, item)));
  else pass = wanted.every(has);
  // Worded and printed as bun's: toContainAllKeys shows the received keys, the rest the received value.
  const what = rule === "all" ? `contain all ${part}` : rule === "any" && part === "values" ? "contain any of the following values" : "contain";
  const shown = rule === "all" && part === "keys" ? members : received;
  return { pass, details: (negated) => `Expected to ${negated ? "not " : ""}${what}: ${bunInspect(rule === "one" ? expected : wanted)}\nReceived: ${bunInspect(shown)}` };
}
