import { defineWorkflow } from "agentswf";
import { countFindings, formatReport } from "./report";

export default defineWorkflow({
  meta: { name: "report", description: "Imports a name its file does not export." },
  run: () => formatReport(countFindings([])),
});
