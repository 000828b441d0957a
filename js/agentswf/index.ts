// agentswf (alias agentswf/workflow), the module authors import: `defineWorkflow`, `tool` and
// `typed` (js/agentswf/workflow.ts) and `Type`, the TypeBox-compatible builder (js/typebox.ts).
// The four are also globals in workflow and test files (js/bootstrap.ts), each the same value
// as its export here.

export * from "./workflow.ts";
export { Type } from "../typebox.ts";
