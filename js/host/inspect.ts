// Readable printing of any value, after Node's util.inspect and util.format: what console prints.
//
// Objects print on one line when short (`{ a: 1, b: [ 1, 2 ] }`) and indented otherwise; nesting
// deeper than `depth` prints as [Object]/[Array]; cycles print as [Circular *1] with <ref *1> at
// the target, as Node does, so output stays familiar to people who know node.

export interface InspectOptions {
  depth?: number;
  colors?: boolean;
}

const LINE_WIDTH = 72;

/** Node's hook: an object with a method under this symbol prints as what the method returns. */
export const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

export function inspect(value: unknown, options: InspectOptions = {}): string {
  const printer = new Printer(options.depth ?? 2);
  printer.findCycles(value, new Set());
  return printer.print(value, 0, false);
}

/** Node's util.format: printf-like substitutions, then the rest inspected and joined by spaces. */
export function format(...args: unknown[]): string {
  if (typeof args[0] !== "string") return args.map((a) => formatArg(a)).join(" ");
  const template = args[0];
  let next = 1;
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== "%" || i + 1 >= template.length) {
      out += c;
      continue;
    }
    const spec = template[i + 1];
    if (spec === "%") {
      out += "%";
      i++;
      continue;
    }
    if (!"sdifjoOc".includes(spec)) {
      out += c;
      continue;
    }
    i++;
    if (spec === "c") {
      next++;
      continue;
    }
    if (next >= args.length) {
      out += "%" + spec;
      continue;
    }
    out += substitute(spec, args[next++]);
  }
  for (; next < args.length; next++) out += " " + formatArg(args[next]);
  return out;
}

function formatArg(value: unknown): string {
  return typeof value === "string" ? value : inspect(value);
}

function substitute(spec: string, value: unknown): string {
  switch (spec) {
    case "s":
      return typeof value === "string" ? value : typeof value === "bigint" ? `${value}n` : inspect(value, { depth: 1 });
    case "d":
    case "i": {
      if (typeof value === "bigint") return `${value}n`;
      const n = Number(value);
      return String(spec === "i" ? Math.trunc(n) : n);
    }
    case "f":
      return String(Number(value));
    case "j":
      try {
        return JSON.stringify(value);
      } catch {
        return "[Circular]";
      }
    default:
      return inspect(value, { depth: spec === "o" ? 4 : 2 });
  }
}

class Printer {
  private readonly depth: number;
  private readonly cycleTargets = new Map<object, number>();
  private readonly seen = new Set<object>();

  constructor(depth: number) {
    this.depth = depth;
  }

  /** Numbers each object that is reached again from inside itself, as Node's <ref *N>. */
  findCycles(value: unknown, path: Set<object>): void {
    if (typeof value !== "object" || value === null) return;
    if (path.has(value)) {
      if (!this.cycleTargets.has(value)) this.cycleTargets.set(value, this.cycleTargets.size + 1);
      return;
    }
    path.add(value);
    for (const child of childValues(value)) this.findCycles(child, path);
    path.delete(value);
  }

  print(value: unknown, level: number, nested: boolean): string {
    switch (typeof value) {
      case "string":
        return nested ? quote(value) : value;
      case "number":
        return Object.is(value, -0) ? "-0" : String(value);
      case "bigint":
        return `${value}n`;
      case "boolean":
      case "undefined":
        return String(value);
      case "symbol":
        return value.toString();
      case "function":
        return functionLabel(value);
    }
    if (value === null) return "null";
    const custom = (value as Record<symbol, unknown>)[inspectCustom];
    if (typeof custom === "function") {
      const shown = custom.call(value, this.depth - level, { depth: this.depth }, inspect);
      return typeof shown === "string" ? shown : this.print(shown, level, nested);
    }
    return this.printObject(value as object, level);
  }

  private printObject(value: object, level: number): string {
    const ref = this.cycleTargets.get(value);
    if (this.seen.has(value)) return ref ? `[Circular *${ref}]` : "[Circular]";
    const prefix = ref ? `<ref *${ref}> ` : "";
    if (value instanceof Date) return isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
    if (value instanceof RegExp) return String(value);
    if (value instanceof Error) return prefix + errorText(value);
    if (value instanceof Promise) return "Promise { <pending> }";
    if (level > this.depth) {
      return Array.isArray(value) ? "[Array]" : `[${constructorName(value) ?? "Object"}]`;
    }
    this.seen.add(value);
    try {
      return prefix + this.printContainer(value, level);
    } finally {
      this.seen.delete(value);
    }
  }

  private printContainer(value: object, level: number): string {
    if (Array.isArray(value)) {
      const items = this.arrayItems(value, level);
      const extra = this.propertyEntries(value, level, (key) => !isIndex(key));
      return this.wrap("", "[", [...items, ...extra], "]", level);
    }
    if (value instanceof Map) {
      const entries = [...value].map(([k, v]) => `${this.print(k, level + 1, true)} => ${this.print(v, level + 1, true)}`);
      return this.wrap(`Map(${value.size}) `, "{", entries, "}", level);
    }
    if (value instanceof Set) {
      const entries = [...value].map((v) => this.print(v, level + 1, true));
      return this.wrap(`Set(${value.size}) `, "{", entries, "}", level);
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const items = Array.from(value as unknown as ArrayLike<number>, (n) => String(n));
      return this.wrap(`${constructorName(value)}(${items.length}) `, "[", items, "]", level);
    }
    const boxed = boxedPrimitive(value);
    if (boxed !== undefined) {
      const shown = `[${boxed.kind}: ${this.print(boxed.primitive, level + 1, true)}]`;
      const own = this.propertyEntries(value, level, (key) => !(boxed.kind === "String" && isIndex(key)));
      return own.length === 0 ? shown : this.wrap(`${shown} `, "{", own, "}", level);
    }
    const name = constructorName(value);
    // A `Symbol.toStringTag` other than the constructor's name shows beside it, as in Node: `Object [Generator] {}`.
    const tag: unknown = Reflect.get(value, Symbol.toStringTag);
    const tagged = typeof tag === "string" && tag !== "" && tag !== name ? ` [${tag}]` : "";
    const label = name === "Object" && !tagged ? "" : `${name ?? "[Object: null prototype]"}${tagged} `;
    return this.wrap(label, "{", this.propertyEntries(value, level, () => true), "}", level);
  }

  /** Items of an array, with each run of holes shown as Node does (`<2 empty items>`). */
  private arrayItems(array: readonly unknown[], level: number): string[] {
    const items: string[] = [];
    let holes = 0;
    const flush = (): void => {
      if (holes > 0) items.push(`<${holes} empty item${holes === 1 ? "" : "s"}>`);
      holes = 0;
    };
    for (let index = 0; index < array.length; index++) {
      if (!Object.prototype.hasOwnProperty.call(array, index)) {
        holes++;
        continue;
      }
      flush();
      items.push(this.print(array[index], level + 1, true));
    }
    flush();
    return items;
  }

  private propertyEntries(value: object, level: number, keep: (key: string) => boolean): string[] {
    return Object.keys(value)
      .filter(keep)
      .map((key) => `${propertyKey(key)}: ${this.print((value as Record<string, unknown>)[key], level + 1, true)}`);
  }

  private wrap(label: string, open: string, entries: string[], close: string, level: number): string {
    if (entries.length === 0) return `${label}${open}${close}`;
    const oneLine = `${label}${open} ${entries.join(", ")} ${close}`;
    if (oneLine.length + level * 2 <= LINE_WIDTH && !entries.some((e) => e.includes("\n"))) return oneLine;
    const indent = "  ".repeat(level + 1);
    return `${label}${open}\n${entries.map((e) => indent + e).join(",\n")}\n${"  ".repeat(level)}${close}`;
  }
}

/** A `new String(...)`, `Object(1n)` and the like: its kind and the primitive it holds. */
function boxedPrimitive(value: object): { kind: string; primitive: unknown } | undefined {
  const boxes: [string, { prototype: { valueOf(): unknown } }][] = [
    ["String", String],
    ["Number", Number],
    ["Boolean", Boolean],
    ["Symbol", Symbol],
    ["BigInt", BigInt],
  ];
  for (const [kind, box] of boxes) {
    try {
      return { kind, primitive: box.prototype.valueOf.call(value) };
    } catch {
      // Not this kind of box: valueOf refuses any other object.
    }
  }
  return undefined;
}

function childValues(value: object): unknown[] {
  if (value instanceof Map) return [...value.keys(), ...value.values()];
  if (value instanceof Set) return [...value];
  if (value instanceof Date || value instanceof RegExp || value instanceof Error) return [];
  if (ArrayBuffer.isView(value)) return [];
  return Object.keys(value).map((key) => (value as Record<string, unknown>)[key]);
}

function constructorName(value: object): string | undefined {
  const proto = Object.getPrototypeOf(value);
  if (proto === null) return undefined;
  const ctor = proto.constructor;
  return typeof ctor === "function" && ctor.name ? ctor.name : "Object";
}

function functionLabel(fn: Function): string {
  const isClass = /^class[\s{]/.test(Function.prototype.toString.call(fn));
  if (isClass) return `[class ${fn.name || "(anonymous)"}]`;
  return fn.name ? `[Function: ${fn.name}]` : "[Function (anonymous)]";
}

function errorText(error: Error): string {
  const stack = typeof error.stack === "string" ? error.stack : "";
  const head = `${error.name}: ${error.message}`;
  return stack.startsWith(head) ? stack.trimEnd() : stack ? `${head}\n${stack.trimEnd()}` : head;
}

function quote(text: string): string {
  const q = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = q;
  for (const c of text) {
    if (c === q || c === "\\") out += "\\" + c;
    else if (c === "\n") out += "\\n";
    else if (c === "\t") out += "\\t";
    else if (c === "\r") out += "\\r";
    else out += c;
  }
  return out + q;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : quote(key);
}

function isIndex(key: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(key);
}
