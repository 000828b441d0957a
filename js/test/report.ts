// js/test/report.ts — prints test results the way `bun test` does, through console.log.
//
// Owns the text of a run: a line per test (`✓ describe > name [0.12ms]`, `✗ ...`, `» ...` for
// skipped, `✎ ...` for todo), each failure's message, diff and stack printed above its `✗` line,
// and bun's closing block followed by `N passed, N failed[, N skipped]` alone on a line. It is
// the reference for the Rust reporter, and what node runs of the runner print. It prints no
// code frame: that needs the .ts source, which only the engine has. No colour either.

import type { RunSummary, TestEvents, TestFailure, TestInfo } from "./events.ts";

declare const console: { log(...data: unknown[]): void };
declare const performance: { now(): number };

export interface ReporterOptions {
  /** Where lines go (default console.log). */
  readonly print?: (line: string) => void;
  /** Clock for the closing `[12.00ms]` (default performance.now). */
  readonly now?: () => number;
}

/** Feed it one or more files: `beginFile`, the events, `endFile`; then `finish` prints the totals. */
export class ConsoleReporter implements TestEvents {
  private readonly print: (line: string) => void;
  private readonly now: () => number;
  private readonly startedAt: number;
  private files = 0;
  private passed = 0;
  private failed = 0;
  private skipped = 0;
  private todos = 0;
  private errors = 0;
  private expectCalls = 0;

  constructor(options: ReporterOptions = {}) {
    this.print = options.print ?? ((line) => console.log(line));
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
  }

  beginFile(path: string): void {
    this.files++;
    this.print("");
    this.print(`${path}:`);
  }

  endFile(summary: RunSummary): void {
    this.expectCalls += summary.expectCalls;
  }

  start(_test: TestInfo): void {}

  pass(test: TestInfo, durationMs: number): void {
    this.passed++;
    this.print(`✓ ${fullName(test)}${duration(durationMs)}`);
  }

  /** bun prints a failure above its ✗ line, except a time-out, which it notes below. */
  fail(test: TestInfo, durationMs: number, failure: TestFailure): void {
    this.failed++;
    const line = `✗ ${fullName(test)}${duration(durationMs)}`;
    if (failure.name === "TimeoutError") {
      this.print(line);
      this.print(`  ^ ${failure.message}`);
      return;
    }
    for (const text of failureLines(failure)) this.print(text);
    this.print(line);
  }

  skip(test: TestInfo): void {
    this.skipped++;
    this.print(`» ${fullName(test)}`);
  }

  todo(test: TestInfo): void {
    this.todos++;
    this.print(`✎ ${fullName(test)}`);
  }

  error(where: string, failure: TestFailure): void {
    this.errors++;
    this.print("");
    this.print(`# Unhandled error between tests (${where})`);
    this.print("-------------------------------");
    for (const text of failureLines(failure)) this.print(text);
    this.print("-------------------------------");
  }

  /** Prints the closing block; returns the exit code a CLI should use (1 when anything failed). */
  finish(): number {
    const failed = this.failed + this.errors; // bun counts an error outside tests as a fail
    const skipped = this.skipped + this.todos;
    const tests = this.passed + this.failed + skipped;
    this.print("");
    this.print(` ${this.passed} pass`);
    if (this.skipped > 0) this.print(` ${this.skipped} skip`);
    if (this.todos > 0) this.print(` ${this.todos} todo`);
    this.print(` ${failed} fail`);
    if (this.errors > 0) this.print(` ${this.errors} error${this.errors === 1 ? "" : "s"}`);
    if (this.expectCalls > 0) this.print(` ${this.expectCalls} expect() calls`);
    const elapsed = this.now() - this.startedAt;
    this.print(`Ran ${tests} test${tests === 1 ? "" : "s"} across ${this.files} file${this.files === 1 ? "" : "s"}. [${elapsed.toFixed(2)}ms]`);
    this.print(`${this.passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
    return failed > 0 ? 1 : 0;
  }
}

/** `describe > inner > name`, bun's separator. */
export function fullName(test: TestInfo): string {
  return [...test.path, test.name].join(" > ");
}

/** ` [0.12ms]`, or nothing for a test too quick to measure, as bun leaves it out. */
export function duration(durationMs: number): string {
  if (durationMs < 0.005) return "";
  return durationMs >= 1000 ? ` [${(durationMs / 1000).toFixed(2)}s]` : ` [${durationMs.toFixed(2)}ms]`;
}

/**
 * `error: <message>` (bun writes `error` for plain and assertion errors, the class name for
 * others), then the diff between blank lines, then the frames indented six spaces.
 */
export function failureLines(failure: TestFailure): string[] {
  const label = failure.name === "Error" || failure.name === "AssertionError" ? "error" : failure.name;
  const lines = `${label}: ${failure.message}`.split("\n");
  if (failure.diff) lines.push("", ...failure.diff.split("\n"), "");
  if (failure.stack) lines.push(...failure.stack.split("\n").map((frame) => `      ${frame}`));
  return lines;
}
