// bench/shim.ts — stand-ins for awf's author globals, so that bun and deno can run an awf
// workflow file unchanged for the start-up benchmark. Only what hello.ts touches does anything.

const authorGlobals = globalThis as Record<string, unknown>;
authorGlobals.defineWorkflow = <T>(spec: T): T => spec;
authorGlobals.typed = <T>(schema: T): T => schema;
authorGlobals.tool = <T>(spec: T): T => spec;
authorGlobals.Type = {};
