// What a test writes to script an agent (agentswf/testing): `answer(...)`, `wake(...)` and the
// `reply.*` endings, and the shapes a script function is given. Nothing here plays a turn
// (script_player.ts does) or opens a run (testing.ts does).

import * as ops from "awf:ops";
import { isTyped, type Typed } from "./workflow.ts";

export const SCRIPT = Symbol.for("awf.script");

export type ReplyKind = "silent" | "failed" | "blocked" | "timed-out" | "hang" | "needs-login" | "waiting";

/** A way a scripted turn ends without an answer: `reply.silent()`, `reply.failed()`, ... */
export interface Reply {
  readonly [SCRIPT]: "reply";
  readonly kind: ReplyKind;
  readonly reason?: string;
  /** `reply.needsLogin(provider)`: the provider the agent's CLI needs a login to. */
  readonly provider?: string;
  /** `reply.waiting(reason, timeout)`: the time the agent asks for, as `wfa waiting --timeout`. */
  readonly timeout?: string;
}

/** What a turn's script is given. */
export interface Turn {
  readonly agent: string;
  /** The agent's turn number, from 1; a check-in has its turn's number. */
  readonly n: number;
  /** The author's prompt (without how to answer or the tools). */
  readonly prompt: string;
  /** The turn's JSON Schema, or null for a text turn. */
  readonly schema: object | null;
  /** True when this is the turn's check-in (the first run ended without an answer). */
  readonly checkIn: boolean;
  /** agentswf's name for `checkIn`. */
  readonly nudge: boolean;
  /** Aborted when the turn's deadline passes or the run is cancelled. */
  readonly signal: AbortSignal;
  /** Calls one of the agent's tools through the same checks and handler a real call goes through. */
  tool(name: string, input?: unknown): Promise<ToolResult>;
  /** Sends the workflow a message, as `wfa send` would (the agent needs `messages: true`). */
  send(message: string | { text?: string; data?: unknown }): Promise<SendResult>;
  /** Reports what the model used in this delivery, as a CLI reports it (each call adds up): the turn's `outcome.usage`, `wf.usage()` and budgets count it when the script's reply comes. */
  spend(usage: { inputTokens?: number; cachedInputTokens?: number; outputTokens?: number; reasoningTokens?: number; costUsd?: number }): void;
}

/** What a message turn's script (`wake`) is given: the message, and the agent's tools. */
export interface WakeTurn {
  readonly agent: string;
  readonly n: number;
  /** Reports what the model used in this message turn, as `Turn.spend` does. */
  spend(usage: { inputTokens?: number; cachedInputTokens?: number; outputTokens?: number; reasoningTokens?: number; costUsd?: number }): void;
  /** What `agent.send` gave. */
  readonly message: { text: string; data?: unknown };
  readonly signal: AbortSignal;
  tool(name: string, input?: unknown): Promise<ToolResult>;
  send(message: string | { text?: string; data?: unknown }): Promise<SendResult>;
}

export type SendResult = { kind: "sent" } | { kind: "refused"; code: string; error: string };

/** A message turn's script: `wake(async (turn) => { ... })`. */
export interface Wake {
  readonly [SCRIPT]: "wake";
  readonly respond: (turn: WakeTurn) => unknown;
}

export type ToolResult =
  | { kind: "result"; output: string }
  | { kind: "refused"; code: string; error: string }
  | { kind: "failed"; outcome: "failed" | "timed-out"; error: string };

/** A script: `answer(...)` or a `reply.*`. */
export interface Script {
  readonly [SCRIPT]: "answer";
  readonly schema?: object;
  readonly respond: (turn: Turn) => unknown;
}

export type Entry = Script | Reply | Wake;

/** What a scripted compaction answers. */
export type Compaction = string | ((compaction: { agent: string; focus: string; n: number }) => string | Reply | Promise<string | Reply>);

export function isEntry(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && SCRIPT in value;
}

/**
 * `answer(value)`, `answer(async (turn) => value)`, `answer(schema, value)` or
 * `answer(schema, async (turn) => value)`. With a schema, the turn must ask for that schema.
 * A function may also return a `reply.*` to end the turn another way.
 */
export function answer(...args: unknown[]): Script {
  if (args.length === 0 || args.length > 2) {
    throw new TypeError("answer(value), answer(async (turn) => value) or answer(schema, value | async (turn) => value)");
  }
  const [schemaArg, body] = args.length === 2 ? [args[0], args[1]] : [undefined, args[0]];
  let schema: object | undefined;
  if (schemaArg !== undefined) {
    if (typeof schemaArg !== "object" || schemaArg === null) throw new TypeError("answer(schema, value): schema must be a JSON Schema or a typed() value");
    schema = isTyped(schemaArg) ? (schemaArg as Typed<unknown>).schema : (ops.check_json(schemaArg) as object);
  }
  const respond = typeof body === "function" ? (body as (turn: Turn) => unknown) : () => body;
  return Object.freeze({ [SCRIPT]: "answer" as const, schema, respond });
}

/**
 * `wake(async (turn) => { ... })`: what the agent does when `agent.send` wakes it with a message
 * turn; it owes no answer. It may return a `reply.*` to end the message turn another way. In
 * an agent's list of scripts, message turns take the `wake` entries in order, turns the others.
 */
export function wake(respond: (turn: WakeTurn) => unknown): Wake {
  if (typeof respond !== "function") throw new TypeError("wake(async (turn) => { ... }): give it a function");
  return Object.freeze({ [SCRIPT]: "wake" as const, respond });
}

function replyOf(kind: ReplyKind, fields: { reason?: string; provider?: string; timeout?: string } = {}): Reply {
  return Object.freeze({ [SCRIPT]: "reply" as const, kind, ...fields });
}

function optionalText(what: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw new TypeError(`${what} must be a non-blank string`);
  return value;
}

/** `reply.waiting`'s timeout as `wfa waiting --timeout` takes it: "2m", or milliseconds. */
function waitingTimeout(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return `${Math.ceil(value)}ms`;
  if (typeof value === "string" && value.trim() !== "") return value;
  throw new TypeError('reply.waiting(reason, timeout?): timeout is "2m", "30s" or a number of milliseconds');
}

/** Scripted turns that end without an answer. */
export const reply = Object.freeze({
  /** The agent ends its turn without answering (a check-in follows; silent again: `unanswered`). */
  silent: () => replyOf("silent"),
  failed: (reason?: string) => replyOf("failed", { reason }),
  timedOut: (reason?: string) => replyOf("timed-out", { reason }),
  blocked: (reason?: string) => replyOf("blocked", { reason }),
  /** The agent never answers: the turn lasts until its deadline or the run's cancellation. */
  hang: () => replyOf("hang"),
  /**
   * The agent's CLI has no login (to `provider`, when given): the turn ends `blocked`, as a real
   * CLI's refused login does, with no check-in. An agent that runs a command is never blocked.
   */
  needsLogin: (provider?: string) => replyOf("needs-login", { provider: optionalText("reply.needsLogin(provider)", provider) }),
  /**
   * The agent says it still works on the turn (`wfa waiting <turn> --reason ...`, recorded; it
   * never moves the deadline), then its run ends without an answer, so a check-in follows.
   */
  waiting: (reason: string, timeout?: string | number) => {
    const text = optionalText("reply.waiting(reason)", reason);
    if (text === undefined) throw new TypeError("reply.waiting(reason): say what the agent still waits for");
    return replyOf("waiting", { reason: text, timeout: waitingTimeout(timeout) });
  },
  /**
   * agentswf's interrupt of its caller session by the operator. awf has no caller session, and
   * an operator's Ctrl-C cancels the whole run, so no turn can be interrupted alone: refused.
   */
  interrupted: (): never => {
    throw new TypeError(
      "reply.interrupted(): awf has no caller session to interrupt (an operator's Ctrl-C cancels the whole run)\n" +
        "hint: for a turn that ends `cancelled`, script reply.hang() and end it from the workflow (wf.agents.stop(key), or a wf.race/wf.select the turn loses); see docs/testing.md",
    );
  },
});
