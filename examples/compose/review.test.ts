// Tests of the review workflow with scripted reviewers.
//   awf test examples/compose
import { expect, test } from "bun:test";
import { answer, reply, testWorkflow } from "agentswf/testing";
import review from "./review.ts";

test("the verdicts come in file order, and a quick second opinion wins the race", async () => {
  const run = await testWorkflow(review, { files: ["a.ts", "b.ts", "c.ts"] }, {
    agents: {
      "reviewer-1": answer(async () => (await new Promise<void>((r) => setTimeout(r, 30)), { ok: true, note: "a is fine" })),
      "reviewer-2": answer({ ok: false, note: "b leaks" }),
      "reviewer-3": reply.failed("no model"),
      senior: answer({ ok: true, note: "agreed" }),
    },
  });
  expect(run.value.verdicts.map((v) => v.note)).toEqual(["a is fine", "b leaks", "no verdict: no model"]);
  expect(run.value.second).toMatchObject({ answered: true, value: { ok: true, note: "agreed" } });
});

test("a second opinion slower than the deadline is cancelled", async () => {
  const run = await testWorkflow(review, { files: ["a.ts"], patience: 20 }, {
    agents: { "reviewer-1": answer({ ok: true, note: "fine" }), senior: reply.hang() },
  });
  expect(run.value.second).toBe("too slow");
  const [turn] = run.turnsOf("senior");
  expect(turn!.outcome).toBe("cancelled");
  expect(turn!.detail).toContain('branch "deadline" settled first');
});
