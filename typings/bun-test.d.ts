// typings/bun-test.d.ts — editor typings for the `bun:test` module (alias `awf:test`) as awf serves it.
//
// Covers what js/test/bun_test.ts and js/test/expect.ts implement: test/it and describe with
// their modifiers, the hooks, and expect with its matchers and asymmetric matchers. Names
// and shapes follow bun's own typings, so a test file written for `bun test` type-checks
// unchanged. Mocks (`mock`, `spyOn`) and snapshot matchers are not provided.

declare module "bun:test" {
  export type DoneCallback = (error?: unknown) => void;

  export interface TestOptions {
    /** Milliseconds before the test fails as timed out (default 5000). */
    timeout?: number;
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
    each: TestEach;
  }

  export interface Test extends TestFunction {
    /** When any test or describe in the file has `.only`, only those run. */
    readonly only: TestFunction;
    readonly skip: TestFunction;
    /** Listed as todo; the body, if given, does not run. */
    readonly todo: TestFunction;
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
    each: DescribeEach;
  }

  export interface Describe extends DescribeFunction {
    readonly only: DescribeFunction;
    readonly skip: DescribeFunction;
    readonly todo: DescribeFunction;
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
  }

  /** The asymmetric matchers: usable anywhere inside an expected value. Typed `any` so they fit any field. */
  export interface AsymmetricMatchers {
    stringContaining(substring: string): any;
    /** A string pattern is a plain substring, as in bun. */
    stringMatching(pattern: string | RegExp): any;
    objectContaining(properties: object): any;
    arrayContaining(items: readonly unknown[]): any;
  }

  export interface Expect extends AsymmetricMatchers {
    (actual?: unknown): Matchers<void>;
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
