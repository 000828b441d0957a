// What a tested run did, as agentswf/testing's `TestRun` shows it: its value or error, and the
// turns, calls, messages, stages, logs and agents read from the run's events (testing.ts plays
// the scripts; this file only reads what happened).

import { messageOf } from "./script_player.ts";
import { askRecords, type AskRecord } from "../workflow/ask.ts";
import { compactionRecords, forkRecords, setRecords, type CompactionRecord, type ForkRecord, type SetRecord } from "./session_records.ts";

export type { AskRecord, CompactionRecord, ForkRecord, SetRecord };

/** What a tested attempt did with one stage, in the order stages were entered. */
export interface StageRecord {
  stage: string;
  /** `ran`: its work was called; `reused`: a recorded value was used instead. */
  source: "ran" | "reused";
  /** The attempt whose work made it: this one when it ran, the recorded one when reused. */
  attempt: number;
  outcome: "succeeded" | "failed" | "stopped" | "running";
  /** The stage's value, when it succeeded with a result schema. */
  value?: unknown;
  reason?: string;
  /** The line its `summary` option made of its value, when it succeeded (or was reused) with one. */
  summary?: string;
  /** Why a recorded stage ran again (its value no longer fit the schema). */
  because?: string;
}

/**
 * What an agent was opened with (`agents.open`, or a fork). A team adding an open option adds
 * its field here and reads it from the `agent-opened` event in `agentRecords`.
 */
export interface AgentRecord {
  key: string;
  /** What awf runs it with, as the run's record has it: `{ kind, program?, model?, effort?, args? }`. */
  runtime: Record<string, unknown>;
  model?: string;
  effort?: string;
  /** The names of the tools it was given. */
  tools: string[];
  cwd: string;
  /** Where it runs, when sandboxed: as agentswf's `{ key, provider, spec, domains }`, and what the spec resolved to. */
  sandbox?: SandboxRecord;
  /** Its settings when it opened (a fork: its parent's when forked), as agentswf's `execution`: `{ harness, model?, effort?, placement: "headless", alias?, metered? }`. */
  execution: Record<string, unknown>;
  /** The author's standing instructions (`agents.open` or `fork`), when given. */
  instructions?: string;
  /** A fork: the agent it was forked from, and how many turns that agent had had by then. */
  forkedFrom?: { key: string; turns: number };
  /** The author's `labels` (`agents.open` or `fork`), when given. */
  labels?: Record<string, unknown>;
  /** The names of the skills it was given (`agents.open({ skills })`), in order; a fork has its parent's; `[]` for none. */
  skills: string[];
  /** Each skill's copy as installed: its name, where it came from and the digest checked. */
  skillCopies: { name: string; source: string; digest: string }[];
  /** The `workspace` it was opened with, defaults filled in: `{ worktree: { keep, branch?, from? } }`. */
  workspace?: { worktree: { keep: "always" | "on-failure" | "never"; branch?: string; from?: string } };
}

/** The sandbox an agent runs in, from its `agent-opened` record. */
export interface SandboxRecord {
  /** `wf.sandboxes.open`'s key, or `agent:<key>` for an inline sandbox. */
  key: string;
  /** `bwrap`, or `srt` where the spec named agentswf's `srt: {}` (bubblewrap runs it: `runs`). */
  provider: string;
  /** The provider that runs it: `bwrap`. */
  runs: string;
  /** The spec with its defaults filled in and its paths resolved (absolute): `{ cwd, read, write, network, ... }`. */
  spec: Record<string, unknown>;
  /** The hosts granted: the `network` list, `["*"]` for `network: true`, `[]` for none. */
  domains: string[];
  /** The paths, absolute, that the spec resolved to. */
  cwd: string;
  read: string[] | null;
  write: string[];
}

export interface TurnRecord {
  agent: string;
  turn: string;
  n: number;
  prompt?: string;
  schema?: object | null;
  /** The author's name for the turn (`agent.run({ label })`). */
  label?: string;
  /** The stage the turn ran in. */
  stage?: string;
  /** The agent's model and effort when the turn started (after any `agent.set`). */
  model?: string;
  effort?: string;
  /** This delivery is the turn's check-in (the agent ended without an answer and was asked again): a record of its own, with the turn's id and `n`. */
  checkIn: boolean;
  /** agentswf's name for `checkIn`. */
  nudge: boolean;
  /** The reasons the agent said it was still working (`wfa waiting`, `reply.waiting`), in order. */
  waiting?: string[];
  outcome: string;
  detail?: string;
  /** A message turn (`agent.send`): its message. */
  message?: { text: string; data?: unknown };
}

/** A message an agent sent the workflow (`wfa send`, `turn.send`). */
export interface MessageRecord {
  from: string;
  text: string;
  data?: unknown;
  at: string;
  /** Whether `wf.receive` took it. */
  received: boolean;
}

export interface CallRecord {
  agent: string;
  tool: string;
  call?: string;
  input?: unknown;
  outcome: string;
  result?: unknown;
  error?: string;
  code?: string;
}

/** What a tested run did. */
export class TestRun<R = unknown> {
  readonly #value: R | undefined;
  readonly #error: unknown;
  readonly #failed: boolean;
  readonly turns: TurnRecord[];
  readonly calls: CallRecord[];
  /** The messages agents sent, in order. */
  readonly messages: MessageRecord[];
  readonly logs: { message: string; fields?: Record<string, unknown> }[];
  /** The attempt: 1, or 2 when the test gave `recorded` or `fromStage`. */
  readonly attempt: number;
  readonly stages: StageRecord[];
  /** Set when the workflow called `wf.stop(reason)`: its reason and the stage it stopped in. */
  readonly stopped?: { reason: string; stage?: string };
  readonly forks: ForkRecord[];
  readonly compactions: CompactionRecord[];
  readonly sets: SetRecord[];
  /** The agents opened or forked, in that order. */
  readonly agents: AgentRecord[];
  /** The questions `wf.ask` asked, in order, with the answers they took. */
  readonly asks: AskRecord[];

  constructor(result: { value?: R; error?: unknown; failed: boolean; stopped?: string }, events: Record<string, any>[], prompts: Map<string, { prompt: string; schema: object | null }>, attempt: number, values: Map<string, unknown>) {
    this.#value = result.value;
    this.#error = result.error;
    this.#failed = result.failed;
    this.attempt = attempt;
    this.stages = stageRecords(events, values, attempt);
    if (result.stopped !== undefined) {
      const stage = this.stages.find((s) => s.outcome === "stopped")?.stage;
      this.stopped = stage === undefined ? { reason: result.stopped } : { reason: result.stopped, stage };
    }
    this.agents = agentRecords(events);
    this.turns = turnRecords(events, prompts, this.agents);
    this.calls = callRecords(events);
    this.messages = messageRecords(events);
    this.forks = forkRecords(events);
    this.compactions = compactionRecords(events);
    this.sets = setRecords(events);
    this.asks = askRecords(events);
    this.logs = events
      .filter((e) => e.event === "log")
      .map((e) => (e.fields ? { message: e.message, fields: e.fields } : { message: e.message }));
  }

  /** The workflow's result; throws (with the workflow's error as `cause`) if it threw or stopped. */
  get value(): R {
    if (this.stopped) throw new Error(`the workflow stopped: ${this.stopped.reason}`);
    if (this.#failed) {
      const message = messageOf(this.#error);
      throw new Error(`the workflow failed: ${message}`, { cause: this.#error });
    }
    return this.#value as R;
  }

  turnsOf(agent: string): TurnRecord[] {
    return this.turns.filter((t) => t.agent === agent);
  }

  /** What `key` was opened with; throws, listing the opened agents, when no agent has that key. */
  agentOf(key: string): AgentRecord {
    const found = this.agents.find((a) => a.key === key);
    if (found) return found;
    const opened = this.agents.map((a) => `"${a.key}"`).join(", ");
    throw new Error(`run.agentOf(${JSON.stringify(key)}): no agent "${key}" was opened (opened: ${opened || "none"})`);
  }

  compactionsOf(agent: string): CompactionRecord[] {
    return this.compactions.filter((c) => c.agent === agent);
  }

  setsOf(agent: string): SetRecord[] {
    return this.sets.filter((c) => c.agent === agent);
  }
}

function agentRecords(events: Record<string, any>[]): AgentRecord[] {
  const agents = new Map<string, AgentRecord>();
  events.forEach((e, index) => {
    if (e.event === "agent-opened") {
      // A fork is opened too: its record keeps what agent-forked said.
      const copies: AgentRecord["skillCopies"] = e.skills ?? [];
      const record: AgentRecord = {
        ...agents.get(e.agent),
        key: e.agent,
        runtime: e.runtime ?? {},
        execution: e.execution ?? {},
        tools: e.tools ?? [],
        cwd: e.cwd,
        skills: copies.map((copy) => copy.name),
        skillCopies: copies,
      };
      if (typeof e.runtime?.model === "string") record.model = e.runtime.model;
      if (typeof e.runtime?.effort === "string") record.effort = e.runtime.effort;
      if (e.sandbox) record.sandbox = sandboxRecord(e.sandbox);
      if (e.labels !== undefined) record.labels = e.labels;
      if (typeof e.instructions === "string") record.instructions = e.instructions;
      agents.set(e.agent, record);
    } else if (e.event === "agent-workspace") {
      // Its own event (worktree/, issue 26): what `workspace` asked; a fork shares its parent's.
      const opened = agents.get(e.agent);
      if (opened) opened.workspace = e.workspace;
    } else if (e.event === "agent-forked") {
      const parent = agents.get(e.from);
      const before = events.slice(0, index);
      const settings = currentSettings(before, e.from, parent);
      const turns = before.filter((t) => t.event === "turn-started" && t.agent === e.from).length;
      const base = agents.get(e.agent) ?? parent ?? { runtime: {}, execution: {}, tools: [], cwd: "", skills: [], skillCopies: [] };
      const execution = { ...base.execution, ...settings };
      agents.set(e.agent, { ...base, ...settings, execution, key: e.agent, forkedFrom: { key: e.from, turns } });
    }
  });
  return [...agents.values()];
}

/** An `agent-opened` record's `sandbox` as the test API shows it. */
function sandboxRecord(recorded: Record<string, any>): SandboxRecord {
  const network = recorded.network;
  const domains = network === true ? ["*"] : Array.isArray(network) ? network.map(String) : [];
  // agentswf's spec has its defaults filled in: the cwd and the paths as they resolved.
  const spec = { ...recorded.spec, cwd: recorded.cwd, read: recorded.read ?? null, write: recorded.write ?? [] };
  return {
    key: recorded.key,
    provider: recorded.spec?.srt !== undefined ? "srt" : recorded.provider,
    runs: recorded.provider,
    spec,
    domains,
    cwd: recorded.cwd,
    read: recorded.read ?? null,
    write: recorded.write ?? [],
  };
}

/** `agent`'s model and effort after `events`: what it was opened with, then each `agent.set`. */
function currentSettings(events: Record<string, any>[], agent: string, opened: AgentRecord | undefined): { model?: string; effort?: string } {
  const settings: { model?: string; effort?: string } = {};
  if (opened?.model !== undefined) settings.model = opened.model;
  if (opened?.effort !== undefined) settings.effort = opened.effort;
  for (const e of events) {
    if (e.event !== "settings-changed" || e.agent !== agent) continue;
    if (e.model !== undefined) settings.model = e.model;
    if (e.effort !== undefined) settings.effort = e.effort;
  }
  return settings;
}

function turnRecords(events: Record<string, any>[], prompts: Map<string, { prompt: string; schema: object | null }>, agents: AgentRecord[]): TurnRecord[] {
  const deliveries: TurnRecord[] = [];
  const latest = new Map<string, TurnRecord>();
  const settings = new Map(agents.map((a) => [a.key, { model: a.model, effort: a.effort }]));
  for (const e of events) {
    if (e.event === "settings-changed") {
      const current = settings.get(e.agent) ?? {};
      if (e.model !== undefined) current.model = e.model;
      if (e.effort !== undefined) current.effort = e.effort;
      settings.set(e.agent, current);
    } else if (e.event === "turn-started") {
      const asked = prompts.get(e.turn);
      const record: TurnRecord = e.message
        ? { agent: e.agent, turn: e.turn, n: e.n, schema: null, checkIn: false, nudge: false, outcome: "running", message: e.message }
        : { agent: e.agent, turn: e.turn, n: e.n, prompt: asked?.prompt, schema: asked?.schema ?? e.schema ?? null, checkIn: false, nudge: false, outcome: "running" };
      if (typeof e.label === "string") record.label = e.label;
      if (typeof e.stage === "string") record.stage = e.stage;
      const current = settings.get(e.agent);
      if (current?.model !== undefined) record.model = current.model;
      if (current?.effort !== undefined) record.effort = current.effort;
      deliveries.push(record);
      latest.set(e.turn, record);
    } else if (e.event === "check-in") {
      // The check-in is the turn delivered again: a record of its own, as the script saw it.
      const first = latest.get(e.turn);
      if (!first) continue;
      const { waiting: _waiting, ...same } = first;
      const record: TurnRecord = { ...same, checkIn: true, nudge: true };
      deliveries.push(record);
      latest.set(e.turn, record);
    } else if (e.event === "waiting") {
      const record = latest.get(e.turn);
      if (record) (record.waiting ??= []).push(e.reason);
    } else if (e.event === "turn-settled") {
      if (!latest.has(e.turn)) {
        const record: TurnRecord = { agent: e.agent, turn: e.turn, n: 0, checkIn: false, nudge: false, outcome: e.outcome };
        deliveries.push(record);
        latest.set(e.turn, record);
      }
      for (const record of deliveries) {
        if (record.turn !== e.turn) continue;
        record.outcome = e.outcome;
        if (e.detail) record.detail = e.detail;
      }
    }
  }
  return deliveries;
}

function stageRecords(events: Record<string, any>[], values: Map<string, unknown>, attempt: number): StageRecord[] {
  const stages: StageRecord[] = [];
  const open = new Map<string, StageRecord>();
  for (const e of events) {
    if (e.event === "stage-reused") {
      const record: StageRecord = { stage: e.stage, source: "reused", attempt: e.fromAttempt, outcome: "succeeded" };
      if (values.get(e.stage) !== undefined) record.value = values.get(e.stage);
      if (e.summary !== undefined) record.summary = e.summary;
      stages.push(record);
    } else if (e.event === "stage-started") {
      const record: StageRecord = { stage: e.stage, source: "ran", attempt, outcome: "running" };
      if (e.because) record.because = e.because;
      open.set(e.stage, record);
      stages.push(record);
    } else if (e.event === "stage-ended") {
      const record = open.get(e.stage);
      if (!record) continue;
      record.outcome = e.outcome;
      if (e.reason) record.reason = e.reason;
      if (e.summary !== undefined) record.summary = e.summary;
      if (e.outcome === "succeeded" && values.get(e.stage) !== undefined) record.value = values.get(e.stage);
    }
  }
  return stages;
}

function messageRecords(events: Record<string, any>[]): MessageRecord[] {
  const received = new Set(events.filter((e) => e.event === "message-received").map((e) => e.seq));
  return events
    .filter((e) => e.event === "message-sent")
    .map((e) => {
      const record: MessageRecord = { from: e.agent, text: e.text, at: e.at, received: received.has(e.seq) };
      if ("data" in e) record.data = e.data;
      return record;
    });
}

function callRecords(events: Record<string, any>[]): CallRecord[] {
  const calls: CallRecord[] = [];
  const byId = new Map<string, CallRecord>();
  for (const e of events) {
    if (e.event === "tool-called") {
      const record: CallRecord = { agent: e.agent, tool: e.tool, call: e.call, input: e.input, outcome: "running" };
      byId.set(e.call, record);
      calls.push(record);
    } else if (e.event === "tool-settled") {
      const record = byId.get(e.call);
      if (!record) continue;
      record.outcome = e.outcome;
      if ("result" in e) record.result = e.result;
      if (e.error) record.error = e.error;
    } else if (e.event === "tool-refused") {
      calls.push({ agent: e.agent, tool: e.tool, outcome: "refused", code: e.code, error: [e.message, ...(e.details ?? [])].join("\n") });
    }
  }
  return calls;
}
