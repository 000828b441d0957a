// js/test/jest.ts — the `jest` object of the `bun:test` module (also `vi`): mocks, fake timers
// and the file's default time limit, under jest's names.

import { onHostReset } from "../core.ts";
import * as fakeTimers from "./fake_timers.ts";
import { clearAllMocks, isMock, mock, resetAllMocks, restoreAllMocks, spyOn } from "./mock.ts";

/** `jest.setTimeout(ms)`: the file's own default time limit, over the command line's; the runner reads it. */
export const defaults: { timeoutMs: number | undefined } = { timeoutMs: undefined };
onHostReset(() => {
  defaults.timeoutMs = undefined;
});

export const jest = {
  fn: mock,
  spyOn,
  isMockFunction: isMock,
  clearAllMocks,
  resetAllMocks,
  restoreAllMocks,
  useFakeTimers: fakeTimers.useFakeTimers,
  useRealTimers: fakeTimers.useRealTimers,
  isFakeTimers: fakeTimers.isFakeTimers,
  advanceTimersByTime: fakeTimers.advanceTimersByTime,
  advanceTimersToNextTimer: fakeTimers.advanceTimersToNextTimer,
  runAllTimers: fakeTimers.runAllTimers,
  runOnlyPendingTimers: fakeTimers.runOnlyPendingTimers,
  getTimerCount: fakeTimers.getTimerCount,
  clearAllTimers: fakeTimers.clearAllTimers,
  now: fakeTimers.now,
  setSystemTime: fakeTimers.setSystemTime,
  /** The time limit of this file's tests and hooks that set none. */
  setTimeout(ms: number): void {
    defaults.timeoutMs = ms;
  },
  mock: mock.module,
};

export const vi = jest;
