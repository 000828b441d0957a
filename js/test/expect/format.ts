// js/test/expect/format.ts — Printing values for failure messages, as bun prints them: most
// with `format` (bun's diff printer), the "Expected to contain: ..." / "Received: ..." lines of
// toContainKey(s) and toContainValue(s) with `bunInspect` (bun prints those with Bun.inspect).

import { AsymmetricMatcher } from "./asymmetric_matcher.ts";
import { constructorOf, isObject, ownEnumerableKeys } from "./equality.ts";

export interface FormatOptions {
  /** Every non-empty object and array on its own lines, as diffs want them; default: only when long. */
  expand?: boolean;
  /** Longest single line an object may print on before it breaks into lines (default 72). */
  width?: number;
}

/**
 * A value as failure messages show it, like bun and jest: strings quoted, keys quoted and
 * sorted, class names and Map/Set/Date/RegExp/Error shown, `[Circular]` for a cycle, objects
 * on several lines with a 2-space indent when they do not fit on one.
 */
export function format(value: unknown, options: FormatOptions = {}): string {
  return new Printer(options.expand ?? false, options.width ?? 72).print(value, "");
}

class Printer {
  /** Objects being printed, outermost first. */
  private readonly open: object[] = [];
  private readonly expand: boolean;
  private readonly width: number;

  constructor(expand: boolean, width: number) {
    this.expand = expand;
    this.width = width;
  }

  print(value: unknown, indent: string): string {
    if (value instanceof AsymmetricMatcher) return this.asymmetric(value, indent);
    if (typeof value === "function") return printFunction(value);
    if (!isObject(value)) return printPrimitive(value);
    if (this.open.includes(value)) return "[Circular]";
    this.open.push(value);
    try {
      return this.object(value, indent);
    } finally {
      this.open.pop();
    }
  }

  private asymmetric(matcher: AsymmetricMatcher, indent: string): string {
    const sample = matcher.sample();
    return sample ? `${matcher.label()} ${this.print(sample.value, indent)}` : matcher.label();
  }

  private object(value: object, indent: string): string {
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Date { NaN }" : value.toISOString();
    if (value instanceof RegExp) return String(value);
    if (value instanceof Error) return `[${value.name}: ${value.message}]`;
    if (value instanceof Promise) return "Promise {}";
    if (value instanceof WeakMap || value instanceof WeakSet) return `${constructorName(value)} {}`;
    const boxed = boxedPrimitive(value);
    if (boxed !== undefined) return `[${constructorName(value)}: ${printPrimitive(boxed)}]`;
    if (Array.isArray(value)) return this.container("", "[", "]", (inner) => this.arrayItems(value, inner), indent);
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const items = Array.from(value as unknown as ArrayLike<unknown>);
      return this.container(`${constructorName(value)} `, "[", "]", (inner) => items.map((item) => this.print(item, inner)), indent);
    }
    if (value instanceof ArrayBuffer) {
      const bytes = Array.from(new Uint8Array(value));
      return this.container("ArrayBuffer ", "[", "]", () => bytes.map(String), indent);
    }
    if (value instanceof Map) return this.container(`${constructorName(value)} `, "{", "}", (inner) => this.mapEntries(value, inner), indent);
    if (value instanceof Set) {
      return this.container(`${constructorName(value)} `, "{", "}", (inner) => Array.from(value, (item) => this.print(item, inner)), indent);
    }
    const name = constructorName(value);
    const prefix = name === "Object" ? "" : `${name} `;
    return this.container(prefix, "{", "}", (inner) => this.properties(value, inner), indent);
  }

  private arrayItems(array: readonly unknown[], inner: string): string[] {
    const items: string[] = [];
    for (let index = 0; index < array.length; index++) {
      items.push(index in array ? this.print(array[index], inner) : "<empty>");
    }
    return items;
  }

  private mapEntries(map: Map<unknown, unknown>, inner: string): string[] {
    return Array.from(map, ([key, item]) => `${this.print(key, inner)} => ${this.print(item, inner)}`);
  }

  private properties(value: object, inner: string): string[] {
    const stringKeys = Object.keys(value).sort();
    const symbolKeys = ownEnumerableKeys(value).filter((key) => typeof key === "symbol");
    return [...stringKeys, ...symbolKeys].map((key) => `${printKey(key)}: ${this.print(Reflect.get(value, key), inner)}`);
  }

  /** One line when it fits and nothing inside broke; otherwise one item per line, each with a trailing comma. */
  private container(prefix: string, openMark: string, closeMark: string, items: (inner: string) => string[], indent: string): string {
    const inner = `${indent}  `;
    const parts = items(inner);
    if (parts.length === 0) return `${prefix}${openMark}${closeMark}`;
    const pad = openMark === "[" ? "" : " ";
    const oneLine = `${prefix}${openMark}${pad}${parts.join(", ")}${pad}${closeMark}`;
    if (!this.expand && !oneLine.includes("\n") && indent.length + oneLine.length <= this.width) return oneLine;
    return `${prefix}${openMark}\n${parts.map((part) => `${inner}${part},`).join("\n")}\n${indent}${closeMark}`;
  }
}

function printPrimitive(value: unknown): string {
  switch (typeof value) {
    case "string":
      return `"${value.replace(/["\\]/g, "\\$&")}"`;
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return value.toString();
    default:
      return String(value);
  }
}

function printFunction(fn: Function): string {
  const name = fn.name || "anonymous";
  return isClass(fn) ? `[class ${name}]` : `[Function ${name}]`;
}

function isClass(fn: Function): boolean {
  try {
    return Function.prototype.toString.call(fn).startsWith("class");
  } catch {
    return false;
  }
}

function printKey(key: PropertyKey): string {
  return typeof key === "symbol" ? key.toString() : JSON.stringify(String(key));
}

export function constructorName(value: object): string {
  const constructor = constructorOf(value);
  return typeof constructor === "function" && constructor.name ? constructor.name : "Object";
}

export function boxedPrimitive(value: object): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Bun.inspect's layout: a non-empty object or Map or Set always takes one line per entry, each
// ending in a comma; an array stays on one line (`[ 1, "x" ]`) unless an element spans lines,
// and then its elements follow each other after one line break. Keys that are identifiers are
// bare, others double-quoted; strings are double-quoted with JSON's escapes. Values it does not
// lay out itself (Errors, RegExps, typed arrays and the like) are printed by `format`.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `value` as bun's inspect prints it, nested `depth` levels in (2 spaces each). */
export function bunInspect(value: unknown, depth = 0, seen: object[] = []): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol") return value.toString();
  if (typeof value === "function") return value.name ? `[Function: ${value.name}]` : "[Function]";
  if (typeof value !== "object" || value === null) return String(value);
  if (seen.includes(value)) return "[Circular]";
  const inner = [...seen, value];
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (Array.isArray(value)) return inspectArray(value, depth, inner);
  if (value instanceof Map) {
    const entries = [...value].map(([key, item]) => `${bunInspect(key, depth + 1, inner)}: ${bunInspect(item, depth + 1, inner)}`);
    return `Map${value.size > 0 ? `(${value.size})` : ""} ${inspectEntries(entries, depth)}`;
  }
  if (value instanceof Set) {
    const entries = [...value].map((item) => bunInspect(item, depth + 1, inner));
    return `Set${value.size > 0 ? `(${value.size})` : ""} ${inspectEntries(entries, depth)}`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  const plain = prototype === Object.prototype;
  if (!plain && prototype !== null && !isOrdinaryInstance(value)) return format(value);
  const keys = Reflect.ownKeys(value).filter((key) => Object.getOwnPropertyDescriptor(value, key)?.enumerable);
  const entries = keys.map((key) => `${inspectKey(key)}: ${bunInspect(Reflect.get(value, key), depth + 1, inner)}`);
  const label = plain ? "" : prototype === null ? "[Object: null prototype] " : `${constructorName(value)} `;
  return label + inspectEntries(entries, depth);
}

/** An instance of a class of the test's own (or of Object by another route), not a built-in with internal state. */
function isOrdinaryInstance(value: object): boolean {
  return Object.prototype.toString.call(value) === "[object Object]";
}

function inspectKey(key: string | symbol): string {
  if (typeof key === "symbol") return `[${key.toString()}]`;
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

/** `{}` when empty, else one entry a line, each with a trailing comma. */
function inspectEntries(entries: readonly string[], depth: number): string {
  if (entries.length === 0) return "{}";
  const indent = "  ".repeat(depth + 1);
  return `{\n${entries.map((entry) => `${indent}${entry},\n`).join("")}${"  ".repeat(depth)}}`;
}

function inspectArray(items: readonly unknown[], depth: number, seen: object[]): string {
  if (items.length === 0) return "[]";
  const printed = items.map((item) => bunInspect(item, depth + 1, seen));
  if (!printed.some((item) => item.includes("\n"))) return `[ ${printed.join(", ")} ]`;
  return `[\n${"  ".repeat(depth + 1)}${printed.join(", ")}\n${"  ".repeat(depth)}]`;
}
