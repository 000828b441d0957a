class Finding {
  constructor(public file: string) {}
}
export default defineWorkflow({
  meta: { name: "instance", description: "Returns a class instance." },
  run: () => ({ findings: [new Finding("a.ts")] }),
});
