// The smallest workflow: no agents, just input in and JSON out.
//   awf run examples/hello/hello.ts -- world

interface Greeting {
  message: string;
  words: number;
}

export default defineWorkflow({
  meta: {
    name: "hello",
    description: "Greets whoever is named after --.",
  },
  prepare: ({ argv }) => ({ name: argv.join(" ") || "world" }),
  async run(wf, input: { name: string }): Promise<Greeting> {
    wf.log("greeting", { name: input.name });
    return { message: `Hello, ${input.name}!`, words: input.name.split(" ").length };
  },
});
