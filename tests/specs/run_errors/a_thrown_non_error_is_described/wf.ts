export default defineWorkflow({
  meta: { name: "string", description: "Throws a string." },
  run: () => {
    throw "not an Error";
  },
});
