// typings/globals.d.ts — editor typings for the host globals every workflow, handler and test
// file sees: console, timers, queueMicrotask, structuredClone, process (js/bootstrap.ts), and
// the engine's own performance, atob and btoa. Written to merge with lib.dom.d.ts and
// @types/node rather than clash with them (interfaces merge; `process` is typed through the
// `NodeJS.Process` interface), so a project that also loads either still type-checks. More host
// APIs (AbortController, fetch, node:fs, node:child_process) are being added on another branch,
// with their typings.

interface Console {
  /** Formats its arguments as Node's util.format does (objects readably) and prints a line. */
  log(...data: any[]): void;
  info(...data: any[]): void;
  debug(...data: any[]): void;
  /** To stderr. */
  warn(...data: any[]): void;
  /** To stderr. */
  error(...data: any[]): void;
  trace(...data: any[]): void;
  dir(item?: any, options?: { depth?: number }): void;
  assert(condition?: boolean, ...data: any[]): void;
  count(label?: string): void;
  countReset(label?: string): void;
  time(label?: string): void;
  timeLog(label?: string, ...data: any[]): void;
  timeEnd(label?: string): void;
  group(...data: any[]): void;
  groupEnd(): void;
  table(tabularData?: any): void;
}
/** Under `awf run` every line goes to stderr: stdout carries only the workflow's result. */
declare var console: Console;

/** What the timer functions return; it also converts to its numeric id. */
interface AwfTimer {
  /** Keeps the run alive while the timer is pending (the default). */
  ref(): this;
  /** Lets the run end even though the timer is pending. */
  unref(): this;
  hasRef(): boolean;
  [Symbol.toPrimitive](): number;
}
/** A pending, ref'd timer keeps the run alive. */
declare function setTimeout<A extends any[]>(callback: (...args: A) => void, ms?: number, ...args: A): AwfTimer;
declare function setInterval<A extends any[]>(callback: (...args: A) => void, ms?: number, ...args: A): AwfTimer;
declare function setImmediate<A extends any[]>(callback: (...args: A) => void, ...args: A): AwfTimer;
declare function clearTimeout(timer: AwfTimer | number | undefined | null): void;
declare function clearInterval(timer: AwfTimer | number | undefined | null): void;
declare function clearImmediate(timer: AwfTimer | number | undefined | null): void;
declare function queueMicrotask(callback: () => void): void;
/** Base64 of a string of bytes (one char per byte), and back. */
declare function btoa(data: string): string;
declare function atob(data: string): string;

interface Performance {
  /** Milliseconds since the process started, with sub-millisecond precision. */
  now(): number;
}
declare var performance: Performance;

/** A deep copy: plain objects, arrays, Date, RegExp, Map, Set, typed arrays, errors; cycles kept. */
declare function structuredClone<T>(value: T): T;

/** Aborted when the work it was given for should stop (a tool call's time is up, its turn ended). */
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: any;
  throwIfAborted(): void;
}

declare namespace NodeJS {
  interface ProcessEnv {
    [name: string]: string | undefined;
  }
  interface Process {
    /** `["awf", "<workflow file>", ...words after --]`. */
    argv: string[];
    /** awf's environment, copied at start. */
    env: ProcessEnv;
    pid: number;
    platform: string;
    arch: string;
    exitCode?: number | string | null | undefined;
    /** The run's working directory. */
    cwd(): string;
    chdir(directory: string): void;
    /** Ends the run at once with this exit code; records are written first. */
    exit(code?: number | string | null | undefined): never;
    nextTick(callback: (...args: any[]) => void, ...args: any[]): void;
    uptime(): number;
  }
}
declare var process: NodeJS.Process;

/** A module's own location, as Node and Bun give it. */
interface ImportMeta {
  /** `file:///abs/path/wf.ts` */
  url: string;
  /** The module's absolute path. */
  filename: string;
  /** The folder of the module's file. */
  dirname: string;
}
