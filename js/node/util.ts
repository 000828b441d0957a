// `node:util` (and `util`): promisify (honouring `util.promisify.custom`), callbackify, inspect
// and format (the same printer as console, js/host/inspect.ts), `types.is*`, isDeepStrictEqual,
// inherits, deprecate, TextEncoder/TextDecoder. Not provided yet: parseArgs, styleText,
// debuglog, inspect's color and showHidden options.

import { format, inspect as inspectValue, inspectCustom, type InspectOptions } from "../host/inspect.ts";

type AnyFunction = (...args: any[]) => any;

const customPromisify = Symbol.for("nodejs.util.promisify.custom");

function invalidArg(name: string, expected: string, value: unknown): TypeError {
  const error = new TypeError(`The "${name}" argument must be ${expected}. Received ${value === null ? "null" : `type ${typeof value}`}`) as TypeError & { code: string };
  error.code = "ERR_INVALID_ARG_TYPE";
  return error;
}

export const promisify = Object.assign(
  function promisify(original: AnyFunction): AnyFunction {
    if (typeof original !== "function") throw invalidArg("original", "of type function", original);
    const custom = (original as unknown as Record<symbol, unknown>)[customPromisify];
    if (typeof custom === "function") return custom as AnyFunction;
    return function (this: unknown, ...args: unknown[]) {
      return new Promise((resolve, reject) => {
        original.call(this, ...args, (error: unknown, value: unknown) => (error ? reject(error) : resolve(value)));
      });
    };
  },
  { custom: customPromisify },
);

export function callbackify(original: AnyFunction): AnyFunction {
  if (typeof original !== "function") throw invalidArg("original", "of type function", original);
  return function (this: unknown, ...args: unknown[]) {
    const callback = args.pop();
    if (typeof callback !== "function") throw invalidArg("last argument", "of type function", callback);
    Promise.resolve(original.apply(this, args)).then(
      (value) => queueMicrotask(() => callback(null, value)),
      (error) => queueMicrotask(() => callback(error ?? new Error("Promise was rejected with a falsy value"))),
    );
  };
}

export const inspect = Object.assign(
  (value: unknown, options?: InspectOptions | boolean) =>
    inspectValue(value, typeof options === "object" && options !== null ? options : {}),
  { custom: inspectCustom },
);

export { format };

export function inherits(ctor: AnyFunction, superCtor: AnyFunction): void {
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
  Object.setPrototypeOf(ctor, superCtor);
}

export function deprecate<T extends AnyFunction>(fn: T, message: string, code?: string): T {
  let warned = false;
  return function (this: unknown, ...args: unknown[]) {
    if (!warned) {
      warned = true;
      process.emitWarning(`${code ? `[${code}] ` : ""}DeprecationWarning: ${message}`);
    }
    return fn.apply(this, args);
  } as T;
}

const tag = (value: unknown) => Object.prototype.toString.call(value);
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor;

export const types = {
  isDate: (v: unknown): v is Date => v instanceof Date,
  isRegExp: (v: unknown): v is RegExp => v instanceof RegExp,
  isPromise: (v: unknown): v is Promise<unknown> => v instanceof Promise,
  isMap: (v: unknown): v is Map<unknown, unknown> => v instanceof Map,
  isSet: (v: unknown): v is Set<unknown> => v instanceof Set,
  isWeakMap: (v: unknown) => v instanceof WeakMap,
  isWeakSet: (v: unknown) => v instanceof WeakSet,
  isArrayBuffer: (v: unknown): v is ArrayBuffer => v instanceof ArrayBuffer,
  isAnyArrayBuffer: (v: unknown) => v instanceof ArrayBuffer || v instanceof SharedArrayBuffer,
  isArrayBufferView: (v: unknown) => ArrayBuffer.isView(v),
  isDataView: (v: unknown) => v instanceof DataView,
  isTypedArray: (v: unknown) => ArrayBuffer.isView(v) && !(v instanceof DataView),
  isUint8Array: (v: unknown): v is Uint8Array => v instanceof Uint8Array,
  isNativeError: (v: unknown): v is Error => v instanceof Error,
  isAsyncFunction: (v: unknown) => v instanceof AsyncFunction,
  isGeneratorFunction: (v: unknown) => v instanceof GeneratorFunction,
  isGeneratorObject: (v: unknown) => tag(v) === "[object Generator]",
  isBoxedPrimitive: (v: unknown) =>
    v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt || v instanceof Symbol,
  isSymbolObject: (v: unknown) => typeof v === "object" && v instanceof Symbol,
};

/** Node's deep strict equality: same prototypes, own enumerable keys, Map/Set/Date/RegExp/typed arrays. */
export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return deepEqual(a, b, new Map());
}

function deepEqual(a: unknown, b: unknown, seen: Map<object, object>): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (tag(a) !== tag(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  if (a instanceof RegExp) return String(a) === String(b) && a.lastIndex === (b as RegExp).lastIndex;
  if (a instanceof Error && (a.message !== (b as Error).message || a.name !== (b as Error).name)) return false;
  if (ArrayBuffer.isView(a)) {
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array((b as ArrayBufferView).buffer, (b as ArrayBufferView).byteOffset, (b as ArrayBufferView).byteLength);
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
  }
  if (a instanceof Map) {
    const m = b as Map<unknown, unknown>;
    if (a.size !== m.size) return false;
    for (const [k, v] of a) if (!m.has(k) || !deepEqual(v, m.get(k), seen)) return false;
  } else if (a instanceof Set) {
    const s = b as Set<unknown>;
    if (a.size !== s.size) return false;
    for (const v of a) {
      if (s.has(v)) continue;
      if (typeof v !== "object" || ![...s].some((w) => deepEqual(v, w, seen))) return false;
    }
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], seen)) return false;
  }
  const symbolsA = Object.getOwnPropertySymbols(a).filter((s) => Object.prototype.propertyIsEnumerable.call(a, s));
  const symbolsB = Object.getOwnPropertySymbols(b).filter((s) => Object.prototype.propertyIsEnumerable.call(b, s));
  if (symbolsA.length !== symbolsB.length) return false;
  return symbolsA.every((s) => deepEqual((a as Record<symbol, unknown>)[s], (b as Record<symbol, unknown>)[s], seen));
}

export function isArray(value: unknown): value is unknown[] {
  return Array.isArray(value);
}

export function stripVTControlCharacters(text: string): string {
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
}

type Codec = typeof import("../host/text_codec.ts");
export const { TextDecoder, TextEncoder } = globalThis as unknown as Codec;

export default {
  promisify,
  callbackify,
  inspect,
  format,
  inherits,
  deprecate,
  types,
  isDeepStrictEqual,
  isArray,
  stripVTControlCharacters,
  TextEncoder,
  TextDecoder,
};
