// The `wf` object a workflow's run() receives: the run's facts, its log, its agents, its
// stages and `stop`, and composition (`parallel`, `race`, `select`).

import * as ops from "awf:ops";
import { lazyBuiltin } from "../core.ts";
import type * as Agents from "./agents.ts";
import type { AgentDirectory } from "./agents.ts";
import type * as Stages from "./stages.ts";
import type { StageOptions, StopState } from "./stages.ts";
import type * as Messages from "./messages.ts";
import type { Message, ReceiveOptions } from "./messages.ts";
import type * as Parallel from "./parallel.ts";
import type { ParallelOptions } from "./parallel.ts";
import type * as Race from "./race.ts";
import type * as Usage from "./usage.ts";
import type * as Ask from "./ask.ts";
import type { AskOptions } from "./ask.ts";
import type { RunUsage } from "./usage.ts";

// Agents, messages, stages and composition load when a run first reaches for them: a workflow
// that only logs and returns does not pay for them. Each is the one module of its name that static
// imports also find.
const agentsModule = lazyBuiltin<typeof Agents>("awf:workflow/agents");
const stagesModule = lazyBuiltin<typeof Stages>("awf:workflow/stages");
const messagesModule = lazyBuiltin<typeof Messages>("awf:workflow/messages");
const parallelModule = lazyBuiltin<typeof Parallel>("awf:workflow/parallel");
const raceModule = lazyBuiltin<typeof Race>("awf:workflow/race");
const usageModule = lazyBuiltin<typeof Usage>("awf:workflow/usage");
const askModule = lazyBuiltin<typeof Ask>("awf:workflow/ask");

export interface WorkflowContext {
  readonly runId: string;
  /** 1 for a run's first attempt; each `awf run --continue` adds one. */
  readonly attempt: number;
  readonly workflow: string;
  readonly cwd: string;
  /** The run's deadline, in Unix milliseconds. */
  readonly deadline: number;
  /** A line on stderr and in the run's records; `fields` is a JSON object shown after it. */
  log(message: string, fields?: Record<string, unknown>): void;
  /** Opens agents and gives them turns. */
  readonly agents: AgentDirectory;
  /** Opens sandboxes agents share: `wf.agents.open({ ..., sandbox: await wf.sandboxes.open(spec) })`. */
  readonly sandboxes: SandboxDirectory;
  /** A step whose end is recorded; a continued run reuses it instead of doing it again. */
  stage(name: string, work: () => unknown): Promise<void>;
  stage<T>(name: string, options: StageOptions<T>, work: () => T | Promise<T>): Promise<T>;
  /** Ends the attempt as `stopped` (exit 3), recorded with its stage. */
  stop(reason: string): never;
  /** The next message an agent sent (`wfa send`), or the next from `from`; waits for one. */
  receive<D = unknown>(options?: ReceiveOptions): Promise<Message<D>>;
  /** `fn` for each item, at most `concurrency` at once, results in item order; the first throw
   * cancels the others and rejects. */
  parallel<T, R>(items: Iterable<T>, fn: (item: T, index: number) => R | Promise<R>, options?: ParallelOptions): Promise<Awaited<R>[]>;
  /** The first branch to settle wins; the others are cancelled. */
  race(branches: unknown): Promise<unknown>;
  /** `{ key, value }` of the first branch to settle; the others are cancelled. */
  select(branches: Record<string, () => unknown>): Promise<{ key: string; value: unknown }>;
  /** What the run's turns used so far: all, by agent, by stage and by model. */
  usage(): RunUsage;
  /** A question for a person (`awf answer` answers it): one of `choices`, a value of `schema`,
   * or text; rejects with code "ask-timeout" after `timeout`. */
  ask<T = string>(question: string, options?: AskOptions<T>): Promise<T>;
  /** The run's budget: soft (a warning when passed) unless `hard` (every agent stops). */
  budget(figures: { tokens?: number; usd?: number }, options?: { hard?: boolean }): unknown;
}

/** A sandbox `wf.sandboxes.open` opened, for agents' `sandbox`. */
export interface SandboxRef {
  readonly key: string;
  readonly provider: string;
}

export interface SandboxDirectory {
  open(spec: Record<string, unknown>): Promise<SandboxRef>;
}

const sandboxes = (run: number): SandboxDirectory =>
  Object.freeze({
    async open(spec: Record<string, unknown>): Promise<SandboxRef> {
      return Object.freeze(ops.sandbox_open(run, spec) as SandboxRef);
    },
  });

export function createContext(run: number, stops: StopState = {}): WorkflowContext {
  const info = ops.run_info(run) as { runId: string; attempt: number; workflow: string; cwd: string; deadline: number };
  let stages: ReturnType<typeof Stages.createStages> | undefined;
  const staged = () => (stages ??= stagesModule().createStages(run, stops));
  // The run's mailbox is open before its first agent is: only agents send messages.
  let receiver: Messages.Receiver | undefined;
  const mailbox = (): Messages.Receiver => (receiver ??= messagesModule().createReceiver(run, info.runId));
  let agents: AgentDirectory | undefined;
  let asker: ReturnType<typeof Ask.createAsk> | undefined;
  return Object.freeze({
    runId: info.runId,
    attempt: info.attempt,
    workflow: info.workflow,
    cwd: info.cwd,
    deadline: info.deadline,
    log(message: string, fields?: Record<string, unknown>): void {
      ops.run_log(run, message, fields);
    },
    get agents(): AgentDirectory {
      mailbox();
      return (agents ??= agentsModule().createAgents(run, info.runId));
    },
    sandboxes: sandboxes(run),
    stage: ((...args: [string, ...unknown[]]) => staged().stage(...args)) as WorkflowContext["stage"],
    stop(reason: string): never {
      return staged().stop(reason);
    },
    receive<D = unknown>(options?: ReceiveOptions): Promise<Message<D>> {
      return mailbox().receive<D>(options);
    },
    parallel<T, R>(items: Iterable<T>, fn: (item: T, index: number) => R | Promise<R>, options?: ParallelOptions): Promise<Awaited<R>[]> {
      return parallelModule().parallel(items, fn, options);
    },
    race(branches: unknown): Promise<unknown> {
      return raceModule().race(branches);
    },
    select(branches: Record<string, () => unknown>): Promise<{ key: string; value: unknown }> {
      return raceModule().select(branches);
    },
    usage(): RunUsage {
      return usageModule().usageOf(run);
    },
    ask<T = string>(question: string, options?: AskOptions<T>): Promise<T> {
      return (asker ??= askModule().createAsk(run, info.runId))<T>(question, options);
    },
    budget(figures: { tokens?: number; usd?: number }, options?: { hard?: boolean }): unknown {
      return ops.run_budget(run, figures, options ?? {});
    },
  });
}
