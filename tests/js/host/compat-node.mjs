// Runs a workflow file under node, as awf would: `defineWorkflow` passes the workflow through,
// then prepare() and run() are called and the result printed as JSON. Used by
// tests/cli/host_apis.rs to compare compat.mjs under awf and under node.

import { pathToFileURL } from "node:url";

globalThis.defineWorkflow = (workflow) => workflow;
const { default: workflow } = await import(pathToFileURL(process.argv[2]).href);
const input = workflow.prepare ? await workflow.prepare({ argv: [], cwd: process.cwd() }) : {};
const result = await workflow.run({}, input);
process.stdout.write(JSON.stringify(result, null, 2) + "\n");
