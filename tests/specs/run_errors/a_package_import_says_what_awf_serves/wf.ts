import chalk from "chalk";

export default defineWorkflow({
  meta: { name: "package", description: "Imports an npm package." },
  run: () => chalk.red("x"),
});
