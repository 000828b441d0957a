export default defineWorkflow({
  meta: { name: "tool-spans", description: "A tool whose spec spans lines." },
  async run() {
    const add = tool({
      description: "Add.",
      input: typed(Type.Object({ x: Type.Integer() })),
      handler: "not a function" as never,
    });
    return String(add);
  },
});
