// The async context: which tool call and which cancellation scope the running JS belongs to,
// across `await` (runtime/src/js/engine/async_context.rs keeps the slot and says how).
//
// Installs the two globals rewritten workflow code calls (`__awf_current`, `__awf_resume`),
// and makes callbacks keep the context they were registered in: `.then`/`.catch`/`.finally`
// callbacks and `queueMicrotask` here, timers in timers.ts (through `bind`). The value itself
// is made by js/workflow/identity.ts and js/workflow/scope.ts; nothing here reads it.

import * as ops from "awf:ops";

/** The context the running code belongs to, or undefined. */
export function currentContext(): object | undefined {
  return ops.context_current() as object | undefined;
}

/** Runs `fn` with `context` current, and puts back what was current before. */
export function withContext<T>(context: object | undefined, fn: () => T): T {
  const before = ops.context_current();
  ops.context_resume(context);
  try {
    return fn();
  } finally {
    ops.context_resume(before);
  }
}

/** `callback`, made to run in the context current now (itself when there is none). */
export function bind<F extends (...args: never[]) => unknown>(callback: F): F {
  const context = currentContext();
  if (context === undefined || typeof callback !== "function") return callback;
  return function (this: unknown, ...args: never[]) {
    return withContext(context, () => callback.apply(this, args));
  } as F;
}

export function installAsyncContext(): void {
  const define = (name: string, value: unknown) =>
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  define("__awf_current", ops.context_current);
  define("__awf_resume", ops.context_resume);

  const then = Promise.prototype.then;
  // A method, so that it is named `then` and has length 2, as the original.
  const patched = {
    then(this: Promise<unknown>, onFulfilled?: unknown, onRejected?: unknown) {
      if (currentContext() === undefined) return then.call(this, onFulfilled as never, onRejected as never);
      return then.call(this, bind(onFulfilled as never), bind(onRejected as never));
    },
  }.then;
  Object.defineProperty(Promise.prototype, "then", {
    value: patched,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  const queue = globalThis.queueMicrotask;
  Object.defineProperty(globalThis, "queueMicrotask", {
    value: function queueMicrotask(callback: () => void) {
      return queue(bind(callback));
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
