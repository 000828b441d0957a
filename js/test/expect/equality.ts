// js/test/expect/equality.ts — Equality: jest's `equals` with iterable equality, bent where bun
// differs (test files are written against bun); `toEqual`, `toStrictEqual`, `toMatchObject` and the
// asymmetric matchers share it.

import { AsymmetricMatcher } from "./asymmetric_matcher.ts";

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

  // A cycle: equal when both sides loop back to the same depth (jest's check, from the innermost out).
  for (let depth = state.receivedPath.length - 1; depth >= 0; depth--) {
    if (state.receivedPath[depth] === a) return state.expectedPath[depth] === b;
    if (state.expectedPath[depth] === b) return false;
  }

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
    case "[object Symbol]":
    case "[object BigInt]":
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
  if (isUrl(a) && isUrl(b)) return a.href === b.href;
  if (Array.isArray(a) && Array.isArray(b) && !state.strict) return looseArraysEqual(a, b, state) && symbolKeysEqual(a, b, state);
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return false;
  return ownPropertiesEqual(a, b, state);
}

/** Errors: same name and message, and the same cause when either has one; own properties follow. */
function errorsAlike(a: Error, b: Error, state: EqualityState): boolean {
  if (a.name !== b.name || a.message !== b.message) return false;
  if (!("cause" in a) && !("cause" in b)) return true;
  return eq(a.cause, b.cause, state);
}

/**
 * bun's toEqual on arrays: item by item up to the longer length, so a missing item (or a hole)
 * equals `undefined`; an item that is not a plain enumerable value (an accessor, a hidden one)
 * counts as missing, as bun reads them.
 */
function looseArraysEqual(a: unknown[], b: unknown[], state: EqualityState): boolean {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    if (!eq(arrayItem(a, index), arrayItem(b, index), state)) return false;
  }
  return true;
}

function arrayItem(array: unknown[], index: number): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(array, index);
  return descriptor && descriptor.enumerable && "value" in descriptor ? descriptor.value : undefined;
}

/** The symbol-keyed properties of two arrays, which bun's toEqual compares too. */
function symbolKeysEqual(a: unknown[], b: unknown[], state: EqualityState): boolean {
  const symbols = (array: unknown[]) => Object.getOwnPropertySymbols(array).filter((symbol) => Object.prototype.propertyIsEnumerable.call(array, symbol) && Reflect.get(array, symbol) !== undefined);
  const aSymbols = symbols(a);
  const bSymbols = symbols(b);
  return aSymbols.length === bSymbols.length && aSymbols.every((symbol) => Object.prototype.hasOwnProperty.call(b, symbol) && eq(Reflect.get(a, symbol), Reflect.get(b, symbol), state));
}

/** A WHATWG URL (awf's own or one from elsewhere): equal URLs have the same href, as in bun. */
function isUrl(value: object): value is { href: string } {
  return constructorOf(value) !== Object && (constructorOf(value) as { name?: unknown } | undefined)?.name === "URL" && typeof Reflect.get(value, "href") === "string";
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

export function constructorOf(value: object): unknown {
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

export function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function isIterableCollection(value: object): boolean {
  return !Array.isArray(value) && typeof Reflect.get(value, Symbol.iterator) === "function";
}

/** What toMatchObject treats as a bag of properties (jest's isObjectWithKeys, plus RegExp). */
export function isObjectWithKeys(value: unknown): value is object {
  return isObject(value) && !Array.isArray(value) && !(value instanceof Error) && !(value instanceof Date) && !(value instanceof RegExp);
}

function typeTag(value: object): string {
  return Object.prototype.toString.call(value);
}

export function ownEnumerableKeys(value: object): PropertyKey[] {
  const keys: PropertyKey[] = Object.keys(value);
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.prototype.propertyIsEnumerable.call(value, symbol)) keys.push(symbol);
  }
  return keys;
}

export function hasProperty(value: unknown, key: PropertyKey): boolean {
  return (isObject(value) || typeof value === "function") && key in (value as object);
}
