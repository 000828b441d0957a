export default defineWorkflow({
  meta: { name: "unhandled", description: "Drops a rejection." },
  async run() {
    Promise.reject(new TypeError("nobody waits for this"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return "unreachable";
  },
});
