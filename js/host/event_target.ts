// `Event` and `EventTarget` (lazy globals, served by ./abort.ts): the DOM event model as far as AbortSignal and code written
// against it need: listeners by type, `once`, `signal`, `handleEvent` objects, `preventDefault`,
// `stopImmediatePropagation`. There is no tree, so no capture or bubbling phases: an event
// reaches its target's listeners only.
//
// A listener that throws does not stop the others nor reach `dispatchEvent`'s caller: as in
// Node, the error is rethrown on its own, so it fails the run as an uncaught error.

export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

// Dispatch state only EventTarget may change; set in Event's static block.
let beginDispatch: (event: Event, target: EventTarget) => void;
let endDispatch: (event: Event) => void;
let isStopped: (event: Event) => boolean;

export class Event {
  readonly type: string;
  readonly bubbles: boolean;
  readonly cancelable: boolean;
  readonly composed: boolean;
  readonly timeStamp: number;
  readonly isTrusted = false;
  #defaultPrevented = false;
  #stopped = false;
  #target: EventTarget | null = null;
  #dispatching = false;

  static readonly NONE = 0;
  static readonly CAPTURING_PHASE = 1;
  static readonly AT_TARGET = 2;
  static readonly BUBBLING_PHASE = 3;

  constructor(type: string, init: EventInit = {}) {
    if (arguments.length === 0) throw new TypeError('The "type" argument must be specified');
    this.type = String(type);
    this.bubbles = Boolean(init?.bubbles);
    this.cancelable = Boolean(init?.cancelable);
    this.composed = Boolean(init?.composed);
    this.timeStamp = performance.now();
  }

  get target(): EventTarget | null {
    return this.#target;
  }
  get currentTarget(): EventTarget | null {
    return this.#dispatching ? this.#target : null;
  }
  get srcElement(): EventTarget | null {
    return this.#target;
  }
  get eventPhase(): number {
    return this.#dispatching ? Event.AT_TARGET : Event.NONE;
  }
  get defaultPrevented(): boolean {
    return this.#defaultPrevented;
  }
  get returnValue(): boolean {
    return !this.#defaultPrevented;
  }
  get cancelBubble(): boolean {
    return this.#stopped;
  }

  preventDefault(): void {
    if (this.cancelable) this.#defaultPrevented = true;
  }
  stopPropagation(): void {}
  stopImmediatePropagation(): void {
    this.#stopped = true;
  }
  composedPath(): EventTarget[] {
    return this.#dispatching && this.#target ? [this.#target] : [];
  }

  static {
    beginDispatch = (event, target) => {
      if (event.#dispatching) throw new DOMException("The event is already being dispatched.", "InvalidStateError");
      event.#target = target;
      event.#dispatching = true;
      event.#stopped = false;
    };
    endDispatch = (event) => {
      event.#dispatching = false;
    };
    isStopped = (event) => event.#stopped;
  }
}

type Listener = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };

interface Registration {
  listener: Listener;
  capture: boolean;
  once: boolean;
  removed: boolean;
}

export interface AddEventListenerOptions {
  capture?: boolean;
  once?: boolean;
  passive?: boolean;
  signal?: { aborted: boolean; addEventListener(type: "abort", fn: () => void, options?: { once: boolean }): void };
}

export class EventTarget {
  #listeners = new Map<string, Registration[]>();

  addEventListener(type: string, listener: Listener | null, options?: boolean | AddEventListenerOptions): void {
    if (listener === null || listener === undefined) return;
    if (typeof listener !== "function" && typeof (listener as { handleEvent?: unknown }).handleEvent !== "function") {
      if (typeof listener !== "object") {
        throw new TypeError(`The "listener" argument must be an instance of EventListener. Received ${typeof listener}`);
      }
    }
    const opts = typeof options === "boolean" ? { capture: options } : (options ?? {});
    const capture = Boolean(opts.capture);
    if (opts.signal?.aborted) return;
    const list = this.#listeners.get(type) ?? [];
    if (list.some((r) => r.listener === listener && r.capture === capture)) return;
    const registration: Registration = { listener, capture, once: Boolean(opts.once), removed: false };
    list.push(registration);
    this.#listeners.set(type, list);
    opts.signal?.addEventListener("abort", () => this.removeEventListener(type, listener, { capture }), { once: true });
  }

  removeEventListener(type: string, listener: Listener | null, options?: boolean | { capture?: boolean }): void {
    const capture = Boolean(typeof options === "boolean" ? options : options?.capture);
    const list = this.#listeners.get(type);
    if (!list) return;
    const index = list.findIndex((r) => r.listener === listener && r.capture === capture);
    if (index < 0) return;
    list[index].removed = true;
    list.splice(index, 1);
  }

  dispatchEvent(event: Event): boolean {
    if (!(event instanceof Event)) {
      throw new TypeError('The "event" argument must be an instance of Event.');
    }
    beginDispatch(event, this);
    try {
      for (const registration of [...(this.#listeners.get(event.type) ?? [])]) {
        if (registration.removed) continue;
        if (registration.once) this.removeEventListener(event.type, registration.listener, { capture: registration.capture });
        callListener(this, registration.listener, event);
        if (isStopped(event)) break;
      }
    } finally {
      endDispatch(event);
    }
    return !event.defaultPrevented;
  }
}

function callListener(target: EventTarget, listener: Listener, event: Event): void {
  try {
    const result =
      typeof listener === "function" ? listener.call(target, event) : listener.handleEvent(event);
    if (result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(undefined, rethrow);
    }
  } catch (error) {
    rethrow(error);
  }
}

function rethrow(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
