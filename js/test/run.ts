// js/test/run.ts — the running half of `bun:test`: `runRegisteredTests()` runs the describe
// bodies (bun defers them, and awaits async ones), then the tests the plan (plan.ts) lets run,
// in bun's order: hooks around them, per-test time limits, retries and repeats, done callbacks,
// `.failing`, and whatever a test throws turned into a reported failure (failure.ts). Nothing
// here prints: results go to the `TestEvents` the host passes in (events.ts).

import type { RunOptions, RunSummary, TestEvents, TestInfo } from "./events.ts";
import { beginTestAssertions, checkTestAssertions, expectCallCount } from "./expect.ts";
import { failureOf, markRunnerModule } from "./failure.ts";
import { defaults } from "./jest.ts";
import { Plan } from "./plan.ts";
import { type DoneCallback, type Hook, pathOf, registry, type Suite, suitePath, type TestBody, type TestCase } from "./registry.ts";

markRunnerModule();

// Host globals the engine provides (QuickJS has no timers of its own), taken before a test can
// fake them (fake_timers.ts), so time limits keep real time.
declare const performance: { now(): number };
const hostTimers = globalThis as unknown as { setTimeout(callback: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
const setTimeout = hostTimers.setTimeout;
const clearTimeout = hostTimers.clearTimeout;

/** bun's default per-test (and per-hook) time limit. */
export const DEFAULT_TIMEOUT_MS = 5000;

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
  if (registry.phase !== "loading") throw new Error("runRegisteredTests() runs once per test file");
  const pattern = typeof options.namePattern === "string" ? new RegExp(options.namePattern) : options.namePattern;
  registry.phase = "collecting";
  const collectErrors: { where: string; thrown: unknown }[] = [];
  await collect(registry.root, collectErrors);
  registry.phase = "running";
  const run = new Run(options.events, new Plan(registry.root, pattern), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  for (const { where, thrown } of collectErrors) run.reportError(where, thrown);
  await run.suite(registry.root, undefined);
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
    registry.current = child;
    const body = child.body; // called bare, so its frame reads as the test file's own function
    try {
      await body(...child.args);
    } catch (thrown) {
      child.children = [];
      errors.push({ where: `describe("${child.name}")`, thrown });
    } finally {
      registry.current = suite;
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
    if (afterFailure) this.reportError(suite === registry.root ? "afterAll" : `afterAll in describe("${suite.name}")`, afterFailure.thrown);
  }

  private announceNotRun(suite: Suite): void {
    const hooks = this.plan.hookDisposition(suite);
    if (hooks) for (const _ of suite.hooks.beforeAll) this.announceHook(suite, hooks);
    for (const child of suite.children) {
      if (child.kind === "suite") this.announceNotRun(child);
      else this.announceSkipped(child);
    }
    if (hooks) for (const _ of suite.hooks.afterAll) this.announceHook(suite, hooks);
  }

  /** A hook of a skipped or todo describe, listed as bun lists it (plan.ts, `hookDisposition`). */
  private announceHook(suite: Suite, disposition: "skip" | "todo"): void {
    const info = { path: suitePath(suite), name: "(unnamed)" };
    if (disposition === "skip") {
      this.skipped++;
      this.events.skip(info);
    } else {
      this.todo++;
      this.events.todo(info);
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
    registry.runningTest = test;
    registry.runningTestHooks = { afterAll: [], afterEach: [] };
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
      const own = registry.runningTestHooks;
      const after = await this.hooks([...own.afterAll, ...own.afterEach, ...afterEach], "afterEach hook", false);
      failure = failure ?? after;
    }
    // Rejections nobody handled are reported when the event loop turns: one turn here, so that
    // one the test left fails it (as in bun), not a later test.
    await nextTurn();
    const durationMs = performance.now() - startedAt;
    registry.runningTest = undefined;
    if (!failure) registry.passedTests.add(test);
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

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof Reflect.get(value, "then") === "function";
}
