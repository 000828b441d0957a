// awf:bootstrap — installs the globals every workflow, handler and test file sees, in order:
// stack traces at .ts positions first (so errors from here on are mapped), then console,
// timers, process, structuredClone, then the author globals of the spec (defineWorkflow, tool,
// typed, Type).

import { installStackTraces } from "./host/stack.ts";
import { console } from "./host/console.ts";
import * as timers from "./host/timers.ts";
import { process } from "./host/process.ts";
import { structuredClone } from "./host/clone.ts";
import { defineWorkflow, tool, typed, Type } from "./agentswf/workflow.ts";

installStackTraces();

const globals: Record<string, unknown> = {
  console,
  setTimeout: timers.setTimeout,
  setInterval: timers.setInterval,
  setImmediate: timers.setImmediate,
  clearTimeout: timers.clearTimeout,
  clearInterval: timers.clearInterval,
  clearImmediate: timers.clearImmediate,
  process,
  structuredClone,
  global: globalThis,
  defineWorkflow,
  tool,
  typed,
  Type,
};

for (const [name, value] of Object.entries(globals)) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
