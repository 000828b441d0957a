// js/test/plan.ts — which registered tests run: `.only` anywhere in the file leaves out every
// test not under one, then `-t`, then the nearest skip or todo mark decides. Decided before
// anything runs, so a describe whose tests all skip runs none of its hooks.

import { markRunnerModule } from "./failure.ts";
import { type Mark, pathOf, type Suite, type TestCase } from "./registry.ts";

markRunnerModule();

export type Disposition = "run" | "skip" | "todo" | "filtered";

export class Plan {
  private readonly dispositions = new Map<TestCase, Disposition>();
  private readonly runnable = new Map<Suite, boolean>();
  /** Without `.only` or `-t`, a skipped or todo describe's hooks are listed (see `hookDisposition`). */
  private readonly listsHooks: boolean;

  constructor(suite: Suite, pattern: RegExp | undefined) {
    const hasOnly = containsOnly(suite);
    this.listsHooks = !hasOnly && !pattern;
    this.decide(suite, hasOnly, pattern);
  }

  /**
   * bun lists each beforeAll and afterAll hook of a describe that is skipped (or todo), by its
   * own mark or an outer one's, as a skipped (todo) entry of that describe, named "(unnamed)";
   * not when `.only` or `-t` leaves tests out. "skip", "todo", or undefined for none listed.
   */
  hookDisposition(suite: Suite): "skip" | "todo" | undefined {
    if (!this.listsHooks) return undefined;
    for (let at: Suite | undefined = suite; at; at = at.parent) if (at.mark === "skip" || at.mark === "todo") return at.mark;
    return undefined;
  }

  disposition(test: TestCase): Disposition {
    return this.dispositions.get(test) ?? "filtered";
  }

  hasRunnable(suite: Suite): boolean {
    return this.runnable.get(suite) ?? false;
  }

  count(disposition: Disposition): number {
    let total = 0;
    for (const value of this.dispositions.values()) if (value === disposition) total++;
    return total;
  }

  private decide(suite: Suite, hasOnly: boolean, pattern: RegExp | undefined): boolean {
    let any = false;
    for (const child of suite.children) {
      if (child.kind === "suite") {
        any = this.decide(child, hasOnly, pattern) || any;
      } else {
        const disposition = dispositionOf(child, hasOnly, pattern);
        this.dispositions.set(child, disposition);
        any = any || disposition === "run";
      }
    }
    this.runnable.set(suite, any);
    return any;
  }
}

function containsOnly(suite: Suite): boolean {
  return suite.children.some((child) => child.mark === "only" || (child.kind === "suite" && containsOnly(child)));
}

function dispositionOf(test: TestCase, hasOnly: boolean, pattern: RegExp | undefined): Disposition {
  const marks = marksOutward(test);
  if (hasOnly && !marks.includes("only")) return "filtered";
  if (pattern && !pattern.test([...pathOf(test), test.name].join(" "))) return "filtered";
  const decisive = marks.find((mark) => mark === "skip" || mark === "todo");
  return decisive ?? "run";
}

function marksOutward(test: TestCase): Mark[] {
  const marks: Mark[] = [test.mark];
  for (let suite: Suite | undefined = test.parent; suite; suite = suite.parent) marks.push(suite.mark);
  return marks;
}
