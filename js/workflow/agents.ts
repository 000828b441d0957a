// wf.agents and the agents it opens: the JS face of runtime/src/agents.
//
// `open` resolves to the same Agent object for the same key and spec. `agent.run` resolves to
// `{ outcome }` however the turn ends, and rejects only for programming errors (a blank prompt,
// a bad schema or timeout, a closed agent); operations on one agent queue in call order on the
// Rust side. `id` makes a turn idempotent: the same id with the same spec gives the same promise.
// A turn started in a cancellation scope (wf.race, wf.parallel) is cancelled with it
// (scope.ts); `run` and `close` throw in code that runs for one of this agent's tool calls
// (identity.ts).

import * as ops from "awf:ops";
import { AwfError, opAsync } from "../core.ts";
import { isTyped, type Typed } from "../agentswf/workflow.ts";
import { registerHandlers, toolSpecs } from "./tools.ts";
import { sendTo, type MessageOutcome } from "./messages.ts";
import { refuseOwnAgent } from "./identity.ts";
import { cancellableTurn } from "./scope.ts";
import { BOUND_OPTIONS, operationTimeout, timeoutOption } from "./timeout.ts";
import { compactOf, forkOf, setOf, type CompactSpec, type ForkSpec, type SetSpec } from "./fork.ts";
import { CODES } from "../errors.ts";
import { noteUsage, stageNow, type TurnUsage } from "./usage.ts";
import { refuseUnknownOptions } from "./options.ts";

export type TurnOutcome<T> =
  | { kind: "answered"; answered: true; value: T }
  | {
      kind: "unanswered" | "blocked" | "timed-out" | "failed" | "cancelled";
      answered: false;
      /** Why, in words (the kind where nothing more is known). */
      reason: string;
      /** The older name of `reason`: the same text. */
      detail: string;
    };

/** How `agent.set` ended: the change made (with the settings now), or why not. */
export type SetOutcome = (TurnOutcome<null> & { model?: string | null; effort?: string | null }) & { usage?: TurnUsage };

export interface TurnSpec<T> {
  prompt: string;
  /** A `typed()` value or a JSON Schema; without one the answer is text. */
  schema?: Typed<T> | object;
  /** `"30s"`, `"20m"`, `"1h"`, `"1500ms"` or milliseconds; the run's deadline always bounds it. */
  timeout?: string | number;
  /** agentswf's spelling: milliseconds from the call; give `timeout` or `timeoutMs`, not both. */
  timeoutMs?: number;
  /** agentswf's spelling: the turn's end as Unix milliseconds (`number`, `Date` or `{ unixMilliseconds }`). */
  deadline?: number | Date | { unixMilliseconds: number };
  /** Idempotency key for this agent: the same id and spec give the same turn. */
  id?: string;
  /** The author's name for the turn: recorded, and shown by `awf logs` and the live view instead of its id. */
  label?: string;
  /** `false`: no check-in when the agent ends without an answer; `{ prompt?, timeout? }`: the check-in's first sentence, and a bound on it. Default: the agent's (`agents.open({ checkIn })`). */
  checkIn?: CheckInSpec;
}

/** A turn's check-in: off, or the author's sentence and time limit (runtime/src/agents/check_in.rs). */
export type CheckInSpec = false | { prompt?: string; timeout?: string | number };

/** The keys `agent.run(spec)` reads (a team adding one adds it here, where it is read). */
const TURN_OPTIONS = ["prompt", "schema", ...BOUND_OPTIONS, "id", "label", "checkIn"] as const;

/** agentswf's turn options awf does not take, and what to write instead. */
const TURN_INSTEAD = {
  nudge: "awf does not take agentswf's `nudge` (its check-ins): leave it out; a turn is checked in on when its agent settles without an answer",
} as const;

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

export interface AgentOpenSpec {
  key: string;
  runtime: string | { command: string[] };
  instructions?: string;
  cwd?: string;
  env?: Record<string, string>;
  tools?: Record<string, unknown>;
  /** The agent may send the workflow messages (`wfa send`), which `wf.receive` takes. */
  messages?: boolean;
  /** The check-in of each of its turns that gives none (`agent.run({ checkIn })`). */
  checkIn?: CheckInSpec;
  /** The author's labels (a JSON object): recorded, shown by `awf logs`, in `run.agentOf(key).labels`. */
  labels?: Record<string, unknown>;
}

export class Agent {
  readonly key: string;
  /** The absolute path of this agent's `wfa` launcher. */
  readonly launcher: string;
  readonly #run: number;
  readonly #runId: string;
  /** agentswf's `id`: an operation (turn, compaction, change of settings) by its id, and the spec it was asked with. */
  readonly #byId = new Map<string, { spec: string; result: Promise<unknown> }>();
  /** The check-in its turns get when they give none: `agents.open({ checkIn })`. */
  checkIn: CheckInSpec | undefined;

  constructor(run: number, key: string, launcher: string, runId: string) {
    this.#run = run;
    this.#runId = runId;
    this.key = key;
    this.launcher = launcher;
  }

  /** Its settings now, as agentswf's `execution`: `{ harness, model?, effort?, placement: "headless", alias?, metered? }`; `set` changes model and effort once it is done. */
  get execution(): Execution {
    return ops.agent_execution({ run: this.#run, agent: this.key }) as Execution;
  }

  /** Gives the agent a turn; resolves with its outcome, however it ends. */
  run<T = string>(spec: TurnSpec<T>): Promise<{ outcome: TurnOutcome<T> }> {
    if (typeof spec !== "object" || spec === null) {
      return Promise.reject(new TypeError(`agent "${this.key}": run(spec) takes an object with a prompt`));
    }
    const refused = refusedOwn(this.key, "run");
    if (refused) return refused;
    const schema = spec.schema === undefined ? null : isTyped(spec.schema) ? spec.schema.schema : spec.schema;
    let timeout: unknown;
    try {
      refuseUnknownOptions(`agent "${this.key}": run(spec)`, spec, TURN_OPTIONS, TURN_INSTEAD);
      timeout = timeoutOption(`agent "${this.key}": run({ timeout })`, operationTimeout(`agent "${this.key}": run`, spec));
    } catch (error) {
      return Promise.reject(error);
    }
    const checkIn = spec.checkIn !== undefined ? spec.checkIn : this.checkIn;
    const request = { run: this.#run, agent: this.key, prompt: spec.prompt, schema, timeout, label: spec.label ?? null, checkIn: checkIn ?? null };
    const asked = ["run", spec.prompt, schema, spec.timeout ?? spec.timeoutMs ?? null, spec.deadline ?? null, request.label, request.checkIn];
    return this.#once(spec.id, asked, () => this.#start(request)) as Promise<{ outcome: TurnOutcome<T> }>;
  }

  /**
   * agentswf's idempotency key: an operation asked again with the `id` of an earlier one, and the
   * same spec, is that operation (its promise); with another spec it is refused. No `id`: `start`.
   */
  #once(id: unknown, asked: unknown[], start: () => Promise<unknown>): Promise<unknown> {
    if (id === undefined) return start();
    if (typeof id !== "string" || id === "") {
      return Promise.reject(new TypeError(`agent "${this.key}": ${asked[0]}({ id }): id must be a non-empty string, not ${JSON.stringify(id)}`));
    }
    const spec = JSON.stringify(asked);
    const earlier = this.#byId.get(id);
    if (earlier) {
      if (earlier.spec !== spec) {
        return Promise.reject(new AwfError(CODES.turnIdReused, `agent "${this.key}": operation id "${id}" was used before with a different spec`));
      }
      return earlier.result;
    }
    const result = start();
    this.#byId.set(id, { spec, result });
    return result;
  }

  async #start(request: { run: number; agent: string; prompt: unknown; schema: unknown; timeout: unknown; label: unknown; checkIn: unknown }): Promise<{ outcome: TurnOutcome<unknown> }> {
    const stage = stageNow();
    const outcome = (await cancellableTurn(this.#run, this.key, (cancel) => ops.agent_run({ ...request, cancel }))) as TurnOutcome<unknown> & { usage?: TurnUsage };
    noteUsage(this.#run, this.key, stage, outcome.usage);
    return { outcome };
  }

  /** Wakes the agent with a message turn (queued behind its running turn); resolves when it ends. */
  send(message: string | { text?: string; data?: unknown }, options?: { timeout?: string | number }): Promise<{ outcome: MessageOutcome }> {
    const refused = refusedOwn(this.key, "be sent a message");
    if (refused) return refused;
    return sendTo(this.#run, this.key, message, options);
  }

  /** A new agent on a copy of this agent's session, after its queued operations (fork.ts). */
  async fork(spec: ForkSpec): Promise<Agent> {
    refuseOwnAgent(this.key, "fork");
    const forked = await forkOf(this.#run, this.#runId, this.key, spec);
    return new Agent(this.#run, forked.key, forked.launcher, this.#runId);
  }

  /** The harness's own compaction of the session, with `prompt` as its focus; queued like a turn. */
  compact(spec: CompactSpec): Promise<TurnOutcome<string> & { outcome: TurnOutcome<string> }> {
    const refused = refusedOwn(this.key, "compact");
    if (refused) return refused;
    const [id, asked] = withoutId(spec);
    return this.#once(id, ["compact", asked], () => compactOf<TurnOutcome<string>>(this.#run, this.key, asked)) as Promise<TurnOutcome<string> & { outcome: TurnOutcome<string> }>;
  }

  /** Another model or effort for the later turns of the same session; queued like a turn. */
  set(spec: SetSpec): Promise<SetOutcome & { outcome: SetOutcome }> {
    const refused = refusedOwn(this.key, "set");
    if (refused) return refused;
    const [id, asked] = withoutId(spec);
    return this.#once(id, ["set", asked], () => setOf<SetOutcome>(this.#run, this.key, asked)) as Promise<SetOutcome & { outcome: SetOutcome }>;
  }

  /** Ends the agent once its queued turns are done; later turns reject. */
  close(): Promise<void> {
    const refused = refusedOwn(this.key, "close");
    if (refused) return refused;
    return opAsync(ops.agent_close({ run: this.#run, agent: this.key }));
  }
}

/** `skills` as the host reads them: a `{ path }` given as a URL (agentswf's `new URL("./x", import.meta.url)`, anything with a string `href`) as its `file:` text. */
function skillsAsJson(skills: unknown): unknown {
  if (!Array.isArray(skills)) return skills;
  return skills.map((skill) => {
    const path = typeof skill === "object" && skill !== null ? (skill as { path?: unknown }).path : undefined;
    const href = typeof path === "object" && path !== null ? (path as { href?: unknown }).href : undefined;
    return typeof href === "string" ? { ...skill, path: href } : skill;
  });
}

/** A spec's agentswf `id` and the rest of it (what the operation itself reads); anything but an object as it is, for the operation to refuse. */
function withoutId<S>(spec: S): [unknown, S] {
  if (typeof spec !== "object" || spec === null || !("id" in spec)) return [undefined, spec];
  const { id, ...rest } = spec as S & { id?: unknown };
  return [id, rest as S];
}

/** The rejection of work given to `agent` by code of its own tool call (identity.ts), if so. */
function refusedOwn(agent: string, operation: string): Promise<never> | undefined {
  try {
    refuseOwnAgent(agent, operation);
    return undefined;
  } catch (error) {
    return Promise.reject(error);
  }
}

export interface AgentDirectory {
  open(spec: AgentOpenSpec): Promise<Agent>;
  /** Cancels the agent's running and queued turns (`cancelled`, with the reason), closes it and refuses reopening its key; `false` when it was never opened, failed to open or was stopped before. */
  stop(key: string, reason?: string): Promise<boolean>;
}

export function createAgents(run: number, runId: string): AgentDirectory {
  const open = new Map<string, Agent>();
  return Object.freeze({
    async open(spec: AgentOpenSpec): Promise<Agent> {
      if (typeof spec !== "object" || spec === null) {
        throw new TypeError("wf.agents.open(spec): spec must be an object with key and runtime");
      }
      const tools = toolSpecs(String(spec.key), spec.tools);
      // The check-in default is the JS Agent's (each run sends its own); the host never sees it.
      const { checkIn, ...hostSpec } = spec;
      if (checkIn !== undefined && checkIn !== false && (typeof checkIn !== "object" || checkIn === null)) {
        throw new TypeError(`wf.agents.open(spec): agent "${String(spec.key)}": checkIn must be false (no check-ins) or { prompt?, timeout? }`);
      }
      const opened = ops.agent_open(run, { ...hostSpec, skills: skillsAsJson(hostSpec.skills), tools }) as { key: string; launcher: string };
      registerHandlers(runId, opened.key, spec.tools as Record<string, unknown> | undefined);
      const agent = open.get(opened.key) ?? new Agent(run, opened.key, opened.launcher, runId);
      open.set(opened.key, agent);
      if (checkIn !== undefined) agent.checkIn = checkIn;
      return agent;
    },
    async stop(key: string, reason?: string): Promise<boolean> {
      if (typeof key !== "string") {
        throw new TypeError("wf.agents.stop(key, reason?): key must be the agent's key, a string");
      }
      if (reason !== undefined && typeof reason !== "string") {
        throw new TypeError(`wf.agents.stop("${key}", reason): reason must be a string, e.g. "the reviewer found enough"`);
      }
      return (await opAsync(ops.agent_stop({ run, key, reason: reason ?? null }))) as boolean;
    },
  });
}
