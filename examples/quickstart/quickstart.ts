// Quickstart: two agents that are small shell scripts (no model needed), a typed turn, a text
// turn, and two turns at once.
//   awf run examples/quickstart/quickstart.ts -- "a release note for v2"

const Plan = typed(
  Type.Object({
    title: Type.String({ minLength: 1 }),
    sections: Type.Integer({ minimum: 1, maximum: 5 }),
  }),
);

export default defineWorkflow({
  meta: {
    name: "quickstart",
    description: "A planner plans a document, a writer drafts it, both reviewed at once.",
  },
  prepare: ({ argv }) => ({ topic: argv.join(" ") || "a short note" }),
  async run(wf, input: { topic: string }) {
    const here = import.meta.dirname ?? ".";
    const planner = await wf.agents.open({
      key: "planner",
      runtime: { command: [`${here}/agents/planner.sh`] },
      instructions: "You plan documents.",
    });
    const writer = await wf.agents.open({
      key: "writer",
      runtime: { command: [`${here}/agents/writer.sh`] },
    });

    const planned = await planner.run({ prompt: `Plan ${input.topic}.`, schema: Plan, timeout: "1m" });
    if (!planned.outcome.answered) {
      return { topic: input.topic, failed: planned.outcome.kind, reason: planned.outcome.reason };
    }
    const plan = planned.outcome.value;
    wf.log("planned", { title: plan.title, sections: plan.sections });

    const drafted = await writer.run({
      prompt: `Write "${plan.title}" in ${plan.sections} sections.`,
      timeout: "1m",
    });

    // Two turns at once: different agents run in parallel.
    const [plannerView, writerView] = await Promise.all([
      planner.run({ prompt: "In one line, is the plan sound?" }),
      writer.run({ prompt: "In one line, what would you cut?" }),
    ]);

    return {
      topic: input.topic,
      plan,
      draft: drafted.outcome.answered ? drafted.outcome.value : null,
      reviews: [plannerView.outcome, writerView.outcome].map((o) => (o.answered ? o.value : o.reason)),
    };
  },
});
