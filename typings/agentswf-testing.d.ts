// typings/agentswf-testing.d.ts — editor typings for `agentswf/testing`, what a workflow's test
// file imports to run it with every agent scripted (`awf test`). Declared from the spec page
// ("Testing a tool") ahead of its implementation, which is being built on another branch; it
// owns this file from then on.

declare module "agentswf/testing" {
  import type { JsonValue, Workflow } from "agentswf";

  /** What a scripted turn's `turn.tool(name, input)` gives back: as a real call would end. */
  export type ToolCallResult =
    | { kind: "result"; output: JsonValue | undefined }
    | { kind: "refused"; code: string; error: string }
    | { kind: "failed"; outcome: "failed" | "timed-out"; error: string };

  /** The turn a script answers. */
  export interface ScriptedTurn {
    /** The key of the agent the turn was given to. */
    readonly agent: string;
    /** 1 for the agent's first turn, then 2, ... */
    readonly n: number;
    /** The prompt as the workflow wrote it. */
    readonly prompt: string;
    /** The turn's answer schema; absent for a text turn. */
    readonly schema?: object;
    /** Aborted when the turn ends without the script. */
    readonly signal: AbortSignal;
    /** Calls one of the agent's tools, through the same checks and handler a real call goes through. */
    tool(name: string, input?: { [key: string]: JsonValue }): Promise<ToolCallResult>;
  }

  /** How one turn is scripted: made by `answer(...)` or `reply.*`. */
  export interface Script {
    readonly "~awf.script": true;
  }

  /** Answers the turn with a value (checked against its schema, as a real answer is). */
  export function answer(value: JsonValue | ((turn: ScriptedTurn) => unknown)): Script;

  /** Turns that end without an answer. */
  export const reply: {
    /** The agent ends its turn without answering. */
    silent(): Script;
    blocked(reason?: string): Script;
    failed(reason?: string): Script;
    timedOut(reason?: string): Script;
    /** Holds the turn until the workflow gives up on it (its deadline, a cancel). */
    hang(): Script;
  };

  export interface TestOptions<Input> {
    /** A script per agent key: one for every turn, or a list with one per turn. */
    agents?: { [key: string]: Script | Script[] };
    /** `run`'s input; `{ argv: [] }` by default (prepare is not called). */
    input?: Input;
    /** The run's deadline, `"30s"`. */
    timeout?: string | number;
  }

  export interface TestRun<Result> {
    /** The workflow's result; throws the workflow's error if it failed. */
    readonly value: Result;
    /** The `wf.log` lines of the run. */
    readonly logs: { message: string; fields?: { [key: string]: JsonValue } }[];
  }

  /** Runs a workflow with scripted agents and resolves with how it went. */
  export function testWorkflow<Input, Result>(
    workflow: Workflow<Input, Result>,
    options?: TestOptions<Input>,
  ): Promise<TestRun<Awaited<Result>>>;
}
