// `Buffer` (a lazy global, also `node:buffer`): Node's byte array, a Uint8Array subclass.
//
// Encodings: utf8 (utf-8), hex, base64, base64url, latin1 (binary), ascii, utf16le (ucs2).
// `slice` shares memory with the original, as in Node. Provided: from, alloc, allocUnsafe,
// concat, byteLength, isBuffer, isEncoding, compare; toString, write, equals, compare, copy,
// fill, indexOf, includes, toJSON, the (U)Int8/16/32 and BigInt64 readers and writers, and
// float/double ones. Reached through the global only (js/host/lazy_global.ts).

import * as ops from "awf:ops";
import { decodeUtf8, encodeUtf8 } from "./encoding.ts";

type Encoding = "utf8" | "hex" | "base64" | "base64url" | "latin1" | "ascii" | "utf16le";

const ENCODINGS: Record<string, Encoding> = {
  utf8: "utf8",
  "utf-8": "utf8",
  hex: "hex",
  base64: "base64",
  base64url: "base64url",
  latin1: "latin1",
  binary: "latin1",
  ascii: "ascii",
  utf16le: "utf16le",
  "utf-16le": "utf16le",
  ucs2: "utf16le",
  "ucs-2": "utf16le",
};

function encodingOf(name: unknown): Encoding {
  if (name === undefined || name === null) return "utf8";
  const found = ENCODINGS[String(name).toLowerCase()];
  if (!found) {
    const error = new TypeError(`Unknown encoding: ${String(name)}`) as TypeError & { code: string };
    error.code = "ERR_UNKNOWN_ENCODING";
    throw error;
  }
  return found;
}

function encode(text: string, encoding: Encoding): Uint8Array {
  switch (encoding) {
    case "utf8":
      return encodeUtf8(text);
    case "ascii":
      return ops.text_to_bytes(text, "latin1");
    case "utf16le": {
      const out = new Uint8Array(text.length * 2);
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        out[i * 2] = unit & 0xff;
        out[i * 2 + 1] = unit >> 8;
      }
      return out;
    }
    default:
      return ops.text_to_bytes(text, encoding);
  }
}

function decode(bytes: Uint8Array, encoding: Encoding): string {
  switch (encoding) {
    case "utf8":
      return decodeUtf8(bytes);
    case "ascii":
      return ops.bytes_to_text(bytes.map((b) => b & 0x7f), "latin1");
    case "utf16le": {
      let out = "";
      for (let i = 0; i + 1 < bytes.length; i += 2) out += String.fromCharCode(bytes[i] | (bytes[i + 1] << 8));
      return out;
    }
    default:
      return ops.bytes_to_text(bytes, encoding);
  }
}

function invalidArg(name: string, expected: string, value: unknown): TypeError {
  const shown =
    value === null ? "null" : typeof value === "object" ? `an instance of ${(value as object).constructor?.name ?? "Object"}` : `type ${typeof value} (${String(value)})`;
  const error = new TypeError(`The "${name}" argument must be ${expected}. Received ${shown}`) as TypeError & { code: string };
  error.code = "ERR_INVALID_ARG_TYPE";
  return error;
}

function checkSize(size: unknown): number {
  if (typeof size !== "number") throw invalidArg("size", "of type number", size);
  if (!(size >= 0 && size <= 2 ** 32)) {
    const error = new RangeError(`The value of "size" is out of range. It must be >= 0 && <= ${2 ** 32}. Received ${size}`) as RangeError & { code: string };
    error.code = "ERR_OUT_OF_RANGE";
    throw error;
  }
  return Math.floor(size);
}

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

export class Buffer extends Uint8Array {
  static readonly poolSize = 8192;

  static from(value: unknown, encodingOrOffset?: unknown, length?: number): Buffer {
    if (typeof value === "string") return Buffer.#wrap(encode(value, encodingOf(encodingOrOffset)));
    if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) {
      const offset = Number(encodingOrOffset ?? 0);
      const count = length === undefined ? value.byteLength - offset : Number(length);
      return new Buffer(value, offset, count);
    }
    if (ArrayBuffer.isView(value)) {
      const view = value as ArrayBufferView;
      return Buffer.#wrap(new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice());
    }
    if (Array.isArray(value)) return Buffer.#wrap(Uint8Array.from(value, (n) => Number(n) & 0xff));
    if (value && typeof value === "object") {
      const json = value as { type?: unknown; data?: unknown; length?: unknown };
      if (json.type === "Buffer" && Array.isArray(json.data)) return Buffer.from(json.data);
      if (typeof json.length === "number") return Buffer.#wrap(Uint8Array.from(value as ArrayLike<number>, (n) => Number(n) & 0xff));
    }
    throw invalidArg(
      "first",
      "of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object",
      value,
    );
  }

  static #wrap(bytes: Uint8Array): Buffer {
    return new Buffer(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  static alloc(size: number, fill?: string | number | Uint8Array, encoding?: string): Buffer {
    const buffer = new Buffer(checkSize(size));
    if (fill !== undefined && fill !== 0) buffer.fill(fill, 0, buffer.length, encoding);
    return buffer;
  }

  static allocUnsafe(size: number): Buffer {
    return new Buffer(checkSize(size));
  }

  static allocUnsafeSlow(size: number): Buffer {
    return new Buffer(checkSize(size));
  }

  static isBuffer(value: unknown): value is Buffer {
    return value instanceof Buffer;
  }

  static isEncoding(name: unknown): boolean {
    return typeof name === "string" && name.toLowerCase() in ENCODINGS;
  }

  static byteLength(value: string | ArrayBuffer | ArrayBufferView, encoding?: string): number {
    if (typeof value === "string") return encode(value, encodingOf(encoding)).length;
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength;
    throw invalidArg("string", "of type string or an instance of Buffer or ArrayBuffer", value);
  }

  static concat(list: readonly Uint8Array[], totalLength?: number): Buffer {
    if (!Array.isArray(list)) throw invalidArg("list", "an instance of Array", list);
    for (const [i, item] of list.entries()) {
      if (!(item instanceof Uint8Array)) throw invalidArg(`list[${i}]`, "an instance of Buffer or Uint8Array", item);
    }
    const total = totalLength ?? list.reduce((n, b) => n + b.length, 0);
    const out = Buffer.alloc(total);
    let at = 0;
    for (const item of list) {
      if (at >= total) break;
      out.set(item.subarray(0, total - at), at);
      at += item.length;
    }
    return out;
  }

  static compare(a: Uint8Array, b: Uint8Array): number {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }

  toString(encoding?: string, start = 0, end = this.length): string {
    const from = Math.max(0, start | 0);
    const to = Math.min(this.length, end | 0);
    return to <= from ? "" : decode(this.subarray(from, to), encodingOf(encoding));
  }

  toLocaleString(): string {
    return this.toString();
  }

  toJSON(): { type: "Buffer"; data: number[] } {
    return { type: "Buffer", data: Array.from(this) };
  }

  equals(other: Uint8Array): boolean {
    if (!(other instanceof Uint8Array)) throw invalidArg("otherBuffer", "an instance of Buffer or Uint8Array", other);
    return Buffer.compare(this, other) === 0;
  }

  compare(other: Uint8Array): number {
    return Buffer.compare(this, other);
  }

  /** As in Node: a view of the same memory, not a copy. */
  slice(start?: number, end?: number): Buffer {
    return this.subarray(start, end) as Buffer;
  }

  write(text: string, offset: number | string = 0, length?: number | string, encoding?: string): number {
    if (typeof offset === "string") return this.write(text, 0, undefined, offset);
    if (typeof length === "string") return this.write(text, offset, undefined, length);
    const bytes = encode(String(text), encodingOf(encoding));
    const room = Math.min(this.length - offset, length ?? Infinity);
    const count = Math.max(0, Math.min(bytes.length, room));
    this.set(bytes.subarray(0, count), offset);
    return count;
  }

  copy(target: Uint8Array, targetStart = 0, sourceStart = 0, sourceEnd = this.length): number {
    const chunk = this.subarray(sourceStart, Math.min(sourceEnd, sourceStart + target.length - targetStart));
    target.set(chunk, targetStart);
    return chunk.length;
  }

  fill(value: string | number | Uint8Array, offset: number | string = 0, end: number = this.length, encoding?: string): this {
    if (typeof offset === "string") return this.fill(value, 0, this.length, offset);
    if (typeof value === "number") return super.fill(value & 0xff, offset, end);
    const pattern = typeof value === "string" ? encode(value, encodingOf(encoding)) : value;
    if (pattern.length === 0) return super.fill(0, offset, end);
    for (let i = offset; i < end; i++) this[i] = pattern[(i - offset) % pattern.length];
    return this;
  }

  indexOf(value: string | number | Uint8Array, byteOffset = 0, encoding?: string): number {
    if (typeof value === "number") return super.indexOf(value & 0xff, byteOffset);
    const needle = typeof value === "string" ? encode(value, encodingOf(encoding)) : value;
    const from = byteOffset < 0 ? Math.max(0, this.length + byteOffset) : byteOffset;
    outer: for (let i = from; i + needle.length <= this.length; i++) {
      for (let j = 0; j < needle.length; j++) if (this[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  includes(value: string | number | Uint8Array, byteOffset = 0, encoding?: string): boolean {
    return this.indexOf(value, byteOffset, encoding) !== -1;
  }

  #view(): DataView {
    return new DataView(this.buffer, this.byteOffset, this.byteLength);
  }

  readUInt8(offset = 0): number {
    return this.#view().getUint8(offset);
  }
  readInt8(offset = 0): number {
    return this.#view().getInt8(offset);
  }
  readUInt16LE(offset = 0): number {
    return this.#view().getUint16(offset, true);
  }
  readUInt16BE(offset = 0): number {
    return this.#view().getUint16(offset, false);
  }
  readInt16LE(offset = 0): number {
    return this.#view().getInt16(offset, true);
  }
  readInt16BE(offset = 0): number {
    return this.#view().getInt16(offset, false);
  }
  readUInt32LE(offset = 0): number {
    return this.#view().getUint32(offset, true);
  }
  readUInt32BE(offset = 0): number {
    return this.#view().getUint32(offset, false);
  }
  readInt32LE(offset = 0): number {
    return this.#view().getInt32(offset, true);
  }
  readInt32BE(offset = 0): number {
    return this.#view().getInt32(offset, false);
  }
  readBigInt64LE(offset = 0): bigint {
    return this.#view().getBigInt64(offset, true);
  }
  readBigInt64BE(offset = 0): bigint {
    return this.#view().getBigInt64(offset, false);
  }
  readBigUInt64LE(offset = 0): bigint {
    return this.#view().getBigUint64(offset, true);
  }
  readBigUInt64BE(offset = 0): bigint {
    return this.#view().getBigUint64(offset, false);
  }
  readFloatLE(offset = 0): number {
    return this.#view().getFloat32(offset, true);
  }
  readFloatBE(offset = 0): number {
    return this.#view().getFloat32(offset, false);
  }
  readDoubleLE(offset = 0): number {
    return this.#view().getFloat64(offset, true);
  }
  readDoubleBE(offset = 0): number {
    return this.#view().getFloat64(offset, false);
  }

  writeUInt8(value: number, offset = 0): number {
    this.#view().setUint8(offset, value);
    return offset + 1;
  }
  writeInt8(value: number, offset = 0): number {
    this.#view().setInt8(offset, value);
    return offset + 1;
  }
  writeUInt16LE(value: number, offset = 0): number {
    this.#view().setUint16(offset, value, true);
    return offset + 2;
  }
  writeUInt16BE(value: number, offset = 0): number {
    this.#view().setUint16(offset, value, false);
    return offset + 2;
  }
  writeInt16LE(value: number, offset = 0): number {
    this.#view().setInt16(offset, value, true);
    return offset + 2;
  }
  writeInt16BE(value: number, offset = 0): number {
    this.#view().setInt16(offset, value, false);
    return offset + 2;
  }
  writeUInt32LE(value: number, offset = 0): number {
    this.#view().setUint32(offset, value, true);
    return offset + 4;
  }
  writeUInt32BE(value: number, offset = 0): number {
    this.#view().setUint32(offset, value, false);
    return offset + 4;
  }
  writeInt32LE(value: number, offset = 0): number {
    this.#view().setInt32(offset, value, true);
    return offset + 4;
  }
  writeInt32BE(value: number, offset = 0): number {
    this.#view().setInt32(offset, value, false);
    return offset + 4;
  }
  writeBigInt64LE(value: bigint, offset = 0): number {
    this.#view().setBigInt64(offset, value, true);
    return offset + 8;
  }
  writeBigInt64BE(value: bigint, offset = 0): number {
    this.#view().setBigInt64(offset, value, false);
    return offset + 8;
  }
  writeFloatLE(value: number, offset = 0): number {
    this.#view().setFloat32(offset, value, true);
    return offset + 4;
  }
  writeDoubleLE(value: number, offset = 0): number {
    this.#view().setFloat64(offset, value, true);
    return offset + 8;
  }

  [inspectCustom](): string {
    const shown = Array.from(this.subarray(0, 50), (b) => b.toString(16).padStart(2, "0")).join(" ");
    const more = this.length > 50 ? ` ... ${this.length - 50} more bytes` : "";
    // Node keeps the space before `>` when there is no byte: `<Buffer >`.
    return `<Buffer ${shown}${more}>`;
  }
}
