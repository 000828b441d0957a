// setTimeout/setInterval/setImmediate and their clear* twins, on the host's timer wheel.
//
// Like Node, each returns a Timeout object with ref()/unref()/hasRef(); it also converts to its
// numeric id, so code written for browsers that stores the number keeps working. A pending,
// ref'd timer keeps the run alive; an unref'd one does not. A callback runs in the async
// context it was scheduled in (async_context.ts).

import { clearTimer, onHostReset, startTimer, unrefTimer } from "../core.ts";
import { bind } from "./async_context.ts";

const byId = new Map<number, Timeout>();
onHostReset(() => byId.clear());

export class Timeout {
  readonly #id: number;
  #ref = true;

  constructor(id: number) {
    this.#id = id;
  }

  ref(): this {
    this.#ref = true;
    unrefTimer(this.#id, false);
    return this;
  }

  unref(): this {
    this.#ref = false;
    unrefTimer(this.#id, true);
    return this;
  }

  hasRef(): boolean {
    return this.#ref;
  }

  [Symbol.toPrimitive](): number {
    return this.#id;
  }

  /** The host's id, for clear*. */
  get id(): number {
    return this.#id;
  }
}

function schedule(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): Timeout {
  if (typeof callback !== "function") {
    throw new TypeError(`The "callback" argument must be of type function. Received ${typeof callback}`);
  }
  const ms = Math.max(0, Number(delay) || 0);
  const run = bind(callback as (...a: unknown[]) => void);
  const id = startTimer(() => {
    if (!repeat) byId.delete(id);
    run(...args);
  }, ms, repeat);
  const timer = new Timeout(id);
  byId.set(id, timer);
  return timer;
}

function clear(timer: unknown): void {
  if (timer === undefined || timer === null) return;
  const id = timer instanceof Timeout ? timer.id : Number(timer);
  byId.delete(id);
  clearTimer(id);
}

export function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): Timeout {
  return schedule(callback, delay, args, false);
}

export function setInterval(callback: unknown, delay?: unknown, ...args: unknown[]): Timeout {
  return schedule(callback, delay, args, true);
}

export function setImmediate(callback: unknown, ...args: unknown[]): Timeout {
  return schedule(callback, 0, args, false);
}

export const clearTimeout = clear;
export const clearInterval = clear;
export const clearImmediate = clear;
