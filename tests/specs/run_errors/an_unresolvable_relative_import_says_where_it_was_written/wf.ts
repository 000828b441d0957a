import { defineWorkflow } from "agentswf";
import type { Finding } from "./types";
import { helper } from "./helpers/missing";

export default defineWorkflow({
  meta: { name: "imports", description: "Imports a missing file." },
  run: () => helper(),
});
