// typings/bun-test.d.ts — editor typings for the `bun:test` module (alias `awf:test`) as awf serves it.
//
// Covers what js/test/ implements: test/it and describe with their modifiers, the hooks,
// expect with its matchers (the jest-extended set and the mock matchers too), expect.extend,
// mock/spyOn/jest, and fake timers. Names and shapes follow bun's own typings, so a test file
// written for `bun test` type-checks unchanged. Snapshot matchers (`toMatchSnapshot`,
// `toThrowErrorMatchingSnapshot`) and `mock.module` are here; inline snapshots are not.

declare module "bun:test" {
  export type DoneCallback = (error?: unknown) => void;

  export interface TestOptions {
    /** Milliseconds before the test fails as timed out (default 5000). */
    timeout?: number;
    /** Runs a failing test again, up to this many more times, until it passes. */
    retry?: number;
    /** Runs a passing test this many more times; every run must pass. */
    repeats?: number;
  }

  /** A test's name; a function or class stands for its `name`. */
  export type Label = string | number | Function;

  export type TestBody = (() => unknown) | ((done: DoneCallback) => unknown);

  /**
   * `.each(table)(name, fn)`: one test per row. An array row is spread into `fn`'s arguments,
   * any other row is its single argument. The name may use `%s %d %i %f %j %o %p %# %%`, and
   * `$key` / `$key.path` for object rows.
   */
  export interface TestEach {
    <Row extends readonly [unknown, ...unknown[]]>(
      table: readonly Row[],
    ): (label: Label, fn: (...args: Row) => unknown, options?: number | TestOptions) => void;
    <Row>(table: readonly Row[]): (label: Label, fn: (row: Row) => unknown, options?: number | TestOptions) => void;
  }

  /** `describe.each(table)(name, fn)`: one describe per row, rows passed as for `test.each`. */
  export interface DescribeEach {
    <Row extends readonly [unknown, ...unknown[]]>(table: readonly Row[]): (label: Label, fn: (...args: Row) => unknown) => void;
    <Row>(table: readonly Row[]): (label: Label, fn: (row: Row) => unknown) => void;
  }

  export interface TestFunction {
    (label: Label, fn?: TestBody, options?: number | TestOptions): void;
    (label: Label, options: number | TestOptions, fn: TestBody): void;
    each: TestEach;
  }

  export interface Test extends TestFunction {
    /** When any test or describe in the file has `.only`, only those run. */
    readonly only: TestFunction;
    readonly skip: TestFunction;
    /** Listed as todo; the body, if given, does not run. */
    readonly todo: TestFunction;
    /** Passes when the body fails (or an error nobody caught, from a timer say, comes while it runs), and fails when it passes. */
    readonly failing: TestFunction;
    /** Loads and reports as in bun; awf runs the tests one after another. Snapshot-file matchers throw in it, as in bun. */
    readonly concurrent: Test;
    /** Not concurrent, even inside a `describe.concurrent`. */
    readonly serial: Test;
    /** Runs the test when `condition` is truthy, else skips it. */
    if(condition: unknown): TestFunction;
    skipIf(condition: unknown): TestFunction;
    todoIf(condition: unknown): TestFunction;
  }

  /**
   * As in bun, describe bodies run after the file's top-level code, each after the one before
   * it (an async body is awaited), nested ones after their parent's body.
   */
  export interface DescribeFunction {
    (label: Label, fn: () => unknown): void;
    /** Without a label: adds nothing to its tests' names. */
    (fn: () => unknown): void;
    each: DescribeEach;
  }

  export interface Describe extends DescribeFunction {
    readonly only: DescribeFunction;
    readonly skip: DescribeFunction;
    readonly todo: DescribeFunction;
    readonly concurrent: Describe;
    readonly serial: Describe;
    if(condition: unknown): DescribeFunction;
    skipIf(condition: unknown): DescribeFunction;
    todoIf(condition: unknown): DescribeFunction;
  }

  export const test: Test;
  export const it: Test;
  export const describe: Describe;

  export type HookBody = (() => unknown) | ((done: DoneCallback) => unknown);
  /** Once, before the first test of the enclosing describe (or file). */
  export function beforeAll(fn: HookBody, timeoutMs?: number): void;
  /** Once, after the last test of the enclosing describe (or file). */
  export function afterAll(fn: HookBody, timeoutMs?: number): void;
  /** Before each test inside, outer describes' hooks first. */
  export function beforeEach(fn: HookBody, timeoutMs?: number): void;
  /** After each test inside, inner describes' hooks first; a throw fails the test. */
  export function afterEach(fn: HookBody, timeoutMs?: number): void;

  /** Matchers return `R`: `void`, or `Promise<void>` after `.resolves` / `.rejects` (await it). */
  export interface Matchers<R = void> {
    /** Inverts the matcher that follows. */
    readonly not: Matchers<R>;
    /** Waits for the promise and applies the matcher to its value. */
    readonly resolves: Matchers<Promise<void>>;
    /** Waits for the promise to reject and applies the matcher to the reason. */
    readonly rejects: Matchers<Promise<void>>;

    /** `Object.is` identity. */
    toBe(expected: unknown): R;
    /** Recursive equality; `undefined` properties are ignored, classes are not compared. */
    toEqual(expected: unknown): R;
    /** Like toEqual, but `undefined` properties, array holes and classes count. */
    toStrictEqual(expected: unknown): R;
    /** Received has every property of `expected`, recursively; extra properties are fine. */
    toMatchObject(expected: object): R;
    /** A substring of a string, or an item (`===`) of an array or other iterable. */
    toContain(expected: unknown): R;
    /** An item of an array or other iterable, by toEqual. */
    toContainEqual(expected: unknown): R;
    toHaveLength(length: number): R;
    /** A path like `"a.b[0].c"` or `["a", "b.c"]`; with a value, the property must also equal it. */
    toHaveProperty(path: string | readonly (string | number)[], value?: unknown): R;
    toBeDefined(): R;
    toBeUndefined(): R;
    toBeNull(): R;
    toBeTruthy(): R;
    toBeFalsy(): R;
    toBeNaN(): R;
    toBeGreaterThan(expected: number | bigint): R;
    toBeGreaterThanOrEqual(expected: number | bigint): R;
    toBeLessThan(expected: number | bigint): R;
    toBeLessThanOrEqual(expected: number | bigint): R;
    /** |expected - received| < 10^-precision / 2; precision defaults to 2. */
    toBeCloseTo(expected: number, precision?: number): R;
    toBeInstanceOf(type: Function): R;
    /** A string is looked for as a substring, a RegExp is tested. */
    toMatch(expected: string | RegExp): R;
    /**
     * The function throws (or, after `.rejects`, the promise rejects); optionally with a message
     * containing a string, matching a RegExp, equal to an Error's message, or of a class.
     */
    toThrow(expected?: string | RegExp | Error | Function | object): R;
    toThrowError(expected?: string | RegExp | Error | Function | object): R;
    /**
     * Compares with the test's snapshot in `__snapshots__/<file>.snap` (named after the test,
     * then `: hint`, then its number), or writes it the first time; `awf test -u` rewrites it.
     * Property matchers (`{ id: expect.any(Number) }`) must match first and are what the
     * snapshot shows for those properties.
     */
    toMatchSnapshot(hint?: string): R;
    toMatchSnapshot(propertyMatchers: object, hint?: string): R;
    /** The message of what the function throws (or the promise rejects with), as a snapshot. */
    toThrowErrorMatchingSnapshot(hint?: string): R;

    // Mock matchers: received must be a `mock()`, `jest.fn()` or `spyOn()` function.
    toHaveBeenCalled(): R;
    toHaveBeenCalledOnce(): R;
    toHaveBeenCalledTimes(expected: number): R;
    /** Some call's arguments equal these (toEqual). */
    toHaveBeenCalledWith(...expected: unknown[]): R;
    toHaveBeenLastCalledWith(...expected: unknown[]): R;
    /** `n` counts from 1. */
    toHaveBeenNthCalledWith(n: number, ...expected: unknown[]): R;
    /** At least one call returned rather than threw. */
    toHaveReturned(): R;
    toHaveReturnedTimes(expected: number): R;
    toHaveReturnedWith(expected: unknown): R;
    toHaveLastReturnedWith(expected: unknown): R;
    toHaveNthReturnedWith(n: number, expected: unknown): R;
    toBeCalled(): R;
    toBeCalledTimes(expected: number): R;
    toBeCalledWith(...expected: unknown[]): R;
    lastCalledWith(...expected: unknown[]): R;
    nthCalledWith(n: number, ...expected: unknown[]): R;
    toReturn(): R;
    toReturnTimes(expected: number): R;
    toReturnWith(expected: unknown): R;
    lastReturnedWith(expected: unknown): R;
    nthReturnedWith(n: number, expected: unknown): R;

    // The jest-extended matchers bun ships.
    toBeArray(): R;
    toBeArrayOfSize(size: number): R;
    toBeBoolean(): R;
    toBeDate(): R;
    toBeValidDate(): R;
    toBeFunction(): R;
    toBeNumber(): R;
    toBeString(): R;
    toBeSymbol(): R;
    toBeObject(): R;
    toBeTrue(): R;
    toBeFalse(): R;
    /** `null` or `undefined`. */
    toBeNil(): R;
    toBeInteger(): R;
    toBeFinite(): R;
    toBePositive(): R;
    toBeNegative(): R;
    toBeEven(): R;
    toBeOdd(): R;
    /** An empty string, array, Map, Set or other iterable, or an object without keys. */
    toBeEmpty(): R;
    toBeEmptyObject(): R;
    toBeTypeOf(type: "string" | "number" | "bigint" | "boolean" | "symbol" | "undefined" | "object" | "function"): R;
    /** start <= received < end. */
    toBeWithin(start: number, end: number): R;
    /** Equal (toEqual) to one of the items. */
    toBeOneOf(expected: Iterable<unknown>): R;
    toInclude(expected: string): R;
    toIncludeRepeated(expected: string, times: number): R;
    toStartWith(expected: string): R;
    toEndWith(expected: string): R;
    toEqualIgnoringWhitespace(expected: string): R;
    /** What the predicate throws goes through (even under .not). */
    toSatisfy(predicate: (value: any) => boolean): R;
    /** Always passes (under .not, always fails with `message`). */
    pass(message?: string): R;
    /** Always fails with `message`. */
    fail(message?: string): R;
    toContainKey(key: PropertyKey): R;
    toContainKeys(keys: readonly PropertyKey[]): R;
    /** Exactly these keys, in any order. */
    toContainAllKeys(keys: readonly PropertyKey[]): R;
    toContainAnyKeys(keys: readonly PropertyKey[]): R;
    toContainValue(value: unknown): R;
    toContainValues(values: readonly unknown[]): R;
    toContainAllValues(values: readonly unknown[]): R;
    toContainAnyValues(values: readonly unknown[]): R;
  }

  /** What an `expect.extend` matcher returns (or resolves to). */
  export interface CustomMatcherResult {
    pass: boolean;
    message?: string | (() => string);
  }

  export interface MatcherContext {
    isNot: boolean;
    promise: string;
    equals(a: unknown, b: unknown): boolean;
    utils: {
      printReceived(value: unknown): string;
      printExpected(value: unknown): string;
      stringify(value: unknown): string;
      matcherHint(name: string, received?: string, expected?: string): string;
      diff(expected: unknown, received: unknown): string;
    };
  }

  export type CustomMatcher = (this: MatcherContext, received: any, ...args: any[]) => CustomMatcherResult | Promise<CustomMatcherResult>;

  /** One call's outcome in `.mock.results`. */
  export type MockResult = { type: "return"; value: any } | { type: "throw"; value: any } | { type: "incomplete"; value: undefined };

  /** A mock function: callable like the function it stands for, recording every call. */
  export interface Mock<T extends (...args: any[]) => any = (...args: any[]) => any> {
    (...args: Parameters<T>): ReturnType<T>;
    new (...args: Parameters<T>): any;
    readonly mock: {
      calls: Parameters<T>[];
      results: MockResult[];
      instances: any[];
      contexts: any[];
      invocationCallOrder: number[];
      readonly lastCall: Parameters<T> | undefined;
    };
    mockImplementation(fn: T | undefined): this;
    mockImplementationOnce(fn: T): this;
    mockReturnValue(value: ReturnType<T>): this;
    mockReturnValueOnce(value: ReturnType<T>): this;
    mockResolvedValue(value: Awaited<ReturnType<T>>): this;
    mockResolvedValueOnce(value: Awaited<ReturnType<T>>): this;
    mockRejectedValue(value: unknown): this;
    mockRejectedValueOnce(value: unknown): this;
    mockReturnThis(): this;
    mockName(name: string): this;
    getMockName(): string;
    getMockImplementation(): T | undefined;
    /** Uses `fn` while `callback` runs (until its promise settles, when it returns one). */
    withImplementation(fn: T, callback: () => unknown): unknown;
    /** Forgets the calls; keeps the implementation. */
    mockClear(): this;
    /** Forgets the calls and the implementation. */
    mockReset(): this;
    /** mockReset, and a spy puts the original back. */
    mockRestore(): this;
  }

  /** `mock(fn?)`: a mock function that calls `fn`, if given; `mock(value)` returns `value`. `jest.fn` and `vi.fn` are this function. */
  export const mock: {
    <T extends (...args: any[]) => any>(fn?: T): Mock<T>;
    <V>(value: V): Mock<() => V>;
    /** Every spy gets its original back. */
    restore(): void;
    clearAllMocks(): void;
    /**
     * Replaces the module for the imports that follow (a dynamic `import()`, or a file first
     * loaded after this call): they get the factory's object as the module's exports. Modules
     * that imported it before keep the original. The factory must return the object, not a promise.
     */
    module(specifier: string, factory: () => object): void;
  };

  /** Replaces `object[key]` with a mock that calls the original; `mockRestore()` puts it back. */
  export function spyOn<T extends object, K extends keyof T>(object: T, key: K): Mock<T[K] extends (...args: any[]) => any ? T[K] : () => T[K]>;

  /** Sets what `Date` reads (with fake timers, their clock); without an argument, back to real time. */
  export function setSystemTime(time?: number | Date | string): void;

  export interface Jest {
    fn: typeof mock;
    spyOn: typeof spyOn;
    isMockFunction(value: unknown): value is Mock;
    clearAllMocks(): void;
    resetAllMocks(): void;
    restoreAllMocks(): void;
    /** Swaps setTimeout/setInterval/setImmediate, their clear* twins and Date for fakes on a clock only the test moves. */
    useFakeTimers(options?: { now?: number | Date }): void;
    useRealTimers(): void;
    isFakeTimers(): boolean;
    advanceTimersByTime(ms: number): void;
    advanceTimersToNextTimer(steps?: number): void;
    /** Fires timers, and the timers they start, until none is left. */
    runAllTimers(): void;
    runOnlyPendingTimers(): void;
    getTimerCount(): number;
    clearAllTimers(): void;
    now(): number;
    setSystemTime(time?: number | Date | string): void;
    /** The time limit of this file's tests and hooks that set none. */
    setTimeout(ms: number): void;
  }

  export const jest: Jest;
  export const vi: Jest;

  /** The asymmetric matchers: usable anywhere inside an expected value. Typed `any` so they fit any field. */
  export interface AsymmetricMatchers {
    stringContaining(substring: string): any;
    /** A string pattern is a plain substring, as in bun. */
    stringMatching(pattern: string | RegExp): any;
    objectContaining(properties: object): any;
    arrayContaining(items: readonly unknown[]): any;
  }

  export interface Expect extends AsymmetricMatchers {
    /** `label`, when given, heads the failure message instead of `expect(received)...`. */
    (actual?: unknown, label?: string): Matchers<void>;
    /** Adds matchers: `expect(x).name(...)`, and the asymmetric `expect.name(...)`. */
    extend(matchers: Record<string, CustomMatcher>): void;
    /** A number within 10^-precision / 2 of `expected` (precision defaults to 2). */
    closeTo(expected: number, precision?: number): any;
    /** Any value made by `type`; `Number`, `String`, `Boolean`, `BigInt`, `Symbol` match primitives too. */
    any(type: Function): any;
    /** Anything but `null` and `undefined`. */
    anything(): any;
    /** The inverted forms: `expect.not.stringContaining("x")` matches strings without "x". */
    readonly not: AsymmetricMatchers;
    /** The current test fails unless it makes exactly `count` expect() calls. */
    assertions(count: number): void;
    /** The current test fails unless it makes at least one expect() call. */
    hasAssertions(): void;
    /** Fails the test here. */
    unreachable(message?: string): never;
  }

  export const expect: Expect;
}

declare module "awf:test" {
  export * from "bun:test";
}

declare module "@jest/globals" {
  export * from "bun:test";
}
