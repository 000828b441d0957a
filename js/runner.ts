// awf:runner — the JS half of `awf run`: import the workflow file, check its default export,
// call prepare (and id) for a new run, then, once the host has opened the run's records, run.
//
// runtime/src/run/mod.rs drives it: `loadWorkflow` first, for meta.name; `prepareInput`
// for a new run (a continued one reuses its first attempt's input); then `runWorkflow` with the
// handle of the attempt it opened. Errors thrown here keep their stack, so the host prints the
// author's .ts lines; a failure of prepare or id has the code `prepare-failed`, which the host
// reports as a usage error rather than a failed run. `wf.stop(reason)` ends `runWorkflow` with
// the code `stopped`.

import * as ops from "awf:ops";
import { AwfError, lazyBuiltin } from "./core.ts";
import { isWorkflow, type Workflow } from "./agentswf/workflow.ts";
import { createContext } from "./workflow/context.ts";
import type * as Stages from "./workflow/stages.ts";
import type { StopState } from "./workflow/stages.ts";
import { CODES } from "./errors.ts";

let loaded: Workflow<unknown, unknown> | undefined;

/** stages.ts, which a run loads when it first uses a stage or stop: asked whether an error is
 * what `wf.stop` throws only once it was called. */
const stagesModule = lazyBuiltin<typeof Stages>("awf:workflow/stages");

/** `file` is absolute; `shown` is how to name it to the user (relative to the cwd). */
export async function loadWorkflow({ file, shown }: { file: string; shown: string }): Promise<WorkflowFacts> {
  const module = await import(file);
  if (!("default" in module)) {
    throw located(
      new AwfError(CODES.invalidWorkflow, `${shown} has no default export`),
      "end the file with: export default defineWorkflow({ meta: { name, description }, run })",
    );
  }
  if (!isWorkflow(module.default)) {
    throw located(
      new AwfError(CODES.invalidWorkflow, `the default export of ${shown} is not a workflow (it is ${describe(module.default)})`),
      "export the value of defineWorkflow({ meta: { name, description }, run }) as default",
    );
  }
  loaded = module.default;
  const { name, description, whenToUse, version } = loaded.meta;
  return { name, description, whenToUse, version, present: loaded.present !== undefined, report: loaded.report !== undefined };
}

/**
 * `awf list` (runtime/src/run/list.rs): the file's workflow facts, or `null` when its default
 * export is not a workflow (a helper module); a file that fails to load throws.
 */
export async function inspectWorkflow({ file }: { file: string }): Promise<WorkflowFacts | null> {
  const module = await import(file);
  if (!("default" in module) || !isWorkflow(module.default)) return null;
  const { name, description, whenToUse, version } = module.default.meta;
  return { name, description, whenToUse, version, present: module.default.present !== undefined, report: module.default.report !== undefined };
}

/** What the host learns of a loaded workflow (and `awf list` prints). */
interface WorkflowFacts {
  name: string;
  description: string;
  whenToUse?: string;
  version?: string;
  /** Whether it has `present` and `report`. */
  present: boolean;
  report: boolean;
}

/**
 * The attempt has ended (runtime/src/run/closing.rs): the text `present(value, ending)` or
 * `report(value, ending)` gives (`undefined`: none). A throw, or a value that is not a string,
 * is an `ending-hook-failed` error with the author's frames, which the host reports beside the
 * run's ending without changing it.
 */
export async function endingHook({ hook, ending }: { hook: "present" | "report"; ending: { value?: unknown } }): Promise<string | undefined> {
  const workflow = loaded;
  if (!workflow) throw new AwfError(CODES.internal, "endingHook before loadWorkflow");
  const fn = workflow[hook];
  if (fn === undefined) return undefined;
  let text: unknown;
  try {
    text = await fn(ending.value as never, Object.freeze(ending) as never);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const failed = new AwfError(CODES.endingHookFailed, `${hook}(value, ending) threw: ${message}`, { cause: error });
    if (error instanceof Error && typeof error.stack === "string") failed.stack = error.stack;
    throw located(failed, hook === "present" ? "present gives the text awf run prints for a completed attempt; the run's result is printed as JSON instead" : "report gives report.md's Markdown on every ending; check what it reads of ending (ending.value is undefined unless ending.kind is \"completed\")");
  }
  if (text === undefined || typeof text === "string") return text;
  throw located(
    new AwfError(CODES.endingHookFailed, `${hook}(value, ending) returned ${text === null ? "null" : typeof text}, not a string`),
    `return the ${hook === "present" ? "text to print" : "report's Markdown"} as a string, or undefined for none`,
  );
}

/** A new run's input, and the run id the workflow's `id(input)` derives from it. */
export async function prepareInput({ argv, cwd }: { argv: string[]; cwd: string }): Promise<{ input: unknown; id?: string }> {
  const workflow = loaded;
  if (!workflow) throw new AwfError(CODES.internal, "prepareInput before loadWorkflow");
  let input: unknown;
  try {
    input = workflow.prepare ? await workflow.prepare({ argv, cwd }) : { argv };
  } catch (error) {
    throw prepareFailed(error);
  }
  try {
    ops.check_json(input);
  } catch (error) {
    throw new AwfError(CODES.prepareFailed, `prepare() returned an input that is not JSON: ${(error as Error).message}`);
  }
  if (!workflow.id) return { input };
  let id: unknown;
  try {
    id = await workflow.id(input);
  } catch (error) {
    const failed = new AwfError(CODES.prepareFailed, `id(input) threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    if (error instanceof Error && typeof error.stack === "string") failed.stack = error.stack;
    throw located(failed, "id(input) derives the run's id from its input, e.g. a ticket key; `awf run --id ID` names the run instead");
  }
  if (typeof id !== "string") {
    throw located(new AwfError(CODES.prepareFailed, `id(input) returned ${id === null ? "null" : typeof id}, not a string`), "return the run's id as a string, e.g. input.ticket");
  }
  return { input, id };
}

export async function runWorkflow({ run, input }: { run: number; input: unknown }): Promise<unknown> {
  const workflow = loaded;
  if (!workflow) throw new AwfError(CODES.internal, "runWorkflow before loadWorkflow");
  const stops: StopState = {};
  let value: unknown;
  try {
    value = await workflow.run(createContext(run, stops), input);
  } catch (error) {
    if (stops.stopped && stagesModule().isStop(error)) throw new AwfError(CODES.stopped, error.reason);
    if (stops.stopped) throw stopCaught(stops.stopped.reason, error);
    throw error;
  }
  if (stops.stopped) throw stopCaught(stops.stopped.reason, undefined);
  try {
    return ops.check_json(value);
  } catch (error) {
    throw new AwfError(
      CODES.resultNotJson,
      `run() returned a result that is not JSON: ${(error as Error).message}`,
    );
  }
}

/** wf.stop was called, but the workflow caught its signal and went on. */
function stopCaught(reason: string, error: unknown): AwfError {
  const after = error === undefined ? "returned" : `threw ${error instanceof Error ? error.message : String(error)}`;
  return located(
    new AwfError(CODES.stopCaught, `wf.stop(${JSON.stringify(reason)}) was called, but the workflow caught it and ${after}`),
    "let wf.stop's throw pass: a catch around it should rethrow what it does not handle",
  );
}

/**
 * A throw in prepare refuses the command line: a usage error (exit 2), not a failed run. The
 * author's message and frames are kept.
 */
function prepareFailed(error: unknown): AwfError {
  const message = error instanceof Error ? error.message : String(error);
  const failed = new AwfError(CODES.prepareFailed, `prepare() refused the input: ${message}`, { cause: error });
  if (error instanceof Error && typeof error.stack === "string") failed.stack = error.stack;
  return located(failed, "prepare({ argv, cwd }) gets the words after `--`: awf run <file> -- <words>");
}

function located(error: AwfError, hint: string): AwfError {
  (error as AwfError & { hint: string }).hint = hint;
  return error;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") return "an object without the mark of defineWorkflow";
  return `a ${typeof value}`;
}
