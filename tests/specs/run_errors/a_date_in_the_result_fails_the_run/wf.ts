export default defineWorkflow({
  meta: { name: "dated", description: "Returns a Date." },
  run: () => ({ when: new Date(0) }),
});
