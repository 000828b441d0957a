// Tests of the triage workflow with the triager scripted: each scripted call goes through the
// same checks and handler a `wfa tool` call from a real agent does.
//   awf test examples/tools
import { describe, expect, test } from "bun:test";
import { answer, reply, testWorkflow } from "agentswf/testing";
import triage, { BACKLOG } from "./triage.ts";

describe("triage", () => {
  test("the triager lists, reads and labels every item; the labels reach the workflow", async () => {
    const run = await testWorkflow(triage, {
      agents: {
        triager: answer(async (turn) => {
          const listed = await turn.tool("list_items");
          expect(listed).toEqual({ kind: "result", output: BACKLOG.map((i) => `${i.id}  ${i.title}`).join("\n") });
          expect(await turn.tool("read_item", { id: "b1" })).toEqual({ kind: "result", output: JSON.stringify(BACKLOG[0]) });
          await turn.tool("label_item", { id: "b1", labels: ["cron", "bug"] });
          await turn.tool("label_item", { id: "b2", labels: ["ui"] });
          expect(await turn.tool("label_item", { id: "b3", labels: ["ops"] })).toEqual({
            kind: "result",
            output: "b3 labelled ops; 3 of 3 done.",
          });
          return { labelled: 3, note: "All three labelled." };
        }),
      },
    });
    expect(run.value).toEqual({
      labels: { b1: ["cron", "bug"], b2: ["ui"], b3: ["ops"] },
      summary: { labelled: 3, note: "All three labelled." },
    });
    expect(run.calls.map((c) => `${c.tool}:${c.outcome}`)).toEqual([
      "list_items:result",
      "read_item:result",
      "label_item:result",
      "label_item:result",
      "label_item:result",
    ]);
  });

  test("labels outside the list and repeated labels are refused before the handler runs", async () => {
    const run = await testWorkflow(triage, {
      agents: {
        triager: answer(async (turn) => {
          const wrong = await turn.tool("label_item", { id: "b1", labels: ["urgent"] });
          expect(wrong).toMatchObject({ kind: "refused", code: "invalid-input", error: expect.stringContaining("labels[0]") });
          const twice = await turn.tool("label_item", { id: "b1", labels: ["bug", "bug"] });
          expect(twice).toMatchObject({ kind: "refused", code: "invalid-input" });
          const badId = await turn.tool("read_item", { id: "item-1" });
          expect(badId).toMatchObject({ kind: "refused", code: "invalid-input", error: expect.stringContaining("id") });
          return { labelled: 0, note: "Nothing fit." };
        }),
      },
    });
    expect(run.value.labels).toEqual({});
    expect(run.calls.every((c) => c.outcome === "refused")).toBe(true);
  });

  test("a handler's throw fails that call only; the agent can go on", async () => {
    const run = await testWorkflow(triage, {
      agents: {
        triager: answer(async (turn) => {
          expect(await turn.tool("read_item", { id: "b9" })).toEqual({
            kind: "failed",
            outcome: "failed",
            error: "no item b9; list_items shows the ids",
          });
          await turn.tool("label_item", { id: "b2", labels: ["ui", "bug"] });
          return { labelled: 1, note: "b9 does not exist." };
        }),
      },
    });
    expect(run.value.labels).toEqual({ b2: ["ui", "bug"] });
  });

  test("a triager that fails leaves the labels it set and says why", async () => {
    const run = await testWorkflow(triage, { agents: { triager: reply.failed("model overloaded") } });
    expect(run.value).toEqual({ labels: {}, summary: { failed: "failed", reason: "model overloaded" } });
  });
});
