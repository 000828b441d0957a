import { defineWorkflow } from "agentswf/workflw";

export default defineWorkflow({
  meta: { name: "typo", description: "Imports a misspelt module." },
  run: () => 1,
});
