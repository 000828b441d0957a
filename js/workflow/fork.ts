// An agent's fork, compaction and settings: the JS face of runtime/src/agents/fork.rs and
// compaction.rs (the checks are in runtime/src/js/ops/workflow/fork.rs).
//
// `fork` resolves to the new agent's key and launcher once the harness has copied the session;
// the fork's tool handlers are its own when its spec gives tools, else its parent's (a handler
// then sees `call.agent` = the fork's key). `compact` resolves with `{ outcome }` as `run`
// does, its value the summary (`""` where the harness keeps it opaque). `set` resolves, as
// agentswf's does, with an outcome (`answered`, value `null`, with the agent's model and effort
// now; or why not) and `{ outcome }`. All three queue behind the agent's earlier operations.

import * as ops from "awf:ops";
import { opAsync } from "../core.ts";
import { copyHandlers, registerHandlers, toolSpecs } from "./tools.ts";
import { BOUND_OPTIONS, operationTimeout, timeoutOption } from "./timeout.ts";
import { refuseUnknownOptions } from "./options.ts";

/**
 * The keys `fork` and `compact` read (a new option is added here); `set`'s are checked where
 * they are read, in runtime/src/js/ops/workflow/fork.rs.
 */
const FORK_OPTIONS = ["key", "tools", "instructions", "labels", "placement", "metered"] as const;
const COMPACT_OPTIONS = ["prompt", ...BOUND_OPTIONS] as const;

export interface ForkSpec {
  /** The fork's key: a new agent of this run. */
  key: string;
  /** The fork's own tools; left out, the parent's; `{}`, none. */
  tools?: Record<string, unknown>;
  /** Given to the fork with its first turn. */
  instructions?: string;
  /** The fork's own labels (a JSON object, recorded); it does not inherit its parent's. */
  labels?: Record<string, unknown>;
  /** agentswf's: `"headless"` (how awf runs every agent), or left out; `"pane"` is refused. */
  placement?: "headless";
  /** agentswf's acknowledgement that the CLI bills per token: a boolean, or left out. */
  metered?: boolean;
}

export interface CompactSpec {
  /** What the summary should keep. */
  prompt: string;
  /** agentswf's idempotency key (agents.ts `#once`); the compaction itself never sees it. */
  id?: string;
  /** `"30s"`, `"20m"`, `"1h"`, `"1500ms"` or milliseconds; the run's deadline always bounds it. */
  timeout?: string | number;
  /** agentswf's spelling: milliseconds from the call; give one of timeout, timeoutMs and deadline. */
  timeoutMs?: number;
  /** agentswf's spelling: the compaction's end as Unix milliseconds (`number`, `Date` or `{ unixMilliseconds }`). */
  deadline?: number | Date | { unixMilliseconds: number };
}

export interface SetSpec {
  /** agentswf's idempotency key (agents.ts `#once`); the change itself never sees it. */
  id?: string;
  model?: string;
  effort?: string;
  /** How long it may wait behind the agent's earlier operations; as compact's. */
  timeout?: string | number;
  timeoutMs?: number;
  deadline?: number | Date | { unixMilliseconds: number };
}

export async function forkOf(run: number, runId: string, parent: string, spec: ForkSpec): Promise<{ key: string; launcher: string }> {
  if (typeof spec !== "object" || spec === null) {
    throw new TypeError(`agent "${parent}": fork(spec) takes an object with a key: fork({ key: "${parent}:2" })`);
  }
  refuseUnknownOptions(`agent "${parent}": fork(spec)`, spec, FORK_OPTIONS);
  if (spec.placement === "pane") {
    throw new TypeError(`agent "${parent}": fork({ placement: "pane" }): awf runs every agent headless (a process per turn, followed in the live view); it has no terminal panes; write placement: "headless" or leave it out`);
  }
  if (spec.placement !== undefined && spec.placement !== "headless") {
    throw new TypeError(`agent "${parent}": fork({ placement }): placement must be "headless" (how awf runs every agent), not ${JSON.stringify(spec.placement)}`);
  }
  if (spec.metered !== undefined && typeof spec.metered !== "boolean") {
    throw new TypeError(`agent "${parent}": fork({ metered }): metered must be true or false, not ${JSON.stringify(spec.metered)}`);
  }
  const tools = toolSpecs(String(spec.key), spec.tools);
  const request = { run, agent: parent, key: spec.key ?? null, instructions: spec.instructions ?? null, tools: tools ?? null, labels: spec.labels ?? null };
  const forked = (await opAsync(ops.agent_fork(request))) as { key: string; launcher: string };
  if (spec.tools === undefined) copyHandlers(runId, parent, forked.key);
  else registerHandlers(runId, forked.key, spec.tools as Record<string, unknown>);
  return forked;
}

/**
 * Resolves with `{ outcome }`, as `agent.run` does, and with the outcome's own fields beside it:
 * agentswf's `compact` resolves with the outcome itself (`isAnswered(await a.compact(...))`).
 */
export async function compactOf<O extends object>(run: number, agent: string, spec: CompactSpec): Promise<O & { outcome: O }> {
  if (typeof spec !== "object" || spec === null) {
    throw new TypeError(`agent "${agent}": compact(spec) takes an object with a prompt: compact({ prompt: "what to keep" })`);
  }
  refuseUnknownOptions(`agent "${agent}": compact(spec)`, spec, COMPACT_OPTIONS);
  const request = { run, agent, prompt: spec.prompt ?? null, timeout: timeoutOption(`agent "${agent}": compact({ timeout })`, operationTimeout(`agent "${agent}": compact`, spec)) };
  const outcome = (await opAsync(ops.agent_compact(request))) as O;
  return { ...outcome, outcome };
}

export async function setOf<O extends object>(run: number, agent: string, spec: SetSpec): Promise<O & { outcome: O }> {
  if (typeof spec !== "object" || spec === null) {
    throw new TypeError(`agent "${agent}": set(spec) takes an object with a model or an effort: set({ effort: "high" })`);
  }
  const settings: Record<string, unknown> = { ...spec };
  // The bounds are read here; the settings themselves are checked by the host.
  for (const bound of BOUND_OPTIONS) delete settings[bound];
  const timeout = timeoutOption(`agent "${agent}": set({ timeout })`, operationTimeout(`agent "${agent}": set`, spec));
  const outcome = (await opAsync(ops.agent_set({ run, agent, settings, timeout }))) as O;
  return { ...outcome, outcome };
}
