export default defineWorkflow({
  meta: { name: " ", description: "Blank name." },
  run: () => 1,
});
