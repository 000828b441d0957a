// What a workflow file is written with, less `Type` (js/agentswf/index.ts, the public
// `agentswf`, adds it): the runner and the built-ins import this module, and a workflow that
// never builds a schema never loads the TypeBox builder.
//
// `defineWorkflow` checks a workflow's shape where it is written, so a mistake points at the
// author's file; `typed` compiles a JSON Schema once (in Rust, jsonschema) and checks values
// with field-level error lines; `tool` defines a workflow tool (given to agents at open, see
// the tools page). The three are also globals in workflow and test files (js/bootstrap.ts), so
// the spec's files run as printed.

import * as ops from "awf:ops";
import { AwfError } from "../core.ts";
import { CODES } from "../errors.ts";
import { refuseUnknownOptions } from "../workflow/options.ts";

export const WORKFLOW_KIND = "awf.workflow/v1";
const NAME_RULE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export interface WorkflowMeta {
  /** Names the run folder: letters, digits, `.`, `_`, `-`; at most 128; no leading dot. */
  name: string;
  description: string;
  /** When to pick this workflow, for `awf list` and whoever chooses among workflows. */
  whenToUse?: string;
  /** Semver (`1.2.0`); a stage recorded under another major version (another minor under 0.x) is not reused by `--continue`. */
  version?: string;
}

export interface PrepareContext {
  /** The words after `--` on the `awf run` command line. */
  argv: string[];
  cwd: string;
}

export interface WorkflowSpec<Input, Result> {
  meta: WorkflowMeta;
  prepare?: (context: PrepareContext) => Input | Promise<Input>;
  /** The run's id, derived from its input (e.g. a ticket key); `awf run --id` overrides it. */
  id?: (input: Input) => string | Promise<string>;
  run: (wf: any, input: Input) => Result | Promise<Result>;
  /** What `awf run` prints for a completed attempt instead of the result's JSON (`--json` prints the record). */
  present?: (value: Result, ending: WorkflowEnding<Result>) => string | undefined | Promise<string | undefined>;
  /** Markdown written as `report.md` in the run folder on every ending; `undefined` writes none. */
  report?: (value: Result | undefined, ending: WorkflowEnding<Result>) => string | undefined | Promise<string | undefined>;
}

/** How an attempt ended, as `present` and `report` are given it. */
export interface WorkflowEnding<Result> {
  kind: "completed" | "failed" | "stopped" | "timed-out" | "cancelled";
  value?: Result;
  reason?: string;
  error?: { name: string; message: string; code?: string };
  stage?: string;
  stages: object[];
  runId: string;
  attempt: number;
  durationMs: number;
  records: string;
  usage?: object;
}

export interface Workflow<Input, Result> extends WorkflowSpec<Input, Result> {
  readonly kind: typeof WORKFLOW_KIND;
}

/** The keys `defineWorkflow` reads in its spec and in `meta` (a new one is added here). */
const SPEC_OPTIONS = ["meta", "prepare", "id", "run", "present", "report"] as const;
const META_OPTIONS = ["name", "description", "whenToUse", "version"] as const;
/** The keys `defineExecutableWorkflow` reads in its spec, and in its `definition`. */
const EXECUTABLE_OPTIONS = ["definition", "prepare", "id", "present", "report"] as const;
const DEFINITION_OPTIONS = ["meta", "run"] as const;
/** Semver 2.0.0: MAJOR.MINOR.PATCH, an optional pre-release and build. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const TOOL_OPTIONS = ["description", "input", "handler", "timeout"] as const;

function invalid(message: string): AwfError {
  return new AwfError(CODES.invalidWorkflow, message);
}

/** Declares a workflow; its value is the file's default export. */
export function defineWorkflow<Input = { argv: string[] }, Result = unknown>(
  spec: WorkflowSpec<Input, Result>,
): Workflow<Input, Result> {
  return checkedWorkflow("defineWorkflow(spec)", spec);
}

/** `spec` checked, each mistake named as `place` (the call the author wrote) says. */
function checkedWorkflow<Input, Result>(place: string, spec: WorkflowSpec<Input, Result>): Workflow<Input, Result> {
  if (typeof spec !== "object" || spec === null) {
    throw invalid(`${place}: spec must be an object with meta and run`);
  }
  refuseUnknownOptions(place, spec, SPEC_OPTIONS);
  const meta = spec.meta as Partial<WorkflowMeta> | undefined;
  if (typeof meta !== "object" || meta === null) {
    throw invalid(`${place}: spec.meta is missing; give it { name: "my-workflow", description: "..." }`);
  }
  refuseUnknownOptions(`${place}: meta`, meta, META_OPTIONS);
  if (typeof meta.name !== "string" || meta.name.trim() === "") {
    throw invalid(`${place}: meta.name is blank; it names the run folder, e.g. "dead-code"`);
  }
  if (!NAME_RULE.test(meta.name)) {
    throw invalid(
      `${place}: meta.name ${JSON.stringify(meta.name)} is not a valid name; use 1 to 128 letters, digits, '.', '_' or '-', not starting with '.'`,
    );
  }
  if (typeof meta.description !== "string" || meta.description.trim() === "") {
    throw invalid(`${place}: meta.description is blank; say in a sentence what the workflow does`);
  }
  if (meta.whenToUse !== undefined && (typeof meta.whenToUse !== "string" || meta.whenToUse.trim() === "")) {
    throw invalid(`${place}: meta.whenToUse must be a sentence saying when to pick this workflow, or left out`);
  }
  if (meta.version !== undefined && (typeof meta.version !== "string" || !SEMVER.test(meta.version))) {
    throw invalid(
      `${place}: meta.version ${JSON.stringify(meta.version)} is not a semver version; write it as "MAJOR.MINOR.PATCH", e.g. "1.2.0"`,
    );
  }
  if (typeof spec.run !== "function") {
    throw invalid(`${place}: spec.run must be a function: async run(wf, input) { ... }`);
  }
  if (spec.id !== undefined && typeof spec.id !== "function") {
    throw invalid(`${place}: spec.id must be a function (input) => run id, or left out`);
  }
  if (spec.prepare !== undefined && typeof spec.prepare !== "function") {
    throw invalid(`${place}: spec.prepare must be a function ({ argv, cwd }) => input, or left out`);
  }
  for (const hook of ["present", "report"] as const) {
    if (spec[hook] !== undefined && typeof spec[hook] !== "function") {
      throw invalid(`${place}: spec.${hook} must be a function (value, ending) => string | undefined, or left out`);
    }
  }
  return Object.freeze({ ...spec, meta: Object.freeze({ ...meta }) as WorkflowMeta, kind: WORKFLOW_KIND });
}

/** agentswf's spelling of a workflow file's export: `{ definition: { meta, run }, prepare, id?,
 * present?, report? }`, the same workflow as `defineWorkflow` makes (`definition` is kept, itself a
 * workflow, as `testWorkflow(executable.definition, input)` takes it). */
export function defineExecutableWorkflow<Input = { argv: string[] }, Result = unknown>(spec: {
  definition: { meta: WorkflowMeta; run: WorkflowSpec<Input, Result>["run"] };
  prepare?: WorkflowSpec<Input, Result>["prepare"];
  id?: WorkflowSpec<Input, Result>["id"];
  present?: WorkflowSpec<Input, Result>["present"];
  report?: WorkflowSpec<Input, Result>["report"];
}): Workflow<Input, Result> & { readonly definition: Workflow<Input, Result> } {
  const place = "defineExecutableWorkflow(spec)";
  if (typeof spec !== "object" || spec === null) {
    throw invalid(`${place}: spec must be an object with definition and prepare`);
  }
  refuseUnknownOptions(place, spec, EXECUTABLE_OPTIONS);
  const definition = spec.definition as { meta?: WorkflowMeta; run?: unknown } | undefined;
  if (typeof definition !== "object" || definition === null) {
    throw invalid(`${place}: spec.definition is missing; give it { meta: { name, description }, run(wf, input) { ... } }`);
  }
  refuseUnknownOptions(`${place}: definition`, definition, DEFINITION_OPTIONS);
  const { definition: _definition, ...hooks } = spec;
  const inner = checkedWorkflow(`${place}: definition`, definition as WorkflowSpec<Input, Result>);
  const outer = checkedWorkflow(place, { ...hooks, meta: inner.meta, run: inner.run });
  return Object.freeze({ ...outer, definition: inner });
}

/**
 * agentswf's `WorkflowDefinition`, a plain `{ meta, run }` (as its examples build one in a
 * function), made the workflow `defineWorkflow` would make of it; anything else is refused at
 * `place` saying what it must be.
 */
export function definitionAsWorkflow<Input, Result>(place: string, value: unknown): Workflow<Input, Result> {
  if (typeof value !== "object" || value === null || typeof (value as { run?: unknown }).run !== "function") {
    throw invalid(`${place}: a workflow is the default export of a workflow file (defineWorkflow({ ... })) or a definition { meta, run }; got ${describeValue(value)}`);
  }
  return checkedWorkflow(place, value as WorkflowSpec<Input, Result>);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  const keys = Object.keys(value);
  return keys.length === 0 ? "an empty object" : `an object with ${keys.slice(0, 5).join(", ")}`;
}

/** Whether a turn's outcome is an answer (agentswf's `isAnswered`): then it has its `value`. */
export function isAnswered<T = unknown>(outcome: unknown): outcome is { kind: "answered"; value: T } {
  return typeof outcome === "object" && outcome !== null && (outcome as { kind?: unknown }).kind === "answered";
}

export function isWorkflow(value: unknown): value is Workflow<unknown, unknown> {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === WORKFLOW_KIND;
}

const TYPED = Symbol.for("awf.typed");

/** A JSON Schema compiled once, with its static type. */
export interface Typed<T> {
  readonly schema: object;
  /** Field-level error lines such as `value.items[2].line: expected integer ≥ 1; got 0`; empty when `value` fits. */
  check(value: unknown): string[];
  is(value: unknown): value is T;
  /** `value` typed, or a TypeError listing what does not fit. */
  parse(value: unknown): T;
  readonly "~awf.static"?: T;
}

class TypedSchema<T> implements Typed<T> {
  readonly schema: object;
  readonly #handle: number;

  constructor(schema: object) {
    this.schema = Object.freeze(ops.check_json(schema) as object);
    this.#handle = ops.schema_compile(this.schema);
  }

  get [TYPED](): true {
    return true;
  }

  check(value: unknown): string[] {
    return ops.schema_check(this.#handle, value);
  }

  is(value: unknown): value is T {
    return this.check(value).length === 0;
  }

  parse(value: unknown): T {
    const errors = this.check(value);
    if (errors.length > 0) {
      throw new TypeError(`the value does not match the schema:\n  ${errors.join("\n  ")}`);
    }
    return value as T;
  }

  toJSON(): object {
    return this.schema;
  }
}

export function isTyped(value: unknown): value is Typed<unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[TYPED] === true;
}

/** Compiles a JSON Schema (a `Type.*` value or a plain object) once; refuses an invalid one. */
export function typed<T = unknown>(schema: object | Typed<T>): Typed<T> {
  if (isTyped(schema)) return schema as Typed<T>;
  if ((typeof schema !== "object" && typeof schema !== "boolean") || schema === null) {
    throw new TypeError(`typed(schema): schema must be a JSON Schema object, got ${schema === null ? "null" : typeof schema}`);
  }
  try {
    return new TypedSchema<T>(schema);
  } catch (error) {
    throw new TypeError(`typed(schema): ${(error as Error).message}`);
  }
}

const TOOL = Symbol.for("awf.tool");

/** What a tool's handler is given besides its input. */
export interface ToolCall {
  /** Unique in the run. */
  readonly id: string;
  /** The key of the agent that called. */
  readonly agent: string;
  /** Aborted when the call's time is up, its turn ends or the run is cancelled. */
  readonly signal: AbortSignal;
}

export interface ToolSpec<Input> {
  description: string;
  input?: Typed<Input>;
  handler: (input: Input, call: ToolCall) => unknown;
  /** `"30s"` by default; `"2m"`, a number of ms, or `false` for only the turn's deadline. */
  timeout?: string | number | false;
}

export interface ToolDefinition<Input> extends ToolSpec<Input> {
  readonly [TOOL]: true;
}

export function isTool(value: unknown): value is ToolDefinition<unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[TOOL] === true;
}

/** Defines a workflow tool; give it to an agent in `wf.agents.open({ tools: { name: tool(...) } })`. */
export function tool<Input = Record<string, never>>(spec: ToolSpec<Input>): ToolDefinition<Input> {
  if (typeof spec !== "object" || spec === null) {
    throw new TypeError("tool(spec): spec must be an object with description and handler");
  }
  refuseUnknownOptions("tool(spec)", spec, TOOL_OPTIONS);
  if (typeof spec.handler !== "function") {
    throw new TypeError("tool(spec): handler must be a function (input, call) => result");
  }
  const input = spec.input === undefined ? undefined : typed(spec.input as object);
  return Object.freeze({ ...spec, input, [TOOL]: true as const }) as ToolDefinition<Input>;
}

// The author globals (js/bootstrap.ts makes them load this module on first use): once this
// module is evaluated, by an import or by that first use, they are its own exports, so an
// import and a global are always the same function.
for (const [name, value] of Object.entries({ defineWorkflow, tool, typed })) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
