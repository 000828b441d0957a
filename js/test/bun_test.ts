// js/test/bun_test.ts — the `bun:test` module (alias `awf:test`): registering tests, then running them.
//
// Owns `test`/`it` and `describe` with their modifiers (.only .skip .todo .each .if .skipIf
// .todoIf .failing .concurrent .serial), the four hooks, and `runRegisteredTests()`: the order
// bun runs things in, `.only` and `-t` filtering, per-test timeouts, retries and repeats, done
// callbacks, and turning whatever a test throws into a reported failure. `.each` names come
// from each_name.ts; `mock`/`spyOn` (mock.ts), `jest` (jest.ts) and `setSystemTime`
// (fake_timers.ts) are re-exported. Top-level tests register while the test file's module evaluates;
// the host then calls `runRegisteredTests()`, once, which first runs the describe bodies (bun
// defers them, and awaits async ones) and then the tests. Nothing here prints: results go to the
// `TestEvents` the host passes in (report.ts prints them as bun does; the engine forwards them
// to its Rust reporter). `expect` lives in expect.ts and is re-exported.

import {
  AssertionError,
  beginTestAssertions,
  callerSourceFile,
  checkTestAssertions,
  expectCallCount,
  format,
  frameFile,
  isExpectFile,
  stackFrames,
} from "./expect.ts";

import { onHostReset } from "../core.ts";
import { eachName } from "./each_name.ts";
import { defaults } from "./jest.ts";

export { AssertionError, AsymmetricMatcher, expect } from "./expect.ts";
export { mock, spyOn } from "./mock.ts";
export { jest, vi } from "./jest.ts";
export { setSystemTime } from "./fake_timers.ts";

// Host globals the engine provides (QuickJS has no timers of its own), taken before a test can
// fake them (fake_timers.ts), so time limits keep real time.
declare const performance: { now(): number };
const hostTimers = globalThis as unknown as { setTimeout(callback: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
const setTimeout = hostTimers.setTimeout;
const clearTimeout = hostTimers.clearTimeout;

/** bun's default per-test (and per-hook) time limit. */
export const DEFAULT_TIMEOUT_MS = 5000;

// ---------------------------------------------------------------------------------------------
// What the host sees.

/** A test as reported: the names of the describes around it, outermost first, and its own name. */
export interface TestInfo {
  readonly path: readonly string[];
  readonly name: string;
}

/** Why a test failed, as plain data the host can carry across to Rust. */
export interface TestFailure {
  /** `AssertionError` for a failed matcher, `TimeoutError` for a time-out, else the thrown error's name. */
  readonly name: string;
  /** For a matcher, its headline (`expect(received).toEqual(expected)`); else the error's message. */
  readonly message: string;
  /** For a matcher: the Expected/Received lines or the `- Expected` / `+ Received` line diff. */
  readonly diff?: string;
  /** The `at ...` frames outside the test runner, innermost first, one per line, unindented. */
  readonly stack?: string;
}

/** The results of one test file, in the order they happen. */
export interface TestEvents {
  /** `failing` for a `test.failing`: an error nobody caught while it runs makes it pass. */
  start(test: TestInfo, failing: boolean): void;
  pass(test: TestInfo, durationMs: number): void;
  fail(test: TestInfo, durationMs: number, failure: TestFailure): void;
  skip(test: TestInfo): void;
  todo(test: TestInfo): void;
  /** A failure outside any test (a describe body or an afterAll hook threw); it counts as a failure. */
  error(where: string, failure: TestFailure): void;
}

export interface RunOptions {
  readonly events: TestEvents;
  /** `-t PATTERN`: runs only tests whose describe names and own name, joined by spaces, match (bun's rule). */
  readonly namePattern?: string | RegExp;
  /** Time limit of a test or hook that sets none (default 5000 ms). */
  readonly timeoutMs?: number;
}

export interface RunSummary {
  readonly passed: number;
  /** Tests that failed; failures outside tests are in `errors`. */
  readonly failed: number;
  readonly skipped: number;
  readonly todo: number;
  readonly errors: number;
  /** Tests left out by `.only` elsewhere in the file or by the name pattern; never reported. */
  readonly filtered: number;
  /** expect() calls made while the file loaded and ran. */
  readonly expectCalls: number;
}

// ---------------------------------------------------------------------------------------------
// The registry, filled while the test file evaluates.

export type DoneCallback = (error?: unknown) => void;
/** A test or hook body: sync, async, or taking a done callback (after the `.each` row values).
 * `any[]` so bodies may declare the row's types, `(a: number, b: string) => ...`. */
export type TestBody = (...args: any[]) => unknown;
export interface TestOptions {
  readonly timeout?: number;
  /** Runs a failing test again, up to this many more times, until it passes. */
  readonly retry?: number;
  /** Runs the test this many more times after it passes; every run must pass. */
  readonly repeats?: number;
}
/** bun takes a function or class as a name too, and uses its name. */
export type Label = string | number | Function;

type Mark = "run" | "only" | "skip" | "todo";
/** `.concurrent` or `.serial`, or "inherit": as the describe around it (the file's top level is serial). */
type Concurrency = "inherit" | "concurrent" | "serial";
/** How a test's outcome is read: `failing` passes when the body fails, and fails when it passes. */
type Expecting = "pass" | "failing";

interface Hook {
  readonly body: TestBody;
  readonly timeoutMs: number | undefined;
}

interface Hooks {
  readonly beforeAll: Hook[];
  readonly afterAll: Hook[];
  readonly beforeEach: Hook[];
  readonly afterEach: Hook[];
}

interface Suite {
  readonly kind: "suite";
  readonly name: string;
  readonly parent: Suite | undefined;
  readonly mark: Mark;
  /** Filled when its body runs, in the collection phase; emptied again if the body throws. */
  children: (Suite | TestCase)[];
  readonly hooks: Hooks;
  /** The describe body and its `.each` row values; none for the file's top level. */
  readonly body: TestBody | undefined;
  readonly args: readonly unknown[];
  readonly concurrency: Concurrency;
}

interface TestCase {
  readonly kind: "test";
  readonly name: string;
  readonly parent: Suite;
  readonly mark: Mark;
  readonly body: TestBody | undefined;
  /** The `.each` row values the body is called with. */
  readonly args: readonly unknown[];
  readonly timeoutMs: number | undefined;
  readonly retry: number;
  readonly repeats: number;
  readonly expecting: Expecting;
  readonly concurrency: Concurrency;
}

/** How a test is registered: by which of `test`'s functions. */
interface TestKind {
  readonly mark: Mark;
  readonly expecting: Expecting;
  readonly concurrency: Concurrency;
}

let root = newSuite("", undefined, "run", undefined, [], "serial");
/** The describe whose body is running now; tests and hooks register into it. */
let current: Suite = root;
/** loading: the file's module evaluates; collecting: describe bodies run; running: tests run. */
let phase: "loading" | "collecting" | "running" = "loading";
/** The test between its start and its result (its hooks included); snapshots are named after it. */
let runningTest: TestCase | undefined;
/** `afterAll` and `afterEach` called while the running test ran: they run after it, once, as in bun. */
let runningTestHooks: { afterAll: Hook[]; afterEach: Hook[] } = { afterAll: [], afterEach: [] };
/** The tests that ran and passed: a snapshot such a test did not check is obsolete. */
const passedTests = new Set<TestCase>();
// The host's next test file registers its own tests.
onHostReset(() => {
  root = newSuite("", undefined, "run", undefined, [], "serial");
  current = root;
  phase = "loading";
  runningTest = undefined;
  runningTestHooks = { afterAll: [], afterEach: [] };
  passedTests.clear();
});

function newSuite(name: string, parent: Suite | undefined, mark: Mark, body: TestBody | undefined, args: readonly unknown[], concurrency: Concurrency): Suite {
  const hooks = { beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] };
  return { kind: "suite", name, parent, mark, children: [], hooks, body, args, concurrency };
}

function refuseWhileRunning(what: string): void {
  if (phase === "running") {
    throw new Error(`${what}() was called while tests run; register tests and hooks at the top of the file or inside describe()`);
  }
}

function addTest({ mark, expecting, concurrency }: TestKind, label: Label, body: TestBody | undefined, options: number | TestOptions | undefined, args: readonly unknown[]): void {
  refuseWhileRunning("test");
  // A test without a body can only be a placeholder: bun lists it as todo.
  const effectiveMark = body === undefined ? "todo" : mark;
  const counted = (value: unknown): number => (typeof value === "number" && value > 0 ? Math.floor(value) : 0);
  const settings = typeof options === "object" && options !== null ? options : {};
  current.children.push({
    kind: "test",
    name: labelText(label),
    parent: current,
    mark: effectiveMark,
    body,
    args,
    timeoutMs: timeoutOf(options),
    retry: counted(settings.retry),
    repeats: counted(settings.repeats),
    expecting,
    concurrency,
  });
}

/** bun takes `(label, body, options)` and `(label, options, body)`; options may be a time limit. */
function testArguments(second: unknown, third: unknown): { body: TestBody | undefined; options: number | TestOptions | undefined } {
  if (typeof second === "function" || second === undefined) return { body: second as TestBody | undefined, options: third as number | TestOptions | undefined };
  if (typeof third === "function") return { body: third as TestBody, options: second as number | TestOptions };
  throw new TypeError(`test() expects a function as its body, got ${format(second)}`);
}

/** The body runs later, in `collect`: bun runs every describe body after the file's top-level code. */
function addSuite(mark: Mark, concurrency: Concurrency, label: Label | TestBody, maybeBody: TestBody | undefined, args: readonly unknown[]): void {
  refuseWhileRunning("describe");
  // `describe(fn)` without a label is named after the function, as in bun.
  const body = typeof label === "function" && maybeBody === undefined ? (label as TestBody) : maybeBody;
  if (typeof body !== "function") throw new TypeError(`describe() expects a function, got ${format(body)}`);
  current.children.push(newSuite(labelText(label as Label), current, mark, body, args, concurrency));
}

function addHook(kind: keyof Hooks, body: TestBody, timeoutMs: number | undefined): void {
  if (phase === "running" && runningTest && (kind === "afterAll" || kind === "afterEach")) {
    if (typeof body !== "function") throw new TypeError(`${kind}() expects a function`);
    runningTestHooks[kind].push({ body, timeoutMs });
    return;
  }
  refuseWhileRunning(kind);
  if (typeof body !== "function") throw new TypeError(`${kind}() expects a function`);
  current.hooks[kind].push({ body, timeoutMs });
}

function labelText(label: Label): string {
  return typeof label === "function" ? label.name : String(label);
}

function timeoutOf(options: number | TestOptions | undefined): number | undefined {
  return typeof options === "number" ? options : options?.timeout;
}

// ---------------------------------------------------------------------------------------------
// The public registration API.

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

function testFunction(kind: TestKind): TestFunction {
  const register = (label: Label, second?: unknown, third?: unknown): void => {
    const { body, options } = testArguments(second, third);
    addTest(kind, label, body, options, []);
  };
  const each =
    (table: readonly unknown[]): EachRegister =>
    (label: Label, second?: unknown, third?: unknown) => {
      const { body, options } = testArguments(second, third);
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

// ---------------------------------------------------------------------------------------------
// Which tests run.

type Disposition = "run" | "skip" | "todo" | "filtered";

/** Decided before anything runs, so a describe whose tests all skip runs none of its hooks. */
class Plan {
  private readonly dispositions = new Map<TestCase, Disposition>();
  private readonly runnable = new Map<Suite, boolean>();

  constructor(suite: Suite, pattern: RegExp | undefined) {
    const hasOnly = containsOnly(suite);
    this.decide(suite, hasOnly, pattern);
  }

  disposition(test: TestCase): Disposition {
    return this.dispositions.get(test) ?? "filtered";
  }

  hasRunnable(suite: Suite): boolean {
    return this.runnable.get(suite) ?? false;
  }

  count(disposition: Disposition): number {
    let total = 0;
    for (const value of this.dispositions.values()) if (value === disposition) total++;
    return total;
  }

  private decide(suite: Suite, hasOnly: boolean, pattern: RegExp | undefined): boolean {
    let any = false;
    for (const child of suite.children) {
      if (child.kind === "suite") {
        any = this.decide(child, hasOnly, pattern) || any;
      } else {
        const disposition = dispositionOf(child, hasOnly, pattern);
        this.dispositions.set(child, disposition);
        any = any || disposition === "run";
      }
    }
    this.runnable.set(suite, any);
    return any;
  }
}

function containsOnly(suite: Suite): boolean {
  return suite.children.some((child) => child.mark === "only" || (child.kind === "suite" && containsOnly(child)));
}

/** `.only` anywhere in the file leaves out every test not under one; then `-t`; then the nearest skip or todo mark decides. */
function dispositionOf(test: TestCase, hasOnly: boolean, pattern: RegExp | undefined): Disposition {
  const marks = marksOutward(test);
  if (hasOnly && !marks.includes("only")) return "filtered";
  if (pattern && !pattern.test([...pathOf(test), test.name].join(" "))) return "filtered";
  const decisive = marks.find((mark) => mark === "skip" || mark === "todo");
  return decisive ?? "run";
}

function marksOutward(test: TestCase): Mark[] {
  const marks: Mark[] = [test.mark];
  for (let suite: Suite | undefined = test.parent; suite; suite = suite.parent) marks.push(suite.mark);
  return marks;
}

function pathOf(test: TestCase): string[] {
  const names: string[] = [];
  // A describe without a label (`describe(() => {...})`) adds nothing to the path, as in bun.
  for (let suite: Suite | undefined = test.parent; suite && suite !== root; suite = suite.parent) if (suite.name !== "") names.unshift(suite.name);
  return names;
}

/** A test's snapshot name: its describes' names and its own, joined by spaces, as bun names snapshots. */
function snapshotNameOf(test: TestCase): string {
  return [...pathOf(test), test.name].join(" ");
}

/** Whether the test running now is a concurrent one: its own `.concurrent`, else its nearest describe's. */
export function runningTestIsConcurrent(): boolean {
  if (runningTest === undefined) return false;
  let concurrency = runningTest.concurrency;
  for (let suite: Suite | undefined = runningTest.parent; concurrency === "inherit" && suite; suite = suite.parent) concurrency = suite.concurrency;
  return concurrency === "concurrent";
}

/** The snapshot name of the test running now (its hooks included); undefined between tests. */
export function runningTestName(): string | undefined {
  return runningTest && snapshotNameOf(runningTest);
}

/** Every test the file registered, by snapshot name, and whether it ran and passed. */
export function registeredTests(): { name: string; passed: boolean }[] {
  const tests: { name: string; passed: boolean }[] = [];
  const visit = (suite: Suite): void => {
    for (const child of suite.children) {
      if (child.kind === "suite") visit(child);
      else tests.push({ name: snapshotNameOf(child), passed: passedTests.has(child) });
    }
  };
  visit(root);
  return tests;
}

// ---------------------------------------------------------------------------------------------
// Running.

/** A thrown value; wrapped because `undefined` can be thrown too. */
interface Caught {
  readonly thrown: unknown;
}

class TimeoutError extends Error {
  override name = "TimeoutError";
}

/**
 * Runs the tests the file registered, in order, and reports each through `options.events`.
 * Hooks run as in bun: beforeAll once before a describe's first test, beforeEach outer to
 * inner, afterEach inner to outer, afterAll after its last test. A throwing beforeAll or
 * beforeEach fails the tests it wraps; a throwing afterEach fails its test.
 */
export async function runRegisteredTests(options: RunOptions): Promise<RunSummary> {
  if (phase !== "loading") throw new Error("runRegisteredTests() runs once per test file");
  const pattern = typeof options.namePattern === "string" ? new RegExp(options.namePattern) : options.namePattern;
  phase = "collecting";
  const collectErrors: { where: string; thrown: unknown }[] = [];
  await collect(root, collectErrors);
  phase = "running";
  const run = new Run(options.events, new Plan(root, pattern), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (const { where, thrown } of collectErrors) run.reportError(where, thrown);
  await run.suite(root, undefined);
  return run.summary();
}

/**
 * Runs describe bodies in bun's order: each one whole (awaited, when async), then the describes
 * it registered, depth first. One at a time, so `current` is right even across an await. A body
 * that throws is reported and its tests are dropped, as bun does.
 */
async function collect(suite: Suite, errors: { where: string; thrown: unknown }[]): Promise<void> {
  for (const child of suite.children) {
    if (child.kind !== "suite" || child.body === undefined) continue;
    current = child;
    const body = child.body; // called bare, so its frame reads as the test file's own function
    try {
      await body(...child.args);
    } catch (thrown) {
      child.children = [];
      errors.push({ where: `describe("${child.name}")`, thrown });
    } finally {
      current = suite;
    }
    await collect(child, errors);
  }
}

class Run {
  private passed = 0;
  private failed = 0;
  private skipped = 0;
  private todo = 0;
  private errors = 0;

  private readonly events: TestEvents;
  private readonly plan: Plan;
  private readonly eachHooksOf = new Map<Suite, { beforeEach: readonly Hook[]; afterEach: readonly Hook[] }>();
  private readonly timeoutMs: number;

  constructor(events: TestEvents, plan: Plan, timeoutMs: number) {
    this.events = events;
    this.plan = plan;
    this.timeoutMs = timeoutMs;
  }

  summary(): RunSummary {
    const { passed, failed, skipped, todo, errors } = this;
    return { passed, failed, skipped, todo, errors, filtered: this.plan.count("filtered"), expectCalls: expectCallCount() };
  }

  reportError(where: string, thrown: unknown): void {
    this.errors++;
    this.events.error(where, failureOf(thrown));
  }

  /** `setupFailure`: an outer beforeAll threw, so every test inside fails with it and no hook here runs. */
  async suite(suite: Suite, setupFailure: Caught | undefined): Promise<void> {
    if (!this.plan.hasRunnable(suite)) {
      this.announceNotRun(suite);
      return;
    }
    const failure = setupFailure ?? (await this.hooks(suite.hooks.beforeAll, "beforeAll hook", true));
    for (const child of suite.children) {
      if (child.kind === "suite") await this.suite(child, failure);
      else await this.test(child, failure);
    }
    if (setupFailure) return;
    const afterFailure = await this.hooks(suite.hooks.afterAll, "afterAll hook", false);
    if (afterFailure) this.reportError(suite === root ? "afterAll" : `afterAll in describe("${suite.name}")`, afterFailure.thrown);
  }

  private announceNotRun(suite: Suite): void {
    for (const child of suite.children) {
      if (child.kind === "suite") this.announceNotRun(child);
      else this.announceSkipped(child);
    }
  }

  /** Reports a test that does not run; false when it does run. */
  private announceSkipped(test: TestCase): boolean {
    const disposition = this.plan.disposition(test);
    if (disposition === "run") return false;
    if (disposition === "skip") {
      this.skipped++;
      this.events.skip(infoOf(test));
    } else if (disposition === "todo") {
      this.todo++;
      this.events.todo(infoOf(test));
    }
    return true;
  }

  private async test(test: TestCase, setupFailure: Caught | undefined): Promise<void> {
    if (this.announceSkipped(test)) return;
    const info = infoOf(test);
    this.events.start(info, test.expecting === "failing");
    runningTest = test;
    runningTestHooks = { afterAll: [], afterEach: [] };
    const startedAt = performance.now();
    beginTestAssertions();
    let failure = setupFailure;
    if (!setupFailure) {
      // A hook settles at once when its code returns no promise: awaited only when it did. The
      // body and the afterEach hooks are always awaited, so that what they queued as microtasks
      // runs while the test does (a throw there fails it, as in bun).
      const { beforeEach, afterEach } = this.eachHooks(test.parent);
      let before = this.hooks(beforeEach, "beforeEach hook", true);
      if (before instanceof Promise) before = await before;
      failure = before ?? (await this.body(test));
      // Hooks the test registered run first: its afterAll ones, then its afterEach ones (bun's order).
      const own = runningTestHooks;
      const after = await this.hooks([...own.afterAll, ...own.afterEach, ...afterEach], "afterEach hook", false);
      failure = failure ?? after;
    }
    // Rejections nobody handled are reported when the event loop turns: one turn here, so that
    // one the test left fails it (as in bun), not a later test.
    await nextTurn();
    const durationMs = performance.now() - startedAt;
    runningTest = undefined;
    if (!failure) passedTests.add(test);
    if (failure) {
      this.failed++;
      this.events.fail(info, durationMs, failureOf(failure.thrown));
    } else {
      this.passed++;
      this.events.pass(info, durationMs);
    }
  }

  /** The body, run again after a failure while `retry` allows, and again after a pass `repeats` times. */
  private body(test: TestCase): Outcome {
    return test.retry === 0 && test.repeats === 0 ? this.bodyOnce(test) : this.bodyAgain(test);
  }

  private async bodyAgain(test: TestCase): Promise<Caught | undefined> {
    let failure: Caught | undefined;
    for (let attempt = 0; attempt <= test.retry; attempt++) {
      if (attempt > 0) beginTestAssertions();
      failure = await this.bodyOnce(test);
      if (!failure) break;
    }
    for (let repeat = 0; !failure && repeat < test.repeats; repeat++) {
      beginTestAssertions();
      failure = await this.bodyOnce(test);
    }
    return failure;
  }

  private bodyOnce(test: TestCase): Outcome {
    if (test.body === undefined) return undefined;
    const limit = test.timeoutMs ?? defaults.timeoutMs ?? this.timeoutMs;
    const outcome = attempt(test.body, test.args, limit, "this test");
    return outcome instanceof Promise ? outcome.then((failure) => judged(test, failure)) : judged(test, outcome);
  }

  /** The beforeEach hooks of the tests in `suite`, outer to inner, and their afterEach hooks, inner to outer; made once per describe. */
  private eachHooks(suite: Suite): { beforeEach: readonly Hook[]; afterEach: readonly Hook[] } {
    let hooks = this.eachHooksOf.get(suite);
    if (!hooks) {
      const chain: Suite[] = [];
      for (let at: Suite | undefined = suite; at; at = at.parent) chain.unshift(at);
      hooks = { beforeEach: chain.flatMap((s) => s.hooks.beforeEach), afterEach: chain.reverse().flatMap((s) => s.hooks.afterEach) };
      this.eachHooksOf.set(suite, hooks);
    }
    return hooks;
  }

  /**
   * Runs hooks in order; `stopAtFirst` for before-hooks, while after-hooks all run. The first
   * failure: at once while the hooks return no promise, else once the rest have run.
   */
  private hooks(hooks: readonly Hook[], what: string, stopAtFirst: boolean): Outcome {
    let first: Caught | undefined;
    for (let i = 0; i < hooks.length; i++) {
      const outcome = attempt(hooks[i]!.body, NO_ARGS, this.limitOf(hooks[i]!), what);
      if (outcome instanceof Promise) return this.hooksFrom(outcome, hooks, i, what, stopAtFirst, first);
      first = first ?? outcome;
      if (first && stopAtFirst) break;
    }
    return first;
  }

  /** `hooks`, from hook `i`, whose outcome is pending, on. */
  private async hooksFrom(pending: Promise<Caught | undefined>, hooks: readonly Hook[], i: number, what: string, stopAtFirst: boolean, first: Caught | undefined): Promise<Caught | undefined> {
    let outcome = await pending;
    for (;;) {
      first = first ?? outcome;
      if ((first && stopAtFirst) || ++i >= hooks.length) return first;
      outcome = await attempt(hooks[i]!.body, NO_ARGS, this.limitOf(hooks[i]!), what);
    }
  }

  private limitOf(hook: Hook): number {
    return hook.timeoutMs ?? defaults.timeoutMs ?? this.timeoutMs;
  }
}

/** What a body or hook came to: its failure or none, now or later. */
type Outcome = Caught | undefined | Promise<Caught | undefined>;

const NO_ARGS: readonly unknown[] = [];

/** A test body's outcome, with `expect.assertions` counted and `.failing` turned round. */
function judged(test: TestCase, failure: Caught | undefined): Caught | undefined {
  if (!failure) {
    const counted = checkTestAssertions();
    failure = counted ? { thrown: counted } : undefined;
  }
  if (test.expecting === "pass") return failure;
  if (failure) return undefined;
  return { thrown: new Error("this test is marked as failing but it passed. Remove `.failing` if tested behavior now works") };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function infoOf(test: TestCase): TestInfo {
  return { path: pathOf(test), name: test.name };
}

/**
 * Runs a body or hook; its failure, if any. A body that returns no promise (and takes no done
 * callback) has settled when it returns: its outcome is given at once, with no promise or
 * timer made for it, as most tests are. One that returns a promise, or takes a done callback,
 * is raced against its time limit.
 */
function attempt(body: TestBody, args: readonly unknown[], timeoutMs: number, what: string): Outcome {
  if (body.length <= args.length) {
    let result: unknown;
    try {
      result = args.length === 0 ? body() : body(...args);
    } catch (thrown) {
      return { thrown };
    }
    return isThenable(result) ? settled(withTimeout(Promise.resolve(result), timeoutMs, what)) : undefined;
  }
  return settled(withTimeout(withDone(body, args), timeoutMs, what));
}

async function settled(work: Promise<unknown>): Promise<Caught | undefined> {
  try {
    await work;
    return undefined;
  } catch (thrown) {
    return { thrown };
  }
}

/**
 * Calls a body that takes a done callback after its row's values. It settles when done is
 * called and, if the body returned a promise, that promise has settled too (as in bun: both are
 * waited for); done called with an error, or the promise rejecting, fails it at once.
 */
function withDone(body: TestBody, args: readonly unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let waitingFor = 1;
    const oneSettled = (): void => {
      if (--waitingFor === 0) resolve(undefined);
    };
    let doneCalled = false;
    const done: DoneCallback = (error) => {
      if (error !== undefined && error !== null) reject(error);
      else if (!doneCalled) {
        doneCalled = true;
        oneSettled();
      }
    };
    const result: unknown = body(...args, done);
    if (isThenable(result)) {
      waitingFor++;
      result.then(oneSettled, reject);
    }
  });
}

/** A limit that is not a positive finite number means none. The body may go on running: it cannot be stopped. */
function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return work;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${timeoutMs}ms.`)), timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Failures as reported.

const RUNNER_SOURCE_FILE: string | undefined = callerSourceFile();

/** Frames in expect's modules and this runner are the test machinery, not the test: failures do not show them. */
function isMachinery(file: string): boolean {
  return file === RUNNER_SOURCE_FILE || isExpectFile(file);
}

function failureOf(thrown: unknown): TestFailure {
  if (thrown instanceof AssertionError) {
    return withOptional({ name: thrown.name, message: thrown.matcherResult.headline }, thrown.matcherResult.details, cleanStack(thrown.stack));
  }
  if (isErrorLike(thrown)) return withOptional({ name: thrown.name, message: thrown.message }, undefined, cleanStack(thrown.stack));
  return { name: "Error", message: typeof thrown === "string" ? thrown : format(thrown) };
}

/** Leaves absent fields out, rather than present and undefined, for the host's conversion. */
function withOptional(base: { name: string; message: string }, diff: string | undefined, stack: string | undefined): TestFailure {
  return { ...base, ...(diff ? { diff } : {}), ...(stack ? { stack } : {}) };
}

/** Errors from another realm fail `instanceof Error`, so recognise them by shape. */
function isErrorLike(value: unknown): value is { name: string; message: string; stack?: string } {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "message") === "string" && typeof Reflect.get(value, "name") === "string";
}

/** The frames that point into the test file: machinery and frames without a location (native, node internals) dropped. */
function cleanStack(stack: unknown): string | undefined {
  if (typeof stack !== "string") return undefined;
  const frames = stackFrames(stack)
    .map((frame) => frame.trim())
    .filter((frame) => {
      const file = frameFile(frame);
      return file !== undefined && !isMachinery(file) && !file.startsWith("node:");
    });
  return frames.length > 0 ? frames.join("\n") : undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof Reflect.get(value, "then") === "function";
}
