// Bytes and text for the built-ins (TextEncoder, URL, fetch, Buffer, fs, child_process): UTF-8
// both ways by the ops of runtime/src/js/host/encoding.rs, lone surrogates as U+FFFD, invalid
// bytes as U+FFFD per maximal subpart (or a TypeError when `fatal`).

import * as ops from "awf:ops";

/** The bytes of any BufferSource, without copying. */
export function bytesOf(input: unknown, what = "input"): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(
    `The "${what}" argument must be an instance of ArrayBuffer or ArrayBufferView. Received ${describe(input)}`,
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return `an instance of ${(value as object).constructor?.name ?? "Object"}`;
  return `type ${typeof value} (${String(value).slice(0, 25)})`;
}

/** The chunks one after the other, in one new array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

/** A JS string as UTF-8, lone surrogates as U+FFFD. */
export function encodeUtf8(text: string): Uint8Array {
  return ops.utf8_encode(text.toWellFormed());
}

export function decodeUtf8(bytes: Uint8Array, fatal = false): string {
  return ops.utf8_decode(bytes, fatal);
}
