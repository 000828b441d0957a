export default defineWorkflow({
  meta: { name: "stalls", description: "Awaits forever." },
  async run() {
    await new Promise(() => {});
  },
});
