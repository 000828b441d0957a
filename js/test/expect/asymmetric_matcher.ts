// js/test/expect/asymmetric_matcher.ts — The base of the asymmetric matchers (`expect.any`,
// `expect.stringContaining`, ...): a value that stands in an expected value and decides for itself.
// Equality and the printer ask it.

/** Base of `expect.any(...)`, `expect.stringContaining(...)` and the others; equality asks it. */
export abstract class AsymmetricMatcher {
  /** True for the `expect.not.*` forms, which match what the plain form does not. */
  readonly inverse: boolean;
  constructor(inverse = false) {
    this.inverse = inverse;
  }
  abstract asymmetricMatch(other: unknown): boolean;
  /** How the printer names it, e.g. `StringContaining`; the sample, if any, follows. */
  abstract label(): string;
  /** What the printer shows after the label (a string, a pattern, an object); none by default. */
  sample(): { value: unknown } | undefined {
    return undefined;
  }
  protected decide(matched: boolean): boolean {
    return this.inverse ? !matched : matched;
  }
  protected named(base: string): string {
    return this.inverse ? base.replace(/^(String|Object|Array)/, "$1Not") : base;
  }
}
