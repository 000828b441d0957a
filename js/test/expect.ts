// js/test/expect.ts — `expect` for the `bun:test` module (alias `awf:test`).
//
// Owns the matchers and their `.not` / `.resolves` / `.rejects` forms, the equality they
// share (jest's `equals` with iterable equality, bent where bun differs, since test files are
// written against bun), the asymmetric matchers (`expect.any`, `expect.stringContaining`, ...),
// the value printer used in failure messages, and the line diff. It neither runs tests nor
// prints: a failed matcher throws `AssertionError`, whose `matcherResult` the runner
// (bun_test.ts) turns into a reported failure. Pure ES2023: it runs on QuickJS as on node.

// ---------------------------------------------------------------------------------------------
// Asymmetric matchers: values that stand in an expected value and decide for themselves.

/** Base of `expect.any(...)`, `expect.stringContaining(...)` and the others; equality asks it. */
export abstract class AsymmetricMatcher {
  /** True for the `expect.not.*` forms, which match what the plain form does not. */
  readonly inverse: boolean;
  constructor(inverse = false) {
    this.inverse = inverse;
  }
  abstract asymmetricMatch(other: unknown): boolean;
  /** How the printer names it, e.g. `StringContaining`; the sample, if any, follows. */
  abstract label(): string;
  /** What the printer shows after the label (a string, a pattern, an object); none by default. */
  sample(): { value: unknown } | undefined {
    return undefined;
  }
  protected decide(matched: boolean): boolean {
    return this.inverse ? !matched : matched;
  }
  protected named(base: string): string {
    return this.inverse ? base.replace(/^(String|Object|Array)/, "$1Not") : base;
  }
}

class AnyOf extends AsymmetricMatcher {
  private readonly type: Function;
  constructor(type: Function) {
    super();
    this.type = type;
  }
  asymmetricMatch(other: unknown): boolean {
    return matchesType(other, this.type);
  }
  label(): string {
    return `Any<${this.type.name || "anonymous"}>`;
  }
}

/** jest's `expect.any`: primitives match their wrapper's constructor; `Object` matches any object, null too. */
function matchesType(value: unknown, type: Function): boolean {
  switch (type) {
    case String:
      return typeof value === "string" || value instanceof String;
    case Number:
      return typeof value === "number" || value instanceof Number;
    case Boolean:
      return typeof value === "boolean" || value instanceof Boolean;
    case BigInt:
      return typeof value === "bigint";
    case Symbol:
      return typeof value === "symbol";
    case Function:
      return typeof value === "function";
    case Object:
      return typeof value === "object";
    default:
      return value instanceof type;
  }
}

class Anything extends AsymmetricMatcher {
  asymmetricMatch(other: unknown): boolean {
    return other !== null && other !== undefined;
  }
  label(): string {
    return "Anything";
  }
}

class StringContaining extends AsymmetricMatcher {
  private readonly substring: string;
  constructor(substring: string, inverse: boolean) {
    super(inverse);
    this.substring = substring;
  }
  asymmetricMatch(other: unknown): boolean {
    return this.decide(typeof other === "string" && other.includes(this.substring));
  }
  label(): string {
    return this.named("StringContaining");
  }
  override sample(): { value: unknown } {
    return { value: this.substring };
  }
}

/** A string pattern is matched as a plain substring, as bun does (jest would make a RegExp of it). */
class StringMatching extends AsymmetricMatcher {
  private readonly pattern: string | RegExp;
  constructor(pattern: string | RegExp, inverse: boolean) {
    super(inverse);
    this.pattern = pattern;
  }
  asymmetricMatch(other: unknown): boolean {
    if (typeof other !== "string") return this.decide(false);
    const pattern = this.pattern;
    return this.decide(typeof pattern === "string" ? other.includes(pattern) : freshRegExp(pattern).test(other));
  }
  label(): string {
    return this.named("StringMatching");
  }
  override sample(): { value: unknown } {
    return { value: this.pattern };
  }
}

class ObjectContaining extends AsymmetricMatcher {
  private readonly properties: object;
  constructor(properties: object, inverse: boolean) {
    super(inverse);
    this.properties = properties;
  }
  asymmetricMatch(other: unknown): boolean {
    const matched = ownEnumerableKeys(this.properties).every(
      (key) => hasProperty(other, key) && equals(Reflect.get(other as object, key), Reflect.get(this.properties, key)),
    );
    return this.decide(matched);
  }
  label(): string {
    return this.named("ObjectContaining");
  }
  override sample(): { value: unknown } {
    return { value: this.properties };
  }
}

/** Received must be an array (bun refuses strings and other array-likes) holding every sample item. */
class ArrayContaining extends AsymmetricMatcher {
  private readonly items: readonly unknown[];
  constructor(items: readonly unknown[], inverse: boolean) {
    super(inverse);
    this.items = items;
  }
  asymmetricMatch(other: unknown): boolean {
    const matched = Array.isArray(other) && this.items.every((item) => other.some((candidate) => equals(candidate, item)));
    return this.decide(matched);
  }
  label(): string {
    return this.named("ArrayContaining");
  }
  override sample(): { value: unknown } {
    return { value: this.items };
  }
}

/** A copy, so a `g` or `y` flag's `lastIndex` never makes one check depend on the one before. */
function freshRegExp(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags);
}

// ---------------------------------------------------------------------------------------------
// Equality.

export interface EqualityOptions {
  /** toStrictEqual: `undefined` properties count, holes differ from `undefined`, classes must match. */
  strict?: boolean;
  /** toMatchObject: every property of `expected`, recursively, must be on `received`; extra ones are fine. */
  subset?: boolean;
}

interface EqualityState {
  readonly strict: boolean;
  readonly subset: boolean;
  /** The objects being compared on each side, outermost first: a cycle is equal when both sides close it at once. */
  readonly receivedPath: unknown[];
  readonly expectedPath: unknown[];
}

/**
 * Deep equality as `toEqual` (default), `toStrictEqual` (`strict`) or `toMatchObject` (`subset`)
 * judge it: jest's `equals` with its iterable equality, and bun's rules where the two differ
 * (Errors compare name, message, cause and own properties; a non-strict array compare treats
 * missing trailing items as `undefined`; a null prototype counts as `Object` in strict mode).
 */
export function equals(received: unknown, expected: unknown, options: EqualityOptions = {}): boolean {
  const state: EqualityState = {
    strict: options.strict ?? false,
    subset: options.subset ?? false,
    receivedPath: [],
    expectedPath: [],
  };
  return eq(received, expected, state);
}

function eq(a: unknown, b: unknown, state: EqualityState): boolean {
  const asymmetric = asymmetricVerdict(a, b);
  if (asymmetric !== undefined) return asymmetric;
  if (Object.is(a, b)) return true;
  if (!isObject(a) || !isObject(b)) return false;

  // A cycle: equal when both sides loop back to the same depth.
  const depth = state.receivedPath.lastIndexOf(a);
  if (depth !== -1) return state.expectedPath[depth] === b;

  state.receivedPath.push(a);
  state.expectedPath.push(b);
  try {
    return objectsEqual(a, b, state);
  } finally {
    state.receivedPath.pop();
    state.expectedPath.pop();
  }
}

function asymmetricVerdict(a: unknown, b: unknown): boolean | undefined {
  const aIs = a instanceof AsymmetricMatcher;
  const bIs = b instanceof AsymmetricMatcher;
  if (aIs === bIs) return undefined;
  return aIs ? a.asymmetricMatch(b) : (b as AsymmetricMatcher).asymmetricMatch(a);
}

function objectsEqual(a: object, b: object, state: EqualityState): boolean {
  if (isIterableCollection(a) && isIterableCollection(b)) return iterablesEqual(a, b, state);
  if (state.subset && isObjectWithKeys(b)) return subsetEqual(a, b, state);

  const tag = typeTag(a);
  if (tag !== typeTag(b)) return false;
  if (state.strict && !sameType(a, b)) return false;

  switch (tag) {
    case "[object Boolean]":
    case "[object Number]":
    case "[object String]":
      return Object.is((a as { valueOf(): unknown }).valueOf(), (b as { valueOf(): unknown }).valueOf());
    case "[object Date]":
      return (a as Date).getTime() === (b as Date).getTime(); // two invalid dates differ, as in jest and bun
    case "[object RegExp]":
      return (a as RegExp).source === (b as RegExp).source && (a as RegExp).flags === (b as RegExp).flags;
    case "[object ArrayBuffer]":
      return bytesEqual(new Uint8Array(a as ArrayBuffer), new Uint8Array(b as ArrayBuffer));
    case "[object DataView]":
      return bytesEqual(viewBytes(a as DataView), viewBytes(b as DataView));
    case "[object Error]":
      if (!errorsAlike(a as Error, b as Error, state)) return false;
      break;
  }
  if (Array.isArray(a) && Array.isArray(b) && !state.strict) return looseArraysEqual(a, b, state);
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return false;
  return ownPropertiesEqual(a, b, state);
}

/** Errors: same name and message, and the same cause when either has one; own properties follow. */
function errorsAlike(a: Error, b: Error, state: EqualityState): boolean {
  if (a.name !== b.name || a.message !== b.message) return false;
  if (!("cause" in a) && !("cause" in b)) return true;
  return eq(a.cause, b.cause, state);
}

/** bun's toEqual on arrays: item by item up to the longer length, so a missing item equals `undefined`. */
function looseArraysEqual(a: unknown[], b: unknown[], state: EqualityState): boolean {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    if (!eq(a[index], b[index], state)) return false;
  }
  return true;
}

/** Own enumerable keys (strings and symbols); outside strict mode a key holding `undefined` is as good as absent. */
function ownPropertiesEqual(a: object, b: object, state: EqualityState): boolean {
  const aKeys = comparedKeys(a, state.strict);
  const bKeys = comparedKeys(b, state.strict);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && eq(Reflect.get(a, key), Reflect.get(b, key), state));
}

function comparedKeys(value: object, strict: boolean): PropertyKey[] {
  const keys = ownEnumerableKeys(value);
  return strict ? keys : keys.filter((key) => Reflect.get(value, key) !== undefined);
}

/** toMatchObject: each property of the expected subset is on received (own or inherited) and matches. */
function subsetEqual(received: object, subset: object, state: EqualityState): boolean {
  return ownEnumerableKeys(subset).every(
    (key) => hasProperty(received, key) && eq(Reflect.get(received, key), Reflect.get(subset, key), state),
  );
}

/**
 * Maps and Sets match whatever the order; other iterables (typed arrays, custom ones) item by item.
 * As in jest and bun, each received item needs an equal expected one, not the other way round:
 * with equal sizes, `Set [{a:1}, {a:1}]` (two objects) equals `Set [{a:1}, {a:2}]`.
 */
function iterablesEqual(a: object, b: object, state: EqualityState): boolean {
  if (a.constructor !== b.constructor) return false;
  if (a instanceof Set && b instanceof Set) return a.size === b.size && setCovers(a, b, state);
  if (a instanceof Map && b instanceof Map) return a.size === b.size && mapCovers(a, b, state);
  const aItems = Array.from(a as Iterable<unknown>);
  const bItems = Array.from(b as Iterable<unknown>);
  return aItems.length === bItems.length && aItems.every((item, index) => eq(item, bItems[index], state));
}

function setCovers(from: Set<unknown>, into: Set<unknown>, state: EqualityState): boolean {
  for (const item of from) {
    if (into.has(item)) continue;
    let found = false;
    for (const candidate of into) {
      if (eq(item, candidate, state)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

function mapCovers(from: Map<unknown, unknown>, into: Map<unknown, unknown>, state: EqualityState): boolean {
  for (const [key, value] of from) {
    if (into.has(key) && eq(value, into.get(key), state)) continue;
    let found = false;
    for (const [candidateKey, candidateValue] of into) {
      if (eq(key, candidateKey, state) && eq(value, candidateValue, state)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

/** toStrictEqual's class check; a null prototype counts as Object, as bun has it. */
function sameType(a: object, b: object): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return true;
  return constructorOf(a) === constructorOf(b);
}

function constructorOf(value: object): unknown {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === null) return Object;
  return (prototype as { constructor?: unknown }).constructor;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function viewBytes(view: DataView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function isIterableCollection(value: object): boolean {
  return !Array.isArray(value) && typeof Reflect.get(value, Symbol.iterator) === "function";
}

/** What toMatchObject treats as a bag of properties (jest's isObjectWithKeys, plus RegExp). */
function isObjectWithKeys(value: unknown): value is object {
  return isObject(value) && !Array.isArray(value) && !(value instanceof Error) && !(value instanceof Date) && !(value instanceof RegExp);
}

function typeTag(value: object): string {
  return Object.prototype.toString.call(value);
}

function ownEnumerableKeys(value: object): PropertyKey[] {
  const keys: PropertyKey[] = Object.keys(value);
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.prototype.propertyIsEnumerable.call(value, symbol)) keys.push(symbol);
  }
  return keys;
}

function hasProperty(value: unknown, key: PropertyKey): boolean {
  return (isObject(value) || typeof value === "function") && key in (value as object);
}

// ---------------------------------------------------------------------------------------------
// Printing values for failure messages.

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

function constructorName(value: object): string {
  const constructor = constructorOf(value);
  return typeof constructor === "function" && constructor.name ? constructor.name : "Object";
}

function boxedPrimitive(value: object): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Line diff of two printed values.

type DiffOp = " " | "-" | "+";
interface DiffLine {
  readonly op: DiffOp;
  readonly text: string;
}

/** Past this many LCS cells the middle of a diff is shown as all removed then all added. */
const MAX_DIFF_CELLS = 4_000_000;

/**
 * `- ` lines only in `expected`, `+ ` lines only in `received`, `  ` lines in both; then a
 * blank line and the counts (`- Expected  - 1` / `+ Received  + 1`), the way bun prints them.
 */
export function diff(expected: string, received: string): string {
  const lines = diffLines(expected.split("\n"), received.split("\n"));
  const removed = lines.filter((line) => line.op === "-").length;
  const added = lines.filter((line) => line.op === "+").length;
  const body = lines.map((line) => `${line.op} ${line.text}`).join("\n");
  return `${body}\n\n- Expected  - ${removed}\n+ Received  + ${added}`;
}

function diffLines(expected: readonly string[], received: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < expected.length && head < received.length && expected[head] === received[head]) head++;
  let tail = 0;
  while (
    tail < expected.length - head &&
    tail < received.length - head &&
    expected[expected.length - 1 - tail] === received[received.length - 1 - tail]
  ) {
    tail++;
  }
  const middle = middleDiff(expected.slice(head, expected.length - tail), received.slice(head, received.length - tail));
  const same = (text: string): DiffLine => ({ op: " ", text });
  return [...expected.slice(0, head).map(same), ...removalsFirst(middle), ...expected.slice(expected.length - tail).map(same)];
}

/** Longest common subsequence over lines; each change run is later printed removals first. */
function middleDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  if (a.length * b.length > MAX_DIFF_CELLS) {
    return [...a.map((text): DiffLine => ({ op: "-", text })), ...b.map((text): DiffLine => ({ op: "+", text }))];
  }
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width); // common[i*width+j]: LCS length of a[i..] and b[j..]
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] =
        a[i] === b[j] ? common[(i + 1) * width + j + 1]! + 1 : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ op: " ", text: a[i++]! });
      j++;
    } else if (common[(i + 1) * width + j]! >= common[i * width + j + 1]!) {
      lines.push({ op: "-", text: a[i++]! });
    } else {
      lines.push({ op: "+", text: b[j++]! });
    }
  }
  while (i < a.length) lines.push({ op: "-", text: a[i++]! });
  while (j < b.length) lines.push({ op: "+", text: b[j++]! });
  return lines;
}

function removalsFirst(lines: DiffLine[]): DiffLine[] {
  const ordered: DiffLine[] = [];
  let run: DiffLine[] = [];
  const flush = (): void => {
    ordered.push(...run.filter((line) => line.op === "-"), ...run.filter((line) => line.op === "+"));
    run = [];
  };
  for (const line of lines) {
    if (line.op === " ") {
      flush();
      ordered.push(line);
    } else {
      run.push(line);
    }
  }
  flush();
  return ordered;
}

// ---------------------------------------------------------------------------------------------
// Showing expected against received.

/**
 * The body of a failure comparing two values: a line diff when both are objects (or
 * multi-line strings), otherwise `Expected:` / `Received:` lines. Asymmetric matchers that
 * matched are shown as the received value, so only real differences get `-`/`+` marks.
 */
export function comparison(expected: unknown, received: unknown): string {
  if (typeof expected === "string" && typeof received === "string") {
    if (expected.includes("\n") || received.includes("\n")) return diff(format(expected), format(received));
    return expectedReceived(expected, received);
  }
  if (isDiffable(expected) && isDiffable(received)) {
    const printedExpected = format(alignExpected(expected, received, new Set()), { expand: true });
    const printedReceived = format(received, { expand: true });
    if (printedExpected !== printedReceived) return diff(printedExpected, printedReceived);
    return `Expected: ${format(expected)}\nReceived: serializes to the same string`;
  }
  return expectedReceived(expected, received);
}

function expectedReceived(expected: unknown, received: unknown): string {
  return `Expected: ${format(expected)}\nReceived: ${format(received)}`;
}

function isDiffable(value: unknown): value is object {
  return (
    isObject(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !(value instanceof Error) &&
    !(value instanceof AsymmetricMatcher) &&
    boxedPrimitive(value) === undefined
  );
}

/** A copy of `expected` where each asymmetric matcher that matches is replaced by what it matched. */
function alignExpected(expected: unknown, received: unknown, visiting: Set<object>): unknown {
  if (expected instanceof AsymmetricMatcher) return expected.asymmetricMatch(received) ? received : expected;
  if (!isObject(expected) || !isObject(received) || visiting.has(expected)) return expected;
  visiting.add(expected);
  try {
    if (Array.isArray(expected) && Array.isArray(received)) {
      return expected.map((item, index) => (index < received.length ? alignExpected(item, received[index], visiting) : item));
    }
    if (!isPlainObject(expected)) return expected;
    const aligned: object = Object.create(Object.getPrototypeOf(expected) as object | null);
    for (const key of ownEnumerableKeys(expected)) {
      const item: unknown = Reflect.get(expected, key);
      Reflect.set(aligned, key, Object.prototype.hasOwnProperty.call(received, key) ? alignExpected(item, Reflect.get(received, key), visiting) : item);
    }
    return aligned;
  } finally {
    visiting.delete(expected);
  }
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/** For a toMatchObject diff: received cut down to the properties `expected` names (jest's getObjectSubset). */
function matchedPart(received: unknown, expected: unknown, visiting: Set<object>): unknown {
  if (Array.isArray(received) && Array.isArray(expected) && received.length === expected.length) {
    return received.map((item, index) => matchedPart(item, expected[index], visiting));
  }
  if (!isObjectWithKeys(received) || !isObjectWithKeys(expected) || visiting.has(received)) return received;
  if (equals(received, expected, { subset: true })) return expected;
  visiting.add(received);
  try {
    const trimmed: Record<PropertyKey, unknown> = {};
    for (const key of ownEnumerableKeys(received)) {
      if (hasProperty(expected, key)) trimmed[key] = matchedPart(Reflect.get(received, key), Reflect.get(expected, key), visiting);
    }
    return ownEnumerableKeys(trimmed).length > 0 ? trimmed : received;
  } finally {
    visiting.delete(received);
  }
}

// ---------------------------------------------------------------------------------------------
// Failures.

/** What a failed matcher tells the runner; `headline` and `details` together make the message. */
export interface MatcherResult {
  /** The matcher's name, e.g. `toEqual`. */
  readonly matcher: string;
  /** What the matcher found before `.not` was applied. */
  readonly pass: boolean;
  /** e.g. `expect(received).not.toEqual(expected)`. */
  readonly headline: string;
  /** Expected/Received lines or a line diff; empty when there is nothing more to say. */
  readonly details: string;
  readonly received: unknown;
}

/** Thrown by a failed matcher; bun's JUnit reports use the same name. */
export class AssertionError extends Error {
  override name = "AssertionError";
  readonly matcherResult: MatcherResult;
  constructor(matcherResult: MatcherResult) {
    super(matcherResult.details ? `${matcherResult.headline}\n\n${matcherResult.details}` : matcherResult.headline);
    this.matcherResult = matcherResult;
  }
}

/** Thrown by a judge when the matcher cannot apply (e.g. toHaveLength on a number); fails even under `.not`. */
class MatcherUsageError extends Error {}

interface Verdict {
  readonly pass: boolean;
  /** The failure's body, built only when the expectation fails. */
  details(negated: boolean): string;
}

interface Flags {
  readonly negated: boolean;
  readonly promise: "" | "resolves" | "rejects";
}

/** Decides one matcher for a received value (already settled, for `.resolves` / `.rejects`). */
type Judge = (received: unknown, flags: Flags) => Verdict;

function headlineOf(flags: Flags, matcher: string, signature: string): string {
  const promise = flags.promise ? `.${flags.promise}` : "";
  return `expect(received)${promise}${flags.negated ? ".not" : ""}.${matcher}(${signature})`;
}

function settleNow(flags: Flags, received: unknown, matcher: string, signature: string, judge: Judge): void {
  const headline = headlineOf(flags, matcher, signature);
  let verdict: Verdict;
  try {
    verdict = judge(received, flags);
  } catch (error) {
    if (!(error instanceof MatcherUsageError)) throw error;
    throw new AssertionError({ matcher, pass: false, headline, details: error.message, received });
  }
  if (verdict.pass !== flags.negated) return;
  throw new AssertionError({ matcher, pass: verdict.pass, headline, details: verdict.details(flags.negated), received });
}

type PromiseOutcome = { readonly resolved: true; readonly value: unknown } | { readonly resolved: false; readonly reason: unknown };

/** `.resolves` / `.rejects`: waits for the promise, then judges its value or its reason. */
function settleLater(flags: Flags, received: unknown, matcher: string, signature: string, judge: Judge): Promise<void> {
  // Made now, while the test's own line is on the stack; an error made after the await would not show it.
  const callSite = new Error();
  const headline = headlineOf(flags, matcher, signature);
  const pointAtCaller = (error: unknown): never => {
    if (error instanceof AssertionError && callSite.stack) {
      Object.defineProperty(error, "stack", { value: callSite.stack, writable: true, configurable: true });
    }
    throw error;
  };
  // bun takes a promise only; jest would also call a function for one.
  const promise = received;
  if (!isThenable(promise)) {
    const details = `Expected promise\nReceived: ${format(received)}`;
    return Promise.reject(new AssertionError({ matcher, pass: false, headline, details, received })).catch(pointAtCaller);
  }
  return Promise.resolve(promise)
    .then(
      (value): PromiseOutcome => ({ resolved: true, value }),
      (reason: unknown): PromiseOutcome => ({ resolved: false, reason }),
    )
    .then((outcome) => {
      if (flags.promise === "resolves" && !outcome.resolved) {
        const details = `Received promise rejected instead of resolved\nRejected to value: ${format(outcome.reason)}`;
        throw new AssertionError({ matcher, pass: false, headline, details, received });
      }
      if (flags.promise === "rejects" && outcome.resolved) {
        const details = `Received promise resolved instead of rejected\nResolved to value: ${format(outcome.value)}`;
        throw new AssertionError({ matcher, pass: false, headline, details, received });
      }
      settleNow(flags, outcome.resolved ? outcome.value : outcome.reason, matcher, signature, judge);
    })
    .catch(pointAtCaller);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (isObject(value) || typeof value === "function") && typeof Reflect.get(value as object, "then") === "function";
}

// ---------------------------------------------------------------------------------------------
// The judges, one per matcher.

function judgeIdentity(received: unknown, expected: unknown): Verdict {
  return {
    pass: Object.is(received, expected),
    details(negated) {
      if (negated) return `Expected: not ${format(expected)}`;
      if (isObject(received) && equals(received, expected, { strict: true })) {
        return `If this should pass with deep equality, replace "toBe" with "toStrictEqual"\n\nExpected: ${format(expected)}\nReceived: serializes to the same string`;
      }
      return comparison(expected, received);
    },
  };
}

function judgeEquality(received: unknown, expected: unknown, options: EqualityOptions): Verdict {
  return {
    pass: equals(received, expected, options),
    details(negated) {
      if (!negated) return comparison(expected, received);
      const printedExpected = format(expected);
      const printedReceived = format(received);
      return printedExpected === printedReceived
        ? `Expected: not ${printedExpected}`
        : `Expected: not ${printedExpected}\nReceived: ${printedReceived}`;
    },
  };
}

function judgeMatchObject(received: unknown, expected: unknown): Verdict {
  if (!isObject(received) && typeof received !== "function") {
    throw new MatcherUsageError(`Received value must be a non-null object\n\nReceived: ${format(received)}`);
  }
  if (!isObject(expected)) throw new MatcherUsageError(`Expected value must be a non-null object\n\nExpected: ${format(expected)}`);
  return {
    pass: equals(received, expected, { subset: true }),
    details(negated) {
      if (negated) return `Expected: not ${format(expected)}\nReceived: ${format(received)}`;
      return comparison(expected, matchedPart(received, expected, new Set()));
    },
  };
}

function judgeContain(received: unknown, item: unknown, byEquality: boolean): Verdict {
  let pass: boolean;
  if (typeof received === "string" && !byEquality) {
    if (typeof item !== "string") {
      throw new MatcherUsageError(
        `Received value must be an array type, or both received and expected values must be strings.\n\nReceived: ${format(received)}\nExpected: ${format(item)}`,
      );
    }
    pass = received.includes(item);
  } else if (isObject(received) && typeof Reflect.get(received, Symbol.iterator) === "function") {
    const items = Array.from(received as Iterable<unknown>);
    // toContain is `===`, so NaN is never contained (bun and jest agree); toContainEqual is deep.
    pass = items.some((candidate) => (byEquality ? equals(candidate, item) : candidate === item));
  } else {
    throw new MatcherUsageError(`Received value must be an array type, or both received and expected values must be strings.\n\nReceived: ${format(received)}`);
  }
  const what = byEquality ? "contain equal" : "contain";
  return {
    pass,
    details: (negated) => `Expected to ${negated ? "not " : ""}${what}: ${format(item)}\nReceived: ${format(received)}`,
  };
}

function judgeLength(received: unknown, length: unknown): Verdict {
  const actual = received === null || received === undefined ? undefined : Reflect.get(Object(received) as object, "length");
  if (typeof actual !== "number") {
    throw new MatcherUsageError(`Received value does not have a length property: ${format(received)}`);
  }
  if (typeof length !== "number" || !Number.isInteger(length) || length < 0) {
    throw new MatcherUsageError(`Expected value must be a non-negative integer: ${format(length)}`);
  }
  return {
    pass: actual === length,
    details: (negated) =>
      `Expected length: ${negated ? "not " : ""}${length}\nReceived length: ${actual}\nReceived value: ${format(received)}`,
  };
}

/** `"a.b[1].c"` → `["a", "b", "1", "c"]`; an array path is taken as it is. */
function propertyPath(path: unknown): string[] {
  if (Array.isArray(path)) return path.map(String);
  if (typeof path !== "string") throw new MatcherUsageError(`Expected path must be a string or an array: ${format(path)}`);
  if (path === "") return [""];
  const dotted = path.replace(/\[([^\]]*)\]/g, ".$1");
  return (dotted.startsWith(".") ? dotted.slice(1) : dotted).split(".");
}

function judgeProperty(received: unknown, path: unknown, value: { expected: unknown } | undefined): Verdict {
  if (received === null || received === undefined) {
    throw new MatcherUsageError(`Received value must not be null nor undefined\n\nReceived: ${format(received)}`);
  }
  const keys = propertyPath(path);
  let current: unknown = received;
  let reached = 0;
  for (const key of keys) {
    if (current === null || current === undefined || !(key in (Object(current) as object))) break;
    current = Reflect.get(Object(current) as object, key);
    reached++;
  }
  const found = reached === keys.length;
  const shownPath = format(Array.isArray(path) ? keys : path);
  return {
    pass: found && (value === undefined || equals(current, value.expected)),
    details(negated) {
      if (negated) {
        const valuePart = value === undefined ? "" : `\n\nExpected value: not ${format(value.expected)}`;
        return `Expected path: not ${shownPath}${valuePart}\nReceived value: ${format(current)}`;
      }
      if (!found) {
        return `Expected path: ${shownPath}\nReceived path: ${format(keys.slice(0, reached).join("."))}\n\nReceived value: ${format(current)}`;
      }
      return `Expected path: ${shownPath}\n\n${comparison(value?.expected, current)}`;
    },
  };
}

function judgeState(received: unknown, pass: boolean): Verdict {
  return { pass, details: () => `Received: ${format(received)}` };
}

type Comparison = ">" | ">=" | "<" | "<=";

function judgeOrder(received: unknown, expected: unknown, relation: Comparison): Verdict {
  const isNumeric = (value: unknown): value is number | bigint => typeof value === "number" || typeof value === "bigint";
  if (!isNumeric(received) || !isNumeric(expected)) {
    throw new MatcherUsageError(`Expected and actual values must be numbers or bigints\n\nExpected: ${format(expected)}\nReceived: ${format(received)}`);
  }
  const pass =
    relation === ">" ? received > expected : relation === ">=" ? received >= expected : relation === "<" ? received < expected : received <= expected;
  return {
    pass,
    details: (negated) => `Expected: ${negated ? "not " : ""}${relation} ${format(expected)}\nReceived: ${format(received)}`,
  };
}

function judgeCloseTo(received: unknown, expected: unknown, precision: number): Verdict {
  if (typeof received !== "number" || typeof expected !== "number") {
    throw new MatcherUsageError(`Expected and received values must be numbers\n\nExpected: ${format(expected)}\nReceived: ${format(received)}`);
  }
  const allowed = 10 ** -precision / 2;
  const difference = Math.abs(expected - received);
  // Equal infinities are close; any other pair involving one is not (jest's rule).
  const pass = (received === Infinity && expected === Infinity) || (received === -Infinity && expected === -Infinity) || difference < allowed;
  return {
    pass,
    details: (negated) =>
      `Expected: ${negated ? "not " : ""}${format(expected)}\nReceived: ${format(received)}\n\nExpected precision: ${precision}\nExpected difference: ${negated ? ">=" : "<"} ${format(allowed)}\nReceived difference: ${format(difference)}`,
  };
}

function judgeInstance(received: unknown, type: unknown): Verdict {
  if (typeof type !== "function") throw new MatcherUsageError(`Expected value must be a function: ${format(type)}`);
  return {
    pass: received instanceof type,
    details(negated) {
      const receivedType = isObject(received) ? `\nReceived constructor: ${constructorName(received)}` : `\nReceived value: ${format(received)}`;
      return `Expected constructor: ${negated ? "not " : ""}${type.name || "anonymous"}${receivedType}`;
    },
  };
}

function judgeMatch(received: unknown, pattern: unknown): Verdict {
  if (typeof received !== "string") throw new MatcherUsageError(`Received value must be a string: ${format(received)}`);
  if (typeof pattern !== "string" && !(pattern instanceof RegExp)) {
    throw new MatcherUsageError(`Expected value must be a string or a regular expression: ${format(pattern)}`);
  }
  const pass = typeof pattern === "string" ? received.includes(pattern) : freshRegExp(pattern).test(received);
  const kind = typeof pattern === "string" ? "substring" : "pattern";
  return {
    pass,
    details: (negated) => `Expected ${kind}: ${negated ? "not " : ""}${format(pattern)}\nReceived string: ${format(received)}`,
  };
}

/** The text toThrow matches against: an error's message, or the thrown value itself when it has none. */
function thrownMessage(thrown: unknown): string {
  if (isObject(thrown) && "message" in thrown) return String(thrown.message);
  return String(thrown);
}

function judgeThrow(received: unknown, flags: Flags, expected: { value: unknown } | undefined): Verdict {
  let thrown: { value: unknown } | undefined;
  if (flags.promise === "rejects") {
    thrown = { value: received };
  } else {
    if (typeof received !== "function") throw new MatcherUsageError(`Received value must be a function\n\nReceived: ${format(received)}`);
    try {
      received();
    } catch (error) {
      thrown = { value: error };
    }
  }
  const pass = thrown !== undefined && (expected === undefined || thrownMatches(thrown.value, expected.value));
  return {
    pass,
    details(negated) {
      if (thrown === undefined) return "Received function did not throw";
      const message = `Received message: ${format(thrownMessage(thrown.value))}`;
      if (expected === undefined) return `Thrown value: ${format(thrown.value)}`;
      const not = negated ? "not " : "";
      const want = expected.value;
      if (typeof want === "function") return `Expected constructor: ${not}${want.name}\nReceived constructor: ${isObject(thrown.value) ? constructorName(thrown.value) : typeof thrown.value}\n${message}`;
      if (typeof want === "string") return `Expected substring: ${not}${format(want)}\n${message}`;
      if (want instanceof RegExp) return `Expected pattern: ${not}${format(want)}\n${message}`;
      if (want instanceof AsymmetricMatcher) return `Expected asymmetric matcher: ${not}${format(want)}\nThrown value: ${format(thrown.value)}`;
      return `Expected message: ${not}${format(thrownMessage(want))}\n${message}`;
    },
  };
}

function thrownMatches(thrown: unknown, expected: unknown): boolean {
  if (typeof expected === "function") return thrown instanceof expected;
  if (typeof expected === "string") return thrownMessage(thrown).includes(expected);
  if (expected instanceof RegExp) return freshRegExp(expected).test(thrownMessage(thrown));
  if (expected instanceof AsymmetricMatcher) return expected.asymmetricMatch(thrown);
  if (isObject(expected)) return thrownMessage(thrown) === thrownMessage(expected);
  throw new MatcherUsageError(`Expected value must be a string, a regular expression, a class, an error or an object: ${format(expected)}`);
}

// ---------------------------------------------------------------------------------------------
// expect() itself.

/** Runs a judge now (plain `expect`) or once the promise settles (`.resolves` / `.rejects`). */
type Settle<R> = (flags: Flags, received: unknown, matcher: string, signature: string, judge: Judge) => R;

/** What `expect(value)` returns: `void` matchers, or `Promise<void>` ones after `.resolves` / `.rejects`. */
export class Expectation<R extends void | Promise<void>> {
  private readonly received: unknown;
  private readonly flags: Flags;
  private readonly settle: Settle<R>;

  constructor(received: unknown, flags: Flags, settle: Settle<R>) {
    this.received = received;
    this.flags = flags;
    this.settle = settle;
  }

  get not(): Expectation<R> {
    return new Expectation(this.received, { ...this.flags, negated: !this.flags.negated }, this.settle);
  }
  get resolves(): Expectation<Promise<void>> {
    return this.awaiting("resolves");
  }
  get rejects(): Expectation<Promise<void>> {
    return this.awaiting("rejects");
  }

  toBe(expected: unknown): R {
    return this.check("toBe", "expected", (received) => judgeIdentity(received, expected));
  }
  toEqual(expected: unknown): R {
    return this.check("toEqual", "expected", (received) => judgeEquality(received, expected, {}));
  }
  toStrictEqual(expected: unknown): R {
    return this.check("toStrictEqual", "expected", (received) => judgeEquality(received, expected, { strict: true }));
  }
  toMatchObject(expected: unknown): R {
    return this.check("toMatchObject", "expected", (received) => judgeMatchObject(received, expected));
  }
  toContain(item: unknown): R {
    return this.check("toContain", "expected", (received) => judgeContain(received, item, false));
  }
  toContainEqual(item: unknown): R {
    return this.check("toContainEqual", "expected", (received) => judgeContain(received, item, true));
  }
  toHaveLength(length: number): R {
    return this.check("toHaveLength", "expected", (received) => judgeLength(received, length));
  }
  /** A value argument, even `undefined`, is compared; leaving it out only checks the path. */
  toHaveProperty(path: string | readonly (string | number)[], ...value: [] | [unknown]): R {
    const expected = value.length > 0 ? { expected: value[0] } : undefined;
    return this.check("toHaveProperty", expected ? "path, value" : "path", (received) => judgeProperty(received, path, expected));
  }
  toBeDefined(): R {
    return this.check("toBeDefined", "", (received) => judgeState(received, received !== undefined));
  }
  toBeUndefined(): R {
    return this.check("toBeUndefined", "", (received) => judgeState(received, received === undefined));
  }
  toBeNull(): R {
    return this.check("toBeNull", "", (received) => judgeState(received, received === null));
  }
  toBeTruthy(): R {
    return this.check("toBeTruthy", "", (received) => judgeState(received, Boolean(received)));
  }
  toBeFalsy(): R {
    return this.check("toBeFalsy", "", (received) => judgeState(received, !received));
  }
  toBeNaN(): R {
    return this.check("toBeNaN", "", (received) => judgeState(received, typeof received === "number" && Number.isNaN(received)));
  }
  toBeGreaterThan(expected: number | bigint): R {
    return this.check("toBeGreaterThan", "expected", (received) => judgeOrder(received, expected, ">"));
  }
  toBeGreaterThanOrEqual(expected: number | bigint): R {
    return this.check("toBeGreaterThanOrEqual", "expected", (received) => judgeOrder(received, expected, ">="));
  }
  toBeLessThan(expected: number | bigint): R {
    return this.check("toBeLessThan", "expected", (received) => judgeOrder(received, expected, "<"));
  }
  toBeLessThanOrEqual(expected: number | bigint): R {
    return this.check("toBeLessThanOrEqual", "expected", (received) => judgeOrder(received, expected, "<="));
  }
  toBeCloseTo(expected: number, precision = 2): R {
    return this.check("toBeCloseTo", "expected, precision", (received) => judgeCloseTo(received, expected, precision));
  }
  toBeInstanceOf(type: Function): R {
    return this.check("toBeInstanceOf", "expected", (received) => judgeInstance(received, type));
  }
  toMatch(pattern: string | RegExp): R {
    return this.check("toMatch", "expected", (received) => judgeMatch(received, pattern));
  }
  toThrow(...expected: [] | [unknown]): R {
    const wanted = expected.length > 0 && expected[0] !== undefined ? { value: expected[0] } : undefined;
    return this.check("toThrow", wanted ? "expected" : "", (received, flags) => judgeThrow(received, flags, wanted));
  }
  /** bun's alias of toThrow. */
  toThrowError(...expected: [] | [unknown]): R {
    const wanted = expected.length > 0 && expected[0] !== undefined ? { value: expected[0] } : undefined;
    return this.check("toThrowError", wanted ? "expected" : "", (received, flags) => judgeThrow(received, flags, wanted));
  }

  private check(matcher: string, signature: string, judge: Judge): R {
    return this.settle(this.flags, this.received, matcher, signature, judge);
  }

  private awaiting(mode: "resolves" | "rejects"): Expectation<Promise<void>> {
    if (this.flags.promise) throw new TypeError(`expect(): .${mode} cannot follow .${this.flags.promise}`);
    return new Expectation(this.received, { ...this.flags, promise: mode }, settleLater);
  }
}

/** The asymmetric matchers `expect.not` offers. */
export interface InverseAsymmetricMatchers {
  stringContaining(substring: string): AsymmetricMatcher;
  stringMatching(pattern: string | RegExp): AsymmetricMatcher;
  objectContaining(properties: object): AsymmetricMatcher;
  arrayContaining(items: readonly unknown[]): AsymmetricMatcher;
}

export interface Expect extends InverseAsymmetricMatchers {
  (received: unknown): Expectation<void>;
  any(type: Function): AsymmetricMatcher;
  anything(): AsymmetricMatcher;
  readonly not: InverseAsymmetricMatchers;
  /** The current test fails unless exactly `count` expect() calls were made in it. */
  assertions(count: number): void;
  /** The current test fails unless at least one expect() call was made in it. */
  hasAssertions(): void;
  /** Fails the test right here (bun's `expect.unreachable`). */
  unreachable(message?: string): never;
}

/** expect() calls made: in the running test, and in all. */
const counts = { inTest: 0, total: 0, wanted: undefined as number | undefined, wantedAny: false };

function asymmetricMatchers(inverse: boolean): InverseAsymmetricMatchers {
  return {
    stringContaining: (substring) => new StringContaining(requireType(substring, "string", "expect.stringContaining"), inverse),
    stringMatching: (pattern) => new StringMatching(requireStringOrRegExp(pattern), inverse),
    objectContaining: (properties) => new ObjectContaining(requireObject(properties), inverse),
    arrayContaining: (items) => new ArrayContaining(requireArray(items), inverse),
  };
}

function requireType(value: unknown, type: "string", caller: string): string {
  if (typeof value !== type) throw new TypeError(`${caller}() expects a ${type}, got ${format(value)}`);
  return value as string;
}

function requireStringOrRegExp(value: unknown): string | RegExp {
  if (typeof value !== "string" && !(value instanceof RegExp)) {
    throw new TypeError(`expect.stringMatching() expects a string or a RegExp, got ${format(value)}`);
  }
  return value;
}

function requireObject(value: unknown): object {
  if (!isObject(value)) throw new TypeError(`expect.objectContaining() expects an object, got ${format(value)}`);
  return value;
}

function requireArray(value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`expect.arrayContaining() expects an array, got ${format(value)}`);
  return value;
}

function expectValue(received: unknown): Expectation<void> {
  counts.inTest++;
  counts.total++;
  return new Expectation<void>(received, { negated: false, promise: "" }, settleNow);
}

export const expect: Expect = Object.assign(expectValue, {
  ...asymmetricMatchers(false),
  not: asymmetricMatchers(true),
  any(type: Function): AsymmetricMatcher {
    if (typeof type !== "function") throw new TypeError(`expect.any() expects a constructor, like expect.any(Number); got ${format(type)}`);
    return new AnyOf(type);
  },
  anything: (): AsymmetricMatcher => new Anything(),
  assertions(count: number): void {
    counts.wanted = count;
  },
  hasAssertions(): void {
    counts.wantedAny = true;
  },
  unreachable(message?: string): never {
    throw new AssertionError({ matcher: "unreachable", pass: false, headline: message ?? "reached unreachable code", details: "", received: undefined });
  },
});

/** The runner calls this as each test starts: `expect.assertions` and the per-test count start over. */
export function beginTestAssertions(): void {
  counts.inTest = 0;
  counts.wanted = undefined;
  counts.wantedAny = false;
}

/** The runner calls this after a test body passed: the failure `expect.assertions` / `hasAssertions` asked for, if any. */
export function checkTestAssertions(): AssertionError | undefined {
  const made = counts.inTest;
  const plural = (count: number): string => `${count} assertion${count === 1 ? "" : "s"}`;
  if (counts.wanted !== undefined && made !== counts.wanted) {
    const headline = `expected ${plural(counts.wanted)}, but test ended with ${plural(made)}`;
    return new AssertionError({ matcher: "assertions", pass: false, headline, details: "", received: made });
  }
  if (counts.wantedAny && made === 0) {
    const headline = "expected at least one assertion, but test ended with 0 assertions";
    return new AssertionError({ matcher: "hasAssertions", pass: false, headline, details: "", received: made });
  }
  return undefined;
}

/** expect() calls made so far, in every test (bun's closing "N expect() calls"). */
export function expectCallCount(): number {
  return counts.total;
}

// ---------------------------------------------------------------------------------------------
// Stack frames, kept generic: QuickJS and V8 both write frames as `    at name (file:line:col)`.

/** The frame lines of an `Error#stack` (the `at ...` lines), without the message V8 puts first. */
export function stackFrames(stack: string | undefined): string[] {
  return (stack ?? "").split("\n").filter((line) => /^\s*at\s/.test(line));
}

/** The file a frame names: `    at f (awf:test:1:2)` → `awf:test`; undefined for native frames. */
export function frameFile(frame: string): string | undefined {
  const located = /\(([^()]*):\d+:\d+\)\s*$/.exec(frame) ?? /\bat\s+([^\s()]+):\d+:\d+\s*$/.exec(frame);
  return located?.[1];
}

/** The source file of whoever calls this, read off a fresh stack; undefined where the engine gives none. */
export function callerSourceFile(): string | undefined {
  const frames = stackFrames(new Error().stack);
  const caller = frames[1];
  return caller === undefined ? undefined : frameFile(caller);
}

/** This module's own file, so the runner can drop matcher frames from a failure's stack. */
export const EXPECT_SOURCE_FILE: string | undefined = callerSourceFile();
