// awf:core — the JS half of the host's op system, shared by every built-in module.
//
// Async ops: calling one (`ops.fs_async(call)`) starts it on the host and gives its id;
// `opAsync(id)` is the promise the host settles later (runtime/src/js/engine/event_loop.rs
// delivers completions through `complete`). Requests: the
// host can ask JS to do something (call a tool handler, run a test script) with `request`; the
// handler registered for that kind answers through `ops.reply`. Errors that ops report carry a
// `code` and become `AwfError`s.

import * as ops from "awf:ops";
import { CODES } from "./errors.ts";

/** An error raised by awf itself, with a stable `code` a program can test. */
export class AwfError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AwfError";
    this.code = code;
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const pending = new Map<number, Pending>();
const timers = new Map<number, { callback: () => void; repeat: boolean }>();
type RequestHandler = (payload: any) => unknown;
const requestHandlers = new Map<string, RequestHandler>();

/**
 * The kinds of request the host makes of JS (upcalls), the one place JS spells them;
 * runtime/src/upcall/kinds.rs spells them for Rust, and a unit test there holds the two equal.
 */
export const UPCALLS = {
  toolCall: "tool.call",
  toolAbort: "tool.abort",
  messageArrived: "message.arrived",
  scriptTurn: "script.turn",
  scriptFork: "script.fork",
  scriptCompact: "script.compact",
  scriptAbort: "script.abort",
} as const;

type UpcallKind = (typeof UPCALLS)[keyof typeof UPCALLS];

/**
 * The promise of an async op whose call (`ops.fs_async(...)`) started it and gave its id: it
 * resolves with the op's value, or rejects with an `AwfError`.
 */
export function opAsync<T>(id: ops.Pending<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
  });
}

/** Registers the handler for requests of one kind from the host. */
export function onRequest(kind: UpcallKind, handler: RequestHandler): void {
  requestHandlers.set(kind, handler);
}

// One host for one user after another (`awf test`'s files on a worker thread,
// runtime/src/js/engine/reuse.rs): what a module keeps in its own state for one user, it
// forgets in a reset hook, run when that user is done.
const resetHooks: (() => void)[] = [];
let keptRequestKinds: ReadonlySet<string> | undefined;
let keptResetHooks: number | undefined;

/** Registers what a module forgets when its host moves on to its next user. */
export function onHostReset(reset: () => void): void {
  resetHooks.push(reset);
}

/**
 * A built-in module loaded on its first use (`builtin_namespace`), for a module that a workflow
 * or test may never need. A host's next user loads it afresh: the modules loaded after a reused
 * host was kept are retired between users (runtime/src/js/engine/module_ledger.rs).
 */
export function lazyBuiltin<T>(module: string): () => T {
  let namespace: T | undefined;
  onHostReset(() => {
    namespace = undefined;
  });
  return () => (namespace ??= ops.builtin_namespace(module) as unknown as T);
}

/**
 * Keeps what is loaded now for every later user of this host: the modules, the state of
 * `objects` (put back between users) and the request handlers. False when the host cannot be
 * reused; each user then gets a host of its own.
 */
export function keepForReuse(objects: readonly object[]): boolean {
  keptRequestKinds = new Set(requestHandlers.keys());
  keptResetHooks = resetHooks.length;
  return ops.keep_for_reuse(objects);
}

/** The user is done: every module forgets what it kept for it, and pending work is dropped. */
export function resetHost(): void {
  for (const reset of resetHooks) reset();
  // The hooks of modules loaded for this user go with their modules, which are retired now.
  if (keptResetHooks !== undefined) resetHooks.length = keptResetHooks;
  pending.clear();
  timers.clear();
  for (const kind of requestHandlers.keys()) {
    if (!keptRequestKinds?.has(kind)) requestHandlers.delete(kind);
  }
}

/** Schedules a callback with the host's timer wheel; returns its id. */
export function startTimer(callback: () => void, delayMs: number, repeat: boolean): number {
  const id = ops.timer_start(delayMs, repeat);
  timers.set(id, { callback, repeat });
  return id;
}

export function clearTimer(id: number): void {
  if (timers.delete(id)) ops.timer_clear(id);
}

/** Lets a timer stop keeping the run alive (Node's `unref`), or keep it again. */
export function unrefTimer(id: number, unref: boolean): void {
  if (timers.has(id)) ops.timer_unref(id, unref);
}

/** What the host needs to know about an error thrown in JS. */
export interface ErrorInfo {
  name: string;
  message: string;
  stack: string;
  code?: string;
  hint?: string;
  /** Where a syntax or resolve error was written: "file:line:col". */
  location?: { file: string; line: number; col: number };
}

export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; hint?: unknown; location?: ErrorInfo["location"] };
    const info: ErrorInfo = { name: e.name, message: e.message, stack: stackFrames(e) };
    if (typeof e.code === "string") info.code = e.code;
    if (typeof e.hint === "string") info.hint = e.hint;
    if (e.location) info.location = e.location;
    return info;
  }
  return { name: "Error", message: `a non-error value was thrown: ${describeThrown(error)}`, stack: "" };
}

function describeThrown(value: unknown): string {
  try {
    return typeof value === "string" ? JSON.stringify(value) : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** The "at ..." lines of an error's stack, without its first line. */
function stackFrames(error: Error): string {
  const stack = typeof error.stack === "string" ? error.stack : "";
  return stack
    .split("\n")
    .filter((line) => line.trimStart().startsWith("at "))
    .join("\n");
}

function complete(id: number, ok: boolean, value: unknown): void {
  const entry = pending.get(id);
  if (!entry) return;
  pending.delete(id);
  if (ok) {
    entry.resolve(value);
  } else {
    const failure = value as { code: string; message: string; data?: Record<string, unknown> };
    const error = new AwfError(failure.code, failure.message);
    if (failure.data) Object.assign(error, failure.data);
    entry.reject(error);
  }
}

function fireTimer(id: number): void {
  const timer = timers.get(id);
  if (!timer) return;
  if (!timer.repeat) timers.delete(id);
  timer.callback();
}

function request(kind: string, payload: unknown, replyId: number): void {
  const handler = requestHandlers.get(kind);
  if (!handler) {
    ops.reply(replyId, false, errorInfo(new AwfError(CODES.internal, `no handler for host request ${kind}`)));
    return;
  }
  let result: unknown;
  try {
    result = handler(payload);
  } catch (error) {
    ops.reply(replyId, false, errorInfo(error));
    return;
  }
  Promise.resolve(result).then(
    (value) => replyWith(replyId, value),
    (error) => ops.reply(replyId, false, errorInfo(error)),
  );
}

function replyWith(replyId: number, value: unknown): void {
  try {
    ops.reply(replyId, true, value);
  } catch (error) {
    ops.reply(replyId, false, errorInfo(error));
  }
}

ops.set_callbacks({ complete, fire_timer: fireTimer, request });
