// structuredClone: a deep copy by the HTML structured clone rules awf's code can meet.
//
// Copies plain objects, arrays, Date, RegExp, Map, Set, ArrayBuffer and typed arrays, Error
// objects and primitives, keeping shared references and cycles as they were. Functions,
// symbols and class instances' prototypes are not cloneable: like browsers and Node, a function
// or symbol throws a DataCloneError, and a class instance comes back as a plain object.

export function structuredClone<T>(value: T): T {
  return cloneValue(value, new Map()) as T;
}

function dataCloneError(what: string): Error {
  const message = `${what} could not be cloned.`;
  return typeof DOMException === "function" ? new DOMException(message, "DataCloneError") : new Error(message);
}

function cloneValue(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value === "function") throw dataCloneError(String(value).slice(0, 40));
  if (typeof value === "symbol") throw dataCloneError(value.toString());
  if (typeof value !== "object" || value === null) return value;
  const earlier = seen.get(value);
  if (earlier !== undefined) return earlier;
  if (value instanceof Date) return remember(seen, value, new Date(value.getTime()));
  if (value instanceof RegExp) return remember(seen, value, new RegExp(value.source, value.flags));
  if (value instanceof ArrayBuffer) return remember(seen, value, value.slice(0));
  if (ArrayBuffer.isView(value)) return cloneView(value, seen);
  if (value instanceof Map) {
    const copy = remember(seen, value, new Map());
    for (const [k, v] of value) copy.set(cloneValue(k, seen), cloneValue(v, seen));
    return copy;
  }
  if (value instanceof Set) {
    const copy = remember(seen, value, new Set());
    for (const v of value) copy.add(cloneValue(v, seen));
    return copy;
  }
  if (value instanceof Error) {
    const copy = remember(seen, value, new Error(value.message));
    copy.name = value.name;
    if (value.stack) copy.stack = value.stack;
    return copy;
  }
  if (value instanceof Promise || value instanceof WeakMap || value instanceof WeakSet) {
    throw dataCloneError(`#<${value.constructor.name}>`);
  }
  const copy: Record<string, unknown> = Array.isArray(value) ? (new Array(value.length) as never) : {};
  seen.set(value, copy);
  for (const key of Object.keys(value)) copy[key] = cloneValue((value as Record<string, unknown>)[key], seen);
  return copy;
}

function cloneView(view: ArrayBufferView, seen: Map<object, unknown>): unknown {
  const buffer = cloneValue(view.buffer, seen) as ArrayBuffer;
  const Ctor = view.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView;
  const length = view instanceof DataView ? view.byteLength : (view as unknown as { length: number }).length;
  return remember(seen, view, new Ctor(buffer, view.byteOffset, length));
}

function remember<T>(seen: Map<object, unknown>, original: object, copy: T): T {
  seen.set(original, copy);
  return copy;
}
