// js/test/events.ts — what the host sees of a test file's run: each test as reported (its
// describe path and name), why one failed, the events a run sends as it goes (report.ts prints
// them as bun does; file_runner.ts forwards them to the Rust reporter), what a run is told and
// what it sums up to. Plain data and interfaces; nothing here runs.

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
