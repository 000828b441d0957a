// Tests of the quickstart workflow with both agents scripted: the shell scripts under agents/
// are what `awf run` uses; here each turn is answered by the test instead.
//   awf test examples/quickstart
import { describe, expect, test } from "bun:test";
import { answer, reply, testWorkflow } from "agentswf/testing";
import quickstart from "./quickstart.ts";

describe("quickstart", () => {
  test("plans, drafts and gathers both reviews", async () => {
    const run = await testWorkflow(quickstart, { topic: "a release note" }, {
      agents: {
        planner: [
          answer({ title: "Release note", sections: 2 }),
          answer("Sound."),
        ],
        writer: [
          answer(async (turn) => {
            expect(turn.prompt).toBe('Write "Release note" in 2 sections.');
            expect(turn.schema).toBeNull();
            return "# Release note";
          }),
          answer("Cut the intro."),
        ],
      },
    });
    expect(run.value).toEqual({
      topic: "a release note",
      plan: { title: "Release note", sections: 2 },
      draft: "# Release note",
      reviews: ["Sound.", "Cut the intro."],
    });
    expect(run.turnsOf("planner").map((t) => t.outcome)).toEqual(["answered", "answered"]);
    expect(run.logs).toContainEqual({ message: "planned", fields: { title: "Release note", sections: 2 } });
  });

  test("a plan that breaks the schema fails the test with the field that is wrong", async () => {
    const run = testWorkflow(quickstart, { topic: "x" }, {
      agents: { planner: answer({ title: "", sections: 9 }), writer: answer("unused") },
    });
    await expect(run).rejects.toThrow("sections");
  });

  test("a planner that never answers ends the workflow early with the reason", async () => {
    const run = await testWorkflow(quickstart, { topic: "x" }, {
      agents: { planner: reply.silent(), writer: [] },
    });
    expect(run.value).toMatchObject({ topic: "x", failed: "unanswered" });
    expect(run.turnsOf("writer")).toHaveLength(0);
  });
});
