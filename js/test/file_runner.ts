// awf:test/file_runner — the JS half of `awf test` for one file: import the test file (its
// tests register with bun_test.ts as it evaluates), run them, and send each result to the host
// as it happens through the `test_event` op (runtime/src/testing/file.rs reads them as
// `FileReport`s). A file that does not load is reported as a failure with where it broke.

import * as ops from "awf:ops";
import { errorInfo, keepForReuse, resetHost } from "../core.ts";
import { unnamedPrototypes } from "../host/shared_objects.ts";
import * as bunTest from "./bun_test.ts";
import { runRegisteredTests, type TestEvents, type TestInfo } from "./bun_test.ts";
import { configureSnapshots, expectationPrototype, finishSnapshots } from "./expect.ts";

export interface FileOptions {
  /** Absolute path of the test file. */
  readonly file: string;
  /** `-t`: a regular expression over "describe names and test name" joined by spaces. */
  readonly namePattern?: string;
  /** Time limit of a test or hook that sets none, in ms. */
  readonly timeoutMs: number;
  /** `--update-snapshots`. */
  readonly updateSnapshots?: boolean;
  /** A CI run: missing snapshots fail instead of being written. */
  readonly ci?: boolean;
}

/**
 * JSON text for the host: a lone surrogate (in a failure's text, say) becomes
 * U+FFFD: the host reads UTF-8. JSON.stringify writes one as a `\udXXX` escape, so only text
 * with such an escape in it is looked at again.
 */
function wellFormed(json: string): string {
  return json.includes("\\ud") ? JSON.stringify(JSON.parse(json), (_key, value: unknown) => (typeof value === "string" ? value.toWellFormed() : value)) : json;
}

function report(event: { kind: string; [field: string]: unknown }): void {
  ops.test_event(wellFormed(JSON.stringify(event)));
}

// A test's start and its result name the same test: its JSON is made (and made well-formed)
// once, and the reports around it are ASCII.
let lastTest: TestInfo | undefined;
let lastTestJson = "";
function testJson(test: TestInfo): string {
  if (test !== lastTest) {
    lastTest = test;
    lastTestJson = wellFormed(JSON.stringify(test));
  }
  return lastTestJson;
}

const events: TestEvents = {
  start: (test, failing) => ops.test_event(`{"kind":"start","test":${testJson(test)}${failing ? ',"failing":true' : ""}}`),
  pass: (test, durationMs) => ops.test_event(`{"kind":"pass","test":${testJson(test)},"durationMs":${Number.isFinite(durationMs) ? durationMs : 0}}`),
  fail: (test, durationMs, failure) => report({ kind: "fail", test, durationMs, failure }),
  skip: (test) => report({ kind: "skip", test }),
  todo: (test) => report({ kind: "todo", test }),
  error: (where, failure) => report({ kind: "error", where, failure }),
};

/** What bun puts in a test file's global scope (not `mock` or `spyOn`), so files that import nothing run too. */
const IMPLICIT_GLOBALS = ["test", "it", "describe", "expect", "beforeAll", "afterAll", "beforeEach", "afterEach", "jest"] as const;
for (const name of IMPLICIT_GLOBALS) Object.defineProperty(globalThis, name, { value: bunTest[name], writable: true, configurable: true });

// The framework is loaded: the host's later test files (runtime/src/testing/file.rs) start from
// here, with what one file changes in the globals, the built-ins and the framework put back.
keepForReuse([...Object.values(bunTest).filter((value) => typeof value === "function" || typeof value === "object"), expectationPrototype, ...unnamedPrototypes()]);

/** Runs one test file's tests; then the host forgets what the file left behind, for its next file. */
export async function runTestFile(options: FileOptions): Promise<void> {
  try {
    await runFile(options);
  } finally {
    resetHost();
  }
}

async function runFile({ file, namePattern, timeoutMs, updateSnapshots, ci }: FileOptions): Promise<void> {
  configureSnapshots(() => ops.builtin_namespace("awf:test/snapshot"), { file, update: updateSnapshots === true, ci: ci === true });
  try {
    await import(file);
  } catch (error) {
    report({ kind: "error", where: "loading the file", failure: errorInfo(error) });
    return;
  }
  const summary = await runRegisteredTests({ events, namePattern, timeoutMs });
  let snapshots: ReturnType<typeof finishSnapshots>;
  try {
    snapshots = finishSnapshots();
  } catch (error) {
    report({ kind: "error", where: "writing the snapshots", failure: errorInfo(error) });
  }
  report({ kind: "end", expectCalls: summary.expectCalls, filtered: summary.filtered, ...(snapshots ? { snapshots } : {}) });
}

/** Why `pattern` is not a regular expression, or null when it is one. */
export function namePatternError(pattern: string): string | null {
  try {
    new RegExp(pattern);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
