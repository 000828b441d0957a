// Which tool call the running JS belongs to, even after an `await` in its handler: the async
// context (js/host/async_context.ts) carries a frame, `{ call?, scope? }`; tools.ts runs each
// handler with its call in the frame, and everything the handler starts and awaits keeps it.
//
// `refuseOwnAgent(agent, operation)` is the rule of the spec: a handler cannot give work to
// the agent that called it (that agent is in a turn, waiting for the handler), so run, close
// (and compact, set, fork) on it throw; another agent can be run. `refuseInHandler(name)`:
// waiting for an event (wf.race, wf.select, wf.receive) throws in a handler.

import { AwfError } from "../core.ts";
import { currentContext, withContext } from "../host/async_context.ts";
import type { Scope } from "./scope.ts";
import { CODES } from "../errors.ts";

/** The tool call a handler runs for. */
export interface CallIdentity {
  readonly id: string;
  readonly agent: string;
  readonly tool: string;
}

/** What the async context holds for workflow code. */
export interface Frame {
  readonly call?: CallIdentity;
  readonly scope?: Scope;
  /** The stage (`wf.stage`) the code runs in, the innermost when stages nest. */
  readonly stage?: string;
}

export function currentFrame(): Frame {
  return (currentContext() as Frame | undefined) ?? {};
}

/** Runs `fn` in the current frame with `changes` made. */
export function withFrame<T>(changes: Frame, fn: () => T): T {
  return withContext(Object.freeze({ ...currentFrame(), ...changes }), fn);
}

/** The tool call the running code belongs to: its handler, or work the handler started. */
export function currentCall(): { id: string; agent: string; tool: string } | undefined {
  return currentFrame().call;
}

/** Throws when the running code belongs to a tool call of `agent`. */
export function refuseOwnAgent(agent: string, operation: string): void {
  const call = currentCall();
  if (call === undefined || call.agent !== agent) return;
  throw new AwfError(
    CODES.agentInToolCall,
    `agent "${agent}" cannot ${operation} now: this code runs for its tool call ${call.id} (${call.tool}), and the agent is in a turn waiting for that handler, so the work would wait for itself; a tool handler cannot give work to the agent that called it (another agent can be run)`,
  );
}

/** Throws when the running code belongs to a tool call: `name` waits for an event. */
export function refuseInHandler(name: string): void {
  const call = currentCall();
  if (call === undefined) return;
  throw new AwfError(
    CODES.inToolHandler,
    `${name} cannot be used in a tool handler (this code runs for agent "${call.agent}"'s call ${call.id} of ${call.tool}): a handler answers the agent that waits for it, and must not wait for an event; do the waiting in the workflow's run(), and keep the handler short`,
  );
}
