// js/test/registration.ts — the registering half of `bun:test`: `test`/`it` and `describe`
// with their modifiers (.only .skip .todo .each .if .skipIf .todoIf .failing .concurrent
// .serial) and the four hooks. Each puts what it was given into the registry (registry.ts);
// `.each` names come from each_name.ts. Nothing runs here: run.ts runs what was registered.

import { eachName } from "./each_name.ts";
import { format } from "./expect.ts";
import { markRunnerModule } from "./failure.ts";
import { addHook, addSuite, addTest, type Concurrency, type Expecting, type Label, labelText, type Mark, type TestBody, type TestKind, type TestOptions } from "./registry.ts";

markRunnerModule();

/** Registers one row per table entry: an array row is spread into the body's arguments, anything else is its one argument. */
export type EachRegister = (label: Label, body: TestBody, options?: number | TestOptions) => void;

export interface TestFunction {
  (label: Label, body?: TestBody, options?: number | TestOptions): void;
  (label: Label, options: number | TestOptions, body: TestBody): void;
  each(table: readonly unknown[]): EachRegister;
}

export interface Test extends TestFunction {
  readonly only: TestFunction;
  readonly skip: TestFunction;
  readonly todo: TestFunction;
  /** Passes when the body fails (bun's `test.failing`). */
  readonly failing: TestFunction;
  /** Registered and reported; awf runs them one after another. Snapshot files refuse a concurrent test, as in bun. */
  readonly concurrent: Test;
  /** Not concurrent, even in a `describe.concurrent`. */
  readonly serial: Test;
  /** Runs the test when `condition` is truthy, else skips it. */
  if(condition: unknown): TestFunction;
  skipIf(condition: unknown): TestFunction;
  todoIf(condition: unknown): TestFunction;
}

export interface DescribeFunction {
  (label: Label, body: () => unknown): void;
  (body: () => unknown): void;
  each(table: readonly unknown[]): (label: Label, body: TestBody) => void;
}

export interface Describe extends DescribeFunction {
  readonly only: DescribeFunction;
  readonly skip: DescribeFunction;
  readonly todo: DescribeFunction;
  /** Its tests are concurrent ones (unless `.serial`); awf runs them one after another. */
  readonly concurrent: Describe;
  /** Its tests are not concurrent ones (unless `.concurrent`), even in a `describe.concurrent`. */
  readonly serial: Describe;
  if(condition: unknown): DescribeFunction;
  skipIf(condition: unknown): DescribeFunction;
  todoIf(condition: unknown): DescribeFunction;
}

/**
 * bun takes `(label, body, options)` and `(label, options, body)`; options may be a time limit.
 * Only a skipped or todo test may come without a body, and then without options too; any other
 * is refused with bun's words, naming the function called.
 */
function testArguments(kind: TestKind, each: boolean, second: unknown, third: unknown): { body: TestBody | undefined; options: number | TestOptions | undefined } {
  if (typeof second === "function") return { body: second as TestBody, options: third as number | TestOptions | undefined };
  if (typeof third === "function") return { body: third as TestBody, options: second as number | TestOptions };
  const placeholder = (kind.mark === "skip" || kind.mark === "todo") && second === undefined && third === undefined;
  if (!placeholder) throw new Error(`${functionName(kind, each)} expects a function as the second argument`);
  return { body: undefined, options: undefined };
}

/** The name bun gives the function a test was registered with, in its refusals. */
function functionName(kind: TestKind, each: boolean): string {
  const name =
    kind.mark === "only"
      ? "test.only"
      : kind.expecting === "failing"
        ? "test.failing"
        : kind.concurrency === "concurrent"
          ? "test.concurrent"
          : kind.mark === "run"
            ? "test"
            : `test.${kind.mark}`;
  return each ? `${name}.each()` : name;
}

function testFunction(kind: TestKind): TestFunction {
  const register = (label: Label, second?: unknown, third?: unknown): void => {
    const { body, options } = testArguments(kind, false, second, third);
    addTest(kind, label, body, options, []);
  };
  const each =
    (table: readonly unknown[]): EachRegister =>
    (label: Label, second?: unknown, third?: unknown) => {
      const { body, options } = testArguments(kind, true, second, third);
      eachRow(table, label, (name, args) => addTest(kind, name, body, options, args));
    };
  return Object.assign(register, { each }) as TestFunction;
}

function describeFunction(mark: Mark, concurrency: Concurrency): DescribeFunction {
  const register = (label: Label | (() => unknown), body?: () => unknown): void => addSuite(mark, concurrency, label, body, []);
  const each =
    (table: readonly unknown[]) =>
    (label: Label, body: TestBody): void =>
      eachRow(table, label, (name, args) => addSuite(mark, concurrency, name, body, args));
  return Object.assign(register, { each });
}

function eachRow(table: readonly unknown[], label: Label, register: (name: string, args: readonly unknown[]) => void): void {
  if (!Array.isArray(table)) throw new TypeError(`.each() expects an array of rows, got ${format(table)}`);
  table.forEach((row: unknown, index) => {
    const args: readonly unknown[] = Array.isArray(row) ? row : [row];
    register(eachName(labelText(label), args, index), args);
  });
}

/** `test`, `test.only`, `test.skip`, `test.todo`, `test.each`, `test.if`, `test.skipIf`, `test.todoIf`. */
function makeTest(concurrency: Concurrency): Test {
  const kind = (mark: Mark, expecting: Expecting = "pass"): TestFunction => testFunction({ mark, expecting, concurrency });
  return Object.assign(kind("run"), {
    only: kind("only"),
    skip: kind("skip"),
    todo: kind("todo"),
    failing: kind("run", "failing"),
    if: (condition: unknown) => kind(condition ? "run" : "skip"),
    skipIf: (condition: unknown) => kind(condition ? "skip" : "run"),
    todoIf: (condition: unknown) => kind(condition ? "todo" : "run"),
  }) as unknown as Test;
}
/** `test`, `test.concurrent` and `test.serial`, each with the others as its `.concurrent` and `.serial`. */
function makeTests(): Test {
  const tests = { inherit: makeTest("inherit"), concurrent: makeTest("concurrent"), serial: makeTest("serial") };
  for (const made of Object.values(tests)) Object.assign(made, { concurrent: tests.concurrent, serial: tests.serial });
  return tests.inherit;
}
export const test: Test = makeTests();

export const it: Test = test;

/** `describe`, nested freely, with the same modifiers as `test`. */
function makeDescribe(concurrency: Concurrency): Describe {
  const kind = (mark: Mark): DescribeFunction => describeFunction(mark, concurrency);
  return Object.assign(kind("run"), {
    only: kind("only"),
    skip: kind("skip"),
    todo: kind("todo"),
    if: (condition: unknown) => kind(condition ? "run" : "skip"),
    skipIf: (condition: unknown) => kind(condition ? "skip" : "run"),
    todoIf: (condition: unknown) => kind(condition ? "todo" : "run"),
  }) as unknown as Describe;
}
/** `describe`, `describe.concurrent` and `describe.serial`, each with the others as its `.concurrent` and `.serial`. */
function makeDescribes(): Describe {
  const describes = { inherit: makeDescribe("inherit"), concurrent: makeDescribe("concurrent"), serial: makeDescribe("serial") };
  for (const made of Object.values(describes)) Object.assign(made, { concurrent: describes.concurrent, serial: describes.serial });
  return describes.inherit;
}
export const describe: Describe = makeDescribes();

/** Runs once, before the first test of the describe it sits in (or of the file, at the top level). */
export function beforeAll(body: TestBody, timeoutMs?: number): void {
  addHook("beforeAll", body, timeoutMs);
}
/** Runs once, after the last test of its describe. */
export function afterAll(body: TestBody, timeoutMs?: number): void {
  addHook("afterAll", body, timeoutMs);
}
/** Runs before every test in its describe, outer describes' hooks first. */
export function beforeEach(body: TestBody, timeoutMs?: number): void {
  addHook("beforeEach", body, timeoutMs);
}
/** Runs after every test in its describe, inner describes' hooks first; a throw fails the test. */
export function afterEach(body: TestBody, timeoutMs?: number): void {
  addHook("afterEach", body, timeoutMs);
}
