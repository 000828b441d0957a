export default defineWorkflow({
  meta: { name: "norun", description: "No run." },
} as any);
