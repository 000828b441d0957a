// js/test/failure.ts — a thrown value as the host reports a failed test: its name, message,
// matcher diff, and the stack frames that point into the test file (the runner's own modules,
// expect's, and frames without a location are left out). The runner's modules mark themselves
// here (`markRunnerModule`) as they load.

import { AssertionError, format, frameFile, isExpectFile, stackFrames } from "./expect.ts";
import type { TestFailure } from "./events.ts";

/** The files of the runner's modules: their frames are the test machinery, not the test. */
const runnerFiles = new Set<string>();

/** Called at the top of each of the runner's modules: failures do not show its frames. */
export function markRunnerModule(): void {
  const caller = stackFrames(new Error().stack)[1];
  const file = caller === undefined ? undefined : frameFile(caller);
  if (file !== undefined) runnerFiles.add(file);
}

markRunnerModule();

/** Frames in expect's modules and the runner's are the test machinery, not the test: failures do not show them. */
function isMachinery(file: string): boolean {
  return runnerFiles.has(file) || isExpectFile(file);
}

export function failureOf(thrown: unknown): TestFailure {
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
