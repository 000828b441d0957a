// Tests of the starter workflow, with its agent scripted: no process, no model.
//   awf test
import { expect, test } from "bun:test";
import { answer, testWorkflow } from "agentswf/testing";
import workflow from "./workflow.ts";

test("each note the helper records reaches the workflow, and its summary is typed", async () => {
  const run = await testWorkflow(workflow, { topic: "tests" }, {
    agents: {
      helper: answer(async (turn) => {
        expect(await turn.tool("add_note", { text: "one" })).toEqual({
          kind: "result",
          output: "Noted; 1 so far.",
        });
        return { title: "One note", notes: 1 };
      }),
    },
  });
  expect(run.value).toEqual({
    topic: "tests",
    notes: ["one"],
    summary: { title: "One note", notes: 1 },
  });
});

test("a note that breaks the tool's schema is refused before the handler runs", async () => {
  const run = await testWorkflow(workflow, { topic: "tests" }, {
    agents: {
      helper: answer(async (turn) => {
        expect(await turn.tool("add_note", { text: "" })).toMatchObject({
          kind: "refused",
          code: "invalid-input",
        });
        return { title: "Nothing", notes: 0 };
      }),
    },
  });
  expect(run.value.notes).toEqual([]);
});
