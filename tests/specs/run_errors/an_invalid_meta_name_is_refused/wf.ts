export default defineWorkflow({
  meta: { name: "../escape", description: "A name with a slash." },
  run: () => 1,
});
