// typings/agentswf-testing.d.ts — editor typings for `agentswf/testing`, what a workflow's test
// file imports to run it with every agent scripted (`awf test`), as js/agentswf/testing.ts
// implements it.

declare module "agentswf/testing" {
  import type { Execution, JsonValue, Workflow, WorkflowDefinition } from "agentswf";
  import type { StaticType, TSchema } from "typebox";

  /** What a scripted turn's `turn.tool(name, input)` gives back: as a real call would end. */
  export type ToolCallResult =
    | { kind: "result"; output: string }
    | { kind: "refused"; code: string; error: string }
    | { kind: "failed"; outcome: "failed" | "timed-out"; error: string };

  /** The turn a script answers. */
  export interface ScriptedTurn {
    /** The key of the agent the turn was given to. */
    readonly agent: string;
    /** 1 for the agent's first turn, then 2, ...; a check-in has its turn's number. */
    readonly n: number;
    /** The prompt as the workflow wrote it (without how to answer or the tools). */
    readonly prompt: string;
    /** The turn's JSON Schema, or null for a text turn. */
    readonly schema: { [key: string]: JsonValue } | null;
    /** True when this is the turn's check-in (the first try ended without an answer). */
    readonly checkIn: boolean;
    /** agentswf's name for `checkIn`. */
    readonly nudge: boolean;
    /** Aborted when the turn's deadline passes or the run is cancelled. */
    readonly signal: AbortSignal;
    /** Calls one of the agent's tools, through the same checks and handler a real call goes through. */
    tool(name: string, input?: { [key: string]: JsonValue }): Promise<ToolCallResult>;
    /** Sends the workflow a message, as `wfa send` would (the agent needs `messages: true`). */
    send(message: string | { text?: string; data?: JsonValue }): Promise<SendResult>;
    /**
     * Reports what the model used in this delivery, as a CLI reports a model request's usage
     * (calls add up): the turn's `outcome.usage`, `wf.usage()` and budgets count it when the
     * script's reply comes. A negative or fractional token count, or another field, fails the test.
     */
    spend(usage: ScriptedUsage): void;
  }

  /** What `turn.send(...)` gives back. */
  export type SendResult = { kind: "sent" } | { kind: "refused"; code: string; error: string };

  /** The message turn a `wake(...)` script plays: `agent.send` woke the agent. */
  export interface WakeTurn {
    readonly agent: string;
    readonly n: number;
    /** What `agent.send` gave. */
    readonly message: { text: string; data?: JsonValue };
    readonly signal: AbortSignal;
    tool(name: string, input?: { [key: string]: JsonValue }): Promise<ToolCallResult>;
    send(message: string | { text?: string; data?: JsonValue }): Promise<SendResult>;
    /** Reports what the model used in this message turn, as `ScriptedTurn.spend` does. */
    spend(usage: ScriptedUsage): void;
  }

  /** What a script says its model used: each field adds up over a delivery's `spend` calls. */
  export interface ScriptedUsage {
    inputTokens?: number;
    cachedInputTokens?: number;
    outputTokens?: number;
    reasoningTokens?: number;
    /** Dollars, as a CLI that reckons them reports them (the turn's usage is then `priced: "reported"`). */
    costUsd?: number;
  }

  /**
   * What the agent does when `agent.send` wakes it; it owes no answer, and may return a
   * `reply.*()` to end the message turn another way. In a list, message turns take the `wake`
   * entries in order and turns the others.
   */
  export function wake(respond: (turn: WakeTurn) => void | Script | Promise<void | Script>): Script;

  /** How one turn is scripted: made by `answer(...)` or `reply.*`. */
  export interface Script {
    readonly "~awf.script": true;
  }

  /** What a script function may give: the answer's value, or a `reply.*()` to end another way. */
  export type Answered<T> = T | Script | Promise<T | Script>;

  /** Answers the turn with a value (checked against its schema, as a real answer is). */
  export function answer(value: JsonValue | ((turn: ScriptedTurn) => Answered<JsonValue>)): Script;
  /** The same, failing the test unless the turn asks for `schema`. */
  export function answer<const S extends TSchema>(
    schema: S,
    value: StaticType<S> | ((turn: ScriptedTurn) => Answered<StaticType<S>>),
  ): Script;

  /** Turns that end without an answer. */
  export const reply: {
    /** The agent ends its turn without answering; a check-in follows, then `unanswered`. */
    silent(): Script;
    blocked(reason?: string): Script;
    failed(reason?: string): Script;
    timedOut(reason?: string): Script;
    /** Holds the turn until its deadline (or the stall check fails the test). */
    hang(): Script;
    /**
     * The agent's CLI has no login (to `provider`, when given): the turn ends `blocked`, as a
     * real CLI's refused login does, with no check-in. For an agent that runs a command (never
     * blocked in awf) it fails the test.
     */
    needsLogin(provider?: string): Script;
    /**
     * The agent says it still works on the turn (`wfa waiting`, recorded in the turn's
     * `waiting`; it never moves the deadline), then its run ends without an answer, so a
     * check-in follows. `timeout`: `"2m"` or milliseconds, as `wfa waiting --timeout`.
     */
    waiting(reason: string, timeout?: string | number): Script;
    /**
     * agentswf's operator interrupt of its caller session. awf has no caller session, and
     * Ctrl-C cancels the whole run: it throws, saying so (docs/testing.md).
     */
    interrupted(): never;
  };

  export interface TestOptions {
    /** Agent key, or a `*` pattern, to its script, or to a list with one script per turn (and `wake` ones per message turn). */
    agents?: { [key: string]: Script | Script[] };
    /** The run's deadline: `"30s"`, `"5m"` or milliseconds (default 30 minutes). */
    timeout?: string | number;
    /** Where the workflow runs (default: a new temp folder, removed after). */
    cwd?: string;
    /** How long turns may be in flight with nothing happening before the test fails (default `"2s"`). */
    stall?: string | number;
    /**
     * Stage name to the value an earlier attempt recorded (`undefined` for a stage without a
     * result): the run is attempt 2 of a continue that reuses these stages.
     */
    recorded?: { [stage: string]: JsonValue | undefined };
    /** Redo from this stage on, as `awf run --continue --from-stage`. */
    fromStage?: string;
    /**
     * Agent key, or a `*` pattern, to what its compactions answer: a summary, or a function of
     * the compaction giving one (or `reply.failed(reason)`, `reply.timedOut()`). Default `""`.
     */
    compactions?: { [key: string]: Compaction };
    /**
     * Runtime aliases for this test (a test reads no config file): name to `{ runtime, model?,
     * effort? }` as in `.awf/config.json`, or agentswf's `{ harness, model?, effort? }`.
     * `runtime: "<name>"` and `{ alias: "<name>", model?, effort? }` open that CLI (scripted).
     */
    runtimes?: { [name: string]: RuntimeAlias };
    /**
     * `wf.ask`'s answers: a question's key (or its words) to the answer, or to a function of the
     * question giving it. A question without one fails the test, naming it.
     */
    answers?: { [keyOrQuestion: string]: JsonValue | ((question: AskedQuestion) => JsonValue | Promise<JsonValue>) };
  }

  /** A question as a function of `testWorkflow`'s `answers` sees it. */
  export interface AskedQuestion {
    key: string;
    question: string;
    choices?: readonly string[];
    context?: JsonValue;
  }

  /** One `wf.ask` of a tested run, in the order asked, with the answer it took. */
  export interface AskRecord {
    key: string;
    question: string;
    choices?: string[];
    schema?: object;
    context?: JsonValue;
    /** The stage it was asked in. */
    stage?: string;
    /** The answer it took (absent when it took none). */
    answer?: JsonValue;
    /** How the answer came: `"scripted"`. */
    how?: string;
    /** It waited its timeout out. */
    timedOut?: boolean;
  }

  /** One alias of `testWorkflow`'s `runtimes` option; give `runtime` or `harness`. */
  export interface RuntimeAlias {
    /** The agent CLI it names: codex, claude, gemini, pi or opencode. */
    runtime?: string;
    /** agentswf's spelling of `runtime`. */
    harness?: string;
    model?: string;
    effort?: string;
  }

  /** A compaction's answer: a summary, `answer("summary")` (agentswf's spelling), or a function of the compaction. */
  export type Compaction =
    | string
    | Script
    | ((compaction: { agent: string; focus: string; n: number }) => string | Script | Promise<string | Script>);

  /** A fork of a tested run: `agent` on a copy of `from`'s session. */
  export interface ForkRecord {
    agent: string;
    from: string;
    harness: string;
  }

  /** A compaction of a tested run. */
  export interface CompactionRecord {
    agent: string;
    id: string;
    focus: string;
    /** `answered`, `failed`, `timed-out` or `cancelled`. */
    outcome: string;
    summary?: string;
    detail?: string;
  }

  /** A change of settings of a tested run. */
  export interface SetRecord {
    agent: string;
    model?: string;
    effort?: string;
  }

  /** What a tested attempt did with one stage, in the order stages were entered. */
  export interface StageRecord {
    stage: string;
    /** `ran`: its work was called; `reused`: a recorded value was used. */
    source: "ran" | "reused";
    /** The attempt whose work made it: the tested one when it ran, the recorded one when reused. */
    attempt: number;
    outcome: "succeeded" | "failed" | "stopped" | "running";
    value?: JsonValue;
    reason?: string;
    /** The line its `summary` option made of its value. */
    summary?: string;
    /** Why a recorded stage ran again. */
    because?: string;
  }

  /** One turn of a tested run. */
  export interface TurnRecord {
    agent: string;
    /** The turn's id. */
    turn: string;
    n: number;
    prompt?: string;
    schema?: { [key: string]: JsonValue } | null;
    /** The author's name for the turn (`agent.run({ label })`). */
    label?: string;
    /** The stage the turn ran in. */
    stage?: string;
    /** The agent's model and effort when the turn started. */
    model?: string;
    effort?: string;
    /** This record is the turn's check-in (its agent ended without an answer and was asked again): a record of its own after the turn's first, with the same `turn` and `n`. */
    checkIn: boolean;
    /** agentswf's name for `checkIn`. */
    nudge: boolean;
    /** The reasons the agent said it was still working (`wfa waiting`, `reply.waiting`), in order. */
    waiting?: string[];
    /** `answered`, `unanswered`, `blocked`, `timed-out`, `failed` or `cancelled`; `ended` for a message turn. */
    outcome: string;
    detail?: string;
    /** A message turn (`agent.send`): its message. */
    message?: { text: string; data?: JsonValue };
  }

  /** A message an agent sent the workflow. */
  export interface MessageRecord {
    from: string;
    text: string;
    data?: JsonValue;
    at: string;
    /** Whether `wf.receive` took it. */
    received: boolean;
  }

  /** One tool call of a tested run. */
  export interface CallRecord {
    agent: string;
    tool: string;
    call?: string;
    input?: JsonValue;
    /** `result`, `failed`, `timed-out` or `refused`. */
    outcome: string;
    result?: JsonValue;
    error?: string;
    code?: string;
  }

  /** The sandbox an agent of a tested run was opened in (scripted agents are not confined). */
  export interface SandboxRecord {
    /** `wf.sandboxes.open`'s key, or `agent:<key>` for an inline sandbox. */
    key: string;
    /** `"bwrap"`, or `"srt"` where the spec named agentswf's `srt: {}` (bubblewrap runs it: `runs`). */
    provider: string;
    /** The provider that runs it: `"bwrap"`. */
    runs: string;
    /** The spec with its defaults filled in and its paths resolved (absolute): `{ cwd, read, write, network, ... }`. */
    spec: { [key: string]: JsonValue };
    /** The hosts granted: the `network` list, `["*"]` for `network: true`, `[]` for none. */
    domains: string[];
    /** What the spec's paths resolved to, absolute. */
    cwd: string;
    read: string[] | null;
    write: string[];
  }

  /** What an agent of a tested run was opened with. */
  export interface AgentRecord {
    key: string;
    /** As the run's record has it: `{ kind, program?, model?, effort?, args? }`. */
    runtime: { [key: string]: JsonValue };
    model?: string;
    effort?: string;
    /** The names of its tools. */
    tools: string[];
    cwd: string;
    /** Where it runs, when sandboxed. */
    sandbox?: SandboxRecord;
    /** Its settings when it opened (a fork: its parent's when forked), as agentswf's `execution`. */
    execution: Execution;
    /** The author's standing instructions (`agents.open` or `fork`), when given. */
    instructions?: string;
    /** A fork: the agent it was forked from, and how many turns that agent had had by then. */
    forkedFrom?: { key: string; turns: number };
    /** The author's `labels` (`agents.open` or `fork`), when given. */
    labels?: { [name: string]: unknown };
    /** The `workspace` it was opened with, defaults filled in (no worktree is made under test). */
    workspace?: { worktree: { keep: "always" | "on-failure" | "never"; branch?: string; from?: string } };
    /** The names of the skills it was given, in order; a fork has its parent's; `[]` for none. */
    skills: string[];
    /** Each skill's copy as installed, in order: its name, where it came from and the digest checked. */
    skillCopies: { name: string; source: string; digest: string }[];
  }

  export interface TestRun<Result> {
    /** The workflow's result; throws (with the workflow's error as `cause`) if it threw or stopped. */
    readonly value: Result;
    /** 1, or 2 when the test gave `recorded` or `fromStage`. */
    readonly attempt: number;
    /** Each stage entered, in order. */
    readonly stages: StageRecord[];
    /** Set when the workflow called `wf.stop`. */
    readonly stopped?: { reason: string; stage?: string };
    /** Every turn, in the order they started. */
    readonly turns: TurnRecord[];
    /** Every tool call, refusals too. */
    readonly calls: CallRecord[];
    /** Every message agents sent, in order. */
    readonly messages: MessageRecord[];
    /** The `wf.log` lines of the run. */
    readonly logs: { message: string; fields?: { [key: string]: JsonValue } }[];
    /** The turns of one agent. */
    turnsOf(agent: string): TurnRecord[];
    /** Each agent opened or forked, in order. */
    readonly agents: AgentRecord[];
    /** What `key` was opened with; throws, listing the opened agents, if none has that key. */
    agentOf(key: string): AgentRecord;
    /** Every fork, compaction and change of settings, in order. */
    readonly forks: ForkRecord[];
    readonly compactions: CompactionRecord[];
    readonly sets: SetRecord[];
    /** The questions `wf.ask` asked, in order, with the answers they took. */
    readonly asks: AskRecord[];
    compactionsOf(agent: string): CompactionRecord[];
    setsOf(agent: string): SetRecord[];
  }

  /** Runs a workflow with scripted agents; `run` gets what `prepare({ argv: [], cwd })` makes. */
  export function testWorkflow<Input, Result>(
    workflow: Workflow<Input, Result> | WorkflowDefinition<Input, Result>,
    options?: TestOptions,
  ): Promise<TestRun<Awaited<Result>>>;
  /** Runs a workflow (or agentswf's plain definition `{ meta, run }`) with scripted agents on this input. */
  export function testWorkflow<Input, Result>(
    workflow: Workflow<Input, Result> | WorkflowDefinition<Input, Result>,
    input: Input,
    options?: TestOptions,
  ): Promise<TestRun<Awaited<Result>>>;
}
