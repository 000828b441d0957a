// `node:events` (and `events`): Node's EventEmitter and `once(emitter, name)`.
//
// Listeners run in order, synchronously, on `emit`; an "error" event nobody listens to is
// thrown; "newListener" and "removeListener" are emitted as in Node; more than `maxListeners`
// for one event prints Node's leak warning once. Not provided yet: `on(emitter, name)` (the
// async iterator), `captureRejections`, `EventEmitter.errorMonitor`.

type Listener = (...args: any[]) => unknown;

interface Entry {
  listener: Listener;
  /** The function given to `once`, for removeListener and rawListeners. */
  original?: Listener;
}

let defaultMaxListeners = 10;

function checkListener(listener: unknown): asserts listener is Listener {
  if (typeof listener !== "function") {
    const error = new TypeError(
      `The "listener" argument must be of type function. Received ${listener === null ? "null" : `type ${typeof listener}`}`,
    ) as TypeError & { code: string };
    error.code = "ERR_INVALID_ARG_TYPE";
    throw error;
  }
}

export class EventEmitter {
  #events = new Map<string | symbol, Entry[]>();
  #maxListeners: number | undefined;
  #warned = new Set<string | symbol>();

  static get defaultMaxListeners(): number {
    return defaultMaxListeners;
  }
  static set defaultMaxListeners(n: number) {
    defaultMaxListeners = n;
  }

  static once = once;
  static EventEmitter = EventEmitter;

  #add(name: string | symbol, entry: Entry, prepend: boolean): this {
    checkListener(entry.original ?? entry.listener);
    if (this.#events.has("newListener")) this.emit("newListener", name, entry.original ?? entry.listener);
    const list = this.#events.get(name) ?? [];
    if (prepend) list.unshift(entry);
    else list.push(entry);
    this.#events.set(name, list);
    const max = this.getMaxListeners();
    if (max > 0 && list.length > max && !this.#warned.has(name)) {
      this.#warned.add(name);
      process.emitWarning(
        `MaxListenersExceededWarning: Possible EventEmitter memory leak detected. ${list.length} ${String(name)} listeners added to ${this.constructor.name}. MaxListeners is ${max}. Use emitter.setMaxListeners() to increase limit`,
      );
    }
    return this;
  }

  #onceEntry(name: string | symbol, listener: Listener): Entry {
    checkListener(listener);
    const entry: Entry = {
      original: listener,
      listener: (...args: unknown[]) => {
        this.removeListener(name, listener);
        return listener.apply(this, args);
      },
    };
    return entry;
  }

  on(name: string | symbol, listener: Listener): this {
    return this.#add(name, { listener }, false);
  }
  addListener(name: string | symbol, listener: Listener): this {
    return this.on(name, listener);
  }
  prependListener(name: string | symbol, listener: Listener): this {
    return this.#add(name, { listener }, true);
  }
  once(name: string | symbol, listener: Listener): this {
    return this.#add(name, this.#onceEntry(name, listener), false);
  }
  prependOnceListener(name: string | symbol, listener: Listener): this {
    return this.#add(name, this.#onceEntry(name, listener), true);
  }

  removeListener(name: string | symbol, listener: Listener): this {
    checkListener(listener);
    const list = this.#events.get(name);
    if (!list) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i].listener === listener || list[i].original === listener) {
        list.splice(i, 1);
        if (list.length === 0) this.#events.delete(name);
        if (this.#events.has("removeListener")) this.emit("removeListener", name, listener);
        break;
      }
    }
    return this;
  }
  off(name: string | symbol, listener: Listener): this {
    return this.removeListener(name, listener);
  }

  removeAllListeners(name?: string | symbol): this {
    if (name === undefined) {
      this.#events.clear();
    } else {
      this.#events.delete(name);
    }
    return this;
  }

  emit(name: string | symbol, ...args: unknown[]): boolean {
    const list = this.#events.get(name);
    if (!list || list.length === 0) {
      if (name === "error") {
        const error = args[0];
        if (error instanceof Error) throw error;
        const wrapped = new Error(`Unhandled error. (${String(error)})`) as Error & { code: string; context: unknown };
        wrapped.code = "ERR_UNHANDLED_ERROR";
        wrapped.context = error;
        throw wrapped;
      }
      return false;
    }
    for (const entry of [...list]) entry.listener.apply(this, args);
    return true;
  }

  listenerCount(name: string | symbol, listener?: Listener): number {
    const list = this.#events.get(name) ?? [];
    if (!listener) return list.length;
    return list.filter((e) => e.listener === listener || e.original === listener).length;
  }

  listeners(name: string | symbol): Listener[] {
    return (this.#events.get(name) ?? []).map((e) => e.original ?? e.listener);
  }

  rawListeners(name: string | symbol): Listener[] {
    return (this.#events.get(name) ?? []).map((e) => e.listener);
  }

  eventNames(): (string | symbol)[] {
    return [...this.#events.keys()];
  }

  setMaxListeners(n: number): this {
    if (typeof n !== "number" || n < 0 || Number.isNaN(n)) {
      throw new RangeError(`The value of "n" is out of range. It must be a non-negative number. Received ${String(n)}`);
    }
    this.#maxListeners = n;
    return this;
  }

  getMaxListeners(): number {
    return this.#maxListeners ?? defaultMaxListeners;
  }
}

/** Resolves with the arguments of the next `name` event; rejects on "error" or on abort. */
export function once(
  emitter: EventEmitter,
  name: string | symbol,
  options: { signal?: AbortSignal } = {},
): Promise<unknown[]> {
  const signal = options?.signal;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal.reason));
      return;
    }
    const onEvent = (...args: unknown[]) => {
      cleanup();
      resolve(args);
    };
    const onError = (error: unknown) => {
      cleanup();
      reject(error);
    };
    const onAbort = () => {
      cleanup();
      reject(abortError(signal?.reason));
    };
    const cleanup = () => {
      emitter.removeListener(name, onEvent);
      if (name !== "error") emitter.removeListener("error", onError);
      signal?.removeEventListener("abort", onAbort);
    };
    emitter.on(name, onEvent);
    if (name !== "error") emitter.on("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortError(cause: unknown): Error {
  const error = new Error("The operation was aborted", { cause }) as Error & { code: string };
  error.name = "AbortError";
  error.code = "ABORT_ERR";
  return error;
}

export { defaultMaxListeners };
export default EventEmitter;
