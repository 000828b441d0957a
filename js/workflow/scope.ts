// Cancellation scopes: each branch of wf.race/wf.select and each item of wf.parallel runs in
// one, carried by the async context (identity.ts's frame), so what the branch starts, even
// after an `await`, registers with it. Cancelling a scope cancels what registered: an agent's
// turn (`cancellableTurn`: ops.agent_cancel, the turn ends `cancelled` with the scope's reason
// as its detail, and its tool calls' signals abort), the scopes nested in it, and whatever
// `onScopeCancel` was given (wf.receive).

import * as ops from "awf:ops";
import { opAsync } from "../core.ts";
import { currentFrame, withFrame } from "./identity.ts";

type Listener = (reason: string) => void;

export class Scope {
  #reason: string | undefined;
  readonly #listeners = new Set<Listener>();
  readonly #detach: () => void;

  /** A scope inside `parent` (none: the top): cancelling the parent cancels it. */
  constructor(parent: Scope | undefined) {
    this.#detach = parent ? parent.onCancel((reason) => this.cancel(reason)) : () => {};
  }

  get cancelled(): boolean {
    return this.#reason !== undefined;
  }

  /** Calls `listener` when the scope is cancelled (at once if it is); returns the undo. */
  onCancel(listener: Listener): () => void {
    if (this.#reason !== undefined) {
      listener(this.#reason);
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Cancels what registered, once; `reason` says what cancelled it (it is recorded). */
  cancel(reason: string): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#detach();
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch {
        // A listener's failure must not keep the others from being cancelled.
      }
    }
  }

  /** The scope is done (its branch settled): its parent forgets it. */
  release(): void {
    this.#detach();
  }
}

/** The scope the running code belongs to, if any. */
export function currentScope(): Scope | undefined {
  return currentFrame().scope;
}

/** Runs `fn` (and what it starts) in `scope`. */
export function withScope<T>(scope: Scope, fn: () => T): T {
  return withFrame({ scope }, fn);
}

/** Registers `cancel` with the current scope (called at once if it is cancelled already);
 * outside a scope it does nothing. Returns the undo. */
export function onScopeCancel(cancel: (reason: unknown) => void): () => void {
  const scope = currentScope();
  return scope ? scope.onCancel(cancel) : () => {};
}

let tokens = 0;

/** Starts an agent's turn (`start` gets the cancel token to pass to ops.agent_run) so that the
 * current scope can cancel it. */
export function cancellableTurn<T>(run: number, agent: string, start: (token: string | undefined) => ops.Pending<T>): Promise<T> {
  const scope = currentScope();
  if (scope === undefined) return opAsync(start(undefined));
  const token = `c${++tokens}`;
  const result = opAsync(start(token));
  const off = scope.onCancel((reason) => {
    ops.agent_cancel({ run, agent, token, reason });
  });
  return result.finally(off);
}

/** Where the author called `name`: the first frame of the stack outside awf's own code. */
export function authorSite(error: Error): string {
  for (const line of String(error.stack ?? "").split("\n").slice(1)) {
    // `    at name (/path/file.ts:12:3)`; awf's own frames are `awf:...`.
    const match = /\((\/[^()]*:\d+:\d+)\)$/.exec(line.trim());
    if (match) {
      const path = match[1];
      const cwd = (globalThis as { process?: { cwd(): string } }).process?.cwd();
      return cwd && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
    }
  }
  return "";
}
