export default defineWorkflow({
  meta: { name: "open-spans", description: "An open whose spec spans lines." },
  async run(wf) {
    const agent = await wf.agents.open({
      key: "a",
      runtime: "gpt",
      tools: {
        add: tool({
          description: "Add.",
          input: typed(Type.Object({ x: Type.Integer() })),
          handler: ({ x }) => x,
        }),
      },
    });
    return agent.key;
  },
});
