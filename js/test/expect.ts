// js/test/expect.ts — `expect` for the `bun:test` module (alias `awf:test`).
//
// Owns the matchers and their `.not` / `.resolves` / `.rejects` forms, the equality they
// share (jest's `equals` with iterable equality, bent where bun differs, since test files are
// written against bun), the asymmetric matchers (`expect.any`, `expect.stringContaining`, ...),
// the value printer used in failure messages, and the line diff. It neither runs tests nor
// prints: a failed matcher throws `AssertionError`, whose `matcherResult` the runner
// (bun_test.ts) turns into a reported failure. Pure ES2023: it runs on QuickJS as on node.
//
// The parts live in js/test/expect/: asymmetric_matcher.ts and asymmetric.ts (the matchers
// that stand in a value), equality.ts, format.ts (the value printer), diff.ts (the line diff
// and the expected/received block), matchers.ts (the judges and failures) and stack.ts (stack
// frames); this file is the API: `expect()`, its `.not`/`.resolves`/`.rejects` forms and the
// assertion counts.

import { onHostReset } from "../core.ts";
import { AsymmetricMatcher } from "./expect/asymmetric_matcher.ts";
import { AnyOf, Anything, CloseTo, ArrayContaining, ObjectContaining, StringContaining, StringMatching } from "./expect/asymmetric.ts";
import { isObject } from "./expect/equality.ts";
import { format } from "./expect/format.ts";
import { CustomAsymmetric, type CustomMatcher, matcherContext, requireMatchers, settledVerdict, verdictOf } from "./expect/extend.ts";
import { MATCHER_TABLE, type TableMatchers } from "./expect/matcher_table.ts";
import { Settled, settledFactories } from "./expect/settled.ts";
import { frameLocation, stackFrames } from "./expect/stack.ts";
import type { SnapshotCounts, SnapshotSettings } from "./snapshot.ts";
import { AssertionError, type Flags, type Judge, judgeCloseTo, judgeContain, judgeEquality, judgeIdentity, judgeInstance, judgeLength, judgeMatch, judgeMatchObject, judgeOrder, judgeProperty, judgeState, judgeThrow, judgeThrown, settleLater, settleNow } from "./expect/matchers.ts";

export { AsymmetricMatcher } from "./expect/asymmetric_matcher.ts";
export { AssertionError } from "./expect/matchers.ts";
export { format } from "./expect/format.ts";
export { callerSourceFile, frameFile, isExpectFile, stackFrames } from "./expect/stack.ts";

/** Runs a judge now (plain `expect`) or once the promise settles (`.resolves` / `.rejects`). */
type Settle<R> = (flags: Flags, received: unknown, matcher: string, signature: string, judge: Judge) => R;

/** The matchers of expect/matcher_table.ts, installed on the class below. */
export interface Expectation<R extends void | Promise<void>> extends TableMatchers<R> {}

/** What `expect(value)` returns: `void` matchers, or `Promise<void>` ones after `.resolves` / `.rejects`. */
export class Expectation<R extends void | Promise<void>> {
  private readonly received: unknown;
  private readonly flags: Flags;
  private readonly settle: Settle<R>;

  constructor(received: unknown, flags: Flags, settle: Settle<R>) {
    this.received = received;
    this.flags = flags;
    this.settle = settle;
  }

  get not(): Expectation<R> {
    return new Expectation(this.received, { ...this.flags, negated: !this.flags.negated }, this.settle);
  }
  get resolves(): Expectation<Promise<void>> {
    return this.awaiting("resolves");
  }
  get rejects(): Expectation<Promise<void>> {
    return this.awaiting("rejects");
  }

  toBe(expected: unknown): R {
    return this.check("toBe", "expected", (received) => judgeIdentity(received, expected));
  }
  toEqual(expected: unknown): R {
    return this.check("toEqual", "expected", (received) => judgeEquality(received, expected, {}));
  }
  toStrictEqual(expected: unknown): R {
    return this.check("toStrictEqual", "expected", (received) => judgeEquality(received, expected, { strict: true }));
  }
  toMatchObject(expected: unknown): R {
    return this.check("toMatchObject", "expected", (received) => judgeMatchObject(received, expected));
  }
  toContain(item: unknown): R {
    return this.check("toContain", "expected", (received) => judgeContain(received, item, false));
  }
  toContainEqual(item: unknown): R {
    return this.check("toContainEqual", "expected", (received) => judgeContain(received, item, true));
  }
  toHaveLength(length: number): R {
    return this.check("toHaveLength", "expected", (received) => judgeLength(received, length));
  }
  /** A value argument, even `undefined`, is compared; leaving it out only checks the path. */
  toHaveProperty(path: string | readonly (string | number)[], ...value: [] | [unknown]): R {
    const expected = value.length > 0 ? { expected: value[0] } : undefined;
    return this.check("toHaveProperty", expected ? "path, value" : "path", (received) => judgeProperty(received, path, expected));
  }
  toBeDefined(): R {
    return this.check("toBeDefined", "", (received) => judgeState(received, received !== undefined));
  }
  toBeUndefined(): R {
    return this.check("toBeUndefined", "", (received) => judgeState(received, received === undefined));
  }
  toBeNull(): R {
    return this.check("toBeNull", "", (received) => judgeState(received, received === null));
  }
  toBeTruthy(): R {
    return this.check("toBeTruthy", "", (received) => judgeState(received, Boolean(received)));
  }
  toBeFalsy(): R {
    return this.check("toBeFalsy", "", (received) => judgeState(received, !received));
  }
  toBeNaN(): R {
    return this.check("toBeNaN", "", (received) => judgeState(received, typeof received === "number" && Number.isNaN(received)));
  }
  toBeGreaterThan(expected: number | bigint): R {
    return this.check("toBeGreaterThan", "expected", (received) => judgeOrder(received, expected, ">"));
  }
  toBeGreaterThanOrEqual(expected: number | bigint): R {
    return this.check("toBeGreaterThanOrEqual", "expected", (received) => judgeOrder(received, expected, ">="));
  }
  toBeLessThan(expected: number | bigint): R {
    return this.check("toBeLessThan", "expected", (received) => judgeOrder(received, expected, "<"));
  }
  toBeLessThanOrEqual(expected: number | bigint): R {
    return this.check("toBeLessThanOrEqual", "expected", (received) => judgeOrder(received, expected, "<="));
  }
  toBeCloseTo(expected: number, precision = 2): R {
    return this.check("toBeCloseTo", "expected, precision", (received) => judgeCloseTo(received, expected, precision));
  }
  toBeInstanceOf(type: Function): R {
    return this.check("toBeInstanceOf", "expected", (received) => judgeInstance(received, type));
  }
  toMatch(pattern: string | RegExp): R {
    return this.check("toMatch", "expected", (received) => judgeMatch(received, pattern));
  }
  /** A function that returns a promise (an async function) is judged once it settles, as in bun: await the matcher. */
  toThrow(...expected: [] | [unknown]): R {
    return this.throwing("toThrow", expected);
  }
  /** bun's alias of toThrow. */
  toThrowError(...expected: [] | [unknown]): R {
    return this.throwing("toThrowError", expected);
  }

  /** Compares with the test's snapshot in `__snapshots__/<file>.snap`, or writes it the first time (snapshot.ts). */
  toMatchSnapshot(...args: [] | [hint: string] | [propertyMatchers: object, hint?: string]): R {
    return this.check("toMatchSnapshot", "expected", (received, flags) => snapshots().matchSnapshot(received, flags, args));
  }
  /** The message of what the function throws (or the promise rejects with), as a snapshot. */
  toThrowErrorMatchingSnapshot(hint?: string): R {
    return this.check("toThrowErrorMatchingSnapshot", "", (received, flags) => snapshots().matchThrownSnapshot(received, flags, hint));
  }

  /** Compares with the snapshot written in the call (`toMatchInlineSnapshot(`...`)`), or writes it into the test file. */
  toMatchInlineSnapshot(...args: [] | [snapshot: string] | [propertyMatchers: object, snapshot?: string]): R {
    const site = callerSite();
    return this.check("toMatchInlineSnapshot", "expected", (received, flags) => snapshots().matchInlineSnapshot(received, flags, args, site));
  }
  /** The message of what the function throws (or the promise rejects with), as an inline snapshot. */
  toThrowErrorMatchingInlineSnapshot(...args: [] | [snapshot: string]): R {
    const site = callerSite();
    return this.check("toThrowErrorMatchingInlineSnapshot", "", (received, flags) => snapshots().matchThrownInlineSnapshot(received, flags, args, site));
  }

  private throwing(matcher: string, expected: [] | [unknown]): R {
    const wanted = expected.length > 0 && expected[0] !== undefined ? { value: expected[0] } : undefined;
    const signature = wanted ? "expected" : "";
    const fn = this.received;
    if (this.flags.promise || typeof fn !== "function") return this.check(matcher, signature, (received, flags) => judgeThrow(received, flags, wanted));
    let returned: unknown;
    try {
      returned = fn();
    } catch (error) {
      return this.check(matcher, signature, () => judgeThrown({ value: error }, wanted));
    }
    if (!(returned instanceof Promise)) return this.check(matcher, signature, () => judgeThrown(undefined, wanted));
    return returned.then(
      () => this.check(matcher, signature, () => judgeThrown(undefined, wanted)),
      (error: unknown) => this.check(matcher, signature, () => judgeThrown({ value: error }, wanted)),
    ) as unknown as R;
  }

  /** Decides `judge` now, or once the promise settles; the table's and authors' matchers come through here too. */
  check(matcher: string, signature: string, judge: Judge): R {
    return this.settle(this.flags, this.received, matcher, signature, judge);
  }

  /** An `expect.extend` matcher: its verdict decides at once, or once its own promise settles. */
  custom(name: string, fn: CustomMatcher, args: readonly unknown[]): R {
    if (this.flags.promise) return this.check(name, "expected", (received, flags) => verdictOf(name, fn.call(matcherContext(flags), received, ...args)));
    const result = fn.call(matcherContext(this.flags), this.received, ...args);
    if (result instanceof Promise) {
      return settledVerdict(name, result).then((verdict) => this.check(name, "expected", () => verdict)) as unknown as R;
    }
    return this.check(name, "expected", () => verdictOf(name, result));
  }

  private awaiting(mode: "resolves" | "rejects"): Expectation<Promise<void>> {
    if (this.flags.promise) throw new TypeError(`expect(): .${mode} cannot follow .${this.flags.promise}`);
    return new Expectation(this.received, { ...this.flags, promise: mode }, settleLater);
  }
}

/** The asymmetric matchers `expect.not` offers. */
export interface InverseAsymmetricMatchers {
  stringContaining(substring: string): AsymmetricMatcher;
  stringMatching(pattern: string | RegExp): AsymmetricMatcher;
  objectContaining(properties: object): AsymmetricMatcher;
  arrayContaining(items: readonly unknown[]): AsymmetricMatcher;
  /** A number within `10 ** -precision / 2` of `expected` (as toBeCloseTo); `expect.not.closeTo` a number outside it. */
  closeTo(expected: number, precision?: number): AsymmetricMatcher;
}

/** The asymmetric matchers `expect.resolvesTo` and `expect.rejectsTo` wrap (expect/settled.ts). */
export interface SettledAsymmetricMatchers extends InverseAsymmetricMatchers {
  any(type: Function): AsymmetricMatcher;
  anything(): AsymmetricMatcher;
}

export interface Expect extends InverseAsymmetricMatchers {
  /** `label`, when given, heads the failure instead of `expect(received)...`. */
  (received: unknown, label?: string): Expectation<void>;
  /** Adds matchers: `expect(x).name(...)` and the asymmetric `expect.name(...)` / `expect.not.name(...)`. */
  extend(matchers: Record<string, CustomMatcher>): void;
  any(type: Function): AsymmetricMatcher;
  anything(): AsymmetricMatcher;
  readonly not: InverseAsymmetricMatchers & { readonly resolvesTo: SettledAsymmetricMatchers; readonly rejectsTo: SettledAsymmetricMatchers };
  /** A promise that has resolved to what the matcher accepts (`expect.resolvesTo.closeTo(1)`). */
  readonly resolvesTo: SettledAsymmetricMatchers;
  /** A promise that has rejected with what the matcher accepts (`expect.rejectsTo.any(Error)`). */
  readonly rejectsTo: SettledAsymmetricMatchers;
  /** The current test fails unless exactly `count` expect() calls were made in it. */
  assertions(count: number): void;
  /** The current test fails unless at least one expect() call was made in it. */
  hasAssertions(): void;
  /** Fails the test right here (bun's `expect.unreachable`). */
  unreachable(message?: string): never;
}

/** expect() calls made: in the running test, and in all. */
const counts = { inTest: 0, total: 0, wanted: undefined as number | undefined, wantedAny: false };
onHostReset(() => Object.assign(counts, { inTest: 0, total: 0, wanted: undefined, wantedAny: false }));

function asymmetricMatchers(inverse: boolean): InverseAsymmetricMatchers {
  return {
    stringContaining: (substring) => new StringContaining(requireString(substring, "expect.stringContaining"), inverse),
    stringMatching: (pattern) => new StringMatching(requireStringOrRegExp(pattern), inverse),
    objectContaining: (properties) => new ObjectContaining(requireObject(properties), inverse),
    arrayContaining: (items) => new ArrayContaining(requireArray(items), inverse),
    closeTo(expected: number, precision?: number): AsymmetricMatcher {
      if (typeof expected !== "number") throw new TypeError("expect.closeTo(number, precision?)\n\nExpected a number value");
      if (precision !== undefined && typeof precision !== "number") throw new TypeError("expect.closeTo(number, precision?)\n\nPrecision must be a number or undefined");
      return new CloseTo(expected, precision ?? 2, inverse);
    },
  };
}

function settledMatchers(inverse: boolean): { resolvesTo: SettledAsymmetricMatchers; rejectsTo: SettledAsymmetricMatchers } {
  const plain: SettledAsymmetricMatchers = { ...asymmetricMatchers(false), any: anyOf, anything: () => new Anything() };
  return { resolvesTo: settledFactories("resolves", plain, inverse), rejectsTo: settledFactories("rejects", plain, inverse) };
}

/** `expect.any(type)`; its errors are worded as bun's. */
function anyOf(...args: unknown[]): AsymmetricMatcher {
  const [type] = args;
  if (args.length === 0) throw new TypeError("any() expects to be passed a constructor function. Please pass one or use anything() to match any object.");
  if (typeof type !== "function") throw new TypeError("expect.any(constructor)\n\nExpected a constructor\n");
  return new AnyOf(type);
}

/** A string, or a `String` object (bun takes both). */
function requireString(value: unknown, caller: string): string {
  if (value instanceof String) return String(value);
  if (typeof value !== "string") throw new TypeError(`${caller}() expects a string, got ${format(value)}`);
  return value;
}

function requireStringOrRegExp(value: unknown): string | RegExp {
  if (typeof value !== "string" && !(value instanceof RegExp)) {
    throw new TypeError(`expect.stringMatching() expects a string or a RegExp, got ${format(value)}`);
  }
  return value;
}

function requireObject(value: unknown): object {
  if (!isObject(value)) throw new TypeError(`expect.objectContaining() expects an object, got ${format(value)}`);
  return value;
}

function requireArray(value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`expect.arrayContaining() expects an array, got ${format(value)}`);
  return value;
}

function expectValue(received: unknown, label?: string): Expectation<void> {
  counts.inTest++;
  counts.total++;
  // A label that is not a string is ignored, as bun does.
  const flags: Flags = typeof label === "string" ? { negated: false, promise: "", label } : { negated: false, promise: "" };
  return new Expectation<void>(received, flags, settleNow);
}

for (const [name, entry] of Object.entries(MATCHER_TABLE)) {
  Object.defineProperty(Expectation.prototype, name, {
    value: function (this: Expectation<void>, ...args: unknown[]) {
      const [signature, judge] = (entry as (...values: unknown[]) => readonly [string, Judge])(...args);
      return this.check(name, signature, judge);
    },
    writable: true,
    configurable: true,
  });
}

function extend(matchers: Record<string, CustomMatcher>): void {
  for (const [name, fn] of requireMatchers(matchers)) {
    Object.defineProperty(Expectation.prototype, name, {
      value: function (this: Expectation<void>, ...args: unknown[]) {
        return this.custom(name, fn, args);
      },
      writable: true,
      configurable: true,
    });
    const asymmetric = (inverse: boolean) => (...args: unknown[]) => new CustomAsymmetric(name, fn, args, inverse);
    Object.defineProperty(expect, name, { value: asymmetric(false), writable: true, configurable: true });
    Object.defineProperty(expect.not, name, { value: asymmetric(true), writable: true, configurable: true });
    for (const [holder, inverse] of [[expect, false], [expect.not, true]] as const) {
      for (const [settled, settlement] of [[holder.resolvesTo, "resolves"], [holder.rejectsTo, "rejects"]] as const) {
        const wrap = (...args: unknown[]) => new Settled(settlement, new CustomAsymmetric(name, fn, args, false), inverse);
        Object.defineProperty(settled, name, { value: wrap, writable: true, configurable: true });
      }
    }
  }
}

export const expect: Expect = Object.assign(expectValue, {
  ...asymmetricMatchers(false),
  ...settledMatchers(false),
  not: { ...asymmetricMatchers(true), ...settledMatchers(true) },
  any: anyOf,
  anything: (): AsymmetricMatcher => new Anything(),
  extend,
  assertions(count: number): void {
    counts.wanted = count;
  },
  hasAssertions(): void {
    counts.wantedAny = true;
  },
  unreachable(message?: string): never {
    throw new AssertionError({ matcher: "unreachable", pass: false, headline: message ?? "reached unreachable code", details: "", received: undefined });
  },
});

/** Where the matchers live (and `expect.extend` adds its own): shared by every test file of a host. */
export const expectationPrototype: object = Expectation.prototype;

/** The snapshot matchers: js/test/snapshot.ts, loaded by the first file that uses one. */
interface SnapshotMatchers {
  init(settings: SnapshotSettings): void;
  matchSnapshot(received: unknown, flags: Flags, args: readonly unknown[]): ReturnType<Judge>;
  matchThrownSnapshot(received: unknown, flags: Flags, hint: unknown): ReturnType<Judge>;
  matchInlineSnapshot(received: unknown, flags: Flags, args: readonly unknown[], site: InlineCallSite | undefined): ReturnType<Judge>;
  matchThrownInlineSnapshot(received: unknown, flags: Flags, args: readonly unknown[], site: InlineCallSite | undefined): ReturnType<Judge>;
  finish(): SnapshotCounts | undefined;
}

const snapshotState: { load?: () => object; settings?: SnapshotSettings; loaded?: SnapshotMatchers } = {};
onHostReset(() => {
  snapshotState.load = undefined;
  snapshotState.settings = undefined;
  snapshotState.loaded = undefined;
});

type InlineCallSite = { readonly line: number; readonly column: number };

/** Where in the test file an inline snapshot matcher was called (the frame above the matcher's); undefined when not from the test file. */
function callerSite(): InlineCallSite | undefined {
  const frame = stackFrames(new Error().stack)[2];
  const location = frame === undefined ? undefined : frameLocation(frame);
  if (!location || location.file !== snapshotState.settings?.file) return undefined;
  return { line: location.line, column: location.column };
}

/** The file runner says how to load the snapshot module and for which file; nothing loads until a snapshot matcher runs. */
export function configureSnapshots(load: () => object, settings: SnapshotSettings): void {
  snapshotState.load = load;
  snapshotState.settings = settings;
}

function snapshots(): SnapshotMatchers {
  if (snapshotState.loaded) return snapshotState.loaded;
  if (!snapshotState.load || !snapshotState.settings) throw new TypeError("snapshot matchers work only in test files `awf test` runs");
  const loaded = snapshotState.load() as SnapshotMatchers;
  loaded.init(snapshotState.settings);
  snapshotState.loaded = loaded;
  return loaded;
}

/** Writes the file's snapshots once its tests are done; the counts, or undefined when it used none. */
export function finishSnapshots(): SnapshotCounts | undefined {
  return snapshotState.loaded?.finish();
}

/** The runner calls this as each test starts: `expect.assertions` and the per-test count start over. */
export function beginTestAssertions(): void {
  counts.inTest = 0;
  counts.wanted = undefined;
  counts.wantedAny = false;
}

/** The runner calls this after a test body passed: the failure `expect.assertions` / `hasAssertions` asked for, if any. */
export function checkTestAssertions(): AssertionError | undefined {
  const made = counts.inTest;
  const plural = (count: number): string => `${count} assertion${count === 1 ? "" : "s"}`;
  if (counts.wanted !== undefined && made !== counts.wanted) {
    const headline = `expected ${plural(counts.wanted)}, but test ended with ${plural(made)}`;
    return new AssertionError({ matcher: "assertions", pass: false, headline, details: "", received: made });
  }
  if (counts.wantedAny && made === 0) {
    const headline = "expected at least one assertion, but test ended with 0 assertions";
    return new AssertionError({ matcher: "hasAssertions", pass: false, headline, details: "", received: made });
  }
  return undefined;
}

/** expect() calls made so far, in every test (bun's closing "N expect() calls"). */
export function expectCallCount(): number {
  return counts.total;
}
