// typings/agentswf.d.ts — editor typings for the `agentswf` module (alias `agentswf/workflow`)
// as awf serves it (js/agentswf/index.ts), and for the author globals every workflow and test
// file sees without an import: `defineWorkflow`, `typed`, `tool` and `Type`.
//
// Two parts: what exists today (defineWorkflow, prepare/run, wf.log, typed, tool, Type), and,
// in its own section at the end, the agents surface of the spec page and ARCHITECTURE.md
// (`wf.agents.open`, `agent.run`, outcomes), declared ahead of its implementation.

declare module "agentswf" {
  import Type from "typebox";
  import type { StaticType, TSchema, TypedSchema } from "typebox";

  export { Type };

  // -------------------------------------------------------------------------------------------
  // JSON: what crosses from the workflow to awf (results, tool results, inputs).
  // -------------------------------------------------------------------------------------------

  /** A JSON value: what a workflow, a tool or `prepare` may return. */
  export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

  /**
   * `T` itself when it is JSON; otherwise, in place of each part that is not, a sentence saying
   * why, so that returning a Date or a Map from a tool handler is a compile error that reads
   * `Type 'Date' is not assignable to type '"a Date is not JSON: return date.toISOString()"'`.
   * A class instance is refused when it has methods (its fields alone look like a plain object).
   */
  export type AsJson<T> =
    unknown extends T ? T
    : T extends string | number | boolean | null | undefined | void ? T
    : T extends Date ? "a Date is not JSON: return date.toISOString()"
    : T extends Map<unknown, unknown> ? "a Map is not JSON: return Object.fromEntries(map)"
    : T extends Set<unknown> ? "a Set is not JSON: return [...set]"
    : T extends RegExp ? "a RegExp is not JSON: return regexp.source"
    : T extends PromiseLike<unknown> ? "a promise inside a result is not JSON: await it first"
    : T extends bigint ? "a bigint is not JSON: return it as a string or a number"
    : T extends symbol ? "a symbol is not JSON"
    : T extends (...args: never[]) => unknown ? "a function is not JSON"
    : T extends readonly unknown[] ? { [I in keyof T]: AsJson<T[I]> }
    : T extends object ? { [K in keyof T]: AsJson<T[K]> }
    : never;

  /** What a tool handler may return: a JSON value, or nothing (the agent reads nothing). */
  export type ToolReturn<R> = R extends PromiseLike<infer Awaited> ? PromiseLike<AsJson<Awaited>> : AsJson<R>;

  // -------------------------------------------------------------------------------------------
  // Workflows.
  // -------------------------------------------------------------------------------------------

  export interface WorkflowMeta {
    /** Names the run folder (`.awf/runs/<name>/`): 1 to 128 letters, digits, `.`, `_`, `-`; no leading dot. */
    name: string;
    /** What the workflow does, in a sentence. */
    description: string;
    /** When to pick this workflow over others, in a sentence. */
    whenToUse?: string;
    /** Semver (`"1.2.0"`), checked where it is written. */
    version?: string;
  }

  /** How an attempt ended, as `present` and `report` are given it. */
  export interface WorkflowEnding<Result = unknown> {
    kind: "completed" | "failed" | "stopped" | "timed-out" | "cancelled";
    /** The result, when `kind` is `"completed"`. */
    value?: Result;
    /** Why it did not complete: the error's first line, or `wf.stop`'s reason. */
    reason?: string;
    error?: { name: string; message: string; code?: string };
    /** The stage it failed, stopped or was cut off in. */
    stage?: string;
    /** What the attempt did with each stage, in order. */
    stages: Array<{ stage: string; source: "ran" | "reused"; outcome: string; attempt: number }>;
    runId: string;
    attempt: number;
    durationMs: number;
    /** The run folder. */
    records: string;
    /** What the turns used, as output.json records it (when agents ran). */
    usage?: unknown;
  }

  /** What `prepare` is given. */
  export interface PrepareContext {
    /** The words after `--` on the `awf run` command line. */
    argv: string[];
    /** The run's working directory (`awf run --cwd`, else where awf was started). */
    cwd: string;
  }

  export interface WorkflowSpec<Input, Result> {
    meta: WorkflowMeta;
    /** Turns the command line into `run`'s input; without it the input is `{ argv }`. */
    prepare?: (context: PrepareContext) => Input | Promise<Input>;
    /**
     * The run's id, derived from its input (e.g. a ticket key): 1 to 128 letters, digits, `.`,
     * `_` or `-`. `awf run --id` overrides it; without either, an id is generated.
     */
    id?: (input: Input) => string | Promise<string>;
    /** The workflow: its JSON result is printed by `awf run` and kept in output.json. */
    run: (wf: WorkflowContext, input: Input) => Result | Promise<Result>;
    /** The text `awf run` prints for a completed attempt instead of the result's JSON (`--json` prints the record). */
    present?: (value: Result, ending: WorkflowEnding<Result>) => string | undefined | Promise<string | undefined>;
    /** Markdown written as `report.md` in the run folder on every ending; `undefined` writes none. */
    report?: (value: Result | undefined, ending: WorkflowEnding<Result>) => string | undefined | Promise<string | undefined>;
  }

  /** What `defineWorkflow` returns: the file's default export. */
  export interface Workflow<Input = { argv: string[] }, Result = unknown> extends WorkflowSpec<Input, Result> {
    readonly kind: "awf.workflow/v1";
  }

  /** Declares a workflow; export its value as the file's default export. */
  export function defineWorkflow<Input = { argv: string[] }, Result = unknown>(
    spec: WorkflowSpec<Input, Result>,
  ): Workflow<Input, Result>;

  /** agentswf's plain definition, as its examples build one in a function: `testWorkflow` takes it as it is. */
  export interface WorkflowDefinition<Input = { argv: string[] }, Result = unknown> {
    meta: WorkflowMeta;
    run: WorkflowSpec<Input, Result>["run"];
  }

  /** agentswf's spelling: the same workflow as `defineWorkflow({ ...definition, prepare, id, present, report })`,
   * with `definition` kept (itself a workflow, for `testWorkflow(executable.definition, input)`). */
  export function defineExecutableWorkflow<Input = { argv: string[] }, Result = unknown>(spec: {
    definition: WorkflowDefinition<Input, Result>;
    prepare?: WorkflowSpec<Input, Result>["prepare"];
    id?: WorkflowSpec<Input, Result>["id"];
    present?: WorkflowSpec<Input, Result>["present"];
    report?: WorkflowSpec<Input, Result>["report"];
  }): Workflow<Input, Result> & { readonly definition: Workflow<Input, Result> };

  /** Whether a turn's outcome is an answer; then it holds the answer's `value`. */
  export function isAnswered<T>(outcome: TurnOutcome<T>): outcome is Extract<TurnOutcome<T>, { kind: "answered" }>;

  /** The `wf` a workflow's `run` receives. */
  export interface WorkflowContext {
    /** The run's id, which names its folder under `.awf/runs/<name>/`; the same in every attempt. */
    readonly runId: string;
    /** 1 for the run's first attempt; each `awf run --continue` adds one. */
    readonly attempt: number;
    /** `meta.name`. */
    readonly workflow: string;
    /** The run's working directory. */
    readonly cwd: string;
    /** The run's deadline, in Unix milliseconds (`awf run --timeout`, 30 minutes by default). */
    readonly deadline: number;
    /** A line on stderr and in the run's events.jsonl: `message key=value ...`. */
    log(message: string, fields?: { [key: string]: JsonValue | undefined }): void;
    /** Opens agents and gives them turns (see the agents section below). */
    readonly agents: AgentDirectory;
    /** Opens sandboxes agents share: `wf.agents.open({ ..., sandbox: await wf.sandboxes.open(spec) })`. docs/agents.md#sandboxes-and-worktrees */
    readonly sandboxes: SandboxDirectory;
    /**
     * The next message an agent sent with `wfa send` (an agent opened with `messages: true`), or
     * the next from agent `from` (the others stay queued, in order). Waits for one; with
     * `timeout`, rejects with an error whose `code` is `"receive-timeout"`.
     */
    receive<D extends JsonValue = JsonValue>(options?: ReceiveOptions): Promise<Message<D>>;
    /**
     * A step whose end is recorded. On `awf run --continue` a stage an earlier attempt finished
     * is reused: `work` is not called. Names match `^[a-z][a-z0-9-]*$`, once per attempt; stages
     * do not nest. Without options the work returns nothing.
     */
    stage(name: string, work: () => void | Promise<void>): Promise<void>;
    /**
     * A stage with a value: JSON, checked against `result` when recorded and when reused;
     * resolves with it (the recorded one when reused).
     */
    stage<T>(name: string, options: StageOptions<T>, work: () => T | Promise<T>): Promise<T>;
    /** Ends the attempt as `stopped` (exit 3), recorded with the stage it is in. Never returns. */
    stop(reason: string): never;
    /**
     * `fn(item, index)` for each item, at most `concurrency` at once (default: all); resolves
     * with the results in item order. The first call to throw cancels the others' turns (they
     * end `cancelled`) and tool calls, and rejects with that error. A turn that ends unanswered
     * does not throw.
     */
    parallel<T, R>(items: Iterable<T>, fn: (item: T, index: number) => R | Promise<R>, options?: ParallelOptions): Promise<Awaited<R>[]>;
    /**
     * Runs the branches at once, each in its own cancellation scope; resolves with the value of
     * the first to settle (or rejects with its error) and cancels the others' turns and tool
     * calls. Throws in a tool handler.
     */
    race<B extends readonly (() => unknown)[] | { [key: string]: () => unknown }>(branches: B): Promise<RaceValue<B>>;
    /** Like `race`, resolving with `{ key, value }` of the first branch to settle. Throws in a tool handler. */
    select<B extends { [key: string]: () => unknown }>(branches: B): Promise<{ [K in keyof B & string]: { key: K; value: Awaited<ReturnType<B[K]>> } }[keyof B & string]>;
    /**
     * What the run's turns (`agent.run`, check-ins included) used so far: all, by agent, by
     * stage (`"(no stage)"` outside one) and by model (`"(cli default)"` when the agent was
     * opened without one). Message turns, forks and compactions are not in it.
     */
    usage(): RunUsage;
    /**
     * A question for a person, answered with `awf answer RUN VALUE` (docs/workflow-api.md#asking-a-person).
     * Resolves with one of `choices`, a value of `schema`, or text; with `timeout`, rejects with
     * an error whose `code` is `"ask-timeout"`. Recorded (`asked`, `answered`); a continued run
     * asks again, and an answer given while no awf ran is taken then. Throws in a tool handler.
     */
    /**
     * The run's budget (docs/workflow-api.md#budgets): tokens (input, cached included, and
     * output, reasoning included) and/or dollars (reported, else estimated). Soft by default: a
     * warning in the live view and a `budget-passed` record when passed; `hard: true`: every
     * agent stops (its running turn and later ones end `blocked`). `awf run --budget-tokens /
     * --budget-usd` stands over it. Returns the budget against the spend so far.
     */
    budget(figures: BudgetFigures, options?: { hard?: boolean }): BudgetReport | null;
    ask<C extends string>(question: string, options: AskOptions & { choices: readonly C[] }): Promise<C>;
    ask<T>(question: string, options: AskOptions & { schema: Typed<T> }): Promise<T>;
    ask(question: string, options?: AskOptions): Promise<string>;
  }

  /** `wf.ask`'s options. */
  export interface AskOptions {
    /** The answers it takes, as strings. */
    choices?: readonly string[];
    /** The shape of a typed answer: a `typed(...)` value or a JSON Schema. */
    schema?: Typed<unknown> | object;
    /** What the person needs to see to answer (a plan, a diff); recorded with the question. */
    context?: JsonValue;
    /** `"4h"`; then `wf.ask` rejects with `code: "ask-timeout"`. */
    timeout?: Duration;
    /** Its name for `awf answer --question KEY` and a test's `answers` (default: made from its words). */
    key?: string;
  }

  /** What a turn used: `outcome.usage`. Tokens as the CLI reported them; see docs/agents.md. */
  export interface TurnUsage {
    /** Every input token, cached ones included. */
    inputTokens: number;
    /** The part of the input read from a cache. */
    cachedInputTokens: number;
    /** Every output token, reasoning included. */
    outputTokens: number;
    /** The part of the output spent reasoning. */
    reasoningTokens: number;
    /** Dollars: the CLI's own figure, or an estimate at list prices, or `null`. */
    costUsd: number | null;
    /** Where `costUsd` came from: the CLI, awf's dated price table, or nowhere. */
    priced: "reported" | "estimated" | "unpriced";
    /** The model the agent was opened with; `null` when its CLI chose. */
    model: string | null;
    /** The price table's date (`"2026-12-01"`), when the cost is an estimate. */
    pricesOf?: string;
    /** The agent's settings the turn ran with. */
    execution: Execution;
    /** The CLI sessions it ran in, as agentswf's `usage.sessions`: `[{ harness, id }]`, none before the CLI gave one (a scripted agent's is `script-<key>`). */
    sessions: { harness: string; id: string }[];
  }

  /** An agent's settings, as agentswf's `execution` names them. */
  export interface Execution {
    /** The CLI (`claude`, `codex`, ...), or `command`. */
    harness: string;
    model?: string;
    effort?: string;
    /** How awf runs every agent: a process per turn. */
    placement: "headless";
    /** The alias its runtime named (`runtime: "claude"`, `{ alias: "fast" }`). */
    alias?: string;
    /** agentswf's acknowledgement that the CLI bills per token, as given. */
    metered?: boolean;
  }

  /** A sum of turns' usage. */
  export interface UsageTotal {
    /** The turns summed: `agent.run` turns and message turns (`agent.send`). */
    turns: number;
    inputTokens: number;
    cachedInputTokens: number;
    outputTokens: number;
    reasoningTokens: number;
    /** The known costs' sum, reported and estimated. */
    costUsd: number;
    /** Turns with no cost: not in `costUsd`. */
    unpricedTurns: number;
    /** Turns whose cost is an estimate. */
    estimatedTurns: number;
  }

  /** A budget's figures: whichever is passed first. */
  interface BudgetFigures {
    tokens?: number;
    usd?: number;
  }

  /** `wf.budget(...)`'s answer: the budget against what was spent. */
  interface BudgetReport {
    budget: BudgetFigures;
    hard: boolean;
    spent: { inputTokens: number; cachedInputTokens: number; outputTokens: number; reasoningTokens: number; costUsd?: number };
    passed: boolean;
  }

  /** `wf.usage()`. */
  export interface RunUsage {
    total: UsageTotal;
    byAgent: { [key: string]: UsageTotal };
    byStage: { [stage: string]: UsageTotal };
    byModel: { [model: string]: UsageTotal };
    /** The price table's date, when an estimate is in the totals. */
    pricesOf?: string;
  }

  /** What `wf.race` resolves with: the value of any one of its branches. */
  export type RaceValue<B> = {
    [K in keyof B]: B[K] extends () => infer R ? Awaited<R> : never;
  }[keyof B & (B extends readonly unknown[] ? number : string)];

  /** The options of `wf.parallel`. */
  export interface ParallelOptions {
    /** How many calls run at once: a positive whole number. Default: all items. */
    concurrency?: number;
    /** Names the group in the reasons its cancelled turns are recorded with. */
    label?: string;
  }

  /** The options of a stage with a value. */
  export interface StageOptions<T> {
    /** The value's schema: a `typed(...)` value or a JSON Schema. */
    result: Typed<T> | TSchema;
    /** A line that says what the value was, kept in the stage's record. */
    summary?: (value: T) => string;
  }

  // -------------------------------------------------------------------------------------------
  // Schemas.
  // -------------------------------------------------------------------------------------------

  /**
   * A JSON Schema compiled once, with the static type of the values it accepts. It carries
   * typebox's `~awf.static` hook (a phantom property, absent at run time), so that
   * `Type.Static<typeof X>` is `T` for `X = typed(...)` as for the raw schema.
   */
  export interface Typed<T> extends TypedSchema<T> {
    /** The JSON Schema, as given. */
    readonly schema: TSchema;
    /** One line per problem, as `value.items[2].line: expected integer ≥ 1; got 0`; empty when `value` fits. */
    check(value: unknown): string[];
    /** Whether `value` fits. */
    is(value: unknown): value is T;
    /** `value` typed, or a TypeError listing what does not fit. */
    parse(value: unknown): T;
    /** The JSON Schema, for `JSON.stringify`. */
    toJSON(): TSchema;
  }

  /**
   * Compiles a JSON Schema (a `Type.*` value or a plain object) once, refusing an invalid one
   * with a TypeError at the call. The static type comes from the `Type.*` builder; for a plain
   * JSON Schema object give it: `typed<Finding>({ type: "object", ... })`.
   */
  export function typed<const S extends TSchema>(schema: S): Typed<StaticType<S>>;
  export function typed<T>(schema: TSchema): Typed<T>;

  // -------------------------------------------------------------------------------------------
  // Tools.
  // -------------------------------------------------------------------------------------------

  /** What a tool's handler is given besides its input. */
  export interface ToolCall {
    /** Unique in the run. */
    readonly id: string;
    /** The key of the agent that called (a fork's own key). */
    readonly agent: string;
    /**
     * Aborted when the call's time is up, its turn ends or the run is cancelled (its `reason`: a
     * `TimeoutError` when time ran out, else an `AbortError`); pass it to the work you await.
     */
    readonly signal: AbortSignal;
  }

  /** A duration: `"1500ms"`, `"30s"`, `"20m"`, `"1h"`, `"1h30m"`, or a number of milliseconds. */
  export type Duration = string | number;

  /** The input a handler is given when its tool has none. */
  export type NoInput = { [key: string]: never };

  export interface ToolSpec<S extends TSchema, R> {
    /** What the agent reads to decide when to call it: what it is for and when to use it. */
    description: string;
    /** An object schema, wrapped in `typed(...)`; the handler is given the checked value. */
    input?: S;
    /** Runs in the workflow's process; its JSON result is what the agent reads on stdout. */
    handler: (input: StaticType<S>, call: ToolCall) => R & ToolReturn<R>;
    /** Each call's budget: `"30s"` by default, `"2m"`, or `false` for only the turn's deadline. */
    timeout?: Duration | false;
  }

  /** A tool, ready to give to an agent: `wf.agents.open({ tools: { name: tool(...) } })`. */
  export interface Tool<Input = unknown> {
    readonly description: string;
    readonly input: Typed<Input> | undefined;
    readonly handler: (input: Input, call: ToolCall) => unknown;
    readonly timeout: Duration | false | undefined;
  }

  /**
   * Defines a workflow tool. The handler is typed from `input` (given `{}` without one), and a
   * handler whose result is not JSON (a Date, a Map, a class instance with methods, a function)
   * does not compile.
   */
  export function tool<const S extends TSchema = Typed<NoInput>, R = void>(spec: ToolSpec<S, R>): Tool<StaticType<S>>;

  // -------------------------------------------------------------------------------------------
  // Agents: wf.agents.open, turns and their outcomes (docs/agents.md).
  // -------------------------------------------------------------------------------------------

  /** How an agent is started: a known agent CLI by name, or any executable. */
  export type Runtime =
    | "codex"
    | "claude"
    | "pi"
    | "gemini"
    | "opencode"
    | (string & {})
    | { harness: string; model?: string; effort?: string; args?: string[]; placement?: "headless"; metered?: boolean }
    | { alias: string; harness?: string; model?: string; effort?: string; placement?: "headless"; metered?: boolean }
    | { command: string[] };

  export interface AgentOpenSpec {
    /** The agent's name in this run; opening the same key again gives the same agent. */
    key: string;
    runtime: Runtime;
    /** Standing instructions, delivered with the first turn. */
    instructions?: string;
    /** Where the agent works; the run's cwd by default. */
    cwd?: string;
    /**
     * Extra environment variables for the agent's process, and what it inherits: `inherit`
     * (`true`, the default; `false`: only PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*,
     * TERM, TMPDIR, TZ; or those and the names or `PREFIX*` patterns listed) and `withhold`
     * (names or patterns never inherited), e.g. `{ withhold: ["GITHUB_TOKEN", "AWS_*"] }`.
     */
    env?: { inherit?: boolean | string[]; withhold?: string[] } & { [name: string]: string | boolean | string[] | undefined };
    /** At most 16, named in lowercase letters, digits and `_`; checked when the agent opens. */
    tools?: { [name: string]: Tool<any> };
    /** The agent may send the workflow messages with `wfa send`, which `wf.receive` takes. */
    messages?: boolean;
    /**
     * A git worktree of its own under the run's folder, on `branch` (default `awf/<run id>/<key>`)
     * from `from` (default HEAD, which must be clean); kept or removed as `keep` says (default
     * `"on-failure"`: kept when the run fails or the tree has uncommitted edits). docs/agents.md#worktrees
     */
    workspace?: { worktree: boolean | { branch?: string; from?: string; keep?: "always" | "on-failure" | "never" } };
    /**
     * Confines the agent's every process (bubblewrap): a sandbox of its own, keyed
     * `agent:<key>` (an inline spec; `cwd` defaults to the agent's), or one `wf.sandboxes.open`
     * made, shared. Opening fails, with a hint, where bwrap is missing or cannot make
     * namespaces. docs/agents.md#sandboxes-and-worktrees
     */
    sandbox?: SandboxSpec | SandboxRef;
    /**
     * The exact skills the agent gets (folders holding a SKILL.md with `name` and `description`
     * front matter): `{ path }` (absolute, or a `file:` URL) or `{ repo, skill, ref? }` (a git
     * repository, the skill's folder in it, a branch, tag or commit). Copied into the agent's
     * own CLI home, so the user's other skills are left out; recorded with their digests.
     * codex, claude, pi, gemini and opencode agents; an executable agent is refused. docs/agents.md#skills
     */
    skills?: ({ path: string | { readonly href: string } } | { repo: string; skill: string; ref?: string })[];
    /** The check-in of each of its turns that gives none. */
    checkIn?: CheckIn;
    /** The author's labels (a JSON object): recorded, shown by `awf logs`, `run.agentOf(key).labels` in tests. */
    labels?: { [name: string]: unknown };
    /**
     * The most this agent may spend (hard): when passed, its running turn stops and ends
     * `blocked` naming the budget, and its later turns are `blocked` without starting. A reopen
     * may give a new figure. docs/workflow-api.md#budgets
     */
    budget?: BudgetFigures;
  }

  /** A message an agent sent (`wfa send`), as `wf.receive` gives it. */
  export interface Message<D extends JsonValue = JsonValue> {
    /** The key of the agent that sent it. */
    from: string;
    text: string;
    /** What `wfa send --json` gave, when it did. */
    data?: D;
    /** When it was sent, RFC 3339. */
    at: string;
  }

  export interface ReceiveOptions {
    /** Only a message from this agent. */
    from?: string;
    /** `"30s"`; then `wf.receive` rejects with `code: "receive-timeout"`. */
    timeout?: Duration;
  }

  /** What `agent.send` gives the agent: text, data, or both. */
  export type MessageToAgent = string | { text?: string; data?: JsonValue };

  /** How a message turn ended: the agent was done with it, or why not. */
  export type MessageOutcome =
    | { kind: "ended"; ended: true }
    | {
        kind: "failed" | "blocked" | "timed-out" | "cancelled";
        ended: false;
        /** Why, in words (the kind where nothing more is known). */
        reason: string;
        /** @deprecated The older name of `reason`: the same text. */
        detail: string;
      };

  /** Why a turn ended without an accepted answer. */
  export type TurnFailure = "unanswered" | "blocked" | "timed-out" | "failed" | "cancelled";

  /** How a turn ended: an accepted answer, or why there is none. */
  export type TurnOutcome<T> =
    | { kind: "answered"; answered: true; value: T }
    | {
        kind: TurnFailure;
        answered: false;
        /** Why, in words: `"waiting on a permission prompt"`, the deadline passed, ... (the kind where nothing more is known). */
        reason: string;
        /** @deprecated The older name of `reason`: the same text. */
        detail: string;
      };

  export interface TurnSpec<S> {
    prompt: string;
    /** The answer's schema, wrapped in `typed(...)`; without one the answer is text. */
    schema?: S;
    /** `"20m"`; the least of this, the scope's and the run's deadline bounds the turn. */
    timeout?: Duration;
    /** agentswf's spelling of `timeout`: milliseconds from the call. Give one of timeout, timeoutMs, deadline. */
    timeoutMs?: number;
    /** agentswf's spelling: the moment the turn ends (Unix milliseconds, a Date or `{ unixMilliseconds }`). */
    deadline?: number | Date | { unixMilliseconds: number };
    /** Makes the turn idempotent for this agent: the same id and spec give the same turn (one id names one operation of the agent: a turn, a compaction or a change of settings). */
    id?: string;
    /** The author's name for the turn, recorded with its start. */
    label?: string;
    /** `false`: no check-in; `{ prompt?, timeout? }`: the check-in's first sentence and its own bound. Default: the agent's. */
    checkIn?: CheckIn;
  }

  /** A turn's check-in when its agent ends without an answer: off, or the author's sentence and time limit. */
  export type CheckIn = false | { prompt?: string; timeout?: Duration };

  export interface Agent {
    readonly key: string;
    /** Its settings now (after each finished `set`). */
    readonly execution: Execution;
    /** Gives the agent a turn; resolves with its outcome however it ends. */
    run<const S extends TSchema = Typed<string>>(spec: TurnSpec<S>): Promise<{ outcome: TurnOutcome<StaticType<S>> & { usage: TurnUsage } }>;
    /**
     * Wakes the agent with a message turn: it reads the message and may call its tools, but owes
     * no answer. Queued behind a running turn; resolves when the message turn ends.
     */
    send(message: MessageToAgent, options?: { timeout?: Duration }): Promise<{ outcome: MessageOutcome & { usage: TurnUsage } }>;
    /**
     * A new agent `key` on a copy of this agent's session, made after its queued operations,
     * each harness its own way (docs/workflow-api.md, "Forks, compaction and settings"). It has
     * this agent's tools unless `tools` gives its own (`{}`: none). Rejects before this agent's
     * first turn, once it is closed, for a key already open, and where the harness cannot fork.
     */
    fork(spec: ForkSpec): Promise<Agent>;
    /** The harness's own compaction, with `prompt` as its focus; queued like a turn. Resolves with `{ outcome }` and, as agentswf's does, the outcome's own fields. */
    compact(spec: CompactSpec): Promise<TurnOutcome<string> & { outcome: TurnOutcome<string> }>;
    /**
     * Another model or effort for the later turns of the same session; queued like a turn.
     * Resolves, as agentswf's does, with an outcome: `answered` (value `null`, with the model and
     * effort the agent runs with now), or `timed-out`/`cancelled` when its bound passed or the run
     * was cancelled while it waited; and with `{ outcome }`, as `run` resolves.
     */
    set(spec: SetSpec): Promise<SetOutcome & { outcome: SetOutcome }>;
    /** Ends the agent once its queued turns are done; later turns reject. */
    close(): Promise<void>;
  }

  export interface ForkSpec {
    /** The fork's key: a new agent of this run. */
    key: string;
    /** The fork's own tools; left out, its parent's; `{}`, none. */
    tools?: { [name: string]: Tool<any> };
    /** Given to the fork with its first turn. */
    instructions?: string;
    /** The fork's own labels (a JSON object, recorded); it does not inherit its parent's. */
    labels?: { [name: string]: unknown };
    /** agentswf's: `"headless"`, how awf runs every agent (`"pane"` is refused). */
    placement?: "headless";
    /** agentswf's acknowledgement that the CLI bills per token. */
    metered?: boolean;
  }

  export interface CompactSpec {
    /** What the summary should keep. */
    prompt: string;
    /** Makes it idempotent for this agent, as a turn's `id`: the same id and spec give the same compaction. */
    id?: string;
    timeout?: Duration;
    /** agentswf's spelling: milliseconds from the call; give one of timeout, timeoutMs and deadline. */
    timeoutMs?: number;
    /** agentswf's spelling: the compaction's end as Unix milliseconds. */
    deadline?: number | Date | { unixMilliseconds: number };
  }

  export interface SetSpec {
    /** Makes it idempotent for this agent, as a turn's `id`: the same id and spec give the same change. */
    id?: string;
    /** The harness's own model name. */
    model?: string;
    /** One of the harness's effort levels (claude: low…max; codex: minimal…xhigh; pi: off…xhigh). */
    effort?: string;
    /** How long it may wait behind the agent's earlier operations; the run's deadline bounds it. */
    timeout?: Duration;
    /** agentswf's spelling: milliseconds from the call; give one of timeout, timeoutMs and deadline. */
    timeoutMs?: number;
    /** agentswf's spelling: its end as Unix milliseconds. */
    deadline?: number | Date | { unixMilliseconds: number };
  }

  /** How `agent.set` ended: the change made, with the settings now, or why not. */
  export type SetOutcome = (
    | { kind: "answered"; answered: true; value: null; model: string | null; effort: string | null }
    | { kind: "timed-out" | "failed" | "cancelled"; answered: false; reason: string; detail: string }
  ) & { usage: TurnUsage };

  /**
   * Where a sandboxed agent may read, write and connect. Paths: `.` is the sandbox's cwd, a
   * relative path starts there, `~` is your home; each must exist.
   */
  export interface SandboxSpec {
    /** `wf.sandboxes.open` only: the sandbox's name in this run (1 to 64 of letters, digits, `.`, `_`, `:`, `-`). */
    key?: string;
    /** What `.` and relative paths start at: the agent's cwd (inline), the run's (`wf.sandboxes.open`). */
    cwd?: string;
    /** Narrows reads to these paths and the system's (/usr, /etc, ...), the CLI's install, node and wfa. */
    read?: string[];
    /** What the agent may write; `["."]` (its cwd) by default. */
    write?: string[];
    /** `false` (the default: no network but the model's API), `true` (all), or hosts. */
    network?: boolean | string[];
    /** The provider: bubblewrap, the default. */
    bwrap?: {};
    /** agentswf's Anthropic sandbox runtime, which is bubblewrap on Linux: the same provider. */
    srt?: {};
    /** Each process of the agent in a podman container: `image` (default `awf-agents`, the repository's Containerfile), `args` for `podman run`. docs/agents.md#containers */
    podman?: ContainerProvider;
    /** The same with docker (agentswf's spelling). */
    docker?: ContainerProvider;
  }

  /** A container sandbox's engine options. */
  export interface ContainerProvider {
    /** The image to run (never pulled by awf); `awf-agents` by default. */
    image?: string;
    /** Given to `<engine> run` before the image, e.g. `["--memory", "2g"]`. */
    args?: string[];
  }

  /** A sandbox `wf.sandboxes.open` opened: give it as agents' `sandbox` to share it. */
  export interface SandboxRef {
    readonly key: string;
    /** `"bwrap"`, `"podman"` or `"docker"`; `"srt"` where the spec named agentswf's `srt: {}` (bubblewrap runs it). */
    readonly provider: string;
  }

  export interface SandboxDirectory {
    /**
     * Opens the sandbox `spec.key`, or gives back the one open under it (the same spec again;
     * another spec is refused).
     */
    open(spec: SandboxSpec & { key: string }): Promise<SandboxRef>;
  }

  export interface AgentDirectory {
    /** Opens an agent (or gives back the one open under this key). */
    open(spec: AgentOpenSpec): Promise<Agent>;
    /**
     * Cancels the agent's running and queued turns (`cancelled`, detail `wf.agents.stop: <reason>`),
     * closes it and refuses reopening its key; `false` when the key was never opened, failed to
     * open or was stopped before. docs/workflow-api.md#stopping-an-agent
     */
    stop(key: string, reason?: string): Promise<boolean>;
  }
}

declare module "agentswf/workflow" {
  export * from "agentswf";
}

// The author globals: the same values as the module's exports, so the spec's files run (and
// type-check) without an import line.
declare var defineWorkflow: typeof import("agentswf").defineWorkflow;
declare var typed: typeof import("agentswf").typed;
declare var tool: typeof import("agentswf").tool;
declare var Type: typeof import("typebox").Type;
/** `Type.Static<typeof X>` and the other types of the `Type` namespace, as a global. */
declare namespace Type {
  type Static<T> = import("typebox").Static<T>;
}
