// js/test/expect/matcher_table.ts — The matchers beyond jest's core that expect.ts installs on
// `Expectation`, by name: the mock matchers and their aliases, the jest-extended set bun
// ships, and `toContainEqual`'s string form. Each entry takes the matcher's arguments and
// gives the signature its failure headline shows and the judge that decides it.

import { judgeArrayOfSize, judgeEmpty, judgeIncludeRepeated, judgeKind, judgeMembers, judgeOneOf, judgeSatisfy, judgeString, judgeTypeOf, judgeVerdict, judgeWithin } from "./extended.ts";
import type { Judge } from "./matchers.ts";
import { judgeCalled, judgeCalledTimes, judgeCalledWith, judgeNthCalledWith, judgeNthReturnedWith, judgeReturned, judgeReturnedTimes, judgeReturnedWith } from "./mock_matchers.ts";

export type MatcherEntry = (...args: any[]) => readonly [signature: string, judge: Judge];

/** toHaveBeenCalled() and toHaveBeenCalledOnce() take no argument; one given is a mistake (the test fails, even under .not). */
const called: MatcherEntry = (...args: unknown[]) => ["", (received) => judgeCalled(received, args)];
const calledOnce: MatcherEntry = (...args: unknown[]) => ["", (received) => judgeCalled(received, args, 1)];
const calledTimes: MatcherEntry = (times: number) => ["expected", (received) => judgeCalledTimes(received, times)];
const calledWith: MatcherEntry = (...args: unknown[]) => ["...expected", (received) => judgeCalledWith(received, args)];
const lastCalledWith: MatcherEntry = (...args: unknown[]) => ["...expected", (received) => judgeNthCalledWith(received, 0, args, true)];
const nthCalledWith: MatcherEntry = (n: number, ...args: unknown[]) => ["n, ...expected", (received) => judgeNthCalledWith(received, n, args, false)];
const returned: MatcherEntry = (...args: unknown[]) => ["", (received) => judgeReturned(received, args)];
const returnedTimes: MatcherEntry = (times: number) => ["expected", (received) => judgeReturnedTimes(received, times)];
const returnedWith: MatcherEntry = (value: unknown) => ["expected", (received) => judgeReturnedWith(received, value)];
const lastReturnedWith: MatcherEntry = (value: unknown) => ["expected", (received) => judgeNthReturnedWith(received, 0, value, true)];
const nthReturnedWith: MatcherEntry = (n: number, value: unknown) => ["n, expected", (received) => judgeNthReturnedWith(received, n, value, false)];

const kind =
  (name: string): MatcherEntry =>
  () => ["", (received) => judgeKind(received, name)];

export const MATCHER_TABLE = {
  toHaveBeenCalled: called,
  toBeCalled: called,
  toHaveBeenCalledOnce: calledOnce,
  toHaveBeenCalledTimes: calledTimes,
  toBeCalledTimes: calledTimes,
  toHaveBeenCalledWith: calledWith,
  toBeCalledWith: calledWith,
  toHaveBeenLastCalledWith: lastCalledWith,
  lastCalledWith,
  toHaveBeenNthCalledWith: nthCalledWith,
  nthCalledWith,
  toHaveReturned: returned,
  toReturn: returned,
  toHaveReturnedTimes: returnedTimes,
  toReturnTimes: returnedTimes,
  toHaveReturnedWith: returnedWith,
  toReturnWith: returnedWith,
  toHaveLastReturnedWith: lastReturnedWith,
  lastReturnedWith,
  toHaveNthReturnedWith: nthReturnedWith,
  nthReturnedWith,
  toBeArray: kind("array"),
  toBeBoolean: kind("boolean"),
  toBeDate: kind("date"),
  toBeValidDate: kind("validDate"),
  toBeFunction: kind("function"),
  toBeNumber: kind("number"),
  toBeString: kind("string"),
  toBeSymbol: kind("symbol"),
  toBeObject: kind("object"),
  toBeTrue: kind("true"),
  toBeFalse: kind("false"),
  toBeNil: kind("nil"),
  toBeInteger: kind("integer"),
  toBeFinite: kind("finite"),
  toBePositive: kind("positive"),
  toBeNegative: kind("negative"),
  toBeEven: kind("even"),
  toBeOdd: kind("odd"),
  toBeEmptyObject: kind("emptyObject"),
  toBeEmpty: () => ["", (received) => judgeEmpty(received)],
  toBeTypeOf: (type: string) => ["expected", (received) => judgeTypeOf(received, type)],
  toBeArrayOfSize: (size: number) => ["expected", (received) => judgeArrayOfSize(received, size)],
  toBeWithin: (start: number, end: number) => ["start, end", (received) => judgeWithin(received, start, end)],
  toBeOneOf: (list: readonly unknown[]) => ["expected", (received) => judgeOneOf(received, list)],
  toInclude: (text: string) => ["expected", (received) => judgeString(received, text, "include", "toInclude")],
  toStartWith: (text: string) => ["expected", (received) => judgeString(received, text, "startWith", "toStartWith")],
  toEndWith: (text: string) => ["expected", (received) => judgeString(received, text, "endWith", "toEndWith")],
  toEqualIgnoringWhitespace: (text: string) => ["expected", (received) => judgeString(received, text, "equalIgnoringWhitespace", "toEqualIgnoringWhitespace")],
  toIncludeRepeated: (text: string, times: number) => ["expected, times", (received) => judgeIncludeRepeated(received, text, times)],
  pass: (message?: string) => ["", () => judgeVerdict(true, message, "pass")],
  fail: (message?: string) => ["", () => judgeVerdict(false, message, "fail")],
  toSatisfy: (predicate: (value: any) => boolean) => ["expected", (received) => judgeSatisfy(received, predicate)],
  toContainKey: (key: PropertyKey) => ["expected", (received) => judgeMembers(received, key, "keys", "one", "toContainKey")],
  toContainKeys: (keys: readonly PropertyKey[]) => ["expected", (received) => judgeMembers(received, keys, "keys", "every", "toContainKeys")],
  toContainAllKeys: (keys: readonly PropertyKey[]) => ["expected", (received) => judgeMembers(received, keys, "keys", "all", "toContainAllKeys")],
  toContainAnyKeys: (keys: readonly PropertyKey[]) => ["expected", (received) => judgeMembers(received, keys, "keys", "any", "toContainAnyKeys")],
  toContainValue: (value: unknown) => ["expected", (received) => judgeMembers(received, value, "values", "one", "toContainValue")],
  toContainValues: (values: readonly unknown[]) => ["expected", (received) => judgeMembers(received, values, "values", "every", "toContainValues")],
  toContainAllValues: (values: readonly unknown[]) => ["expected", (received) => judgeMembers(received, values, "values", "all", "toContainAllValues")],
  toContainAnyValues: (values: readonly unknown[]) => ["expected", (received) => judgeMembers(received, values, "values", "any", "toContainAnyValues")],
} satisfies Record<string, MatcherEntry>;

/** The table's matchers as `Expectation` methods, returning `R` (void, or a promise after .resolves/.rejects). */
export type TableMatchers<R> = { [Name in keyof typeof MATCHER_TABLE]: (...args: Parameters<(typeof MATCHER_TABLE)[Name]>) => R };
