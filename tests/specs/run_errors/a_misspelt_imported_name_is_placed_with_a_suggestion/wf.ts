import { defineWorkflw } from "agentswf";

export default defineWorkflw({
  meta: { name: "typo", description: "Imports a misspelt name." },
  run: () => 1,
});
