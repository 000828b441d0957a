// awf:errors — the codes of the `AwfError`s awf's own JS throws, one table. A program tests an
// error's `code`, so each is spelled here and nowhere else in js/; the codes the host's ops
// throw are runtime/src/js/engine/op_code.rs. docs/workflow-api.md names four of these as an
// error's code: `agent-in-tool-call`, `in-tool-handler`, `receive-timeout`, `result-not-json`.

export const CODES = {
  /** A wait (wf.receive) ended because its scope was cancelled. */
  cancelled: "cancelled",
  /** awf itself went wrong. */
  internal: "internal",
  /** The file's default export is not a workflow, or a workflow's definition is wrong. */
  invalidWorkflow: "invalid-workflow",
  /** present(value, ending) or report(value, ending) threw or gave what is not a string. */
  endingHookFailed: "ending-hook-failed",
  /** prepare() or id(input) failed or gave what awf cannot use. */
  prepareFailed: "prepare-failed",
  /** wf.receive waited its timeout out. */
  receiveTimeout: "receive-timeout",
  /** A value that must be JSON (a tool's result, run()'s result) is not. */
  resultNotJson: "result-not-json",
  /** A stage's value does not fit its result schema (or there is none for it). */
  stageResult: "stage-result",
  /** A workflow caught wf.stop's signal and went on. */
  stopCaught: "stop-caught",
  /** The attempt ended by wf.stop. */
  stopped: "stopped",
  /** An options object has a key awf does not read (js/workflow/options.ts). */
  unknownOption: "unknown-option",
  /** A turn id reused with another spec. */
  turnIdReused: "turn-id-reused",
  /** A tool handler gave work to the agent waiting for it. */
  agentInToolCall: "agent-in-tool-call",
  /** A wait (wf.race, wf.select, wf.receive) in a tool handler. */
  inToolHandler: "in-tool-handler",
} as const;

export type AwfErrorCode = (typeof CODES)[keyof typeof CODES];
