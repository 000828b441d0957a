// The `crypto` global (lazy): `getRandomValues` and `randomUUID` from the system's CSPRNG.
// `crypto.subtle` (Web Crypto's algorithms) is not provided yet.

import * as ops from "awf:ops";

const MAX_BYTES = 65536;

type IntegerArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

const INTEGER_ARRAYS: Function[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
];

export function getRandomValues<T extends IntegerArray>(array: T): T {
  if (!INTEGER_ARRAYS.some((ctor) => array instanceof ctor)) {
    throw new DOMException(
      "The data argument must be an integer-type TypedArray",
      "TypeMismatchError",
    );
  }
  if (array.byteLength > MAX_BYTES) {
    throw new DOMException(
      `The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (${MAX_BYTES})`,
      "QuotaExceededError",
    );
  }
  new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(ops.random_bytes(array.byteLength));
  return array;
}

export function randomUUID(): string {
  const b = ops.random_bytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const crypto = Object.freeze({
  getRandomValues,
  randomUUID,
  [Symbol.toStringTag]: "Crypto",
});
