// js/test/expect/stack.ts — Stack frames, kept generic: QuickJS and V8 both write frames as `    at
// name (file:line:col)`.

/** The frame lines of an `Error#stack` (the `at ...` lines), without the message V8 puts first. */
export function stackFrames(stack: string | undefined): string[] {
  return (stack ?? "").split("\n").filter((line) => /^\s*at\s/.test(line));
}

/** The file a frame names: `    at f (awf:test:1:2)` → `awf:test`; undefined for native frames. */
export function frameFile(frame: string): string | undefined {
  const located = /\(([^()]*):\d+:\d+\)\s*$/.exec(frame) ?? /\bat\s+([^\s()]+):\d+:\d+\s*$/.exec(frame);
  return located?.[1];
}

/** Where a frame points: `    at f (file.ts:3:14)` → `{ file, line: 3, column: 14 }`; undefined for native frames. */
export function frameLocation(frame: string): { file: string; line: number; column: number } | undefined {
  const located = /\(([^()]*):(\d+):(\d+)\)\s*$/.exec(frame) ?? /\bat\s+([^\s()]+):(\d+):(\d+)\s*$/.exec(frame);
  return located ? { file: located[1]!, line: Number(located[2]), column: Number(located[3]) } : undefined;
}

/** The source file of whoever calls this, read off a fresh stack; undefined where the engine gives none. */
export function callerSourceFile(): string | undefined {
  const frames = stackFrames(new Error().stack);
  const caller = frames[1];
  return caller === undefined ? undefined : frameFile(caller);
}

/** expect's own modules (js/test/expect.ts, js/test/expect/*.ts) by this one's file, minus `/stack`. */
const EXPECT_MODULES: string | undefined = callerSourceFile()?.replace(/\/stack$/, "");

/** Whether a frame's file is one of expect's own modules, so the runner can drop matcher frames from a failure's stack. */
export function isExpectFile(file: string): boolean {
  return EXPECT_MODULES !== undefined && (file === EXPECT_MODULES || file.startsWith(`${EXPECT_MODULES}/`));
}
