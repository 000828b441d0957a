// wf.parallel(items, fn, { concurrency?, label? }): `fn(item, index)` for each item, at most
// `concurrency` at once (default: all), results in item order. Each call runs in its own
// cancellation scope (scope.ts): the first to throw cancels the others (their agents' turns end
// `cancelled`, recorded with what cancelled them, and their tool calls' signals abort), items
// not started yet are not started, and the whole rejects with that first error. A turn that
// ends unanswered does not throw: `agent.run` resolves with its outcome.

import { Scope, authorSite, currentScope, withScope } from "./scope.ts";
import { refuseUnknownOptions } from "./options.ts";

/** The keys `wf.parallel`'s options read (a new option is added here). */
const PARALLEL_OPTIONS = ["concurrency", "label"] as const;

export interface ParallelOptions {
  /** How many run at once; a positive whole number. Default: all. */
  concurrency?: number;
  /** Names the group in records and cancel reasons. */
  label?: string;
}

export function parallel<T, R>(items: Iterable<T>, fn: (item: T, index: number) => R | Promise<R>, options: ParallelOptions = {}): Promise<Awaited<R>[]> {
  if (items === null || typeof (items as Iterable<T>)?.[Symbol.iterator] !== "function") {
    return Promise.reject(new TypeError("wf.parallel(items, fn, options?): items must be an array (or another iterable)"));
  }
  if (typeof fn !== "function") {
    return Promise.reject(new TypeError("wf.parallel(items, fn, options?): fn must be a function, (item, index) => ..."));
  }
  if (typeof options !== "object" || options === null) {
    return Promise.reject(new TypeError("wf.parallel(items, fn, options?): options must be an object, { concurrency?, label? }"));
  }
  try {
    refuseUnknownOptions("wf.parallel(items, fn, options?)", options, PARALLEL_OPTIONS);
  } catch (error) {
    return Promise.reject(error);
  }
  const list = [...items];
  const { concurrency = list.length, label } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < (list.length === 0 ? 0 : 1)) {
    return Promise.reject(new TypeError(`wf.parallel(..., { concurrency }): concurrency must be a positive whole number (got ${String(concurrency)})`));
  }
  if (label !== undefined && (typeof label !== "string" || label.trim() === "")) {
    return Promise.reject(new TypeError("wf.parallel(..., { label }): label must be a non-blank string"));
  }
  const site = authorSite(new Error("wf.parallel"));
  const name = `wf.parallel${label ? ` "${label}"` : ""}${site ? ` at ${site}` : ""}`;
  const parent = currentScope();
  const results = new Array<Awaited<R>>(list.length);
  const scopes: Scope[] = [];
  return new Promise((resolve, reject) => {
    let next = 0;
    let done = 0;
    let failed = false;
    const start = (): void => {
      if (failed || next >= list.length) return;
      const index = next++;
      const scope = new Scope(parent);
      scopes[index] = scope;
      let result: Promise<Awaited<R>>;
      try {
        result = Promise.resolve(withScope(scope, () => fn(list[index], index))) as Promise<Awaited<R>>;
      } catch (error) {
        result = Promise.reject(error);
      }
      result.then(
        (value) => {
          scope.release();
          if (failed) return;
          results[index] = value;
          done += 1;
          if (done === list.length) resolve(results);
          else start();
        },
        (error) => {
          if (failed) return;
          failed = true;
          const why = error instanceof Error ? error.message : String(error);
          scopes.forEach((other, i) => {
            if (i !== index && other !== undefined) other.cancel(`cancelled by ${name}: item ${index} threw: ${why}`);
          });
          scope.release();
          reject(error);
        },
      );
    };
    if (list.length === 0) resolve(results);
    for (let i = 0; i < concurrency && i < list.length; i++) start();
  });
}
