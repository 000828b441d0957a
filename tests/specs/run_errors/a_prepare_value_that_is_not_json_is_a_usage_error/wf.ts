export default defineWorkflow({
  meta: { name: "prepjson", description: "prepare returns a Map." },
  prepare: () => new Map(),
  run: () => 1,
});
