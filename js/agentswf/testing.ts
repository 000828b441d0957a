// agentswf/testing — run a workflow's `run` in a test with every agent scripted.
//
// `testWorkflow` opens a scripted run (runtime/src/js/ops/agentswf/scripted.rs): the workflow's code runs
// for real — turns queue, deadlines hold, tools are checked and called — but each turn is played
// by the test's script for that agent instead of a process (script_player.ts). What a test
// writes to script an agent is scripts.ts; what the run did, test_run.ts. This file opens the
// run, runs the workflow, watches for a stall and reports a script's failure at the test's call.

import * as ops from "awf:ops";
import { opAsync, startTimer, clearTimer, unrefTimer } from "../core.ts";
import { definitionAsWorkflow, isWorkflow, type Workflow } from "./workflow.ts";
import { closestKey } from "../workflow/options.ts";
import { createContext } from "../workflow/context.ts";
import { isStop, type StopState } from "../workflow/stages.ts";
import { closeMailbox } from "../workflow/messages.ts";
import { scriptAsks, unscriptAsks, type ScriptedAnswers } from "../workflow/ask.ts";
import { isEntry, type Compaction, type Entry } from "./scripts.ts";
import { messageOf, runs, ScriptFailure, unusedEntries, type ScriptedRun } from "./script_player.ts";
import { TestRun, type CallRecord, type CompactionRecord, type ForkRecord, type MessageRecord, type SetRecord, type StageRecord, type TurnRecord } from "./test_run.ts";

export { TestRun };
export type { CallRecord, CompactionRecord, ForkRecord, MessageRecord, SetRecord, StageRecord, TurnRecord };
export { answer, reply, wake } from "./scripts.ts";
export type { Compaction, Reply, Script, SendResult, ToolResult, Turn, Wake, WakeTurn } from "./scripts.ts";

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
  /**
   * Runtime aliases for this test, as the config files' `runtimes` define them (a test reads no
   * config file): name to `{ runtime, model?, effort? }`, or agentswf's spelling `{ harness,
   * model?, effort? }`. An agent opened with `runtime: "<name>"` or `{ alias: "<name>" }` gets
   * that CLI (scripted), model and effort.
   */
  runtimes?: Record<string, RuntimeAlias>;
  /**
   * `wf.ask`'s answers: a question's key (or its words) to the answer, or to a function of the
   * question (`{ key, question, choices?, context? }`) giving it. A question without one fails
   * the test, naming it.
   */
  answers?: ScriptedAnswers;
}

/** One runtime alias of `testWorkflow`'s `runtimes` option. */
export interface RuntimeAlias {
  runtime?: string;
  harness?: string;
  model?: string;
  effort?: string;
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
  // agentswf's WorkflowDefinition is a plain `{ meta, run }`: checked as defineWorkflow checks it.
  if (!isWorkflow(workflow)) workflow = definitionAsWorkflow("testWorkflow(workflow)", workflow);
  const hasInput = rest.length >= 2 || isInputAlone(rest[0]);
  const options = ((hasInput ? rest[1] : rest[0]) ?? {}) as TestOptions;
  checkOptions(options, hasInput);
  if (options.answers !== undefined && (typeof options.answers !== "object" || options.answers === null || Array.isArray(options.answers))) {
    throw new TypeError('testWorkflow: answers must be an object of question key (or words) to answer, e.g. { ship: "yes" }');
  }
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
    runtimes: runtimeAliases(options.runtimes),
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
  scriptAsks(opened.runId, options.answers ?? {}, (e) => failTest(e));
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
        if (stops.stopped) throw new Error(`wf.stop(${JSON.stringify(stops.stopped.reason)}) was called, but the workflow caught it and threw ${messageOf(error)}`);
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
    unscriptAsks(opened.runId);
  }
  if (failure) throw placedAt(failure.error, callSite);
  const unused = unusedEntries(state);
  if (unused && result.failed) {
    // The workflow's own error explains why the scripts went unused: it comes first.
    const thrown = messageOf(result.error);
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

/**
 * `runtimes` as the host takes it: name to `{ runtime, model?, effort? }` (agentswf's `harness`
 * read as `runtime`). The host checks each as a config file's alias is checked.
 */
function runtimeAliases(runtimes: unknown): Record<string, Record<string, unknown>> | null {
  if (runtimes === undefined) return null;
  if (typeof runtimes !== "object" || runtimes === null || Array.isArray(runtimes)) {
    throw new TypeError('testWorkflow: runtimes must be an object of alias name to { runtime, model?, effort? }, e.g. { fast: { runtime: "claude", model: "haiku" } }');
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, alias] of Object.entries(runtimes)) {
    if (typeof alias !== "object" || alias === null || Array.isArray(alias)) {
      throw new TypeError(`testWorkflow: runtimes.${name} must be { runtime, model?, effort? }, e.g. { runtime: "claude", model: "haiku" }`);
    }
    const { harness, ...rest } = alias as Record<string, unknown>;
    if (harness !== undefined && rest.runtime !== undefined) {
      throw new TypeError(`testWorkflow: runtimes.${name} gives both runtime and harness; give one (the agent CLI it names)`);
    }
    out[name] = harness === undefined ? rest : { runtime: harness, ...rest };
  }
  return out;
}

const OPTION_NAMES = ["agents", "timeout", "cwd", "stall", "recorded", "fromStage", "compactions", "runtimes", "answers"];

/**
 * Whether `testWorkflow(workflow, x)` gives `x` as the input (agentswf's form, whose second
 * argument is always the input) rather than the options: `x` is not an object, or some key of
 * it is neither an option's name nor a near miss of one (so a misspelt option is still refused
 * as one).
 */
function isInputAlone(given: unknown): boolean {
  if (given === undefined) return false;
  if (typeof given !== "object" || given === null || Array.isArray(given)) return true;
  return Object.keys(given).some((key) => !OPTION_NAMES.includes(key) && closestKey(key, OPTION_NAMES) === undefined);
}

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

