// The `console` global: log/info/debug to stdout, warn/error to stderr, objects via inspect.
//
// Where a line goes is the host's choice: under `awf run`, stdout carries only the workflow's
// result, so the host sends every console line to stderr (see runtime/src/js/host/console.rs `print`).

import * as ops from "awf:ops";
import { lazyBuiltin, onHostReset } from "../core.ts";
import type * as Inspect from "./inspect.ts";

const counts = new Map<string, number>();
const timers = new Map<string, number>();
let groupIndent = "";
// inspect.ts loads with the first line that is more than plain text: a workflow that prints
// nothing, or only words, does not pay for it.
const inspectModule = lazyBuiltin<typeof Inspect>("awf:host/inspect");
onHostReset(() => {
  counts.clear();
  timers.clear();
  groupIndent = "";
});

/** Node's `util.format`; words alone are joined by spaces, as it does. */
function format(...args: unknown[]): string {
  if (args.every((arg) => typeof arg === "string") && !(args[0] as string | undefined)?.includes("%")) {
    return args.join(" ");
  }
  return inspectModule().format(...args);
}

const inspect = (value: unknown, options?: { depth?: number }): string => inspectModule().inspect(value, options);

function write(fd: 1 | 2, args: unknown[]): void {
  const text = format(...args);
  const indented = groupIndent ? text.split("\n").map((line) => groupIndent + line).join("\n") : text;
  ops.print(fd, indented + "\n");
}

export const console = {
  log: (...args: unknown[]) => write(1, args),
  info: (...args: unknown[]) => write(1, args),
  debug: (...args: unknown[]) => write(1, args),
  warn: (...args: unknown[]) => write(2, args),
  error: (...args: unknown[]) => write(2, args),
  trace: (...args: unknown[]) => write(2, [`Trace: ${format(...args)}\n${new Error().stack ?? ""}`]),
  dir: (value: unknown, options?: { depth?: number }) => write(1, [inspect(value, options)]),
  assert: (condition: unknown, ...args: unknown[]) => {
    if (!condition) write(2, ["Assertion failed" + (args.length ? ": " + format(...args) : "")]);
  },
  count: (label = "default") => {
    const n = (counts.get(label) ?? 0) + 1;
    counts.set(label, n);
    write(1, [`${label}: ${n}`]);
  },
  countReset: (label = "default") => void counts.delete(label),
  time: (label = "default") => void timers.set(label, performance.now()),
  timeLog: (label = "default", ...args: unknown[]) => writeElapsed(label, args, false),
  timeEnd: (label = "default") => writeElapsed(label, [], true),
  group: (...args: unknown[]) => {
    if (args.length) write(1, args);
    groupIndent += "  ";
  },
  groupEnd: () => {
    groupIndent = groupIndent.slice(2);
  },
  table: (value: unknown) => write(1, [value]),
};

function writeElapsed(label: string, args: unknown[], end: boolean): void {
  const start = timers.get(label);
  if (start === undefined) {
    write(2, [`Warning: No such label '${label}' for console.time${end ? "End" : "Log"}()`]);
    return;
  }
  if (end) timers.delete(label);
  write(1, [`${label}: ${(performance.now() - start).toFixed(3)}ms`, ...args]);
}
