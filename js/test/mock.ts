// js/test/mock.ts — mock functions for the `bun:test` module: `mock(fn?)` (also `jest.fn`,
// `vi.fn`), `spyOn(object, key)`, and the registry behind `mock.restore()`,
// `jest.clearAllMocks()`, `jest.resetAllMocks()` and `jest.restoreAllMocks()`.
//
// A mock is a plain function (so `new` works on it) that records each call in `.mock`
// (`calls`, `results`, `instances`, `contexts`, `lastCall`, `invocationCallOrder`) and answers
// with, in order: a queued `...Once` implementation, the lasting implementation, or undefined.
// Its methods (`mockClear`, `mockReturnValue`, ...) are on a mock prototype, as in bun.
// The mock matchers (expect/mock_matchers.ts) read `.mock`. `mock.module()` registers a
// stand-in for a module's later imports (the loader's side is runtime/src/js/module_mocks.rs).

import * as ops from "awf:ops";
import { onHostReset } from "../core.ts";
import { frameFile, stackFrames } from "./expect/stack.ts";

export type MockResult = { type: "return"; value: unknown } | { type: "throw"; value: unknown } | { type: "incomplete"; value: undefined };

export interface MockState {
  calls: unknown[][];
  results: MockResult[];
  instances: unknown[];
  contexts: unknown[];
  invocationCallOrder: number[];
  readonly lastCall: unknown[] | undefined;
}

type Implementation = (this: unknown, ...args: any[]) => any;

export interface Mock extends Implementation {
  readonly mock: MockState;
  readonly _isMockFunction: true;
  mockImplementation(implementation: Implementation | undefined): Mock;
  mockImplementationOnce(implementation: Implementation): Mock;
  mockReturnValue(value: unknown): Mock;
  mockReturnValueOnce(value: unknown): Mock;
  mockResolvedValue(value: unknown): Mock;
  mockResolvedValueOnce(value: unknown): Mock;
  mockRejectedValue(value: unknown): Mock;
  mockRejectedValueOnce(value: unknown): Mock;
  mockReturnThis(): Mock;
  mockName(name: string): Mock;
  getMockName(): string;
  getMockImplementation(): Implementation | undefined;
  withImplementation(implementation: Implementation, callback: () => unknown): unknown;
  mockClear(): Mock;
  mockReset(): Mock;
  mockRestore(): Mock;
}

/** Every mock made in this file, for the `*AllMocks` calls; spies also undo themselves. */
const registry: { mocks: Mock[]; restorers: (() => void)[] } = { mocks: [], restorers: [] };
/** Call order across all mocks, from 1 as in jest. */
let callOrder = 0;
// The host's next test file starts with no mocks, and the spies of this one undone.
onHostReset(() => {
  restoreAllMocks();
  registry.mocks.length = 0;
  callOrder = 0;
});

export function isMock(value: unknown): value is Mock {
  return typeof value === "function" && Reflect.get(value, "_isMockFunction") === true;
}

function freshState(): MockState {
  return {
    calls: [],
    results: [],
    instances: [],
    contexts: [],
    invocationCallOrder: [],
    get lastCall(): unknown[] | undefined {
      return this.calls.at(-1);
    },
  };
}

/** What one mock holds; the mock prototype's methods find it by the mock (`this`). */
interface MockSlots {
  readonly self: Mock;
  readonly original: Implementation | undefined;
  readonly restore: (() => void) | undefined;
  lasting: Implementation | undefined;
  once: Implementation[];
  name: string;
  state: MockState;
}

const slotsOf = new WeakMap<Function, MockSlots>();

/** The mock `this` is, or bun's `ERR_INVALID_THIS` TypeError when it is none. */
function slots(self: unknown): MockSlots {
  const found = typeof self === "function" ? slotsOf.get(self) : undefined;
  if (found) return found;
  throw Object.assign(new TypeError(`Expected this to be instanceof Mock${receivedInstead(self)}`), { code: "ERR_INVALID_THIS" });
}

/** How bun names a wrong `this` in that message. */
function receivedInstead(value: unknown): string {
  if (value === undefined) return "";
  if (value === null) return ", but received null";
  if (typeof value === "function") return `, but received function ${value.name}`;
  if (typeof value === "object") return `, but received an instance of ${(value as object).constructor?.name ?? "Object"}`;
  if (typeof value === "string") return `, but received type string ('${value}')`;
  return `, but received type ${typeof value} (${String(value)})`;
}

/** A getter of the mock prototype, which throws on anything but a mock, as bun's does. */
function slotGetter<T>(name: string, read: (found: MockSlots) => T): () => T {
  return function (this: unknown): T {
    if (typeof this !== "function" || !slotsOf.has(this)) throw new TypeError(`The Mock.${name} getter can only be used on instances of Mock`);
    return read(slots(this));
  };
}

/** A method of the mock prototype that changes the mock and returns it. */
function change(apply: (found: MockSlots, ...args: any[]) => void): (this: unknown, ...args: any[]) => Mock {
  return function (this: unknown, ...args: any[]): Mock {
    const found = slots(this);
    apply(found, ...args);
    return found.self;
  };
}

/**
 * Every mock's prototype (bun's): the methods, `mock` and `_protoImpl` as getters and
 * `_isMockFunction`, each method refusing a `this` that is not a mock. It inherits
 * Function.prototype, so a mock is still a function (`call`, `apply`, `bind`).
 */
const mockPrototype: object = Object.create(Function.prototype);
const methods: Record<string, (this: unknown, ...args: any[]) => unknown> = {
  getMockImplementation(this: unknown) {
    return slots(this).lasting;
  },
  getMockName(this: unknown) {
    return slots(this).name;
  },
  mockClear: change((found) => (found.state = freshState())),
  mockReset: change((found) => {
    found.state = freshState();
    found.lasting = undefined;
    found.once = [];
  }),
  mockRestore: change((found) => {
    found.state = freshState();
    found.lasting = found.original;
    found.once = [];
    found.restore?.();
  }),
  mockImplementation: change((found, fn: Implementation | undefined) => (found.lasting = fn)),
  mockImplementationOnce: change((found, fn: Implementation) => found.once.push(fn)),
  withImplementation(this: unknown, fn: Implementation, callback: () => unknown): unknown {
    const found = slots(this);
    const previous = found.lasting;
    found.lasting = fn;
    const result = callback();
    if (result instanceof Promise) return result.finally(() => (found.lasting = previous));
    found.lasting = previous;
    return result;
  },
  mockName: change((found, value: string) => (found.name = value ? String(value) : found.name)),
  mockReturnThis: change(
    (found) =>
      (found.lasting = function (this: unknown) {
        return this;
      }),
  ),
  mockReturnValue: change((found, value: unknown) => (found.lasting = () => value)),
  mockReturnValueOnce: change((found, value: unknown) => found.once.push(() => value)),
  mockResolvedValue: change((found, value: unknown) => (found.lasting = () => Promise.resolve(value))),
  mockResolvedValueOnce: change((found, value: unknown) => found.once.push(() => Promise.resolve(value))),
  mockRejectedValue: change((found, value: unknown) => (found.lasting = () => Promise.reject(value))),
  mockRejectedValueOnce: change((found, value: unknown) => found.once.push(() => Promise.reject(value))),
};
Object.defineProperty(mockPrototype, "mock", { get: slotGetter("mock", (found) => found.state), enumerable: true, configurable: false });
Object.defineProperty(mockPrototype, "_protoImpl", { get: slotGetter("_protoImpl", (found) => found.original), enumerable: true, configurable: false });
for (const [name, method] of Object.entries(methods)) {
  Object.defineProperty(method, "name", { value: name, configurable: true });
  Object.defineProperty(mockPrototype, name, { value: method, writable: false, enumerable: true, configurable: false });
}
Object.defineProperty(mockPrototype, "_isMockFunction", { value: true, writable: true, enumerable: true, configurable: true });

/** `mock(fn?)`: a mock function that calls `fn` (if any) and records every call. */
export function createMock(implementation?: Implementation, restore?: () => void): Mock {
  if (implementation !== undefined && typeof implementation !== "function") {
    throw new TypeError(`mock() expects a function or nothing, got ${typeof implementation}`);
  }
  const mockFunction = function (this: unknown, ...args: unknown[]): unknown {
    const constructing = new.target !== undefined;
    const { state } = found;
    state.calls.push(args);
    state.contexts.push(this);
    state.instances.push(constructing ? this : undefined);
    state.invocationCallOrder.push(++callOrder);
    const result: MockResult = { type: "incomplete", value: undefined };
    state.results.push(result);
    const chosen = found.once.shift() ?? found.lasting;
    try {
      const value = chosen === undefined ? undefined : constructing && isConstructor(chosen) ? Reflect.construct(chosen, args, new.target) : chosen.apply(this, args);
      Object.assign(result, { type: "return", value });
      if (constructing && (typeof value !== "object" || value === null) && typeof value !== "function") return this;
      return value;
    } catch (error) {
      Object.assign(result, { type: "throw", value: error });
      throw error;
    }
  } as Mock;
  const found: MockSlots = { self: mockFunction, original: implementation, restore, lasting: implementation, once: [], name: nameOf(implementation), state: freshState() };
  slotsOf.set(mockFunction, found);
  Object.setPrototypeOf(mockFunction, mockPrototype);
  // The mock's name is its mock name, as in bun: `mockName()` renames it.
  Object.defineProperty(mockFunction, "name", { get: () => found.name, configurable: true });
  // Own `length` only with an implementation, as in bun (`jest.fn()` has `name` alone).
  if (implementation !== undefined) Object.defineProperty(mockFunction, "length", { value: implementation.length, configurable: true });
  else Reflect.deleteProperty(mockFunction, "length");
  registry.mocks.push(mockFunction);
  return mockFunction;
}

/** The implementation's name, as bun gives the mock; `mockConstructor` when there is none (or reading it throws). */
function nameOf(implementation: Implementation | undefined): string {
  try {
    const name: unknown = implementation?.name;
    return typeof name === "string" && name !== "" ? name : "mockConstructor";
  } catch {
    return "mockConstructor";
  }
}

function isConstructor(fn: Function): boolean {
  return typeof fn.prototype === "object" && fn.prototype !== null && !fn.toString().startsWith("async");
}

/**
 * `spyOn(object, key)`: replaces a method with a mock that calls the original; a property that
 * is not a function becomes a getter that counts its reads, as in bun. `mockRestore()` or
 * `mock.restore()` puts the original back.
 */
export function spyOn(object: object, key: PropertyKey): Mock {
  if ((typeof object !== "object" && typeof object !== "function") || object === null) {
    throw new TypeError(`spyOn() expects an object, got ${object === null ? "null" : typeof object}`);
  }
  const existing = Reflect.get(object, key);
  if (isMock(existing)) return existing;
  const own = Object.getOwnPropertyDescriptor(object, key);
  const original = existing;
  const restore = (): void => {
    if (own) Object.defineProperty(object, key, own);
    else Reflect.deleteProperty(object, key);
  };
  const spy = createMock(
    typeof original === "function"
      ? function (this: unknown, ...args: unknown[]) {
          return new.target ? Reflect.construct(original, args, new.target) : Reflect.apply(original, this, args);
        }
      : () => original,
    restore,
  );
  const enumerable = own?.enumerable ?? true;
  if (typeof original === "function") {
    spy.mockName(original.name);
    Object.defineProperty(spy, "length", { value: original.length, configurable: true });
    Object.defineProperty(object, key, { value: spy, writable: true, configurable: true, enumerable });
  } else {
    spy.mockName(String(key));
    Object.defineProperty(object, key, { get: () => spy(), set: (value: unknown) => spy.mockReturnValue(value), configurable: true, enumerable });
  }
  registry.restorers.push(() => spy.mockRestore());
  return spy;
}

/** `mock.restore()` / `jest.restoreAllMocks()`: every spy gets its original back. */
export function restoreAllMocks(): void {
  const restorers = registry.restorers.splice(0);
  for (const restore of restorers.reverse()) restore();
}

/** `jest.clearAllMocks()`: every mock forgets its calls, keeping its implementation. */
export function clearAllMocks(): void {
  for (const mock of registry.mocks) mock.mockClear();
}

/** `jest.resetAllMocks()`: every mock forgets its calls and its implementation. */
export function resetAllMocks(): void {
  for (const mock of registry.mocks) mock.mockReset();
}

/** The factories' objects by id, read by the stand-in modules the loader makes (runtime/src/js/module_mocks.rs). */
function mockedModules(): Map<number, object> {
  const key = Symbol.for("awf:mocked-modules");
  const holder = globalThis as unknown as Record<symbol, Map<number, object> | undefined>;
  return (holder[key] ??= new Map());
}

/**
 * `mock.module(specifier, factory)` (also `jest.mock`): every import of that module from then on
 * (a dynamic `import()`, or a file first loaded after this call) gets the factory's object as
 * its exports. A module already imported keeps the bindings it was linked to, unlike bun, which
 * patches them in place: mock first, then import what uses the module.
 */
function moduleMock(specifier: unknown, factory: unknown): void {
  if (typeof specifier !== "string") throw new TypeError(`mock.module() expects the module's name as a string, got ${typeof specifier}`);
  if (typeof factory !== "function") {
    throw new TypeError(`mock.module(${JSON.stringify(specifier)}, factory): factory must be a function returning the module's exports, got ${typeof factory}`);
  }
  const frame = stackFrames(new Error().stack)[1];
  const from = (frame === undefined ? undefined : frameFile(frame)) ?? "";
  const exports: unknown = (factory as () => unknown)();
  if ((typeof exports === "object" || typeof exports === "function") && exports !== null && typeof Reflect.get(exports, "then") === "function") {
    throw new TypeError(`mock.module(${JSON.stringify(specifier)}, factory): awf takes a factory that returns the exports object itself, not a promise\nhint: drop the async, or build the object before calling mock.module`);
  }
  if ((typeof exports !== "object" && typeof exports !== "function") || exports === null) {
    throw new TypeError(`mock.module(${JSON.stringify(specifier)}, factory): factory must return an object of exports, got ${exports === null ? "null" : typeof exports}`);
  }
  const id = ops.test_mock_module(specifier, from, Object.keys(exports));
  mockedModules().set(id, exports);
}

/** `mock(fn?)`; as in bun, `mock(value)` with a value that is not a function is a mock returning that value. */
function mockOf(implementation?: Implementation | unknown): Mock {
  if (implementation === undefined || typeof implementation === "function") return createMock(implementation as Implementation | undefined);
  const value = implementation;
  return createMock(() => value);
}

/** `mock`, with `mock.restore()` and `mock.module`. `jest.fn` and `vi.fn` are this same function, as in bun. */
export const mock = Object.assign(mockOf, {
  restore: restoreAllMocks,
  clearAllMocks,
  module: moduleMock,
});
