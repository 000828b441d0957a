// js/test/expect/asymmetric.ts — The asymmetric matchers `expect.*` and `expect.not.*` make: any,
// anything, stringContaining, stringMatching, objectContaining, arrayContaining.

import { AsymmetricMatcher } from "./asymmetric_matcher.ts";
import { equals, hasProperty, ownEnumerableKeys } from "./equality.ts";

export class AnyOf extends AsymmetricMatcher {
  private readonly type: Function;
  constructor(type: Function) {
    super();
    this.type = type;
  }
  asymmetricMatch(other: unknown): boolean {
    return matchesType(other, this.type);
  }
  label(): string {
    return `Any<${this.type.name || "anonymous"}>`;
  }
}

/** jest's `expect.any`: primitives match their wrapper's constructor; `Object` matches any object, null too. */
function matchesType(value: unknown, type: Function): boolean {
  switch (type) {
    case String:
      return typeof value === "string" || value instanceof String;
    case Number:
      return typeof value === "number" || value instanceof Number;
    case Boolean:
      return typeof value === "boolean" || value instanceof Boolean;
    case BigInt:
      return typeof value === "bigint" || value instanceof BigInt;
    case Symbol:
      return typeof value === "symbol" || value instanceof Symbol;
    case Function:
      return typeof value === "function";
    case Object:
      return typeof value === "object";
    default:
      return value instanceof type;
  }
}

/** `expect.closeTo(n, precision)`: a number within `10 ** -precision / 2` of n. */
export class CloseTo extends AsymmetricMatcher {
  private readonly expected: number;
  private readonly precision: number;
  constructor(expected: number, precision: number, inverse: boolean) {
    super(inverse);
    this.expected = expected;
    this.precision = precision;
  }
  /** A value that is not a number matches neither form (bun's rule). */
  asymmetricMatch(other: unknown): boolean {
    if (typeof other !== "number") return false;
    const close = (other === Infinity && this.expected === Infinity) || (other === -Infinity && this.expected === -Infinity) || Math.abs(this.expected - other) < 10 ** -this.precision / 2;
    return this.decide(close);
  }
  label(): string {
    return this.inverse ? "NumberNotCloseTo" : "NumberCloseTo";
  }
  override sample(): { value: unknown } {
    return { value: this.expected };
  }
}

export class Anything extends AsymmetricMatcher {
  asymmetricMatch(other: unknown): boolean {
    return other !== null && other !== undefined;
  }
  label(): string {
    return "Anything";
  }
}

export class StringContaining extends AsymmetricMatcher {
  private readonly substring: string;
  constructor(substring: string, inverse: boolean) {
    super(inverse);
    this.substring = substring;
  }
  asymmetricMatch(other: unknown): boolean {
    return this.decide(typeof other === "string" && other.includes(this.substring));
  }
  label(): string {
    return this.named("StringContaining");
  }
  override sample(): { value: unknown } {
    return { value: this.substring };
  }
}

/** A string pattern is matched as a plain substring, as bun does (jest would make a RegExp of it). */
export class StringMatching extends AsymmetricMatcher {
  private readonly pattern: string | RegExp;
  constructor(pattern: string | RegExp, inverse: boolean) {
    super(inverse);
    this.pattern = pattern;
  }
  asymmetricMatch(other: unknown): boolean {
    if (typeof other !== "string") return this.decide(false);
    const pattern = this.pattern;
    return this.decide(typeof pattern === "string" ? other.includes(pattern) : freshRegExp(pattern).test(other));
  }
  label(): string {
    return this.named("StringMatching");
  }
  override sample(): { value: unknown } {
    return { value: this.pattern };
  }
}

export class ObjectContaining extends AsymmetricMatcher {
  private readonly properties: object;
  constructor(properties: object, inverse: boolean) {
    super(inverse);
    this.properties = properties;
  }
  /** Only an object (or function) can match, even `objectContaining({})`, as in bun. */
  asymmetricMatch(other: unknown): boolean {
    if ((typeof other !== "object" && typeof other !== "function") || other === null) return this.decide(false);
    const matched = ownEnumerableKeys(this.properties).every(
      (key) => hasProperty(other, key) && equals(Reflect.get(other as object, key), Reflect.get(this.properties, key)),
    );
    return this.decide(matched);
  }
  label(): string {
    return this.named("ObjectContaining");
  }
  override sample(): { value: unknown } {
    return { value: this.properties };
  }
}

/** Received must be an array (bun refuses strings and other array-likes) holding every sample item. */
export class ArrayContaining extends AsymmetricMatcher {
  private readonly items: readonly unknown[];
  constructor(items: readonly unknown[], inverse: boolean) {
    super(inverse);
    this.items = items;
  }
  asymmetricMatch(other: unknown): boolean {
    const matched = Array.isArray(other) && this.items.every((item) => other.some((candidate) => equals(candidate, item)));
    return this.decide(matched);
  }
  label(): string {
    return this.named("ArrayContaining");
  }
  override sample(): { value: unknown } {
    return { value: this.items };
  }
}

/** A copy, so a `g` or `y` flag's `lastIndex` never makes one check depend on the one before. */
export function freshRegExp(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags);
}
