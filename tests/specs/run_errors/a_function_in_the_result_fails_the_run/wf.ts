export default defineWorkflow({
  meta: { name: "function", description: "Returns a function." },
  run: () => ({ ok: true, later: () => 1 }),
});
