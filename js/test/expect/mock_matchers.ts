// js/test/expect/mock_matchers.ts — The judges of the mock matchers: toHaveBeenCalled(Times|
// With|Once), toHaveBeenLastCalledWith, toHaveBeenNthCalledWith, toHaveReturned(Times|With),
// toHaveLastReturnedWith, toHaveNthReturnedWith. They read a mock's `.mock` record (mock.ts).

import { isMock, type MockState } from "../mock.ts";
import { equals } from "./equality.ts";
import { format } from "./format.ts";
import { MatcherUsageError, type Verdict } from "./matchers.ts";

function recordOf(received: unknown): MockState {
  if (!isMock(received)) throw new MatcherUsageError(`Matcher error: received value must be a mock or spy function\n\nReceived: ${format(received)}`);
  return received.mock;
}

function listCalls(calls: readonly unknown[][]): string {
  if (calls.length === 0) return "Number of calls: 0";
  const lines = calls.map((args, index) => `  ${index + 1}: ${args.map((arg) => format(arg)).join(", ")}`);
  return `Received:\n${lines.join("\n")}\n\nNumber of calls: ${calls.length}`;
}

function requireCount(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new MatcherUsageError(`Matcher error: expected value must be a non-negative integer (${what})\n\nExpected: ${format(value)}`);
  }
  return value;
}

function requirePosition(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new MatcherUsageError(`Matcher error: n must be a positive integer\n\nn: ${format(value)}`);
  }
  return value;
}

function requireNoArguments(args: readonly unknown[]): void {
  if (args.length > 0) throw new MatcherUsageError(`Matcher error: this matcher takes no expected value\n\nExpected: ${args.map((arg) => format(arg)).join(", ")}`);
}

/** Called at all, or (`times`) exactly that often. */
export function judgeCalled(received: unknown, args: readonly unknown[], times?: number): Verdict {
  const { calls } = recordOf(received);
  requireNoArguments(args);
  if (times !== undefined) return judgeCalledTimes(received, times);
  return { pass: calls.length > 0, details: (negated) => `Expected number of calls: ${negated ? "0" : ">= 1"}\nReceived number of calls: ${calls.length}` };
}

export function judgeCalledTimes(received: unknown, times: unknown): Verdict {
  const { calls } = recordOf(received);
  const wanted = requireCount(times, "number of calls");
  return {
    pass: calls.length === wanted,
    details: (negated) => `Expected number of calls: ${negated ? "not " : ""}${wanted}\nReceived number of calls: ${calls.length}`,
  };
}

/** A call's arguments as bun compares them: as many as expected (a trailing `undefined` counts), each equal. */
const sameArgs = (args: readonly unknown[], expected: readonly unknown[]): boolean => args.length === expected.length && equals(args, expected);

export function judgeCalledWith(received: unknown, expected: readonly unknown[]): Verdict {
  const { calls } = recordOf(received);
  return {
    pass: calls.some((args) => sameArgs(args, expected)),
    details: (negated) => `Expected: ${negated ? "not " : ""}${expected.map((arg) => format(arg)).join(", ")}\n${listCalls(calls)}`,
  };
}

export function judgeNthCalledWith(received: unknown, position: unknown, expected: readonly unknown[], last: boolean): Verdict {
  const { calls } = recordOf(received);
  const n = last ? calls.length : requirePosition(position);
  const args = calls[n - 1];
  return {
    pass: args !== undefined && sameArgs(args, expected),
    details(negated) {
      const want = `Expected: ${negated ? "not " : ""}${expected.map((arg) => format(arg)).join(", ")}`;
      const got = args === undefined ? `Received: no call${last ? "" : ` ${n}`}` : `Received: ${args.map((arg) => format(arg)).join(", ")}`;
      return `${last ? "" : `n: ${n}\n`}${want}\n${got}\n\nNumber of calls: ${calls.length}`;
    },
  };
}

export function judgeReturned(received: unknown, args: readonly unknown[]): Verdict {
  requireNoArguments(args);
  const returns = recordOf(received).results.filter((result) => result.type === "return").length;
  return { pass: returns > 0, details: (negated) => `Expected number of returns: ${negated ? "0" : ">= 1"}\nReceived number of returns: ${returns}` };
}

export function judgeReturnedTimes(received: unknown, times: unknown): Verdict {
  const returns = recordOf(received).results.filter((result) => result.type === "return").length;
  const wanted = requireCount(times, "number of returns");
  return {
    pass: returns === wanted,
    details: (negated) => `Expected number of returns: ${negated ? "not " : ""}${wanted}\nReceived number of returns: ${returns}`,
  };
}

export function judgeReturnedWith(received: unknown, expected: unknown): Verdict {
  const { results, calls } = recordOf(received);
  return {
    pass: results.some((result) => result.type === "return" && equals(result.value, expected)),
    details: (negated) => `Expected: ${negated ? "not " : ""}${format(expected)}\nReceived: ${results.map((result) => format(result.value)).join(", ")}\n\nNumber of calls: ${calls.length}`,
  };
}

export function judgeNthReturnedWith(received: unknown, position: unknown, expected: unknown, last: boolean): Verdict {
  const { results, calls } = recordOf(received);
  const n = last ? results.length : requirePosition(position);
  const result = results[n - 1];
  return {
    pass: result !== undefined && result.type === "return" && equals(result.value, expected),
    details(negated) {
      const got = result === undefined ? `Received: no call${last ? "" : ` ${n}`}` : `Received: ${result.type === "throw" ? "function call threw an error" : format(result.value)}`;
      return `${last ? "" : `n: ${n}\n`}Expected: ${negated ? "not " : ""}${format(expected)}\n${got}\n\nNumber of calls: ${calls.length}`;
    },
  };
}
