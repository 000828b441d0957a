// bench/wfa: one agent makes N calls of an echo tool; its script times them (see bench/wfa-roundtrip.sh).
export default defineWorkflow({
  meta: { name: "wfa-bench", description: "Round trips of wfa tool." },
  prepare: ({ argv }) => ({ calls: Number(argv[0] ?? 500) }),
  async run(wf, input: { calls: number }) {
    const agent = await wf.agents.open({
      key: "bench",
      runtime: { command: [`${import.meta.dirname}/caller.sh`, String(input.calls)] },
      tools: {
        echo: tool({
          description: "Gives back its text.",
          input: typed(Type.Object({ text: Type.String() })),
          handler: ({ text }) => text,
        }),
      },
    });
    const { outcome } = await agent.run({ prompt: "Call echo.", timeout: "10m" });
    return outcome.answered ? JSON.parse(outcome.value as string) : outcome;
  },
});
