// An agent triages a backlog through three tools: one without input, one taught as flags, and
// one taught as JSON (its input holds a list). The labels land in the workflow as the agent
// works; the turn's answer is only its summary.
//   awf run examples/tools/triage.ts --runtime codex=examples/tools/triager.sh

const LABELS = ["bug", "ops", "cron", "ui", "docs"] as const;

const ItemId = Type.String({ pattern: "^b[0-9]+$", description: "an item id such as b2" });

export const Labelling = typed(
  Type.Object({
    id: ItemId,
    labels: Type.Array(Type.Union(LABELS.map((l) => Type.Literal(l))), { minItems: 1, uniqueItems: true }),
  }),
);

export const Summary = typed(
  Type.Object({
    labelled: Type.Integer({ minimum: 0 }),
    note: Type.String({ maxLength: 200 }),
  }),
);

export interface BacklogItem {
  id: string;
  title: string;
  body: string;
}

export const BACKLOG: BacklogItem[] = [
  { id: "b1", title: "Nightly export fails", body: "The cron job that exports invoices stops at 02:00 with a timeout." },
  { id: "b2", title: "Button overlaps footer", body: "On small screens the save button covers the footer links." },
  { id: "b3", title: "Disk fills on the build host", body: "Old artifacts are never removed; ops must clean by hand." },
];

export default defineWorkflow({
  meta: {
    name: "triage",
    description: "An agent labels each backlog item through the workflow's tools.",
  },
  async run(wf) {
    const labels: Record<string, string[]> = {};
    const triager = await wf.agents.open({
      key: "triager",
      runtime: "codex",
      instructions: `You triage a backlog. Labels: ${LABELS.join(", ")}.`,
      tools: {
        list_items: tool({
          description: "Every backlog item, one per line: its id and title.",
          handler: () => BACKLOG.map((item) => `${item.id}  ${item.title}`).join("\n"),
        }),
        read_item: tool({
          description: "One item in full, as JSON.",
          input: typed(Type.Object({ id: ItemId })),
          handler: ({ id }) => {
            const item = BACKLOG.find((i) => i.id === id);
            if (!item) throw new Error(`no item ${id}; list_items shows the ids`);
            return item;
          },
        }),
        label_item: tool({
          description: "Set the labels of one item; call it once per item you triage.",
          input: Labelling,
          handler: ({ id, labels: chosen }) => {
            if (!BACKLOG.some((i) => i.id === id)) throw new Error(`no item ${id}; list_items shows the ids`);
            labels[id] = chosen;
            return `${id} labelled ${chosen.join(", ")}; ${Object.keys(labels).length} of ${BACKLOG.length} done.`;
          },
        }),
      },
    });
    const { outcome } = await triager.run({
      prompt: "Label every item of the backlog with label_item, then summarize.",
      schema: Summary,
      timeout: "10m",
    });
    return { labels, summary: outcome.answered ? outcome.value : { failed: outcome.kind, reason: outcome.reason } };
  },
});
