// js/test/fake_timers.ts — fake timers for the `bun:test` module: `jest.useFakeTimers()`,
// `advanceTimersByTime`, `advanceTimersToNextTimer`, `runAllTimers`, `runOnlyPendingTimers`,
// `getTimerCount`, `clearAllTimers`, `now`, `useRealTimers`, and `setSystemTime` (which also
// works with real timers, as in bun).
//
// Faking swaps the globals `setTimeout`/`setInterval`/`setImmediate`, their `clear*` twins and
// `Date` for ones driven by a clock that moves only when the test moves it. The test runner
// keeps the real timers (it captured them first), so time limits still hold. awf's own turn
// and run deadlines are kept by awf outside JS, in real time: fake timers do not move them.

import { onHostReset } from "../core.ts";

type Callback = (...args: unknown[]) => unknown;

interface FakeTimer {
  readonly id: number;
  at: number;
  readonly callback: Callback;
  readonly args: unknown[];
  readonly every: number | undefined;
}

const globals = globalThis as unknown as Record<string, unknown>;
const TIMER_GLOBALS = ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate", "Date"] as const;
const real: Record<string, unknown> = Object.fromEntries(TIMER_GLOBALS.map((name) => [name, globals[name]]));
const RealDate = globalThis.Date;

/** The faked clock: `now` in Unix ms (what Date reads), the timers by id. */
const clock = { faking: false, now: 0, nextId: 1, timers: new Map<number, FakeTimer>() };
/** `setSystemTime` with real timers: Date reads the real time plus this. */
let systemOffset: number | undefined;
// The host's next test file starts with the real clock (the globals themselves are put back
// by the host: runtime/src/js/engine/shared_objects.rs).
onHostReset(() => {
  Object.assign(clock, { faking: false, now: 0, nextId: 1 });
  clock.timers.clear();
  systemOffset = undefined;
});

/** The handle a fake setTimeout gives: numeric like a timer id, with Node's ref/unref. */
class FakeHandle {
  readonly id: number;
  constructor(id: number) {
    this.id = id;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

function currentTime(): number {
  if (clock.faking) return clock.now;
  return RealDate.now() + (systemOffset ?? 0);
}

function makeDate(): DateConstructor {
  const FakeDate = function (this: unknown, ...args: unknown[]) {
    if (new.target === undefined) return new RealDate(currentTime()).toString();
    return args.length === 0 ? new RealDate(currentTime()) : new (RealDate as any)(...args);
  } as unknown as DateConstructor;
  Object.setPrototypeOf(FakeDate, RealDate);
  Object.defineProperty(FakeDate, "prototype", { value: RealDate.prototype });
  Object.defineProperty(FakeDate, "now", { value: () => currentTime(), writable: true, configurable: true });
  return FakeDate;
}

function schedule(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): FakeHandle {
  if (typeof callback !== "function") throw new TypeError(`the callback must be a function, got ${typeof callback}`);
  const ms = Math.max(0, Number(delay) || 0);
  const id = clock.nextId++;
  clock.timers.set(id, { id, at: clock.now + ms, callback: callback as Callback, args, every: repeat ? Math.max(1, ms) : undefined });
  return new FakeHandle(id);
}

function clear(handle: unknown): void {
  if (handle === undefined || handle === null) return;
  clock.timers.delete(handle instanceof FakeHandle ? handle.id : Number(handle));
}

const fakes: Record<string, unknown> = {
  setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => schedule(callback, delay, args, false),
  setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => schedule(callback, delay, args, true),
  setImmediate: (callback: unknown, ...args: unknown[]) => schedule(callback, 0, args, false),
  clearTimeout: clear,
  clearInterval: clear,
  clearImmediate: clear,
};

export function useFakeTimers(options?: { now?: number | Date }): void {
  const start = options?.now instanceof RealDate ? options.now.getTime() : (options?.now ?? currentTime());
  clock.now = Number(start);
  clock.faking = true;
  for (const name of Object.keys(fakes)) globals[name] = fakes[name];
  globals.Date = makeDate();
}

export function useRealTimers(): void {
  clock.faking = false;
  clock.timers.clear();
  for (const name of TIMER_GLOBALS) globals[name] = real[name];
  if (systemOffset !== undefined) globals.Date = makeDate();
}

export function isFakeTimers(): boolean {
  return clock.faking;
}

function requireFaking(what: string): void {
  if (!clock.faking) throw new Error(`${what}() needs fake timers\nhint: call jest.useFakeTimers() first`);
}

/** The due timer that fires next (earliest, then first made), if it is due by `until`. */
function nextDue(until: number): FakeTimer | undefined {
  let next: FakeTimer | undefined;
  for (const timer of clock.timers.values()) if (timer.at <= until && (next === undefined || timer.at < next.at)) next = timer;
  return next;
}

function fire(timer: FakeTimer): void {
  clock.now = Math.max(clock.now, timer.at);
  if (timer.every === undefined) clock.timers.delete(timer.id);
  else timer.at += timer.every;
  timer.callback(...timer.args);
}

export function advanceTimersByTime(ms: number): void {
  requireFaking("advanceTimersByTime");
  const until = clock.now + Math.max(0, Number(ms) || 0);
  for (let timer = nextDue(until); timer; timer = nextDue(until)) fire(timer);
  clock.now = until;
}

export function advanceTimersToNextTimer(steps = 1): void {
  requireFaking("advanceTimersToNextTimer");
  for (let step = 0; step < steps; step++) {
    const timer = nextDue(Infinity);
    if (timer === undefined) return;
    fire(timer);
  }
}

/** Fires timers until none is left; an interval that never stops would loop forever, so this stops at 100000. */
export function runAllTimers(): void {
  requireFaking("runAllTimers");
  for (let fired = 0; clock.timers.size > 0; fired++) {
    if (fired >= 100_000) throw new Error("runAllTimers() fired 100000 timers and more keep coming: an interval never stops?\nhint: use advanceTimersByTime(ms) for intervals");
    const timer = nextDue(Infinity);
    if (timer) fire(timer);
  }
}

export function runOnlyPendingTimers(): void {
  requireFaking("runOnlyPendingTimers");
  const pending = new Set(clock.timers.keys());
  const until = Math.max(clock.now, ...[...clock.timers.values()].map((timer) => timer.at));
  for (let timer = nextDue(until); timer && pending.has(timer.id); timer = nextDue(until)) {
    pending.delete(timer.id);
    fire(timer);
  }
}

export function getTimerCount(): number {
  return clock.timers.size;
}

export function clearAllTimers(): void {
  clock.timers.clear();
}

export function now(): number {
  return currentTime();
}

/** Sets what Date reads: with fake timers, their clock; else the real time from now on is shifted. Without an argument, back to the real time. */
export function setSystemTime(time?: number | Date | string): void {
  if (time === undefined) {
    systemOffset = undefined;
    if (!clock.faking) globals.Date = real.Date;
    return;
  }
  const at = time instanceof RealDate ? time.getTime() : new RealDate(time as number | string).getTime();
  if (clock.faking) {
    clock.now = at;
    return;
  }
  systemOffset = at - RealDate.now();
  globals.Date = makeDate();
}
