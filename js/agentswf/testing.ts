// agentswf/testing — run a workflow's `run` in a test with every agent scripted.
//
// `testWorkflow` opens a scripted run (runtime/src/js/ops/agentswf/scripted.rs): the workflow's code runs
// for real — turns queue, deadlines hold, tools are checked and called — but each turn is played
// by the test's script for that agent instead of a process. A script answers through the
// agent's real socket, exactly as `wfa result` would, so a wrong answer meets the same checks;
// `turn.tool(name, input)` calls a tool the same way. What goes wrong in a script (it throws, its
// answer is refused, an agent has no script) fails the test, not the workflow.

import * as ops from "awf:ops";
import { opAsync, onRequest, UPCALLS, startTimer, clearTimer, unrefTimer } from "../core.ts";
import { isTyped, isWorkflow, type Typed, type Workflow } from "./workflow.ts";
import { createContext } from "../workflow/context.ts";
import { isStop, type StopState } from "../workflow/stages.ts";
import { closeMailbox } from "../workflow/messages.ts";
import { TestRun, type CallRecord, type CompactionRecord, type ForkRecord, type MessageRecord, type SetRecord, type StageRecord, type TurnRecord } from "./test_run.ts";

export { TestRun };
export type { CallRecord, CompactionRecord, ForkRecord, MessageRecord, SetRecord, StageRecord, TurnRecord };

const SCRIPT = Symbol.for("awf.script");

type ReplyKind = "silent" | "failed" | "blocked" | "timed-out" | "hang";

/** A way a scripted turn ends without an answer: `reply.silent()`, `reply.failed()`, ... */
export interface Reply {
  readonly [SCRIPT]: "reply";
  readonly kind: ReplyKind;
  readonly reason?: string;
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
  /** Aborted when the turn's deadline passes or the run is cancelled. */
  readonly signal: AbortSignal;
  /** Calls one of the agent's tools through the same checks and handler a real call goes through. */
  tool(name: string, input?: unknown): Promise<ToolResult>;
  /** Sends the workflow a message, as `wfa send` would (the agent needs `messages: true`). */
  send(message: string | { text?: string; data?: unknown }): Promise<SendResult>;
}

/** What a message turn's script (`wake`) is given: the message, and the agent's tools. */
export interface WakeTurn {
  readonly agent: string;
  readonly n: number;
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

type Entry = Script | Reply | Wake;

function isEntry(value: unknown): value is Entry {
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

function replyOf(kind: ReplyKind, reason?: string): Reply {
  return Object.freeze({ [SCRIPT]: "reply" as const, kind, reason });
}

/** Scripted turns that end without an answer. */
export const reply = Object.freeze({
  /** The agent ends its turn without answering (a check-in follows; silent again: `unanswered`). */
  silent: () => replyOf("silent"),
  failed: (reason?: string) => replyOf("failed", reason),
  timedOut: (reason?: string) => replyOf("timed-out", reason),
  blocked: (reason?: string) => replyOf("blocked", reason),
  /** The agent never answers: the turn lasts until its deadline or the run's cancellation. */
  hang: () => replyOf("hang"),
});

export interface TestOptions {
  /** Agent key (or a `*` glob) to its script, or to a list of scripts, one per turn. */
  agents?: Record<string, Entry | Entry[]>;
  /** The run's deadline: `"30s"`, `"5m"` or milliseconds (default 30 minutes). */
  timeout?: string | number;
  /** Where the workflow runs (default: a new temp folder, removed after). */
  cwd?: string;
  /** How long turns may be in flight with nothing happening before the test fails (default 2s). */
  stall?: string | number;
  /**
   * Stage name to the value an earlier attempt recorded (`undefined` for a stage without a
   * result): the run is attempt 2 of a continue, and these stages are reused (their values
   * checked against the stages' result schemas) up to the first stage not listed.
   */
  recorded?: Record<string, unknown>;
  /** With or without `recorded`: redo from this stage on, as `awf run --continue --from-stage`. */
  fromStage?: string;
  /**
   * Agent key (or a `*` glob) to what its compactions answer: a summary, or a function of the
   * compaction giving one (or `reply.failed(reason)`, `reply.timedOut()`). Default: `""`.
   */
  compactions?: Record<string, Compaction>;
}

/** What a scripted compaction answers. */
export type Compaction = string | ((compaction: { agent: string; focus: string; n: number }) => string | Reply | Promise<string | Reply>);


/** The state of one tested run, found by its id when the host asks for a turn. */
interface ScriptedRun {
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

const runs = new Map<string, ScriptedRun>();

/** Fails the test from inside a scripted turn, and ends that turn `failed`. */
class ScriptFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TestWorkflowError";
  }
}

/** A ScriptFailure gets the frames of the testWorkflow call (an error the script itself threw
 * keeps its own, which point into the script). */
function placedAt(error: unknown, callSite: Error): unknown {
  if (error instanceof ScriptFailure && callSite.stack) {
    const frames = callSite.stack.slice(callSite.stack.indexOf("\n"));
    error.stack = `${error.name}: ${error.message}${frames}`;
  }
  return error;
}

/**
 * Runs `workflow.run` with every agent scripted. `testWorkflow(workflow, options)` gives run the
 * input `prepare({ argv: [], cwd })` makes (or `{ argv: [] }`); `testWorkflow(workflow, input,
 * options)` gives it `input`.
 */
export async function testWorkflow<R = unknown>(workflow: Workflow<any, R>, ...rest: unknown[]): Promise<TestRun<R>> {
  // A failure found in a script's turn is reported at this call in the test file.
  const callSite = new Error("testWorkflow");
  if (!isWorkflow(workflow)) {
    throw new TypeError("testWorkflow(workflow, options): workflow must be the default export of a workflow file (defineWorkflow({ ... }))");
  }
  const hasInput = rest.length >= 2;
  const options = ((hasInput ? rest[1] : rest[0]) ?? {}) as TestOptions;
  checkOptions(options, hasInput);
  const agents = options.agents ?? {};
  for (const [key, entries] of Object.entries(agents)) {
    for (const entry of Array.isArray(entries) ? entries : [entries]) {
      if (!isEntry(entry)) throw new TypeError(`testWorkflow: the script for agent "${key}" must be answer(...), reply.*() or wake(...), or a list of them`);
    }
  }
  const recorded = recordedValues(options.recorded);
  if (options.fromStage !== undefined && typeof options.fromStage !== "string") {
    throw new TypeError("testWorkflow: fromStage must be a stage name");
  }
  const opened = ops.test_run_open({
    name: workflow.meta.name,
    file: "",
    cwd: options.cwd ?? null,
    timeoutMs: millis(options.timeout, 30 * 60_000),
    recorded,
    fromStage: options.fromStage ?? null,
  }) as { run: number; runId: string; cwd: string; attempt: number };
  let failure: { error: unknown } | undefined;
  let failTest: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    failTest = (error) => {
      if (!failure) {
        failure = { error };
        reject(error);
      }
    };
  });
  failed.catch(() => {});
  const compactions = options.compactions ?? {};
  if (typeof compactions !== "object" || compactions === null) throw new TypeError("testWorkflow: compactions must be an object of agent key to summary");
  const state: ScriptedRun = { handle: opened.run, agents, used: new Map(), woken: new Map(), prompts: new Map(), aborts: new Map(), fail: (e) => failTest(e), forks: new Map(), compactions, compacted: new Map() };
  runs.set(opened.runId, state);
  const stall = watchForStall(opened.run, millis(options.stall, 2000), failTest);
  let result: { value?: R; error?: unknown; failed: boolean; stopped?: string };
  const stops: StopState = { values: new Map() };
  try {
    const running = (async () => {
      const input = hasInput ? rest[0] : workflow.prepare ? await workflow.prepare({ argv: [], cwd: opened.cwd }) : { argv: [] };
      let value: unknown;
      try {
        value = await workflow.run(createContext(opened.run, stops), input);
      } catch (error) {
        if (isStop(error)) throw error;
        if (stops.stopped) throw new Error(`wf.stop(${JSON.stringify(stops.stopped.reason)}) was called, but the workflow caught it and threw ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
      if (stops.stopped) throw new Error(`wf.stop(${JSON.stringify(stops.stopped.reason)}) was called, but the workflow caught it and returned`);
      return ops.check_json(value) as R;
    })();
    running.catch(() => {});
    result = await Promise.race([running, failed]).then(
      (value) => ({ value, failed: false }),
      (error) => (isStop(error) ? { failed: false, stopped: error.reason } : { error, failed: true }),
    );
  } finally {
    clearTimer(stall);
    await opAsync(ops.test_run_close({ run: opened.run }));
    runs.delete(opened.runId);
    closeMailbox(opened.runId);
  }
  if (failure) throw placedAt(failure.error, callSite);
  const unused = unusedEntries(state);
  if (unused && result.failed) {
    // The workflow's own error explains why the scripts went unused: it comes first.
    const thrown = result.error instanceof Error ? result.error.message : String(result.error);
    const failure = new ScriptFailure(`the workflow threw: ${thrown}\n(so ${unused})`);
    failure.cause = result.error;
    throw placedAt(failure, callSite);
  }
  if (unused) throw placedAt(new ScriptFailure(unused), callSite);
  const events = ops.run_events(opened.run, 0) as Record<string, any>[];
  return new TestRun<R>(result, events, state.prompts, opened.attempt, stops.values!);
}

/** `recorded` as the host takes it: stage name to JSON, `null` for a stage without a value. */
function recordedValues(recorded: unknown): Record<string, unknown> | null {
  if (recorded === undefined) return null;
  if (typeof recorded !== "object" || recorded === null || Array.isArray(recorded)) {
    throw new TypeError("testWorkflow: recorded must be an object of stage name to recorded value, e.g. { plan: { steps: [] } }");
  }
  const out: Record<string, unknown> = {};
  for (const [stage, value] of Object.entries(recorded)) {
    try {
      out[stage] = value === undefined ? null : ops.check_json(value);
    } catch (error) {
      throw new TypeError(`testWorkflow: recorded.${stage} is not JSON: ${(error as Error).message}`);
    }
  }
  return out;
}

const OPTION_NAMES = ["agents", "timeout", "cwd", "stall", "recorded", "fromStage", "compactions"];

/** Refuses an options object with other keys: most often an input passed without options. */
function checkOptions(options: unknown, hasInput: boolean): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("testWorkflow: options must be an object such as { agents: { ... } }");
  }
  const unknown = Object.keys(options).filter((key) => !OPTION_NAMES.includes(key));
  if (unknown.length === 0) return;
  const which = unknown.map((key) => `"${key}"`).join(", ");
  const hint = hasInput ? "" : "; to give the workflow an input, pass it before the options: testWorkflow(workflow, input, {})";
  throw new TypeError(`testWorkflow: unknown option ${which} (options are ${OPTION_NAMES.join(", ")})${hint}`);
}

function millis(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number") return value;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
  if (!match) throw new TypeError(`testWorkflow: "${value}" is not a duration; write 500ms, 30s, 5m or 1h`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

/** Fails the test when turns are in flight and nothing happens for `stallMs`. */
function watchForStall(run: number, stallMs: number, fail: (error: unknown) => void): number {
  let seen = 0;
  let quietSince = performance.now();
  const open = new Map<string, string>();
  let callsInFlight = 0;
  const timer = startTimer(() => {
    const events = ops.run_events(run, seen) as Record<string, any>[];
    if (events.length > 0) {
      seen += events.length;
      quietSince = performance.now();
      for (const e of events) {
        if (e.event === "turn-started") open.set(e.turn, `${e.agent} ${e.turn} (turn ${e.n})`);
        else if (e.event === "turn-settled") open.delete(e.turn);
        else if (e.event === "tool-called") callsInFlight++;
        else if (e.event === "tool-settled") callsInFlight--;
      }
      return;
    }
    if (open.size > 0 && callsInFlight === 0 && performance.now() - quietSince > stallMs) {
      fail(new ScriptFailure(`the run made no progress for ${stallMs}ms; turns still in flight: ${[...open.values()].join(", ")} (a script that hangs needs a turn timeout, or the test a "stall" option)`));
    }
  }, 50, true);
  unrefTimer(timer, true);
  return timer;
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

function unusedEntries(state: ScriptedRun): string | undefined {
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
    const message = error instanceof Error ? error.message : String(error);
    return { reply: "failed", reason: `the test failed in agent "${request.agent}"'s script: ${message}` };
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
    const given = typeof entry === "function" ? await entry(Object.freeze({ agent, focus, n })) : (entry ?? "");
    if (typeof given === "string") return { reply: "answered", summary: given };
    if (isEntry(given) && given[SCRIPT] === "reply" && (given.kind === "failed" || given.kind === "timed-out")) return { reply: given.kind, reason: given.reason };
    throw new ScriptFailure(`the compaction script for agent "${agent}" gave ${String(given)}; give a summary string, reply.failed(reason) or reply.timedOut()`);
  } catch (error) {
    state.fail(error);
    const message = error instanceof Error ? error.message : String(error);
    return { reply: "failed", reason: `the test failed in agent "${agent}"'s compaction script: ${message}` };
  }
});

onRequest(UPCALLS.scriptAbort, ({ run, turn }: { run: string; turn: string }) => {
  runs.get(run)?.aborts.get(turn)?.abort(new DOMException("the turn is over", "AbortError"));
});

async function playTurn(state: ScriptedRun, request: TurnRequest): Promise<{ reply: string; reason?: string }> {
  const script = scriptFor(state, request.agent);
  if (typeof script === "string") throw new ScriptFailure(script);
  const entry = request.message ? wakeEntry(state, request, script) : turnEntry(state, request, script);
  const controller = new AbortController();
  state.aborts.set(request.turn, controller);
  try {
    if (entry[SCRIPT] === "wake") return await playWake(state, request, entry, controller.signal);
    return await play(state, request, entry, controller.signal);
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

async function playWake(state: ScriptedRun, request: TurnRequest, entry: Wake, signal: AbortSignal): Promise<{ reply: string; reason?: string }> {
  const turn: WakeTurn = Object.freeze({
    agent: request.agent,
    n: request.n,
    message: request.message!,
    signal,
    tool: (name: string, input?: unknown) => callTool(state, request, name, input),
    send: (message: string | { text?: string; data?: unknown }) => sendMessage(state, request, message),
  });
  const value = await entry.respond(turn);
  if (value === undefined) return { reply: "silent" };
  if (isEntry(value) && value[SCRIPT] === "reply") return replied(value, signal);
  throw new ScriptFailure(`agent "${request.agent}": a wake script owes no answer; return nothing, or a reply.*() to end the message turn another way`);
}

async function play(state: ScriptedRun, request: TurnRequest, entry: Entry, signal: AbortSignal): Promise<{ reply: string; reason?: string }> {
  if (entry[SCRIPT] === "reply") return replied(entry, signal);
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
    signal,
    tool: (name: string, input?: unknown) => callTool(state, request, name, input),
    send: (message: string | { text?: string; data?: unknown }) => sendMessage(state, request, message),
  });
  const value = await entry.respond(turn);
  // The turn ended meanwhile (its deadline, a cancel): what the script gives now is dropped.
  if (signal.aborted) return { reply: "silent" };
  if (isEntry(value)) {
    if (value[SCRIPT] === "wake") throw new ScriptFailure(`agent "${request.agent}": a script function must return the answer's value or a reply.*(), not wake(...)`);
    if (value[SCRIPT] === "answer") throw new ScriptFailure(`agent "${request.agent}": a script function must return the answer's value or a reply.*(), not answer(...)`);
    return replied(value, signal);
  }
  // An answer that lost the race with the turn's end is dropped, as one after the abort is.
  return (await submit(state, request, value)) ? { reply: "answered" } : { reply: "silent" };
}

async function replied(entry: Reply, signal: AbortSignal): Promise<{ reply: string; reason?: string }> {
  if (entry.kind === "hang") {
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    return { reply: "timed-out" };
  }
  return entry.reason === undefined ? { reply: entry.kind } : { reply: entry.kind, reason: entry.reason };
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
