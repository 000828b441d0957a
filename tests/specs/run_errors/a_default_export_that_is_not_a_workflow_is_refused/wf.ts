export default {
  meta: { name: "plain", description: "Not from defineWorkflow." },
  run: () => 1,
};
