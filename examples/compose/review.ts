// Composition: reviewers review files in parallel (three at a time), and a second opinion
// races a deadline: whichever settles first wins and the other is cancelled.
//   awf test examples/compose

const Verdict = typed(Type.Object({ ok: Type.Boolean(), note: Type.String() }));

export interface ReviewInput {
  files: string[];
  /** How long the second opinion may take, in milliseconds. */
  patience?: number;
}

export default defineWorkflow({
  meta: { name: "review", description: "Parallel reviews, then a second opinion against a deadline." },
  prepare: ({ argv }): ReviewInput => ({ files: argv.length > 0 ? argv : ["a.ts", "b.ts"] }),
  async run(wf, input: ReviewInput) {
    const verdicts = await wf.parallel(
      input.files,
      async (file, i) => {
        const reviewer = await wf.agents.open({ key: `reviewer-${i + 1}`, runtime: "claude" });
        const { outcome } = await reviewer.run({ prompt: `Review ${file}.`, schema: Verdict });
        return outcome.answered ? outcome.value : { ok: false, note: `no verdict: ${outcome.reason}` };
      },
      { concurrency: 3, label: "reviews" },
    );
    const senior = await wf.agents.open({ key: "senior", runtime: "claude" });
    const second = await wf.select({
      opinion: async () => (await senior.run({ prompt: "Give a second opinion on the reviews.", schema: Verdict })).outcome,
      deadline: () => new Promise<"too slow">((resolve) => setTimeout(() => resolve("too slow"), input.patience ?? 60_000)),
    });
    return { verdicts, second: second.value };
  },
});
