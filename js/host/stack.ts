// Stack traces at source positions: `Error.prepareStackTrace` maps each frame through the
// loaded modules' source maps, so `err.stack` names .ts lines everywhere, not transpiled JS.

import * as ops from "awf:ops";

interface CallSite {
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

export function installStackTraces(): void {
  (Error as unknown as { prepareStackTrace: unknown }).prepareStackTrace = (error: Error, sites: CallSite[]) => {
    const head = error.message ? `${error.name}: ${error.message}` : error.name;
    const frames = sites.map(frameText);
    return frames.length ? `${head}\n${frames.join("\n")}` : head;
  };
  (Error as unknown as { stackTraceLimit: number }).stackTraceLimit = 30;
}
