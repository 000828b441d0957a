// js/test/registry.ts — the tests and describes a test file registers, as the runner keeps
// them: the describe tree (`Suite`, `TestCase`, their hooks and marks), where registration
// goes now (`registry.current`), which phase the file is in, the test running now, and the
// tests that passed. registration.ts fills it while the file evaluates; run.ts walks it;
// snapshot.ts asks it which test is running. The host's next file starts from an empty one.

import { onHostReset } from "../core.ts";
import { format } from "./expect.ts";
import { markRunnerModule } from "./failure.ts";

markRunnerModule();

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

export type Mark = "run" | "only" | "skip" | "todo";
/** `.concurrent` or `.serial`, or "inherit": as the describe around it (the file's top level is serial). */
export type Concurrency = "inherit" | "concurrent" | "serial";
/** How a test's outcome is read: `failing` passes when the body fails, and fails when it passes. */
export type Expecting = "pass" | "failing";

export interface Hook {
  readonly body: TestBody;
  readonly timeoutMs: number | undefined;
}

export interface Hooks {
  readonly beforeAll: Hook[];
  readonly afterAll: Hook[];
  readonly beforeEach: Hook[];
  readonly afterEach: Hook[];
}

export interface Suite {
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

export interface TestCase {
  readonly kind: "test";
  readonly name: string;
  readonly parent: Suite;
  readonly mark: Mark;
  /** None only for a skipped or todo test (registration.ts refuses any other without one). */
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
export interface TestKind {
  readonly mark: Mark;
  readonly expecting: Expecting;
  readonly concurrency: Concurrency;
}

/** The file's registry; one per test file (reset with the host). */
export const registry: {
  root: Suite;
  /** The describe whose body is running now; tests and hooks register into it. */
  current: Suite;
  /** loading: the file's module evaluates; collecting: describe bodies run; running: tests run. */
  phase: "loading" | "collecting" | "running";
  /** The test between its start and its result (its hooks included); snapshots are named after it. */
  runningTest: TestCase | undefined;
  /** `afterAll` and `afterEach` called while the running test ran: they run after it, once, as in bun. */
  runningTestHooks: { afterAll: Hook[]; afterEach: Hook[] };
  /** The tests that ran and passed: a snapshot such a test did not check is obsolete. */
  readonly passedTests: Set<TestCase>;
} = emptyRegistry();

function emptyRegistry(): typeof registry {
  const root = newSuite("", undefined, "run", undefined, [], "serial");
  return { root, current: root, phase: "loading", runningTest: undefined, runningTestHooks: { afterAll: [], afterEach: [] }, passedTests: new Set() };
}

// The host's next test file registers its own tests.
onHostReset(() => {
  Object.assign(registry, emptyRegistry());
});

export function newSuite(name: string, parent: Suite | undefined, mark: Mark, body: TestBody | undefined, args: readonly unknown[], concurrency: Concurrency): Suite {
  const hooks = { beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] };
  return { kind: "suite", name, parent, mark, children: [], hooks, body, args, concurrency };
}

function refuseWhileRunning(what: string): void {
  if (registry.phase === "running") {
    throw new Error(`${what}() was called while tests run; register tests and hooks at the top of the file or inside describe()`);
  }
}

export function addTest({ mark, expecting, concurrency }: TestKind, label: Label, body: TestBody | undefined, options: number | TestOptions | undefined, args: readonly unknown[]): void {
  refuseWhileRunning("test");
  const counted = (value: unknown): number => (typeof value === "number" && value > 0 ? Math.floor(value) : 0);
  const settings = typeof options === "object" && options !== null ? options : {};
  const parent = registry.current;
  parent.children.push({
    kind: "test",
    name: labelText(label),
    parent,
    mark,
    body,
    args,
    timeoutMs: timeoutOf(options),
    retry: counted(settings.retry),
    repeats: counted(settings.repeats),
    expecting,
    concurrency,
  });
}

/** The body runs later, when the runner collects: bun runs every describe body after the file's top-level code. */
export function addSuite(mark: Mark, concurrency: Concurrency, label: Label | TestBody, maybeBody: TestBody | undefined, args: readonly unknown[]): void {
  refuseWhileRunning("describe");
  // `describe(fn)` without a label is named after the function, as in bun.
  const body = typeof label === "function" && maybeBody === undefined ? (label as TestBody) : maybeBody;
  if (typeof body !== "function") throw new TypeError(`describe() expects a function, got ${format(body)}`);
  registry.current.children.push(newSuite(labelText(label as Label), registry.current, mark, body, args, concurrency));
}

export function addHook(kind: keyof Hooks, body: TestBody, timeoutMs: number | undefined): void {
  if (registry.phase === "running" && registry.runningTest && (kind === "afterAll" || kind === "afterEach")) {
    if (typeof body !== "function") throw new TypeError(`${kind}() expects a function`);
    registry.runningTestHooks[kind].push({ body, timeoutMs });
    return;
  }
  refuseWhileRunning(kind);
  if (typeof body !== "function") throw new TypeError(`${kind}() expects a function`);
  registry.current.hooks[kind].push({ body, timeoutMs });
}

export function labelText(label: Label): string {
  return typeof label === "function" ? label.name : String(label);
}

function timeoutOf(options: number | TestOptions | undefined): number | undefined {
  return typeof options === "number" ? options : options?.timeout;
}

/** The names of the describes around a test, outermost first. */
export function pathOf(test: TestCase): string[] {
  return suitePath(test.parent);
}

/** The names of a describe and those around it, outermost first. */
export function suitePath(suite: Suite): string[] {
  const names: string[] = [];
  // A describe without a label (`describe(() => {...})`) adds nothing to the path, as in bun.
  for (let at: Suite | undefined = suite; at && at !== registry.root; at = at.parent) if (at.name !== "") names.unshift(at.name);
  return names;
}

/** A test's snapshot name: its describes' names and its own, joined by spaces, as bun names snapshots. */
function snapshotNameOf(test: TestCase): string {
  return [...pathOf(test), test.name].join(" ");
}

/** Whether the test running now is a concurrent one: its own `.concurrent`, else its nearest describe's. */
export function runningTestIsConcurrent(): boolean {
  const runningTest = registry.runningTest;
  if (runningTest === undefined) return false;
  let concurrency = runningTest.concurrency;
  for (let suite: Suite | undefined = runningTest.parent; concurrency === "inherit" && suite; suite = suite.parent) concurrency = suite.concurrency;
  return concurrency === "concurrent";
}

/** The snapshot name of the test running now (its hooks included); undefined between tests. */
export function runningTestName(): string | undefined {
  return registry.runningTest && snapshotNameOf(registry.runningTest);
}

/** Every test the file registered, by snapshot name, and whether it ran and passed. */
export function registeredTests(): { name: string; passed: boolean }[] {
  const tests: { name: string; passed: boolean }[] = [];
  const visit = (suite: Suite): void => {
    for (const child of suite.children) {
      if (child.kind === "suite") visit(child);
      else tests.push({ name: snapshotNameOf(child), passed: registry.passedTests.has(child) });
    }
  };
  visit(registry.root);
  return tests;
}
