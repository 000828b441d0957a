// Child processes for `node:child_process`, over the ops of runtime/src/js/host/child_process.rs:
// spawn, exec, execFile (callback and util.promisify forms), and spawnSync, execSync,
// execFileSync.
//
// Every child runs in its own process group: `kill()` signals the whole group, and awf stops
// every group still running when the run (or test file) ends. Passing a handler's `call.signal`
// as `signal` kills the child when the call is aborted. Output arrives as Buffers ("data"
// events) or strings after `setEncoding`; data that arrives before any "data" listener waits
// for the first one. With stdio "inherit", a child's stdout goes where console.log goes (stderr
// under `awf run`, whose stdout carries the result).

import * as ops from "awf:ops";
import { AwfError, opAsync } from "../core.ts";
import { EventEmitter } from "../node/events.ts";
import { abortError, checkOptions, invalidArgType, notSupported } from "../node/errors.ts";
import { encodeUtf8 } from "./encoding.ts";
import { process } from "./process.ts";

type BufferClass = typeof import("./buffer.ts").Buffer;
type BufferValue = InstanceType<BufferClass>;
const Buffer = (): BufferClass => (globalThis as unknown as { Buffer: BufferClass }).Buffer;

type AbortSignal = InstanceType<typeof import("./abort.ts").AbortSignal>;
const AbortSignalClass = (): typeof import("./abort.ts").AbortSignal =>
  (globalThis as unknown as typeof import("./abort.ts")).AbortSignal;

type StdioKind = "pipe" | "inherit" | "ignore";

export interface SpawnOptions {
  cwd?: string | URL;
  env?: Record<string, string | undefined>;
  argv0?: string;
  stdio?: StdioKind | (StdioKind | null | undefined)[];
  shell?: boolean | string;
  signal?: AbortSignal;
  timeout?: number;
  killSignal?: string | number;
  windowsHide?: boolean;
  windowsVerbatimArguments?: boolean;
}

const SPAWN_OPTIONS = ["cwd", "env", "argv0", "stdio", "shell", "signal", "timeout", "killSignal", "windowsHide", "windowsVerbatimArguments"];
const EXEC_OPTIONS = [...SPAWN_OPTIONS.filter((k) => k !== "stdio" && k !== "argv0"), "encoding", "maxBuffer"];
const SYNC_OPTIONS = [...SPAWN_OPTIONS.filter((k) => k !== "signal"), "encoding", "maxBuffer", "input"];

const SIGNAL_NUMBERS: Record<number, string> = { 1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 9: "SIGKILL", 10: "SIGUSR1", 12: "SIGUSR2", 15: "SIGTERM" };
const DEFAULT_MAX_BUFFER = 1024 * 1024;

function signalName(signal: string | number | undefined, fallback = "SIGTERM"): string {
  if (signal === undefined) return fallback;
  if (typeof signal === "number") {
    const name = SIGNAL_NUMBERS[signal];
    if (!name) throw notSupported(`signal number ${signal}`);
    return name;
  }
  return signal;
}

/** What the spawn ops take, from Node's (file, args, options). */
interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string | null;
  env: Record<string, string>;
  argv0: string | null;
  stdio: [StdioKind, StdioKind, StdioKind];
}

function request(file: unknown, args: unknown, options: SpawnOptions, api: string, allowed: readonly string[]): SpawnRequest {
  if (typeof file !== "string") throw invalidArgType("file", "of type string", file);
  if (file.length === 0) throw invalidArgType("file", "a non-empty string", file);
  if (!Array.isArray(args)) throw invalidArgType("args", "an instance of Array", args);
  checkOptions(api, options, allowed);
  const words = args.map((a) => String(a));
  let program = file;
  let argv = words;
  if (options.shell) {
    program = typeof options.shell === "string" ? options.shell : "/bin/sh";
    argv = ["-c", [file, ...words].join(" ")];
  }
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env ?? process.env)) {
    if (value !== undefined) env[key] = String(value);
  }
  const cwd = options.cwd === undefined ? null : typeof options.cwd === "string" ? options.cwd : decodeURIComponent((options.cwd as URL).pathname);
  return { file: program, args: argv, cwd, env, argv0: options.argv0 ?? null, stdio: stdioOf(options.stdio) };
}

function stdioOf(stdio: SpawnOptions["stdio"]): [StdioKind, StdioKind, StdioKind] {
  const list = stdio === undefined ? ["pipe", "pipe", "pipe"] : typeof stdio === "string" ? [stdio, stdio, stdio] : stdio;
  if (list.length > 3) throw notSupported("stdio beyond fd 2 (ipc and extra pipes)");
  const slots = [0, 1, 2].map((i) => list[i] ?? "pipe");
  for (const slot of slots) {
    if (!["pipe", "inherit", "ignore"].includes(slot as string)) throw notSupported(`stdio "${String(slot)}"`);
  }
  return slots as [StdioKind, StdioKind, StdioKind];
}

// ---------------------------------------------------------------------------------------------
// Streams of a child

/** A child's stdout or stderr: "data" (Buffer, or string after setEncoding), "end", "close". */
export class ChildOutput extends EventEmitter {
  #encoding: string | null = null;
  #waiting: Uint8Array[] = [];
  #flowing = false;
  #ended = false;
  readable = true;

  setEncoding(encoding: string): this {
    this.#encoding = encoding;
    return this;
  }

  on(name: string | symbol, listener: (...args: any[]) => unknown): this {
    super.on(name, listener);
    if (name === "data") this.resume();
    return this;
  }

  /** Starts delivering data, first what waited for a listener. */
  resume(): this {
    if (this.#flowing) return this;
    this.#flowing = true;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const chunk of waiting) this.#emitData(chunk);
    if (this.#ended) this.#finish();
    return this;
  }

  pause(): this {
    this.#flowing = false;
    return this;
  }

  /** Called by the pump below. */
  push(chunk: Uint8Array | null): void {
    if (chunk === null) {
      this.#ended = true;
      if (this.#flowing) this.#finish();
      return;
    }
    if (this.#flowing) this.#emitData(chunk);
    else this.#waiting.push(chunk);
  }

  #emitData(chunk: Uint8Array): void {
    const buffer = Buffer().from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.emit("data", this.#encoding ? buffer.toString(this.#encoding) : buffer);
  }

  #finish(): void {
    this.readable = false;
    this.emit("end");
    this.emit("close");
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<BufferValue | string> {
    const queue: (BufferValue | string)[] = [];
    let done = false;
    let wake: (() => void) | null = null;
    this.on("data", (chunk: BufferValue | string) => {
      queue.push(chunk);
      wake?.();
    });
    this.on("end", () => {
      done = true;
      wake?.();
    });
    for (;;) {
      if (queue.length) {
        yield queue.shift() as BufferValue | string;
      } else if (done) {
        return;
      } else {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    }
  }
}

/** A child's stdin: write(chunk), end(). */
export class ChildInput extends EventEmitter {
  readonly #id: number;
  #closed = false;
  #writes: Promise<void> = Promise.resolve();
  writable = true;

  constructor(id: number) {
    super();
    this.#id = id;
  }

  write(chunk: string | Uint8Array, encoding?: string | ((error?: Error) => void), callback?: (error?: Error) => void): boolean {
    const done = typeof encoding === "function" ? encoding : callback;
    if (this.#closed) {
      const error = Object.assign(new Error("write after end"), { code: "ERR_STREAM_WRITE_AFTER_END" });
      queueMicrotask(() => (done ? done(error) : this.emit("error", error)));
      return false;
    }
    const bytes =
      typeof chunk === "string"
        ? typeof encoding === "string" && encoding !== "utf8"
          ? Buffer().from(chunk, encoding)
          : encodeUtf8(chunk)
        : chunk;
    this.#writes = this.#writes.then(() =>
      opAsync(ops.child_write({ id: this.#id }, bytes)).then(
        () => done?.(),
        (error) => {
          if (done) done(error as Error);
          else if ((error as AwfError).code !== "EPIPE") this.emit("error", error);
        },
      ),
    );
    return true;
  }

  end(chunk?: string | Uint8Array | (() => void), callback?: () => void): this {
    if (typeof chunk === "function") return this.end(undefined, chunk);
    if (chunk !== undefined) this.write(chunk);
    if (!this.#closed) {
      this.#closed = true;
      this.writable = false;
      this.#writes.then(() => {
        ops.child_close_stdin(this.#id);
        callback?.();
        this.emit("finish");
        this.emit("close");
      });
    }
    return this;
  }

  destroy(): this {
    return this.end();
  }
}

// ---------------------------------------------------------------------------------------------
// ChildProcess

export class ChildProcess extends EventEmitter {
  pid: number | undefined;
  stdin: ChildInput | null = null;
  stdout: ChildOutput | null = null;
  stderr: ChildOutput | null = null;
  exitCode: number | null = null;
  signalCode: string | null = null;
  killed = false;
  spawnfile: string;
  spawnargs: string[];
  #id = 0;
  #exited = false;

  constructor(file: string, args: string[]) {
    super();
    this.spawnfile = file;
    this.spawnargs = [file, ...args];
  }

  get connected(): boolean {
    return false;
  }

  /** Sends `signal` to the child's process group; false once it has exited. */
  kill(signal?: string | number): boolean {
    if (this.#exited || !this.#id) return false;
    const sent = ops.child_kill(this.#id, signalName(signal)) as boolean;
    if (sent) this.killed = true;
    return sent;
  }

  ref(): this {
    return this;
  }

  unref(): never {
    throw notSupported("ChildProcess.unref (a child always keeps the run alive)");
  }

  /** Starts the child; errors (ENOENT, ...) are emitted as "error" on a later tick, as in Node. */
  static start(req: SpawnRequest, options: SpawnOptions): ChildProcess {
    const child = new ChildProcess(req.file, req.args);
    const signal = options.signal;
    if (signal !== undefined && !(signal instanceof AbortSignalClass())) {
      throw invalidArgType("options.signal", "an instance of AbortSignal", signal);
    }
    let started: { id: number; pid: number };
    try {
      started = ops.child_spawn(req) as { id: number; pid: number };
    } catch (error) {
      const failure = error as Error & Record<string, unknown>;
      failure.spawnargs = req.args;
      queueMicrotask(() => {
        child.emit("error", failure);
        child.emit("close", -2, null);
      });
      return child;
    }
    child.#id = started.id;
    child.pid = started.pid;
    if (req.stdio[0] === "pipe") child.stdin = new ChildInput(started.id);
    if (req.stdio[1] === "pipe") child.stdout = new ChildOutput();
    if (req.stdio[2] === "pipe") child.stderr = new ChildOutput();
    child.#watch(options, signal);
    return child;
  }

  #watch(options: SpawnOptions, signal: AbortSignal | undefined): void {
    const id = this.#id;
    const killSignal = signalName(options.killSignal);
    const pumps = [this.stdout, this.stderr].map((stream, i) => (stream ? pump(id, i + 1, stream) : Promise.resolve()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (options.timeout && options.timeout > 0) timer = setTimeout(() => this.kill(killSignal), options.timeout);
    const onAbort = () => {
      this.kill(killSignal);
      this.emit("error", abortError(signal?.reason));
    };
    if (signal?.aborted) queueMicrotask(onAbort);
    else signal?.addEventListener("abort", onAbort, { once: true });
    queueMicrotask(() => this.emit("spawn"));
    opAsync(ops.child_wait({ id })).then(
      async ({ code, signal: endedBy }) => {
        this.#exited = true;
        this.exitCode = code;
        this.signalCode = endedBy;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (this.stdin) this.stdin.writable = false;
        ops.child_close_stdin(id);
        this.emit("exit", code, endedBy);
        // Output nobody listened to is let go, as Node does on exit.
        this.stdout?.resume();
        this.stderr?.resume();
        await Promise.all(pumps);
        ops.child_release(id);
        this.emit("close", code, endedBy);
      },
      (error) => this.emit("error", error),
    );
  }
}

async function pump(id: number, fd: number, stream: ChildOutput): Promise<void> {
  for (;;) {
    const chunk = await opAsync(ops.child_read({ id, fd }));
    if (chunk === undefined) break;
    stream.push(chunk);
  }
  stream.push(null);
}

// ---------------------------------------------------------------------------------------------
// spawn, execFile, exec

function splitArgs(args: unknown, options: unknown): [string[], SpawnOptions] {
  if (Array.isArray(args)) return [args as string[], (options ?? {}) as SpawnOptions];
  if (args === undefined || args === null) return [[], (options ?? {}) as SpawnOptions];
  if (typeof args === "object") return [[], args as SpawnOptions];
  throw invalidArgType("args", "an instance of Array", args);
}

export function spawn(file: string, args?: unknown, options?: SpawnOptions): ChildProcess {
  const [list, opts] = splitArgs(args, options);
  return ChildProcess.start(request(file, list, opts, "spawn", SPAWN_OPTIONS), opts);
}

type ExecCallback = (error: Error | null, stdout: string | BufferValue, stderr: string | BufferValue) => void;

interface ExecOptions extends SpawnOptions {
  encoding?: string | null;
  maxBuffer?: number;
}

/** Runs `req` to its end, collecting output up to maxBuffer; Node's exec/execFile behaviour. */
function collect(req: SpawnRequest, options: ExecOptions, command: string, callback?: ExecCallback): ChildProcess {
  const child = ChildProcess.start(req, options);
  const encoding = options.encoding === undefined ? "utf8" : options.encoding;
  const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  let size = 0;
  let failure: Error | null = null;
  const take = (list: Uint8Array[], name: string) => (chunk: Uint8Array) => {
    size += chunk.length;
    list.push(chunk);
    if (size > maxBuffer && !failure) {
      failure = Object.assign(new RangeError(`${name} maxBuffer length exceeded`), { code: "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" });
      child.kill(signalName(options.killSignal));
    }
  };
  child.stdout?.on("data", take(out, "stdout"));
  child.stderr?.on("data", take(err, "stderr"));
  const text = (list: Uint8Array[]) => {
    const all = Buffer().concat(list);
    return encoding && encoding !== "buffer" ? all.toString(encoding) : all;
  };
  let done = false;
  const finish = (error: Error | null) => {
    if (done) return;
    done = true;
    if (!callback) return;
    const stdout = text(out);
    const stderr = text(err);
    if (error) Object.assign(error, { stdout, stderr });
    callback(error, stdout, stderr);
  };
  child.on("error", (error: Error) => finish(error));
  child.on("close", (code: number | null, signal: string | null) => {
    if (failure) return finish(failure);
    if (code === 0) return finish(null);
    const stderr = Buffer().concat(err).toString();
    const error = Object.assign(new Error(`Command failed: ${command}\n${stderr}`), {
      code,
      killed: child.killed,
      signal,
      cmd: command,
    });
    finish(error);
  });
  return child;
}

function execFileImpl(file: string, args?: unknown, options?: unknown, callback?: unknown): ChildProcess {
  let cb = callback;
  let list = args;
  let opts = options;
  if (typeof list === "function") [cb, list, opts] = [list, [], {}];
  else if (typeof opts === "function") [cb, opts] = [opts, {}];
  const [words, spawnOptions] = splitArgs(list, opts);
  if (cb !== undefined && typeof cb !== "function") throw invalidArgType("callback", "of type function", cb);
  const req = request(file, words, spawnOptions, "execFile", EXEC_OPTIONS);
  return collect(req, spawnOptions as ExecOptions, [file, ...words].join(" "), cb as ExecCallback | undefined);
}

function execImpl(command: string, options?: unknown, callback?: unknown): ChildProcess {
  if (typeof command !== "string") throw invalidArgType("command", "of type string", command);
  let cb = callback;
  let opts = options;
  if (typeof opts === "function") [cb, opts] = [opts, {}];
  const execOptions = { ...((opts ?? {}) as ExecOptions), shell: (opts as ExecOptions | undefined)?.shell || true };
  const req = request(command, [], execOptions, "exec", EXEC_OPTIONS);
  return collect(req, execOptions, command, cb as ExecCallback | undefined);
}

/** `util.promisify(execFile)` / `util.promisify(exec)`: resolves `{ stdout, stderr }`. */
function promisified(run: (...args: any[]) => ChildProcess) {
  return (...args: unknown[]) =>
    new Promise<{ stdout: string | BufferValue; stderr: string | BufferValue }>((resolve, reject) => {
      run(...args, (error: Error | null, stdout: string | BufferValue, stderr: string | BufferValue) =>
        error ? reject(error) : resolve({ stdout, stderr }),
      );
    });
}

const customPromisify = Symbol.for("nodejs.util.promisify.custom");
export const execFile = Object.assign(execFileImpl, { [customPromisify]: promisified(execFileImpl) });
export const exec = Object.assign(execImpl, { [customPromisify]: promisified(execImpl) });

// ---------------------------------------------------------------------------------------------
// Sync forms

interface SyncOptions extends ExecOptions {
  input?: string | ArrayBufferView;
}

interface SyncResult {
  pid: number;
  output: [null, string | BufferValue | null, string | BufferValue | null];
  stdout: string | BufferValue | null;
  stderr: string | BufferValue | null;
  status: number | null;
  signal: string | null;
  error?: Error;
}

function runSync(file: string, args: string[], options: SyncOptions, api: string, defaultEncoding: string | null): SyncResult {
  const req = request(file, args, options, api, SYNC_OPTIONS);
  const input = options.input === undefined ? undefined : typeof options.input === "string" ? encodeUtf8(options.input) : new Uint8Array(options.input.buffer, options.input.byteOffset, options.input.byteLength);
  const raw = ops.child_spawn_sync(
    { ...req, timeoutMs: options.timeout ?? null, maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER, killSignal: signalName(options.killSignal) },
    input,
  ) as { pid: number; status: number | null; signal: string | null; stdout: Uint8Array | null; stderr: Uint8Array | null; error?: { code: string; message: string; data?: Record<string, unknown> } };
  const encoding = options.encoding === undefined ? defaultEncoding : options.encoding;
  const shown = (bytes: Uint8Array | null) => {
    if (bytes === null) return null;
    const buffer = Buffer().from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return encoding && encoding !== "buffer" ? buffer.toString(encoding) : buffer;
  };
  const stdout = shown(raw.stdout);
  const stderr = shown(raw.stderr);
  const result: SyncResult = { pid: raw.pid, output: [null, stdout, stderr], stdout, stderr, status: raw.status, signal: raw.signal };
  if (raw.error) {
    const error = new Error(raw.error.message) as Error & Record<string, unknown>;
    Object.assign(error, raw.error.data ?? {}, { code: raw.error.code, spawnargs: req.args });
    result.error = error;
  }
  return result;
}

export function spawnSync(file: string, args?: unknown, options?: unknown): SyncResult {
  const [list, opts] = splitArgs(args, options);
  return runSync(file, list, opts as SyncOptions, "spawnSync", null);
}

/** Node's execFileSync/execSync: stdout, or a thrown error with status, signal and output. */
function checked(result: SyncResult, command: string, options: SyncOptions): string | BufferValue {
  if (options.stdio === undefined && result.stderr !== null && result.stderr.length) {
    process.stderr.write(result.stderr as string | Uint8Array);
  }
  if (result.error) {
    Object.assign(result.error, { status: result.status, signal: result.signal, output: result.output, pid: result.pid, stdout: result.stdout, stderr: result.stderr });
    throw result.error;
  }
  if (result.status !== 0) {
    const stderr = result.stderr === null ? "" : result.stderr.toString();
    throw Object.assign(new Error(`Command failed: ${command}${stderr ? `\n${stderr}` : ""}`), {
      status: result.status,
      signal: result.signal,
      output: result.output,
      pid: result.pid,
      stdout: result.stdout,
      stderr: result.stderr,
    });
  }
  return result.stdout as string | BufferValue;
}

export function execFileSync(file: string, args?: unknown, options?: unknown): string | BufferValue {
  const [list, opts] = splitArgs(args, options);
  const syncOptions = opts as SyncOptions;
  return checked(runSync(file, list, syncOptions, "execFileSync", "buffer"), [file, ...list].join(" "), syncOptions);
}

export function execSync(command: string, options?: SyncOptions): string | BufferValue {
  if (typeof command !== "string") throw invalidArgType("command", "of type string", command);
  const syncOptions = { ...(options ?? {}), shell: options?.shell || true };
  return checked(runSync(command, [], syncOptions, "execSync", "buffer"), command, syncOptions);
}
