// wf.stage and wf.stop: the JS face of runtime/src/workflow/stages.rs.
//
// `stage(name, work)` or `stage(name, { result, summary? }, work)`: on a continue, a stage an
// earlier attempt finished is reused while its recorded value still fits `result` (its work is
// not called); otherwise `work` runs, and its value (JSON, checked against `result`) is
// recorded. `stop(reason)` throws a private signal that ends the attempt `stopped`: inside a
// stage the stage is recorded `stopped`; a workflow that catches it and goes on fails.

import * as ops from "awf:ops";
import { AwfError } from "../core.ts";
import { typed, isTyped, type Typed } from "../agentswf/workflow.ts";
import { CODES } from "../errors.ts";
import { withFrame } from "./identity.ts";
import { refuseUnknownOptions } from "./options.ts";

/** The keys a stage's options read (a new option is added here). */
const STAGE_OPTIONS = ["result", "summary"] as const;

export interface StageOptions<T> {
  /** The stage's value: JSON, checked against this when recorded and when reused. */
  result: Typed<T> | object;
  /** A line that says what the value was, kept in the stage's record. */
  summary?: (value: T) => string;
}

const STOP = Symbol.for("awf.stop");

/** What `wf.stop(reason)` throws; the runner turns it into the attempt's `stopped` ending. */
export class StopSignal extends Error {
  readonly [STOP] = true;
  readonly reason: string;
  constructor(reason: string) {
    super(`the workflow stopped: ${reason}`);
    this.name = "StopSignal";
    this.reason = reason;
  }
}

export function isStop(error: unknown): error is StopSignal {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[STOP] === true;
}

/** What a run's stages share with the runner: whether `stop` was called, and with what; a
 * test also keeps each stage's value (`values`). */
export interface StopState {
  stopped?: StopSignal;
  values?: Map<string, unknown>;
}

function messageOf(error: unknown): string {
  if (isStop(error)) return error.reason;
  if (error instanceof Error) return error.name === "Error" || error.name === "AwfError" ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}

export function createStages(run: number, stops: StopState) {
  function stop(reason: string): never {
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new TypeError("wf.stop(reason): reason must be a sentence saying why the workflow stops");
    }
    const signal = new StopSignal(reason);
    stops.stopped ??= signal;
    throw signal;
  }

  async function stage(name: string, ...rest: unknown[]): Promise<unknown> {
    let options: StageOptions<unknown> | undefined;
    let work: unknown;
    if (rest.length === 1) {
      work = rest[0];
    } else if (rest.length === 2) {
      options = rest[0] as StageOptions<unknown>;
      work = rest[1];
      if (typeof options === "object" && options !== null) refuseUnknownOptions(`wf.stage("${String(name)}", options, work)`, options, STAGE_OPTIONS);
      if (typeof options !== "object" || options === null || options.result === undefined) {
        throw new TypeError(`wf.stage("${String(name)}", options, work): options must be { result: typed(...), summary? }`);
      }
      if (options.summary !== undefined && typeof options.summary !== "function") {
        throw new TypeError(`wf.stage("${String(name)}", options, work): summary must be a function (value) => string`);
      }
    } else {
      throw new TypeError(`wf.stage(name, work) or wf.stage(name, { result }, work): got ${rest.length + 1} arguments`);
    }
    if (typeof work !== "function") {
      throw new TypeError(`wf.stage("${String(name)}", ...): work must be a function, e.g. async () => { ... }`);
    }
    // Where the stage is written: a value its work returns that cannot be recorded is reported
    // there (the work's own throws keep their stacks).
    const site = new Error("wf.stage");
    const result: Typed<unknown> | undefined = options ? (isTyped(options.result) ? options.result : typed(options.result as object)) : undefined;
    const entered = ops.stage_enter({ run, name });
    if (entered.reuse) {
      const problems = reuseProblems(result, entered);
      if (ops.stage_decide({ run, name, problems })) {
        const value = result ? entered.value : undefined;
        stops.values?.set(name, value);
        return value;
      }
    }
    return runStage(name, result, options?.summary, work as () => unknown, site);
  }

  function reuseProblems(result: Typed<unknown> | undefined, entered: { hasValue: boolean; value?: unknown }): string[] {
    if (!result) return [];
    if (!entered.hasValue) return ["the recorded stage has no value, and the stage now has a result schema"];
    return result.check(entered.value);
  }

  async function runStage(name: string, result: Typed<unknown> | undefined, summary: ((value: unknown) => string) | undefined, work: () => unknown, site: Error): Promise<unknown> {
    let value: unknown;
    try {
      value = await withFrame({ stage: name }, work);
    } catch (error) {
      const outcome = isStop(error) ? "stopped" : "failed";
      ops.stage_end({ run, name, outcome, reason: messageOf(error) });
      throw error;
    }
    try {
      value = placed(() => settle(name, result, value), site);
      const line = result && summary ? String(summary(value)) : undefined;
      ops.stage_end({ run, name, outcome: "succeeded", value, summary: line });
      stops.values?.set(name, value);
    } catch (error) {
      ops.stage_end({ run, name, outcome: "failed", reason: messageOf(error) });
      throw error;
    }
    return value;
  }

  return { stage, stop };
}

/** Runs `check`; an AwfError it throws gets the frames of the stage's call. */
function placed<T>(check: () => T, site: Error): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof AwfError && typeof site.stack === "string") {
      error.stack = `${error.name}: ${error.message}${site.stack.slice(site.stack.indexOf("\n"))}`;
    }
    throw error;
  }
}

/** The value a stage records: JSON (a round trip), fitting its schema; none without one. */
function settle(name: string, result: Typed<unknown> | undefined, value: unknown): unknown {
  if (!result) {
    if (value !== undefined) {
      throw new AwfError(
        CODES.stageResult,
        `stage "${name}" returned a value but has no result schema, so the value would be lost on a continue; give it wf.stage("${name}", { result: typed(...) }, work), or return nothing`,
      );
    }
    return undefined;
  }
  if (value === undefined) {
    throw new AwfError(CODES.stageResult, `stage "${name}" has a result schema but its work returned nothing`);
  }
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(ops.check_json(value)));
  } catch (error) {
    throw new AwfError(CODES.stageResult, `stage "${name}" returned a value that is not JSON: ${(error as Error).message}`);
  }
  const problems = result.check(json);
  if (problems.length > 0) {
    throw new AwfError(CODES.stageResult, `stage "${name}" returned a value that does not match its result schema:\n  ${problems.join("\n  ")}`);
  }
  return json;
}
