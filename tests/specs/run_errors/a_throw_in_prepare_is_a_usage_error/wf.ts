export default defineWorkflow({
  meta: { name: "prepare", description: "Needs a word." },
  prepare: ({ argv }) => {
    if (argv.length !== 1) throw new Error(`expected one directory, got ${argv.length} words`);
    return { dir: argv[0] };
  },
  run: (wf, input) => input,
});
