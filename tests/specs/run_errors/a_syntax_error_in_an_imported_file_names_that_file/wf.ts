import { helper } from "./helper";

export default defineWorkflow({
  meta: { name: "importer", description: "Imports a broken file." },
  run: () => helper(),
});
