// What a run's turns used, for `wf.usage()`: each turn's `outcome.usage` (priced in Rust,
// runtime/src/usage.rs) is noted here when the turn ends, with its agent and the stage it was
// asked for in (the async frame's, identity.ts), and added up on demand: all, by agent, by stage
// (`(no stage)` for a turn outside one) and by model (`(cli default)` for an agent opened
// without one). A cost is summed only where it is known (reported or estimated);
// `unpricedTurns` counts the turns without one, so a total never passes for complete when it
// is not.

import { currentFrame } from "./identity.ts";

/** `outcome.usage`: what one turn used. */
export interface TurnUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  costUsd: number | null;
  priced: "reported" | "estimated" | "unpriced";
  model: string | null;
  pricesOf?: string;
}

/** A sum of turns' usage. */
export interface UsageTotal {
  turns: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** The known costs' sum, reported and estimated. */
  costUsd: number;
  /** Turns whose cost is neither reported nor estimated: not in `costUsd`. */
  unpricedTurns: number;
  /** Turns whose cost is an estimate from the price table. */
  estimatedTurns: number;
}

export interface RunUsage {
  total: UsageTotal;
  byAgent: Record<string, UsageTotal>;
  byStage: Record<string, UsageTotal>;
  byModel: Record<string, UsageTotal>;
  /** The price table's date, when an estimate is in the totals. */
  pricesOf?: string;
}

export const NO_STAGE = "(no stage)";
export const CLI_DEFAULT_MODEL = "(cli default)";

interface Noted {
  agent: string;
  stage: string;
  usage: TurnUsage;
}

const ledgers = new Map<number, Noted[]>();

/** The stage the calling code runs in, read when a turn is asked for (after an `await` in
 * awf's own code the frame is not restored). */
export function stageNow(): string {
  return currentFrame().stage ?? NO_STAGE;
}

/** Notes what a turn of `agent` in run `run`, asked for in `stage`, used. */
export function noteUsage(run: number, agent: string, stage: string, usage: TurnUsage | undefined): void {
  if (!usage) return;
  let ledger = ledgers.get(run);
  if (!ledger) ledgers.set(run, (ledger = []));
  ledger.push({ agent, stage, usage });
}

function emptyTotal(): UsageTotal {
  return { turns: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, costUsd: 0, unpricedTurns: 0, estimatedTurns: 0 };
}

function add(total: UsageTotal, usage: TurnUsage): void {
  total.turns += 1;
  total.inputTokens += usage.inputTokens;
  total.cachedInputTokens += usage.cachedInputTokens;
  total.outputTokens += usage.outputTokens;
  total.reasoningTokens += usage.reasoningTokens;
  if (usage.costUsd === null) total.unpricedTurns += 1;
  else total.costUsd += usage.costUsd;
  if (usage.priced === "estimated") total.estimatedTurns += 1;
}

/** `wf.usage()`: the run's turns so far, added up. */
export function usageOf(run: number): RunUsage {
  const result: RunUsage = { total: emptyTotal(), byAgent: {}, byStage: {}, byModel: {} };
  const into = (groups: Record<string, UsageTotal>, key: string) => (groups[key] ??= emptyTotal());
  for (const { agent, stage, usage } of ledgers.get(run) ?? []) {
    add(result.total, usage);
    add(into(result.byAgent, agent), usage);
    add(into(result.byStage, stage), usage);
    add(into(result.byModel, usage.model ?? CLI_DEFAULT_MODEL), usage);
    if (usage.pricesOf) result.pricesOf = usage.pricesOf;
  }
  return result;
}
