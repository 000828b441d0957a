export default defineWorkflow({
  meta: { name: "cycle", description: "Returns a cycle." },
  run: () => {
    const node: { name: string; children: unknown[] } = { name: "root", children: [] };
    node.children.push({ parent: node });
    return node;
  },
});
