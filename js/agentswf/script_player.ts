// How agentswf/testing plays a tested run's agents: the state of each run `testWorkflow` opened,
// found by its id when the host asks for a turn ("script.turn"), a fork ("script.fork"), a
// compaction ("script.compact") or an abort ("script.abort"); which script entry plays each turn;
// and the answers, tool calls and messages a script sends through the agent's real socket,
// exactly as `wfa` would, so they meet the same checks. What goes wrong in a script (it throws,
// its answer is refused, an agent has no script) fails the test, not the workflow.

import * as ops from "awf:ops";
import { opAsync, onRequest, UPCALLS } from "../core.ts";
import { SCRIPT, isEntry, type Compaction, type Entry, type Reply, type Script, type SendResult, type ToolResult, type Turn, type Wake, type WakeTurn } from "./scripts.ts";

/** The state of one tested run, found by its id when the host asks for a turn. */
export interface ScriptedRun {
  handle: number;
  agents: Record<string, Entry | Entry[]>;
  /** Which list entry each agent is at (among its turn entries). */
  used: Map<string, number>;
  /** Which wake entry each agent is at. */
  woken: Map<string, number>;
  prompts: Map<string, { prompt: string; schema: object | null }>;
  aborts: Map<string, AbortController>;
  fail(error: unknown): void;
  /** A fork without a script of its own plays its parent's, from where the parent was. */
  forks: Map<string, string>;
  compactions: Record<string, Compaction>;
  /** Compactions asked of each agent so far. */
  compacted: Map<string, number>;
}

export const runs = new Map<string, ScriptedRun>();

/** Fails the test from inside a scripted turn, and ends that turn `failed`. */
export class ScriptFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TestWorkflowError";
  }
}

/** The script for `agent`: its exact key first, then one `*` pattern. */
function scriptFor(state: ScriptedRun, agent: string): Entry | Entry[] | string {
  const key = scriptKeyFor(state, agent);
  return key.error ?? state.agents[key.key]!;
}

/** Which key of the `agents` option scripts `agent`: its own, one pattern, or its fork parent's. */
function scriptKeyFor(state: ScriptedRun, agent: string): { key: string; error?: undefined } | { key?: undefined; error: string } {
  if (agent in state.agents) return { key: agent };
  const matches = Object.keys(state.agents).filter((key) => key.includes("*") && globMatches(key, agent));
  if (matches.length === 1) return { key: matches[0]! };
  if (matches.length > 1) return { error: `agent "${agent}" matches more than one script pattern: ${matches.join(", ")}` };
  const parent = state.forks.get(agent);
  if (parent !== undefined) return scriptKeyFor(state, parent);
  const known = Object.keys(state.agents);
  return { error: `agent "${agent}" has no script; give it one in testWorkflow's agents option (scripted: ${known.length ? known.join(", ") : "none"})` };
}

function globMatches(pattern: string, key: string): boolean {
  const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return regex.test(key);
}

/** An agent's list of scripts, split: the entries its turns take, and the `wake` ones. */
function split(entries: Entry[]): { turns: (Script | Reply)[]; wakes: Wake[] } {
  return {
    turns: entries.filter((e): e is Script | Reply => e[SCRIPT] !== "wake"),
    wakes: entries.filter((e): e is Wake => e[SCRIPT] === "wake"),
  };
}

export function unusedEntries(state: ScriptedRun): string | undefined {
  const players = [...new Set([...state.used.keys(), ...state.woken.keys()])];
  for (const [key, entries] of Object.entries(state.agents)) {
    if (!Array.isArray(entries)) continue;
    const { turns, wakes } = split(entries);
    // Each agent the list scripts plays it from the start; a fork that plays its parent's list
    // goes on from where the parent was, so the two count as one.
    const playing = players.filter((agent) => scriptKeyFor(state, agent).key === key);
    const roots = playing.filter((agent) => !playing.includes(state.forks.get(agent) ?? ""));
    for (const agent of roots.length > 0 ? roots : [key]) {
      const forks = playing.filter((fork) => state.forks.get(fork) === agent).map((fork) => state.used.get(fork) ?? 0);
      const used = Math.max(state.used.get(agent) ?? 0, ...forks);
      const whose = agent === key ? `agent "${key}"` : `agent "${key}" (played by "${agent}")`;
      if (used < turns.length) {
        return `the script list for ${whose} has ${turns.length} entries but only ${used} turn${used === 1 ? "" : "s"} came`;
      }
      const woken = state.woken.get(agent) ?? 0;
      if (woken < wakes.length) {
        return `the script list for ${whose} has ${wakes.length} wake entr${wakes.length === 1 ? "y" : "ies"} but only ${woken} message turn${woken === 1 ? "" : "s"} came`;
      }
    }
  }
  return undefined;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (key, v) => {
    if (key === "required" && Array.isArray(v)) return [...v].sort();
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
    }
    return v;
  });
}

interface TurnRequest {
  run: string;
  agent: string;
  turn: string;
  n: number;
  prompt: string;
  schema: object | null;
  checkIn: boolean;
  /** The agent CLI its spec declared (`claude`, ...), or null for a command. */
  harness: string | null;
  /** A message turn's message. */
  message: { text: string; data?: unknown } | null;
}

onRequest(UPCALLS.scriptTurn, async (request: TurnRequest) => {
  const state = runs.get(request.run);
  if (!state) return { reply: "failed", reason: "the test run is over" };
  state.prompts.set(request.turn, { prompt: request.prompt, schema: request.schema });
  try {
    return await playTurn(state, request);
  } catch (error) {
    state.fail(error);
    return { reply: "failed", reason: `the test failed in agent "${request.agent}"'s script: ${messageOf(error)}` };
  }
});

onRequest(UPCALLS.scriptFork, ({ run, parent, fork }: { run: string; parent: string; fork: string }) => {
  const state = runs.get(run);
  if (!state) return null;
  state.forks.set(fork, parent);
  // Playing the parent's list, the fork goes on from where the parent is.
  if (!(fork in state.agents) && state.used.has(parent)) state.used.set(fork, state.used.get(parent)!);
  return null;
});

onRequest(UPCALLS.scriptCompact, async ({ run, agent, focus }: { run: string; agent: string; focus: string }) => {
  const state = runs.get(run);
  if (!state) return { reply: "failed", reason: "the test run is over" };
  const n = (state.compacted.get(agent) ?? 0) + 1;
  state.compacted.set(agent, n);
  const patterns = Object.keys(state.compactions).filter((key) => key.includes("*") && globMatches(key, agent));
  const entry = agent in state.compactions ? state.compactions[agent] : patterns.length === 1 ? state.compactions[patterns[0]!] : undefined;
  try {
    const given = await compactionAnswer(entry, Object.freeze({ agent, focus, n }));
    if (typeof given === "string") return { reply: "answered", summary: given };
    if (isEntry(given) && given[SCRIPT] === "reply" && (given.kind === "failed" || given.kind === "timed-out")) return { reply: given.kind, reason: given.reason };
    throw new ScriptFailure(`the compaction script for agent "${agent}" gave ${described(given)}; give a summary string, reply.failed(reason) or reply.timedOut()`);
  } catch (error) {
    state.fail(error);
    return { reply: "failed", reason: `the test failed in agent "${agent}"'s compaction script: ${messageOf(error)}` };
  }
});

/**
 * What a compaction's script gives: a summary, a function's, or (as agentswf writes it)
 * `answer("summary")` or `answer((compaction) => summary)`.
 */
async function compactionAnswer(entry: Compaction | Entry | undefined, compaction: { agent: string; focus: string; n: number }): Promise<unknown> {
  if (typeof entry === "function") return entry(compaction);
  if (isEntry(entry) && entry[SCRIPT] === "answer") {
    if (entry.schema !== undefined) {
      throw new ScriptFailure(`the compaction script for agent "${compaction.agent}" is answer(schema, ...), but a compaction's summary is text; write answer("summary")`);
    }
    return entry.respond(compaction as never);
  }
  return entry ?? "";
}

/** A script's wrong value as the test's message shows it: `answer(...)`, `reply.silent()`, JSON. */
export function described(value: unknown): string {
  if (isEntry(value)) return value[SCRIPT] === "reply" ? `reply.${value.kind === "timed-out" ? "timedOut" : value.kind === "needs-login" ? "needsLogin" : value.kind}()` : `${value[SCRIPT]}(...)`;
  if (value === undefined) return "nothing";
  if (typeof value === "function") return "a function";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** A thrown value's message: an Error's, an object's `message`, or the value described. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : described(error);
}

onRequest(UPCALLS.scriptAbort, ({ run, turn }: { run: string; turn: string }) => {
  runs.get(run)?.aborts.get(turn)?.abort(new DOMException("the turn is over", "AbortError"));
});

async function playTurn(state: ScriptedRun, request: TurnRequest): Promise<{ reply: string; reason?: string; usage?: Spent }> {
  const script = scriptFor(state, request.agent);
  if (typeof script === "string") throw new ScriptFailure(script);
  const entry = request.message ? wakeEntry(state, request, script) : turnEntry(state, request, script);
  const controller = new AbortController();
  state.aborts.set(request.turn, controller);
  const spent: Spent = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  let spoke = false;
  const spend = (usage: unknown) => {
    addSpend(spent, usage);
    spoke = true;
  };
  try {
    const reply = entry[SCRIPT] === "wake"
      ? await playWake(state, request, entry, controller.signal, spend)
      : await play(state, request, entry, controller.signal, spend);
    return spoke ? { ...reply, usage: spent } : reply;
  } finally {
    state.aborts.delete(request.turn);
  }
}

function turnEntry(state: ScriptedRun, request: TurnRequest, script: Entry | Entry[]): Script | Reply {
  if (!Array.isArray(script)) {
    if (script[SCRIPT] === "wake") {
      throw new ScriptFailure(`agent "${request.agent}" got turn ${request.n} but its script is only wake(...), which plays message turns; give it a list: [answer(...), wake(...)]`);
    }
    return script;
  }
  const { turns } = split(script);
  // A check-in shares its turn's entry.
  const index = request.checkIn ? (state.used.get(request.agent) ?? 1) - 1 : state.used.get(request.agent) ?? 0;
  if (index >= turns.length) {
    throw new ScriptFailure(`agent "${request.agent}" got turn ${request.n} but its script list has ${turns.length} entr${turns.length === 1 ? "y" : "ies"}`);
  }
  if (!request.checkIn) state.used.set(request.agent, index + 1);
  return turns[index]!;
}

function wakeEntry(state: ScriptedRun, request: TurnRequest, script: Entry | Entry[]): Wake {
  const wakes = Array.isArray(script) ? split(script).wakes : script[SCRIPT] === "wake" ? [script] : [];
  if (wakes.length === 0) {
    throw new ScriptFailure(`agent "${request.agent}" got a message turn (agent.send) but its script has no wake(...); give it one, e.g. [answer(...), wake(async (turn) => { ... })]`);
  }
  if (!Array.isArray(script)) return wakes[0]!;
  const index = state.woken.get(request.agent) ?? 0;
  if (index >= wakes.length) {
    throw new ScriptFailure(`agent "${request.agent}" got message turn ${index + 1} but its script list has ${wakes.length} wake entr${wakes.length === 1 ? "y" : "ies"}`);
  }
  state.woken.set(request.agent, index + 1);
  return wakes[index]!;
}

async function playWake(state: ScriptedRun, request: TurnRequest, entry: Wake, signal: AbortSignal, spend: (usage: unknown) => void): Promise<{ reply: string; reason?: string }> {
  const turn: WakeTurn = Object.freeze({
    agent: request.agent,
    n: request.n,
    message: request.message!,
    signal,
    tool: (name: string, input?: unknown) => callTool(state, request, name, input),
    send: (message: string | { text?: string; data?: unknown }) => sendMessage(state, request, message),
    spend,
  });
  const value = await entry.respond(turn);
  if (value === undefined) return { reply: "silent" };
  if (isEntry(value) && value[SCRIPT] === "reply") return replied(state, request, value, signal);
  throw new ScriptFailure(`agent "${request.agent}": a wake script owes no answer; return nothing, or a reply.*() to end the message turn another way`);
}

/** What a delivery's script reported spending (`turn.spend`), summed; sent with its reply. */
interface Spent {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  costUsd?: number;
}

const TOKEN_FIELDS = ["inputTokens", "cachedInputTokens", "outputTokens", "reasoningTokens"] as const;

/** Adds `given` to `spent`, refusing what a CLI could not report. */
function addSpend(spent: Spent, given: unknown): void {
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new TypeError("turn.spend(usage): usage is { inputTokens?, cachedInputTokens?, outputTokens?, reasoningTokens?, costUsd? }");
  }
  for (const [key, value] of Object.entries(given)) {
    if ((TOKEN_FIELDS as readonly string[]).includes(key)) {
      if (!Number.isSafeInteger(value) || (value as number) < 0) {
        throw new TypeError(`turn.spend(usage): ${key} must be a whole number of tokens, 0 or more; got ${JSON.stringify(value)}`);
      }
      spent[key as (typeof TOKEN_FIELDS)[number]] += value as number;
    } else if (key === "costUsd") {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new TypeError(`turn.spend(usage): costUsd must be dollars, 0 or more; got ${JSON.stringify(value)}`);
      }
      spent.costUsd = (spent.costUsd ?? 0) + value;
    } else {
      throw new TypeError(`turn.spend(usage): unknown field "${key}" (it takes ${[...TOKEN_FIELDS, "costUsd"].join(", ")})`);
    }
  }
}

async function play(state: ScriptedRun, request: TurnRequest, entry: Entry, signal: AbortSignal, spend: (usage: unknown) => void): Promise<{ reply: string; reason?: string }> {
  if (entry[SCRIPT] === "reply") return replied(state, request, entry, signal);
  if (entry.schema !== undefined && canonical(entry.schema) !== canonical(request.schema)) {
    throw new ScriptFailure(
      `agent "${request.agent}" turn ${request.n}: the script answers the schema ${JSON.stringify(entry.schema)} but the turn asks for ${request.schema === null ? "text (no schema)" : JSON.stringify(request.schema)}`,
    );
  }
  const turn: Turn = Object.freeze({
    agent: request.agent,
    n: request.n,
    prompt: request.prompt,
    schema: request.schema,
    checkIn: request.checkIn,
    nudge: request.checkIn,
    signal,
    tool: (name: string, input?: unknown) => callTool(state, request, name, input),
    send: (message: string | { text?: string; data?: unknown }) => sendMessage(state, request, message),
    spend,
  });
  const value = await entry.respond(turn);
  // The turn ended meanwhile (its deadline, a cancel): what the script gives now is dropped.
  if (signal.aborted) return { reply: "silent" };
  if (isEntry(value)) {
    if (value[SCRIPT] === "wake") throw new ScriptFailure(`agent "${request.agent}": a script function must return the answer's value or a reply.*(), not wake(...)`);
    if (value[SCRIPT] === "answer") throw new ScriptFailure(`agent "${request.agent}": a script function must return the answer's value or a reply.*(), not answer(...)`);
    return replied(state, request, value, signal);
  }
  // An answer that lost the race with the turn's end is dropped, as one after the abort is.
  return (await submit(state, request, value)) ? { reply: "answered" } : { reply: "silent" };
}

async function replied(state: ScriptedRun, request: TurnRequest, entry: Reply, signal: AbortSignal): Promise<{ reply: string; reason?: string }> {
  switch (entry.kind) {
    case "hang":
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      return { reply: "timed-out" };
    case "needs-login":
      return needsLogin(request, entry.provider);
    case "waiting":
      await waiting(state, request, entry);
      return { reply: "silent" };
    default:
      return entry.reason === undefined ? { reply: entry.kind } : { reply: entry.kind, reason: entry.reason };
  }
}

/** A CLI without its login ends the turn `blocked`, as a real one's refused login does. */
function needsLogin(request: TurnRequest, provider: string | undefined): { reply: string; reason: string } {
  if (request.harness === null) {
    throw new ScriptFailure(`agent "${request.agent}" turn ${request.n}: reply.needsLogin() is for an agent CLI's login, and this agent runs a command, which awf never finds blocked; script reply.failed(reason) instead`);
  }
  const to = provider === undefined ? "" : ` to ${provider}`;
  return { reply: "blocked", reason: `${request.harness} is not logged in${to} (reply.needsLogin in the test); log in with the CLI, or give it its API key` };
}

/** Says the agent still works on the turn, through its socket as `wfa waiting` would. */
async function waiting(state: ScriptedRun, request: TurnRequest, entry: Reply): Promise<void> {
  let response: WireResponse;
  try {
    response = await exchange(state, request.agent, { command: "waiting", turn: request.turn, reason: entry.reason!, timeout: entry.timeout ?? null });
  } catch (error) {
    // The turn ended and its agent closed with it: nothing to say waiting to.
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "unreachable" || code === "agent-closed") return;
    throw error;
  }
  if (response.kind === "ok" || (response.kind === "refused" && response.code === "closed-turn")) return;
  const lines = [response.message, ...(response.details ?? [])].join("\n  ");
  throw new ScriptFailure(`agent "${request.agent}" turn ${request.n}: reply.waiting(...) was refused (${response.code}): ${lines}`);
}

/**
 * Sends the answer through the agent's socket, as `wfa result` would. `false`: the turn ended
 * first (a cancel, its deadline) and the answer is dropped. The host ends a turn before it tells
 * the script (`turn.signal`), so an answer sent between the two finds the turn closed, or the
 * agent's socket gone when the agent closed with it.
 */
async function submit(state: ScriptedRun, request: TurnRequest, value: unknown): Promise<boolean> {
  let stdin: string;
  if (request.schema === null) {
    if (typeof value !== "string") {
      throw new ScriptFailure(`agent "${request.agent}" turn ${request.n} is a text turn, so its answer is a string; the script gave ${value === undefined ? "nothing" : typeof value}`);
    }
    stdin = value;
  } else {
    stdin = JSON.stringify(ops.check_json(value));
  }
  let response: WireResponse;
  try {
    response = await exchange(state, request.agent, { command: "result", turn: request.turn, args: [], stdin });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "unreachable" || code === "agent-closed") return false;
    throw error;
  }
  if (response.kind === "refused" && response.code === "closed-turn") return false;
  if (response.kind !== "ok") {
    const lines = [response.message, ...(response.details ?? [])].join("\n  ");
    throw new ScriptFailure(`agent "${request.agent}" turn ${request.n}: the script's answer was refused (${response.code}): ${lines}`);
  }
  return true;
}

interface WireResponse {
  kind: "ok" | "refused" | "failed";
  stdout?: string;
  code?: string;
  message?: string;
  details?: string[];
}

function exchange(state: ScriptedRun, agent: string, request: object): Promise<WireResponse> {
  return opAsync(ops.test_exchange({ run: state.handle, agent, request })) as Promise<WireResponse>;
}

async function callTool(state: ScriptedRun, request: TurnRequest, name: string, input?: unknown): Promise<ToolResult> {
  if (typeof name !== "string") throw new TypeError("turn.tool(name, input?): name must be a string");
  const stdin = input === undefined ? null : JSON.stringify(ops.check_json(input));
  const response = await exchange(state, request.agent, { command: "tool", name, args: [], stdin });
  switch (response.kind) {
    case "ok":
      return { kind: "result", output: response.stdout ?? "" };
    case "refused":
      return { kind: "refused", code: response.code!, error: [response.message, ...(response.details ?? [])].join("\n") };
    default:
      return {
        kind: "failed",
        outcome: response.code === "timed-out" || response.code === "may-have-run" ? "timed-out" : "failed",
        error: response.message ?? "",
      };
  }
}


/** Sends a message through the agent's socket, as `wfa send` would. */
async function sendMessage(state: ScriptedRun, request: TurnRequest, message: string | { text?: string; data?: unknown }): Promise<SendResult> {
  let wire: { command: "send"; text: string | null; data: string | null };
  if (typeof message === "string") {
    wire = { command: "send", text: message, data: null };
  } else if (typeof message === "object" && message !== null) {
    const text = message.text ?? null;
    if (text !== null && typeof text !== "string") throw new TypeError("turn.send({ text, data }): text must be a string");
    wire = { command: "send", text, data: message.data === undefined ? null : JSON.stringify(ops.check_json(message.data)) };
  } else {
    throw new TypeError("turn.send(message): a message is a string or { text, data }");
  }
  const response = await exchange(state, request.agent, wire);
  if (response.kind === "ok") return { kind: "sent" };
  return { kind: "refused", code: response.code!, error: [response.message, ...(response.details ?? [])].join("\n") };
}
