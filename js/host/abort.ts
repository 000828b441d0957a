// `AbortController` and `AbortSignal` (lazy globals, with `Event` and `EventTarget` from
// ./event_target.ts): cancellation for fetch, child processes, timers and a tool call's
// `call.signal`. Reached through the globals only (js/host/lazy_global.ts).
//
// A signal is an EventTarget firing one "abort" event, with `aborted`, `reason`,
// `throwIfAborted()` and `onabort`. `AbortSignal.timeout(ms)` aborts with a TimeoutError and does
// not keep the run alive (its timer is unref'd); `AbortSignal.any(signals)` follows the first of
// several to abort.

import { startTimer, unrefTimer } from "../core.ts";
import { Event, EventTarget } from "./event_target.ts";

export { Event, EventTarget };

const create = Symbol("AbortSignal.create");

/** Aborts a signal: AbortController.abort and the statics; set in AbortSignal's static block. */
let signalAbort: (signal: AbortSignal, reason: unknown) => void;

type AbortHandler = ((this: AbortSignal, event: Event) => unknown) | null;

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  #onabort: AbortHandler = null;
  #onabortInstalled = false;

  constructor(token?: symbol) {
    if (token !== create) throw new TypeError("Illegal constructor");
    super();
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  get onabort(): AbortHandler {
    return this.#onabort;
  }

  set onabort(handler: AbortHandler) {
    this.#onabort = typeof handler === "function" ? handler : null;
    if (!this.#onabortInstalled) {
      this.#onabortInstalled = true;
      this.addEventListener("abort", (event) => this.#onabort?.call(this, event));
    }
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  static {
    signalAbort = (signal, reason) => {
      if (signal.#aborted) return;
      signal.#aborted = true;
      signal.#reason = reason === undefined ? abortError() : reason;
      signal.dispatchEvent(new Event("abort"));
    };
  }

  static abort(reason?: unknown): AbortSignal {
    const signal = new AbortSignal(create);
    signalAbort(signal, reason);
    return signal;
  }

  static timeout(ms: number): AbortSignal {
    const delay = Number(ms);
    if (!Number.isFinite(delay) || delay < 0) {
      throw new RangeError(`The value of "delay" is out of range. It must be >= 0 && <= 4294967295. Received ${ms}`);
    }
    const signal = new AbortSignal(create);
    const id = startTimer(
      () => signalAbort(signal, new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      delay,
      false,
    );
    unrefTimer(id, true);
    return signal;
  }

  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const list = [...signals];
    for (const s of list) {
      if (!(s instanceof AbortSignal)) {
        throw new TypeError('The "signals" argument must be an array of AbortSignal instances.');
      }
    }
    const signal = new AbortSignal(create);
    const aborted = list.find((s) => s.aborted);
    if (aborted) {
      signalAbort(signal, aborted.reason);
      return signal;
    }
    for (const source of list) {
      source.addEventListener("abort", () => signalAbort(signal, source.reason), { once: true });
    }
    return signal;
  }

  get [Symbol.toStringTag](): string {
    return "AbortSignal";
  }
}

export class AbortController {
  readonly #signal = new AbortSignal(create);

  get signal(): AbortSignal {
    return this.#signal;
  }

  abort(reason?: unknown): void {
    signalAbort(this.#signal, reason);
  }

  get [Symbol.toStringTag](): string {
    return "AbortController";
  }
}

/** The reason a signal aborted without one: `DOMException [AbortError]`. */
export function abortError(): DOMException {
  return new DOMException("This operation was aborted", "AbortError");
}
