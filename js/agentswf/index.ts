// agentswf (alias agentswf/workflow), the module authors import: `defineWorkflow`, `tool` and
// `typed` (js/agentswf/workflow.ts) and `Type`, the TypeBox-compatible builder (js/typebox.ts).
// The four are also globals in workflow and test files (js/bootstrap.ts), each the same value
// as its export here.

// Named one by one: workflow.ts also holds helpers for awf's own modules (definitionAsWorkflow).
export { WORKFLOW_KIND, defineExecutableWorkflow, defineWorkflow, isAnswered, isTool, isTyped, isWorkflow, tool, typed } from "./workflow.ts";
export { Type } from "../typebox.ts";
