// js/test/bun_test.ts — the `bun:test` module (alias `awf:test`, `@jest/globals`): what a test
// file imports, gathered from the modules that do the work.
//
// Registering: `test`/`it`, `describe` and the hooks (registration.ts, into registry.ts).
// Running: `runRegisteredTests()` (run.ts, with plan.ts deciding which tests run and
// failure.ts turning a throw into a reported failure); the host calls it once, after the test
// file's module has evaluated, with the `TestEvents` (events.ts) it reports through.
// `expect` (expect.ts), `mock`/`spyOn` (mock.ts), `jest`/`vi` (jest.ts) and `setSystemTime`
// (fake_timers.ts) are re-exported.

export type { RunOptions, RunSummary, TestEvents, TestFailure, TestInfo } from "./events.ts";
export type { DoneCallback, Label, TestBody, TestOptions } from "./registry.ts";
export { registeredTests, runningTestIsConcurrent, runningTestName } from "./registry.ts";
export type { Describe, DescribeFunction, EachRegister, Test, TestFunction } from "./registration.ts";
export { afterAll, afterEach, beforeAll, beforeEach, describe, it, test } from "./registration.ts";
export { DEFAULT_TIMEOUT_MS, runRegisteredTests } from "./run.ts";

export { AssertionError, AsymmetricMatcher, expect } from "./expect.ts";
export { mock, spyOn } from "./mock.ts";
export { jest, vi } from "./jest.ts";
export { setSystemTime } from "./fake_timers.ts";
