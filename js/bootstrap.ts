// awf:bootstrap — installs the globals every workflow, handler and test file sees, in order:
// stack traces at .ts positions first (so errors from here on are mapped), the async context
// (which call and scope code belongs to across `await`), then console and timers, then the
// globals whose modules load on first use (js/host/lazy_global.ts): the author globals of the
// spec (defineWorkflow, tool, typed, Type; a test file of plain bun:test tests never loads
// them), `process` and `structuredClone`, and the web and Node ones (events and abort, text
// encoding, crypto, URL, fetch, Blob and FormData, Buffer). QuickJS itself
// provides atob, btoa, performance, queueMicrotask and DOMException.

import { installStackTraces } from "./host/stack.ts";
import { installAsyncContext } from "./host/async_context.ts";
import { console } from "./host/console.ts";
import * as timers from "./host/timers.ts";
import { installLazyGlobals } from "./host/lazy_global.ts";

installStackTraces();
installAsyncContext();

const globals: Record<string, unknown> = {
  console,
  setTimeout: timers.setTimeout,
  setInterval: timers.setInterval,
  setImmediate: timers.setImmediate,
  clearTimeout: timers.clearTimeout,
  clearInterval: timers.clearInterval,
  clearImmediate: timers.clearImmediate,
  global: globalThis,
};

for (const [name, value] of Object.entries(globals)) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}

installLazyGlobals({
  defineWorkflow: "awf:agentswf/workflow",
  tool: "awf:agentswf/workflow",
  typed: "awf:agentswf/workflow",
  Type: "awf:typebox",
  process: "awf:host/process",
  structuredClone: "awf:host/clone",
  Event: "awf:host/abort",
  EventTarget: "awf:host/abort",
  AbortController: "awf:host/abort",
  AbortSignal: "awf:host/abort",
  TextEncoder: "awf:host/text_codec",
  TextDecoder: "awf:host/text_codec",
  crypto: "awf:host/crypto",
  URL: "awf:host/url",
  URLSearchParams: "awf:host/url",
  fetch: "awf:host/fetch",
  Headers: "awf:host/fetch",
  Request: "awf:host/fetch",
  Response: "awf:host/fetch",
  Blob: "awf:host/blob",
  File: "awf:host/blob",
  FormData: "awf:host/form_data",
  Buffer: "awf:host/buffer",
});
