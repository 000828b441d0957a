export const workflow = defineWorkflow({
  meta: { name: "named", description: "Exported by name." },
  run: () => 1,
});
