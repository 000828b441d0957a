// Globals whose module loads on first use: reading `fetch`, `URL` or `Buffer` evaluates its
// built-in then (the `builtin_namespace` primitive, runtime/src/js/engine/lazy_builtin.rs), so
// a workflow that never uses them never pays for them. Assigning the global first replaces it without loading anything.
//
// A module here may be imported too: once a getter has evaluated it, an import finds the same
// module (QuickJS reuses a loaded module of the same name), and a getter that runs after an
// import gets that module's exports (lazy_builtin.rs). agentswf/workflow, which authors and
// built-ins import, replaces its globals with its exports as it is evaluated, so its getters
// never run once it has been imported.

import * as ops from "awf:ops";

/** `{ globalName: "awf:module" }`: each global is the module's export of the same name. */
export function installLazyGlobals(globals: Record<string, string>): void {
  const loaded = new Map<string, Record<string, unknown>>();
  const exportsOf = (module: string): Record<string, unknown> => {
    let namespace = loaded.get(module);
    if (!namespace) {
      namespace = ops.builtin_namespace(module) as Record<string, unknown>;
      loaded.set(module, namespace);
    }
    return namespace;
  };
  for (const [name, module] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      enumerable: false,
      get() {
        const value = exportsOf(module)[name];
        define(name, value);
        return value;
      },
      set(value: unknown) {
        define(name, value);
      },
    });
  }
}

function define(name: string, value: unknown): void {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
