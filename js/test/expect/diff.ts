// js/test/expect/diff.ts — The line diff of two printed values, and the expected/received block a
// failure shows (a diff when both sides are objects worth comparing line by line).

import { AsymmetricMatcher } from "./asymmetric_matcher.ts";
import { equals, hasProperty, isObject, isObjectWithKeys, ownEnumerableKeys } from "./equality.ts";
import { boxedPrimitive, format } from "./format.ts";

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
export function matchedPart(received: unknown, expected: unknown, visiting: Set<object>): unknown {
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
