// The `wf` object a workflow's run() receives: the run's facts, its log and its agents.

import * as ops from "awf:ops";
import { createAgents, type AgentDirectory } from "./agents.ts";

export interface WorkflowContext {
  readonly runId: string;
  readonly workflow: string;
  readonly cwd: string;
  /** The run's deadline, in Unix milliseconds. */
  readonly deadline: number;
  /** A line on stderr and in the run's records; `fields` is a JSON object shown after it. */
  log(message: string, fields?: Record<string, unknown>): void;
  /** Opens agents and gives them turns. */
  readonly agents: AgentDirectory;
}

export function createContext(run: number): WorkflowContext {
  const info = ops.run_info(run) as { runId: string; workflow: string; cwd: string; deadline: number };
  return Object.freeze({
    runId: info.runId,
    workflow: info.workflow,
    cwd: info.cwd,
    deadline: info.deadline,
    log(message: string, fields?: Record<string, unknown>): void {
      ops.run_log(run, message, fields);
    },
    agents: createAgents(run, info.runId),
  });
}
