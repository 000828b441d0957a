export default defineWorkflow({
  meta: { name: "deep", description: "Returns a very deep value." },
  run() {
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = { next: value };
    return value;
  },
});
