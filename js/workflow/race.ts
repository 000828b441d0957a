// wf.race and wf.select: run branches at once, each in its own cancellation scope
// (scope.ts); the first to settle wins, with its value or its error, and the others are
// cancelled: their agents' turns end `cancelled` (recorded with what cancelled them) and their
// tool calls' signals abort. A losing branch's later value or error is dropped. Both throw in a
// tool handler (a handler must not wait for an event).

import { refuseInHandler } from "./identity.ts";
import { Scope, authorSite, currentScope, withScope } from "./scope.ts";

type Branch = () => unknown;

/** The branches as [key, function], checked. */
function branchesOf(name: string, branches: unknown, keyed: boolean): [string, Branch][] {
  if (typeof branches !== "object" || branches === null || (keyed && Array.isArray(branches))) {
    throw new TypeError(
      keyed
        ? `${name}(branches): branches must be an object of functions, { key: () => ... }`
        : `${name}(branches): branches must be an array of functions or an object of them, { key: () => ... }`,
    );
  }
  const entries = Object.entries(branches as Record<string, unknown>);
  if (entries.length === 0) throw new TypeError(`${name}(branches): give at least one branch`);
  for (const [key, branch] of entries) {
    if (typeof branch !== "function") {
      throw new TypeError(`${name}(branches): branch ${JSON.stringify(key)} must be a function, e.g. () => agent.run({ prompt }) (got ${typeof branch})`);
    }
  }
  return entries as [string, Branch][];
}

/** Runs the branches; resolves or rejects with the first to settle, as [key, value]. */
function first(name: string, branches: unknown, keyed: boolean): Promise<[string, unknown]> {
  refuseInHandler(name);
  const entries = branchesOf(name, branches, keyed);
  const site = authorSite(new Error(name));
  const where = site ? `${name} at ${site}` : name;
  const parent = currentScope();
  const scopes = entries.map(() => new Scope(parent));
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (index: number, ok: boolean, value: unknown) => {
      if (settled) return;
      settled = true;
      const key = entries[index][0];
      scopes.forEach((scope, i) => {
        if (i === index) scope.release();
        else scope.cancel(`cancelled by ${where}: branch ${JSON.stringify(key)} settled first`);
      });
      if (ok) resolve([key, value]);
      else reject(value);
    };
    entries.forEach(([, branch], index) => {
      let result: Promise<unknown>;
      try {
        result = Promise.resolve(withScope(scopes[index], branch));
      } catch (error) {
        result = Promise.reject(error);
      }
      result.then(
        (value) => settle(index, true, value),
        (error) => settle(index, false, error),
      );
    });
  });
}

/** The value (or error) of the first branch to settle; the others are cancelled. */
export async function race(branches: unknown): Promise<unknown> {
  const [, value] = await first("wf.race", branches, false);
  return value;
}

/** `{ key, value }` of the first branch to settle (its error, if it threw); the others are
 * cancelled. */
export async function select(branches: unknown): Promise<{ key: string; value: unknown }> {
  const [key, value] = await first("wf.select", branches, true);
  return { key, value };
}
