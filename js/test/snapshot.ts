// js/test/snapshot.ts — `toMatchSnapshot` and `toThrowErrorMatchingSnapshot` for `awf test`,
// against the test file's `__snapshots__/<file>.snap` as bun keeps it.
//
// Loaded only by a file that uses a snapshot matcher (expect.ts reaches it through
// `builtin_namespace`), so other test files never pay for it. A snapshot is named after its
// test (describe names and its own, joined by spaces), then `: hint`, then its number within
// that name (`adds 1`, `adds 2`). The first time a name is seen its value is written; later it
// must print the same (snapshot/serialize.ts prints as bun). New entries are appended to the
// file's text, which is otherwise kept as it was, as bun does; `--update-snapshots` rewrites the
// file from what the run checked (plus the entries of tests that did not run), and drops
// obsolete ones. In CI (`CI` set, not `false`) a missing snapshot fails instead of being
// written, as in bun. `finish()` writes the file once the file's tests are done, through the
// Rust side (runtime/src/testing/snapshot_file.rs), and gives the counts for the summary.

import * as ops from "awf:ops";
import { registeredTests, runningTestIsConcurrent, runningTestName } from "./registry.ts";
import { diff } from "./expect/diff.ts";
import { equals, isObject } from "./expect/equality.ts";
import { format } from "./expect/format.ts";
import { AssertionError, type Flags, MatcherUsageError, type Verdict } from "./expect/matchers.ts";
import { serialize } from "./snapshot/serialize.ts";
import { type CallSite, InlineSourceError, type InlineWrite, stripAddedIndentation, writeInlineSnapshots } from "./snapshot/inline.ts";
import { entryText, HEADER, parseSnapFile, SnapFileError } from "./snapshot/snap_file.ts";

export interface SnapshotSettings {
  /** Absolute path of the test file. */
  readonly file: string;
  /** `--update-snapshots`: write every checked value, whatever the file held. */
  readonly update: boolean;
  /** A CI run: a snapshot that is missing fails rather than being written. */
  readonly ci: boolean;
}

/** What the summary shows, added up over the run's files. */
export interface SnapshotCounts {
  /** Snapshot matcher calls that reached the file (bun's "N snapshots"). */
  readonly total: number;
  readonly passed: number;
  readonly added: number;
  /** Rewritten by `--update-snapshots` because they differed. */
  readonly updated: number;
  readonly failed: number;
  /** In the file, but no test checks them any more (their test is gone, or ran and did not). */
  readonly obsolete: number;
  /** Obsolete ones `--update-snapshots` took out of the file. */
  readonly removed: number;
}

interface Store {
  readonly path: string;
  /** The file as it was read; null when there was none. */
  readonly original: string | null;
  /** What the file held, by key (`name N`), in file order. */
  readonly stored: Map<string, string>;
  /** What this run checked, by key, in the order it did: the file `--update-snapshots` writes. */
  readonly checked: Map<string, string>;
  /** How many snapshots each name has had in this run. */
  readonly counters: Map<string, number>;
  /** Entries added this run, as text appended to the file. */
  appended: string;
  counts: { total: number; passed: number; added: number; updated: number; failed: number };
}

let settings: SnapshotSettings | undefined;
let store: Store | undefined;
/** The inline snapshots of the file: what to write into it, by call site, and their counts. */
let inline: { writes: Map<string, InlineWrite>; counts: Store["counts"] } | undefined;

function freshCounts(): Store["counts"] {
  return { total: 0, passed: 0, added: 0, updated: 0, failed: 0 };
}

export function init(given: SnapshotSettings): void {
  settings = given;
}

/** The judge of `expect(value).toMatchSnapshot(propertyMatchers?, hint?)`. */
export function matchSnapshot(received: unknown, flags: Flags, args: readonly unknown[]): Verdict {
  refuseNot(flags, "toMatchSnapshot");
  const { properties, hint } = snapshotArguments(args);
  return check(withPropertyMatchers(received, properties, "toMatchSnapshot"), hint);
}

/** The judge of `expect(value).toMatchInlineSnapshot(propertyMatchers?, snapshot?)`, called at `site` in the test file. */
export function matchInlineSnapshot(received: unknown, flags: Flags, args: readonly unknown[], site: CallSite | undefined): Verdict {
  refuseNot(flags, "toMatchInlineSnapshot");
  const { properties, snapshot } = inlineArguments(args);
  const value = withPropertyMatchers(received, properties, "toMatchInlineSnapshot");
  return checkInline(serialize(value), snapshot, { matcher: "toMatchInlineSnapshot", site, hasProperties: properties !== undefined });
}

/** The value the snapshot holds: `received`, with the properties the matchers name shown as the matchers, once they match. */
function withPropertyMatchers(received: unknown, properties: object | undefined, matcher: string): unknown {
  if (properties === undefined) return received;
  if (!isObject(received)) throw new MatcherUsageError("Matcher error: received values must be an object when the matcher has properties");
  if (!equals(received, properties, { subset: true })) {
    const headline = `expect(received).${matcher}(propertyMatchers)`;
    const details = `Expected propertyMatchers to match properties from received object\n\nReceived: ${format(received)}`;
    throw new AssertionError({ matcher, pass: false, headline, details, received });
  }
  return withMatchers(received, properties);
}

/** The judge of `expect(fn).toThrowErrorMatchingSnapshot(hint?)`: the message of what `fn` throws (or the promise rejects with). */
export function matchThrownSnapshot(received: unknown, flags: Flags, hint: unknown): Verdict {
  refuseNot(flags, "toThrowErrorMatchingSnapshot");
  if (hint !== undefined && typeof hint !== "string") throw new MatcherUsageError("Matcher error: Expected the hint to be a string");
  const thrown = thrownMessage(received, flags);
  if (thrown === undefined) return { pass: false, details: () => "Received function did not throw" };
  return check(thrown.message, hint ?? "");
}

/** The judge of `expect(fn).toThrowErrorMatchingInlineSnapshot(snapshot?)`. */
export function matchThrownInlineSnapshot(received: unknown, flags: Flags, args: readonly unknown[], site: CallSite | undefined): Verdict {
  refuseNot(flags, "toThrowErrorMatchingInlineSnapshot");
  const snapshot = args[0];
  if (snapshot !== undefined && typeof snapshot !== "string") throw new MatcherUsageError("Matcher error: Expected the inline snapshot to be a string");
  const thrown = thrownMessage(received, flags);
  if (thrown === undefined) return { pass: false, details: () => "Received function did not throw" };
  return checkInline(serialize(thrown.message), snapshot, { matcher: "toThrowErrorMatchingInlineSnapshot", site, hasProperties: false });
}

/**
 * What a thrown-error snapshot holds: the message of what the function throws (or the promise
 * rejects with); bun snapshots `undefined` for anything else thrown, or an empty message.
 * Undefined when nothing was thrown.
 */
function thrownMessage(received: unknown, flags: Flags): { message: string | undefined } | undefined {
  let thrown: { value: unknown } | undefined;
  if (flags.promise === "rejects") thrown = { value: received };
  else if (flags.promise === "resolves") thrown = undefined;
  else if (typeof received !== "function") throw new MatcherUsageError(`Matcher error: received value must be a function\n\nReceived: ${format(received)}`);
  else {
    try {
      (received as () => unknown)();
    } catch (error) {
      thrown = { value: error };
    }
  }
  if (thrown === undefined) return undefined;
  const error = thrown.value;
  return { message: error instanceof Error && error.message ? error.message : undefined };
}

function refuseNot(flags: Flags, matcher: string): void {
  if (flags.negated) throw new MatcherUsageError(`Matcher error: Snapshot matchers cannot be used with not (${matcher})`);
}

function snapshotArguments(args: readonly unknown[]): { properties: object | undefined; hint: string } {
  if (args.length === 0) return { properties: undefined, hint: "" };
  const [first, second] = args;
  if (args.length === 1) {
    if (typeof first === "string") return { properties: undefined, hint: first };
    if (isObject(first)) return { properties: first, hint: "" };
    throw new MatcherUsageError(`Matcher error: Expected first argument to be a string or object, got ${format(first)}`);
  }
  if (!isObject(first)) throw new MatcherUsageError(`Matcher error: Expected properties must be an object, got ${format(first)}`);
  if (typeof second !== "string") throw new MatcherUsageError(`Matcher error: Expected second argument to be a string, got ${format(second)}`);
  return { properties: first, hint: second };
}

function inlineArguments(args: readonly unknown[]): { properties: object | undefined; snapshot: string | undefined } {
  const [first, second] = args;
  if (args.length === 0 || (args.length === 1 && first === undefined)) return { properties: undefined, snapshot: undefined };
  if (args.length === 1 && typeof first === "string") return { properties: undefined, snapshot: first };
  if (!isObject(first)) throw new MatcherUsageError(`Matcher error: Expected properties must be an object, got ${format(first)}`);
  if (second !== undefined && typeof second !== "string") throw new MatcherUsageError(`Matcher error: Expected the inline snapshot to be a string, got ${format(second)}`);
  return { properties: first, snapshot: second };
}

/** A copy of `received` with each property the matchers name replaced by its matcher (what the snapshot shows). */
function withMatchers(received: object, properties: object): object {
  const copy: object = Array.isArray(received) ? [...received] : Object.create(Object.getPrototypeOf(received) as object | null);
  if (!Array.isArray(received)) Object.defineProperties(copy, Object.getOwnPropertyDescriptors(received));
  for (const key of Reflect.ownKeys(properties)) {
    const matcher: unknown = Reflect.get(properties, key);
    const inner: unknown = Reflect.get(received, key);
    const nested = isPlainObject(matcher) && isObject(inner);
    Reflect.set(copy, key, nested ? withMatchers(inner as object, matcher as object) : matcher);
  }
  return copy;
}

function isPlainObject(value: unknown): value is object {
  if (!isObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/** Records or compares one snapshot of the running test. */
function check(value: unknown, hint: string): Verdict {
  const test = runningTestName();
  if (test === undefined) throw new MatcherUsageError("Matcher error: Snapshot matchers cannot be used outside of a test");
  // As bun: a concurrent test's snapshots would be numbered in whatever order its peers ran.
  if (runningTestIsConcurrent()) throw new Error("Snapshot matchers are not supported in concurrent tests\nhint: make this test serial (`test.serial`, or no `.concurrent`), or compare with toEqual or an inline snapshot");
  const file = openStore();
  const base = hint ? `${test}: ${hint}` : test;
  const number = (file.counters.get(base) ?? 0) + 1;
  file.counters.set(base, number);
  const key = `${base} ${number}`;
  const printed = serialize(value);
  file.counts.total++;
  const existing = file.stored.get(key);
  const update = settings?.update === true;
  if (update) {
    if (existing === undefined) file.counts.added++;
    else if (existing !== printed) file.counts.updated++;
    else file.counts.passed++;
    file.checked.set(key, printed);
    return { pass: true, details: () => "" };
  }
  if (existing !== undefined) {
    file.checked.set(key, existing);
    if (existing === printed) {
      file.counts.passed++;
      return { pass: true, details: () => "" };
    }
    file.counts.failed++;
    return { pass: false, details: () => mismatch(existing, printed) };
  }
  if (settings?.ci) {
    throw new Error(
      `Snapshot creation is disabled in CI environments unless --update-snapshots is used\nTo override, set the environment variable CI=false.\n\nSnapshot name: "${key}"\nReceived: ${printed}`,
    );
  }
  file.counts.added++;
  file.stored.set(key, printed);
  file.checked.set(key, printed);
  file.appended += entryText(key, printed);
  return { pass: true, details: () => "" };
}

/**
 * Compares one inline snapshot (or writes it into the test file when it is missing, or with
 * `--update-snapshots`; in CI a missing one fails). A call that runs more than once (in a loop,
 * `test.each`) is written once, and must give the same value each time.
 */
function checkInline(printed: string, snapshot: string | undefined, call: { matcher: string; site: CallSite | undefined; hasProperties: boolean }): Verdict {
  if (runningTestName() === undefined) throw new MatcherUsageError("Matcher error: Snapshot matchers cannot be used outside of a test");
  const state = (inline ??= { writes: new Map(), counts: freshCounts() });
  state.counts.total++;
  const written = call.site && state.writes.get(`${call.site.line}:${call.site.column}`);
  if (written) {
    if (written.printed === printed) {
      state.counts.passed++;
      return { pass: true, details: () => "" };
    }
    state.counts.failed++;
    return { pass: false, details: () => `this ${call.matcher} call ran before with another value, which awf writes into the file\n\n${mismatch(written.printed, printed)}` };
  }
  const expected = snapshot === undefined ? undefined : stripAddedIndentation(snapshot);
  if (expected === printed) {
    state.counts.passed++;
    return { pass: true, details: () => "" };
  }
  if (expected !== undefined && !settings?.update) {
    state.counts.failed++;
    return { pass: false, details: () => mismatch(expected, printed) };
  }
  if (expected === undefined && settings?.ci && !settings.update) {
    throw new Error(`Snapshot creation is disabled in CI environments unless --update-snapshots is used\nTo override, set the environment variable CI=false.\n\nReceived: ${printed}`);
  }
  if (!call.site) throw new MatcherUsageError(`Matcher error: ${call.matcher} was not called from the test file itself, so awf cannot tell where to write the snapshot`);
  state.writes.set(`${call.site.line}:${call.site.column}`, { site: call.site, matcher: call.matcher, hasProperties: call.hasProperties, printed });
  if (expected === undefined) state.counts.added++;
  else state.counts.updated++;
  return { pass: true, details: () => "" };
}

/** bun's failure body: the two texts as they are when both are one line, else their line diff. */
function mismatch(expected: string, received: string): string {
  if (!expected.includes("\n") && !received.includes("\n")) return `Expected: ${expected}\nReceived: ${received}`;
  return diff(expected, received);
}

function openStore(): Store {
  if (store) return store;
  if (!settings) throw new MatcherUsageError("Matcher error: snapshots work only in test files `awf test` runs");
  const { path, text } = ops.test_snapshot_read(settings.file);
  const stored = new Map<string, string>();
  try {
    for (const entry of parseSnapFile(text ?? "")) stored.set(entry.name, entry.value);
  } catch (error) {
    if (!(error instanceof SnapFileError)) throw error;
    throw new Error(`cannot read the snapshot file ${path}:${error.line}: ${error.message}\nhint: fix the file, or delete it and run \`awf test -u\` to write it again`);
  }
  store = { path, original: text, stored, checked: new Map(), counters: new Map(), appended: "", counts: freshCounts() };
  return store;
}

/**
 * Once the file's tests are done: writes the snapshot file if it changed (or is missing, as
 * bun leaves at least its header) and gives the counts; undefined when no snapshot was used.
 */
export function finish(): SnapshotCounts | undefined {
  if (!settings) return undefined;
  const inlineCounts = finishInline(settings.file);
  const fileCounts = finishFile(settings);
  if (!inlineCounts) return fileCounts;
  if (!fileCounts) return { ...inlineCounts, obsolete: 0, removed: 0 };
  const sum = (key: keyof Store["counts"]): number => fileCounts[key] + inlineCounts[key];
  return { ...fileCounts, total: sum("total"), passed: sum("passed"), added: sum("added"), updated: sum("updated"), failed: sum("failed") };
}

/** Writes the inline snapshots the run found missing (or, with -u, different) into the test file. */
function finishInline(file: string): Store["counts"] | undefined {
  if (!inline) return undefined;
  if (inline.writes.size > 0) {
    const source = ops.test_source_read(file);
    let rewritten: string;
    try {
      rewritten = writeInlineSnapshots(source, [...inline.writes.values()]);
    } catch (error) {
      if (!(error instanceof InlineSourceError)) throw error;
      throw new Error(`cannot write the inline snapshots into ${file}: ${error.message}\nhint: call toMatchInlineSnapshot as expect(value).toMatchInlineSnapshot(...) in the test file itself`);
    }
    if (rewritten !== source) ops.test_source_write(file, rewritten);
  }
  return inline.counts;
}

function finishFile(settings: SnapshotSettings): SnapshotCounts | undefined {
  if (!store) return undefined;
  const tests = registeredTests();
  const unchecked = [...store.stored.keys()].filter((key) => !store!.checked.has(key));
  const obsolete = new Set(unchecked.filter((key) => isObsolete(key, tests)));
  let text: string;
  if (settings.update) {
    text = HEADER;
    for (const [key, value] of store.checked) text += entryText(key, value);
    for (const key of unchecked) if (!obsolete.has(key)) text += entryText(key, store.stored.get(key)!);
  } else {
    text = (store.original ? store.original : HEADER) + store.appended;
  }
  if (text !== store.original) ops.test_snapshot_write(settings.file, text);
  const removed = settings.update ? obsolete.size : 0;
  return { ...store.counts, obsolete: obsolete.size - removed, removed };
}

/** Obsolete: no test has the snapshot's name, or its test ran to a pass without checking it. */
function isObsolete(key: string, tests: readonly { name: string; passed: boolean }[]): boolean {
  const base = key.replace(/ \d+$/, "");
  let owner: { name: string; passed: boolean } | undefined;
  for (const test of tests) {
    if ((base === test.name || base.startsWith(`${test.name}: `)) && (!owner || test.name.length > owner.name.length)) owner = test;
  }
  return owner === undefined || owner.passed;
}
