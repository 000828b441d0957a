// Tool handlers: kept here by run and agent while their specs live in Rust (runtime/src/tools).
//
// When an agent calls a tool, the host asks for "tool.call"; the handler gets the checked input
// and `call` = { id, agent, signal }, and what it returns is the agent's answer (checked here to
// be JSON, so that a value that is not is placed at the handler; the host checks its size). The
// handler runs as its call (identity.ts), so that what it starts, even after an `await`, is known
// to be that call's. "tool.abort" aborts a call's signal when its time is up, its turn ends or the
// run is cancelled, with the reason the host gives: a `TimeoutError` when time ran out, else an
// `AbortError`, its message saying what stopped the call.
// Reopening an agent with tools replaces its handlers. `AbortController` is the global one
// (js/host/abort.ts, served lazily: importing it here would make a second copy).

import * as ops from "awf:ops";
import { AwfError, onRequest, UPCALLS } from "../core.ts";
import { isTool, type ToolCall, type ToolDefinition } from "../agentswf/workflow.ts";
import { withFrame } from "./identity.ts";
import { TOOL_TIMEOUT, timeoutOption } from "./timeout.ts";
import { CODES } from "../errors.ts";

type Handler = (input: unknown, call: ToolCall) => unknown;

const handlers = new Map<string, Handler>();
const running = new Map<string, AbortController>();

function handlerKey(run: string, agent: string, tool: string): string {
  return `${run}\u0000${agent}\u0000${tool}`;
}

/** Checks the tools of an agent spec in JS terms and returns what Rust checks the rest of. */
export function toolSpecs(agent: string, tools: unknown): Record<string, unknown> | undefined {
  if (tools === undefined) return undefined;
  if (typeof tools !== "object" || tools === null || Array.isArray(tools)) {
    throw new TypeError(`agent "${agent}": tools must be an object: { name: tool({ ... }) }`);
  }
  // No prototype: a tool named "__proto__" is a key like any other and reaches the name rule.
  const specs: Record<string, unknown> = Object.create(null);
  for (const [name, definition] of Object.entries(tools)) {
    if (!isTool(definition)) {
      throw new TypeError(`agent "${agent}": tool "${name}" must be made with tool({ description, input?, handler })`);
    }
    specs[name] = {
      description: definition.description,
      input: definition.input ? definition.input.schema : null,
      timeout: timeoutOption(`agent "${agent}": tool "${name}"`, definition.timeout, TOOL_TIMEOUT),
    };
  }
  return specs;
}

/** Keeps the handlers of an agent's tools; a reopen with tools replaces them. */
export function registerHandlers(run: string, agent: string, tools: Record<string, unknown> | undefined): void {
  if (tools === undefined) return;
  for (const [name, definition] of Object.entries(tools)) {
    handlers.set(handlerKey(run, agent, name), (definition as ToolDefinition<unknown>).handler as Handler);
  }
}

/** Gives a fork its parent's handlers (a fork without tools of its own has the parent's). */
export function copyHandlers(run: string, from: string, to: string): void {
  const prefix = handlerKey(run, from, "");
  for (const [key, handler] of [...handlers]) {
    if (key.startsWith(prefix)) handlers.set(handlerKey(run, to, key.slice(prefix.length)), handler);
  }
}

onRequest(UPCALLS.toolCall, async ({ run, agent, tool, call, input }: { run: string; agent: string; tool: string; call: string; input: unknown }) => {
  const handler = handlers.get(handlerKey(run, agent, tool));
  if (!handler) throw new Error(`the workflow has no handler for tool ${tool}`);
  const controller = new AbortController();
  running.set(call, controller);
  try {
    const identity = Object.freeze({ id: call, agent, tool });
    // The handler, and everything it starts, runs as this call (identity.ts), in no scope.
    const value = await withFrame({ call: identity, scope: undefined }, () =>
      handler(input, Object.freeze({ id: call, agent, signal: controller.signal })),
    );
    checkResult(tool, handler, value);
    return value;
  } finally {
    running.delete(call);
  }
});

/**
 * A value that is not JSON fails the call where the author can fix it: at the handler, with what
 * to return instead (the host would only know the value, not whose it is).
 */
function checkResult(tool: string, handler: Handler, value: unknown): void {
  try {
    ops.check_json(value);
  } catch (error) {
    const why = error as Error & { hint?: unknown };
    const fix = typeof why.hint === "string" ? `; fix the handler: ${why.hint}` : "";
    const failed = new AwfError(CODES.resultNotJson, `${tool} returned a value that is not JSON: ${why.message}${fix}`);
    const at = definedAt(handler);
    if (at) (failed as AwfError & { location: typeof at }).location = at;
    throw failed;
  }
}

/** Where a function is written, at its .ts position; unknown for a native or bound one. */
function definedAt(fn: Handler): { file: string; line: number; col: number } | undefined {
  const { fileName, lineNumber, columnNumber } = fn as unknown as Record<string, unknown>;
  if (typeof fileName !== "string" || !fileName.startsWith("/")) return undefined;
  if (typeof lineNumber !== "number" || typeof columnNumber !== "number") return undefined;
  const [line, col] = ops.source_position(fileName, lineNumber, columnNumber) ?? [lineNumber, columnNumber];
  return { file: fileName, line, col };
}

onRequest(UPCALLS.toolAbort, ({ call, reason }: { call: string; reason: { name: string; message: string } }) => {
  const controller = running.get(call);
  if (controller) {
    // Also forgotten here: a handler stopped inside code that never yielded skips its `finally`.
    running.delete(call);
    controller.abort(new DOMException(reason.message, reason.name));
  }
});
