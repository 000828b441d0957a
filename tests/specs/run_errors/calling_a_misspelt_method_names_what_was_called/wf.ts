// QuickJS says only "not a function": awf names the member path the author wrote.
export default defineWorkflow({
  meta: { name: "typo", description: "Calls a method that does not exist." },
  async run(wf) {
    const agents = wf.agents;
    await agents.opne({ key: "a", runtime: "codex" });
  },
});
