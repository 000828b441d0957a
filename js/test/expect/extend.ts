// js/test/expect/extend.ts — `expect.extend`: matchers an author writes. Each becomes an
// `expect(x).name(...)` matcher (with `.not`, `.resolves`, `.rejects`) and an asymmetric
// `expect.name(...)` / `expect.not.name(...)`. A matcher is `(received, ...args) => { pass,
// message }` (or a promise of one), called with jest's matcher context as `this`.

import * as ops from "awf:ops";
import { AsymmetricMatcher } from "./asymmetric_matcher.ts";
import { comparison } from "./diff.ts";
import { equals } from "./equality.ts";
import { format } from "./format.ts";
import { type Flags, MatcherUsageError, type Verdict } from "./matchers.ts";

export interface CustomResult {
  readonly pass: boolean;
  readonly message?: string | (() => string);
}

export type CustomMatcher = (this: MatcherContext, received: unknown, ...args: unknown[]) => CustomResult | Promise<CustomResult>;

export interface MatcherContext {
  readonly isNot: boolean;
  readonly promise: string;
  equals(a: unknown, b: unknown): boolean;
  readonly utils: {
    printReceived(value: unknown): string;
    printExpected(value: unknown): string;
    stringify(value: unknown): string;
    matcherHint(name: string, received?: string, expected?: string): string;
    diff(expected: unknown, received: unknown): string;
    /** No colour in awf's output: these give the text back. */
    RECEIVED_COLOR(text: string): string;
    EXPECTED_COLOR(text: string): string;
  };
}

export function matcherContext(flags: Flags): MatcherContext {
  return {
    isNot: flags.negated,
    promise: flags.promise,
    equals: (a, b) => equals(a, b),
    utils: {
      printReceived: (value) => format(value),
      printExpected: (value) => format(value),
      stringify: (value) => format(value),
      matcherHint: (name, received = "received", expected = "expected") => `expect(${received}).${name}(${expected})`,
      diff: (expected, received) => comparison(expected, received),
      RECEIVED_COLOR: (text) => text,
      EXPECTED_COLOR: (text) => text,
    },
  };
}

/** What the author's matcher returned, checked as bun does: an object with `pass`, else an error naming the matcher. */
export function verdictOf(name: string, result: unknown): Verdict {
  if (typeof result !== "object" || result === null || !("pass" in result)) {
    throw new MatcherUsageError(
      `Unexpected return from matcher function \`${name}\`.\nMatcher functions should return an object in the following format:\n  {message?: string | function, pass: boolean}\n'${format(result)}' was returned`,
    );
  }
  const { pass, message } = result as CustomResult;
  return {
    pass: Boolean(pass),
    details: () => {
      const text = typeof message === "function" ? message() : message;
      return text === undefined || text === null ? "No message was specified for this matcher." : `${text}`;
    },
  };
}

/** An async matcher's result; a rejection is the matcher's own failure, as bun reports it. */
export function settledVerdict(name: string, result: Promise<unknown>): Promise<Verdict> {
  return result.then(
    (settled) => verdictOf(name, settled),
    () => {
      throw new MatcherUsageError(`Matcher \`${name}\` returned a promise that rejected`);
    },
  );
}

/** The matchers of an `expect.extend` argument: its own keys and, as in bun, those of its prototypes (a class instance's methods). */
export function requireMatchers(matchers: unknown): [string, CustomMatcher][] {
  if (typeof matchers !== "object" || matchers === null) throw new TypeError(`expect.extend() expects an object of matcher functions, got ${format(matchers)}`);
  const found = new Map<string, CustomMatcher>();
  for (let level: object | null = matchers; level !== null && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name === "constructor" || found.has(name)) continue;
      const fn: unknown = Reflect.get(matchers, name);
      if (typeof fn !== "function") {
        throw new TypeError(`expect.extend: \`${name}\` is not a valid matcher. Must be a function, is "${fn === null ? "null" : typeof fn}"`);
      }
      found.set(name, fn as CustomMatcher);
    }
  }
  return [...found];
}

/** `expect.name(...args)`: matches what the author's matcher passes (or, inverse, fails). */
export class CustomAsymmetric extends AsymmetricMatcher {
  private readonly name: string;
  private readonly fn: CustomMatcher;
  private readonly args: readonly unknown[];
  constructor(name: string, fn: CustomMatcher, args: readonly unknown[], inverse: boolean) {
    super(inverse);
    this.name = name;
    this.fn = fn;
    this.args = args;
  }
  /**
   * An async matcher's promise is read where it stands, as bun reads it: settled, its verdict
   * counts; still pending (the matcher awaited something), it does not match.
   */
  asymmetricMatch(other: unknown): boolean {
    const result: unknown = this.fn.call(matcherContext({ negated: this.inverse, promise: "" }), other, ...this.args);
    if (!(result instanceof Promise)) return this.decide(verdictOf(this.name, result).pass);
    const state = ops.promise_state(result);
    if (state?.state === "fulfilled") return this.decide(verdictOf(this.name, state.value).pass);
    result.catch(() => undefined);
    if (state?.state === "rejected") throw new MatcherUsageError(`Matcher \`${this.name}\` returned a promise that rejected`);
    return false;
  }
  label(): string {
    return this.inverse ? `not.${this.name}` : this.name;
  }
  override sample(): { value: unknown } | undefined {
    return this.args.length > 0 ? { value: this.args.length === 1 ? this.args[0] : this.args } : undefined;
  }
}
