// Stack traces at source positions: `Error.prepareStackTrace` maps each frame through the
// loaded modules' source maps, so `err.stack` names .ts lines everywhere, not transpiled JS.
// As in V8, the frames of the error's own class constructors (`class ParseError extends
// Error`) are left out: the first frame is where the error was made.

import * as ops from "awf:ops";

interface CallSite {
  getFunction(): unknown;
  isConstructor(): boolean;
  getFileName(): string | null;
  getFunctionName(): string | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  isNative(): boolean;
}

function frameText(site: CallSite): string {
  const name = site.getFunctionName() || "<anonymous>";
  const file = site.getFileName();
  const line = site.getLineNumber();
  const col = site.getColumnNumber();
  if (!file || site.isNative()) return `    at ${name} (native)`;
  if (line === null || col === null) return `    at ${name} (${file})`;
  const mapped = ops.source_position(file, line, col);
  const [l, c] = mapped ?? [line, col];
  return `    at ${name} (${file}:${l}:${c})`;
}

function isOwnConstructor(site: CallSite, error: Error): boolean {
  const fn = site.getFunction();
  if (!site.isConstructor() || typeof fn !== "function") return false;
  try {
    return error instanceof fn;
  } catch {
    return false; // a constructor whose `instanceof` throws is not the error's class
  }
}

export function installStackTraces(): void {
  (Error as unknown as { prepareStackTrace: unknown }).prepareStackTrace = (error: Error, sites: CallSite[]) => {
    const head = error.message ? `${error.name}: ${error.message}` : error.name;
    let first = 0;
    while (first < sites.length && isOwnConstructor(sites[first]!, error)) first++;
    const frames = sites.slice(first).map(frameText);
    return frames.length ? `${head}\n${frames.join("\n")}` : head;
  };
  (Error as unknown as { stackTraceLimit: number }).stackTraceLimit = 30;
}
