// js/test/expect/settled.ts — bun's `expect.resolvesTo.*` and `expect.rejectsTo.*` (and their
// `expect.not.` forms): an asymmetric matcher that stands for a promise which has resolved to (or
// rejected with) a value the inner asymmetric matcher accepts.
//
// bun reads the promise's state synchronously in the middle of the comparison; so does awf
// (the engine's `promise_state`). A promise still pending at that moment does not match (bun
// would run its event loop until it settles): await what makes it settle first.

import * as ops from "awf:ops";
import { AsymmetricMatcher } from "./asymmetric_matcher.ts";

export type Settlement = "resolves" | "rejects";

export class Settled extends AsymmetricMatcher {
  private readonly settlement: Settlement;
  private readonly inner: AsymmetricMatcher;
  constructor(settlement: Settlement, inner: AsymmetricMatcher, inverse: boolean) {
    super(inverse);
    this.settlement = settlement;
    this.inner = inner;
  }
  asymmetricMatch(other: unknown): boolean {
    const state = ops.promise_state(other);
    if (state === undefined || state.state === "pending") return this.decide(false);
    if (state.state === "rejected") {
      // Compared, the rejection is handled: it is not an error nobody caught.
      (other as Promise<unknown>).catch(() => undefined);
      return this.decide(this.settlement === "rejects" && this.inner.asymmetricMatch(state.reason));
    }
    return this.decide(this.settlement === "resolves" && this.inner.asymmetricMatch(state.value));
  }
  label(): string {
    const how = this.settlement === "resolves" ? "promise resolved to" : "promise rejected with";
    return `${this.inverse ? "not " : ""}${how} ${this.inner.label()}`;
  }
  override sample(): { value: unknown } | undefined {
    return this.inner.sample();
  }
}

/** `expect.resolvesTo` from the plain asymmetric factories: each wraps what the factory makes. */
export function settledFactories<F extends Record<string, (...args: any[]) => AsymmetricMatcher>>(settlement: Settlement, factories: F, inverse: boolean): F {
  const wrapped: Record<string, (...args: unknown[]) => AsymmetricMatcher> = {};
  for (const [name, factory] of Object.entries(factories)) wrapped[name] = (...args) => new Settled(settlement, factory(...args), inverse);
  return wrapped as F;
}
