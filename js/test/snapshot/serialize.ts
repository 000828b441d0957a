// js/test/snapshot/serialize.ts — A value as bun writes it into a snapshot: bun's
// JestPrettyFormat with quoted strings (src/bun.js/test/pretty_format.zig), quirks included,
// so that a `.snap` file awf writes is byte for byte the one `bun test` writes.
//
// What bun does and this keeps: keys sorted (symbols by their description, among the
// strings), every key quoted, one property per line with a trailing comma, a class name before
// `{` (`Foo {`), `[Function: name]`, `[class Name]`, `[Error: message]`, `Map {` / `Set {`
// entries (each opening on a new line, where bun puts one), typed arrays as one number per
// line, a string with a line break wrapped in line breaks, getters shown as `[native code]`
// (never called), `[Circular]` for a value inside itself, and asymmetric matchers by their
// names (`Any<Number>`, `StringContaining "x"`).

import { AsymmetricMatcher } from "../expect/asymmetric_matcher.ts";
import { CloseTo, ObjectContaining, StringContaining, StringMatching } from "../expect/asymmetric.ts";

/** The snapshot text of `value`, before the escaping the `.snap` file adds (snap_file.ts). */
export function serialize(value: unknown): string {
  const printer = new Printer();
  printer.value(value);
  return printer.out;
}

const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;

class Printer {
  out = "";
  private indent = 0;
  private quote = true;
  private readonly visiting = new Set<object>();

  value(value: unknown): void {
    switch (typeof value) {
      case "undefined":
        this.out += "undefined";
        return;
      case "boolean":
        this.out += String(value);
        return;
      case "number":
        this.out += Object.is(value, -0) ? "-0" : String(value);
        return;
      case "bigint":
        this.out += `${value}n`;
        return;
      case "symbol":
        this.out += value.description ? `Symbol(${value.description})` : "Symbol";
        return;
      case "string":
        this.string(value);
        return;
      case "function":
        this.function(value);
        return;
    }
    if (value === null) {
      this.out += "null";
      return;
    }
    this.object(value as object);
  }

  private object(value: object): void {
    if (value instanceof AsymmetricMatcher) return this.asymmetric(value);
    if (value instanceof RegExp) {
      this.out += String(value);
      return;
    }
    if (value instanceof Date) return this.date(value);
    if (value instanceof String) return this.stringObject(String(value));
    if (isError(value)) return this.error(value);
    if (value instanceof Promise) {
      this.out += "Promise {}";
      return;
    }
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return this.bytes(value);
    if (this.visiting.has(value)) {
      this.out += "[Circular]";
      return;
    }
    this.visiting.add(value);
    try {
      if (Array.isArray(value)) this.array(value);
      else if (value instanceof Map || value instanceof WeakMap) this.map(value);
      else if (value instanceof Set || value instanceof WeakSet) this.set(value);
      else this.properties(value);
    } finally {
      this.visiting.delete(value);
    }
  }

  private writeIndent(): void {
    this.out += "  ".repeat(Math.min(this.indent, 32));
  }

  private quoted<T>(work: () => T): T {
    const before = this.quote;
    this.quote = true;
    try {
      return work();
    } finally {
      this.quote = before;
    }
  }

  private string(text: string): void {
    if (!this.quote) {
      this.out += text;
      return;
    }
    if (text === "") {
      this.out += '""';
      return;
    }
    const broken = /[\n\r]/.test(text);
    if (broken) this.out += "\n";
    this.out += `"${text.replace(/\r\n?/g, "\n")}"`;
    if (broken) this.out += "\n";
  }

  /** bun prints a `String` object character by character, and closes it without indentation. */
  private stringObject(text: string): void {
    if (text === "") {
      this.out += "String {}";
      return;
    }
    if (this.indent === 0) this.out += "\n";
    this.out += "String {\n";
    this.indent++;
    this.writeIndent();
    [...text].forEach((char, index, chars) => {
      this.out += `"${index}": "${char}",\n`;
      if (index !== chars.length - 1) this.writeIndent();
    });
    this.indent--;
    this.out += "}\n";
  }

  private function(fn: Function): void {
    const source = Function.prototype.toString.call(fn);
    if (source.startsWith("class")) {
      this.out += fn.name ? `[class ${fn.name}]` : "[class]";
      return;
    }
    // An async or generator function goes by its kind, named or not, as in bun.
    const kind = className(fn);
    const name = kind !== "Function" ? kind : fn.name;
    this.out += name ? `[Function: ${name}]` : "[Function]";
  }

  private error(error: { message?: unknown }): void {
    const message = error.message === undefined ? "" : String(error.message);
    const name = className(error);
    this.out += message ? `[${name}: ${message}]` : `[${name}]`;
  }

  /** `JSON.stringify` without its quotes: an invalid date prints as `ul` in bun, and here. */
  private date(date: Date): void {
    const json = JSON.stringify(date);
    this.out += json.length > 2 ? json.slice(1, -1) : json;
  }

  private array(items: readonly unknown[]): void {
    const length = items.length;
    if (length === 0) {
      this.out += "[]";
      return;
    }
    if (this.indent === 0) this.out += "\n";
    this.indent++;
    this.quoted(() => {
      this.out += "[\n";
      this.writeIndent();
      this.value(items[0]);
      if (length === 1) this.out += ",";
      for (let index = 1; index < length; index++) {
        this.out += ",\n";
        this.writeIndent();
        this.value(items[index]);
        if (index === length - 1) this.out += ",";
      }
    });
    this.indent--;
    this.out += "\n";
    this.writeIndent();
    this.out += "]";
    if (this.indent === 0) this.out += "\n";
  }

  private map(map: Map<unknown, unknown> | WeakMap<object, unknown>): void {
    const name = map instanceof WeakMap ? "WeakMap" : "Map";
    this.quoted(() => {
      if (!(map instanceof Map) || map.size === 0) {
        this.out += `${name} {}`;
        return;
      }
      this.out += `\n${name} {\n`;
      this.indent++;
      for (const [key, item] of map) {
        this.writeIndent();
        this.value(key);
        this.out += " => ";
        this.value(item);
        this.out += ",\n";
      }
      this.indent--;
      this.writeIndent();
      this.out += "}\n";
    });
  }

  private set(set: Set<unknown> | WeakSet<object>): void {
    const name = set instanceof WeakSet ? "WeakSet" : "Set";
    this.quoted(() => {
      this.writeIndent();
      if (!(set instanceof Set) || set.size === 0) {
        this.out += `${name} {}`;
        return;
      }
      this.out += `\n${name} {\n`;
      this.indent++;
      for (const item of set) {
        this.writeIndent();
        this.value(item);
        this.out += ",\n";
      }
      this.indent--;
      this.writeIndent();
      this.out += "}\n";
    });
  }

  private properties(object: object): void {
    this.quoted(() => {
      const keys = Reflect.ownKeys(object).filter((key) => key !== "constructor" && Object.getOwnPropertyDescriptor(object, key)?.enumerable);
      keys.sort((a, b) => compareUnits(keyText(a), keyText(b)));
      const name = className(object);
      if (keys.length === 0) {
        this.out += name !== "Object" ? `${name} {}` : "{}";
        return;
      }
      if (this.indent === 0) this.out += "\n";
      if (name !== "Object") this.out += `${name} `;
      this.out += "{\n";
      this.indent++;
      keys.forEach((key, index) => {
        if (index > 0) this.out += ",\n";
        this.writeIndent();
        this.out += typeof key === "symbol" ? `[Symbol(${key.description ?? ""})]: ` : `${quotedKey(key)}: `;
        const descriptor = Object.getOwnPropertyDescriptor(object, key)!;
        if ("value" in descriptor) this.value(descriptor.value);
        else this.out += "[native code]";
      });
      this.out += ",";
      this.indent--;
      this.out += "\n";
      this.writeIndent();
      this.out += "}";
      if (this.indent === 0) this.out += "\n";
    });
  }

  private bytes(view: ArrayBufferView | ArrayBuffer): void {
    const kind = Object.prototype.toString.call(view).slice(8, -1);
    const values = numbersOf(view, kind);
    if (this.indent === 0 && values.length > 0) this.out += "\n";
    if (kind === "Uint8Array" && className(view) === "Buffer") return this.buffer(values);
    this.out += `${kind} [`;
    if (values.length === 0) {
      this.out += "]";
      return;
    }
    this.indent++;
    for (const item of values) {
      this.out += "\n";
      this.writeIndent();
      this.out += `${item},`;
    }
    this.indent--;
    this.out += "\n";
    this.writeIndent();
    this.out += "]";
    if (this.indent === 0) this.out += "\n";
  }

  /** A Buffer prints as what its `toJSON` gives, the way bun lays it out. */
  private buffer(values: readonly (number | bigint)[]): void {
    if (values.length === 0 && this.indent === 0) this.out += "\n";
    this.out += "{\n";
    this.indent++;
    this.writeIndent();
    this.out += '"data": [';
    this.indent++;
    for (const item of values) {
      this.out += "\n";
      this.writeIndent();
      this.out += `${item},`;
    }
    this.indent--;
    if (values.length > 0) {
      this.out += "\n";
      this.writeIndent();
    }
    this.out += "],\n";
    this.writeIndent();
    this.out += '"type": "Buffer",\n';
    this.indent--;
    this.writeIndent();
    this.out += "}";
    if (this.indent === 0) this.out += "\n";
  }

  private asymmetric(matcher: AsymmetricMatcher): void {
    if (matcher instanceof CloseTo) {
      const expected = Reflect.get(matcher, "expected") as number;
      const digits = Reflect.get(matcher, "precision") as number;
      // bun prints both as 32-bit integers, and no space after the negated name.
      this.out += `${matcher.label()}${matcher.inverse ? "" : " "}${expected | 0} (${digits | 0} digit${(digits | 0) === 1 ? "" : "s"})`;
      return;
    }
    if (matcher instanceof ObjectContaining) {
      this.out += `${matcher.label()} `;
      this.properties(matcher.sample().value as object);
      return;
    }
    if (matcher instanceof StringContaining || matcher instanceof StringMatching) {
      const sample = matcher.sample().value;
      this.out += `${matcher.label()} `;
      if (sample instanceof RegExp) this.out += String(sample);
      else this.string(String(sample));
      return;
    }
    const label = matcher.label();
    if (label === "Anything" || label.startsWith("Any<")) {
      this.out += label;
      return;
    }
    const sample = matcher.sample();
    if (label.includes("ArrayContaining")) {
      // bun shows its wrapper object, which has no properties of its own.
      this.out += "ExpectArrayContaining {}";
      return;
    }
    // An expect.extend matcher: its name and its arguments.
    this.out += `${label.replace(/^not\./, "not ")} `;
    const args = sample === undefined ? [] : Array.isArray(sample.value) ? sample.value : [sample.value];
    this.array(args);
  }
}

function isError(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
}

/** The name of the constructor on the value's prototype chain, `Object` when there is none. */
function className(value: object): string {
  for (let proto = Object.getPrototypeOf(value) as object | null; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    const constructor: unknown = Object.getOwnPropertyDescriptor(proto, "constructor")?.value;
    if (typeof constructor === "function") return constructor.name || "Object";
  }
  return "Object";
}

function keyText(key: string | symbol): string {
  return typeof key === "symbol" ? (key.description ?? "") : key;
}

/** By UTF-16 code units, as bun sorts property names. */
function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Identifiers as they are; other Latin-1 names JSON-escaped; other names between quotes as they are. */
function quotedKey(key: string): string {
  if (IDENTIFIER.test(key)) return `"${key}"`;
  if (/^[\0-\xff]*$/.test(key)) return JSON.stringify(key);
  return `"${key}"`;
}

function numbersOf(view: ArrayBufferView | ArrayBuffer, kind: string): (number | bigint)[] {
  if (view instanceof ArrayBuffer) return [...new Uint8Array(view)];
  if (kind === "DataView" || kind === "Uint8Array" || kind === "Uint8ClampedArray") {
    return [...new Uint8Array(view.buffer, view.byteOffset, view.byteLength)];
  }
  return [...(view as unknown as Iterable<number | bigint>)];
}
