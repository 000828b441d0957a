// Tests of the hello workflow: no agents, so the run needs no scripts.
//   awf test examples/hello
import { expect, test } from "bun:test";
import { testWorkflow } from "agentswf/testing";
import hello from "./hello.ts";

test("greets the name it is given and counts its words", async () => {
  const run = await testWorkflow(hello, { name: "Ada Lovelace" }, {});
  expect(run.value).toEqual({ message: "Hello, Ada Lovelace!", words: 2 });
  expect(run.logs).toEqual([{ message: "greeting", fields: { name: "Ada Lovelace" } }]);
  expect(run.turns).toHaveLength(0);
});

test("prepare maps the words after -- to the input, and greets the world without any", () => {
  expect(hello.prepare?.({ argv: ["you", "all"], cwd: "/" })).toEqual({ name: "you all" });
  expect(hello.prepare?.({ argv: [], cwd: "/" })).toEqual({ name: "world" });
});
