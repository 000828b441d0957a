import config from "./config.json";
export default defineWorkflow({ meta: { name: "json", description: "Bad JSON." }, run: () => config });
