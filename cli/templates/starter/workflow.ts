// A starter workflow: one agent takes notes through a workflow tool, then answers a typed turn.
// The agent is a shell script (agents/helper.sh), so this runs with no model; give it a real
// agent CLI when you are ready (`awf doctor` lists them): runtime: "codex".
//   awf run workflow.ts -- "a topic"        awf test        awf logs

const Summary = typed(
  Type.Object({
    title: Type.String({ minLength: 1 }),
    notes: Type.Integer({ minimum: 0 }),
  }),
);

export default defineWorkflow({
  meta: {
    name: "{{name}}",
    description: "An agent takes notes through a tool, then sums them up.",
  },
  prepare: ({ argv }) => ({ topic: argv.join(" ") || "awf" }),
  async run(wf, input: { topic: string }) {
    const notes: string[] = [];
    const helper = await wf.agents.open({
      key: "helper",
      runtime: { command: [`${import.meta.dirname}/agents/helper.sh`] },
      tools: {
        add_note: tool({
          description: "Record one note about the topic, as soon as you have it.",
          input: typed(Type.Object({ text: Type.String({ minLength: 1 }) })),
          handler: ({ text }) => {
            notes.push(text);
            return `Noted; ${notes.length} so far.`;
          },
        }),
      },
    });
    const { outcome } = await helper.run({
      prompt: `Take two notes about ${input.topic} with add_note, then sum them up.`,
      schema: Summary,
      timeout: "1m",
    });
    wf.log("helper finished", { outcome: outcome.kind });
    return { topic: input.topic, notes, summary: outcome.answered ? outcome.value : outcome.reason };
  },
});
