// awf:bootstrap — installs the globals every workflow, handler and test file sees, in order:
// stack traces at .ts positions first (so errors from here on are mapped), then console,
// timers, process, structuredClone, the web globals (events and abort, text encoding, crypto),
// the lazy globals whose modules load on first use (URL, fetch, Buffer), then the author
// globals of the spec (defineWorkflow, tool, typed, Type). QuickJS itself provides atob, btoa,
// performance, queueMicrotask and DOMException.

import { installStackTraces } from "./host/stack.ts";
import { console } from "./host/console.ts";
import * as timers from "./host/timers.ts";
import { process } from "./host/process.ts";
import { structuredClone } from "./host/clone.ts";
import { Event, EventTarget } from "./host/event_target.ts";
import { AbortController, AbortSignal } from "./host/abort.ts";
import { TextDecoder, TextEncoder } from "./host/encoding.ts";
import { crypto } from "./host/crypto.ts";
import { installLazyGlobals } from "./host/lazy_global.ts";
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
  Event,
  EventTarget,
  AbortController,
  AbortSignal,
  TextEncoder,
  TextDecoder,
  crypto,
  defineWorkflow,
  tool,
  typed,
  Type,
};

for (const [name, value] of Object.entries(globals)) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}

installLazyGlobals({
  URL: "awf:host/url",
  URLSearchParams: "awf:host/url",
  fetch: "awf:host/fetch",
  Headers: "awf:host/fetch",
  Request: "awf:host/fetch",
  Response: "awf:host/fetch",
  Buffer: "awf:host/buffer",
});
