const required: string | undefined = process.env.AWF_TEST_NOT_SET;
if (!required) throw new Error("AWF_TEST_NOT_SET is not set");

export default defineWorkflow({
  meta: { name: "toplevel", description: "Throws while loading." },
  run: () => required,
});
