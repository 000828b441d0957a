// `Blob` and `File` (lazy globals): immutable bytes in memory with a media type, as the File API
// standard describes them and Node implements them. A blob's parts (strings as UTF-8, buffers,
// views, other blobs) are copied into one byte array when it is made; `slice` copies its range.
// `stream()` is not there (awf has no `ReadableStream`): read with `text()`, `arrayBuffer()` or
// `bytes()`. fetch sends a blob as its body (js/host/fetch.ts), and FormData holds files.
//
// Reached through the globals (js/host/lazy_global.ts) and the imports of form_data.ts and
// fetch.ts: the same module.

import { bytesOf, concatBytes, decodeUtf8, encodeUtf8 } from "./encoding.ts";

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

export type BlobPart = string | ArrayBuffer | ArrayBufferView | Blob;

export interface BlobPropertyBag {
  type?: string;
  endings?: "transparent" | "native";
}

export interface FilePropertyBag extends BlobPropertyBag {
  lastModified?: number;
}

// Set in Blob's static block: a blob's bytes without copying them (for slices, FormData and fetch).
let bytesOfBlob: (blob: Blob) => Uint8Array;

/** The bytes of a blob, as they are (callers must not change them). */
export function blobBytes(blob: Blob): Uint8Array {
  return bytesOfBlob(blob);
}

export class Blob {
  #bytes: Uint8Array;
  #type: string;

  static {
    bytesOfBlob = (blob) => blob.#bytes;
  }

  constructor(parts: Iterable<BlobPart> = [], options: BlobPropertyBag = {}) {
    if (parts === null || typeof parts !== "object" || typeof (parts as Iterable<BlobPart>)[Symbol.iterator] !== "function") {
      throw new TypeError("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
    }
    if (options.endings !== undefined && options.endings !== "transparent") {
      throw Object.assign(new TypeError(`Blob option endings: ${JSON.stringify(options.endings)} is not supported (only "transparent")`), {
        code: "ERR_NOT_SUPPORTED",
      });
    }
    this.#bytes = concatBytes(Array.from(parts, partBytes));
    this.#type = mediaType(options.type);
  }

  get size(): number {
    return this.#bytes.length;
  }

  get type(): string {
    return this.#type;
  }

  /** `slice(start?, end?, type?)`: the bytes in [start, end), negative positions from the end. */
  slice(start?: number, end?: number, type?: string): Blob {
    const size = this.#bytes.length;
    const from = position(start, 0, size);
    const to = position(end, size, size);
    return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type: type === undefined ? "" : type });
  }

  async text(): Promise<string> {
    return decodeUtf8(this.#bytes);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes.slice().buffer as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#bytes.slice();
  }

  get [Symbol.toStringTag](): string {
    return "Blob";
  }

  [inspectCustom](): string {
    return `Blob { size: ${this.size}, type: ${JSON.stringify(this.#type)} }`;
  }
}

export class File extends Blob {
  #name: string;
  #lastModified: number;

  constructor(parts: Iterable<BlobPart>, name: string, options: FilePropertyBag = {}) {
    if (arguments.length < 2) throw new TypeError("Failed to construct 'File': 2 arguments required, but only " + arguments.length + " present.");
    super(parts, options);
    this.#name = String(name);
    this.#lastModified = options.lastModified === undefined ? Date.now() : Math.trunc(Number(options.lastModified)) || 0;
  }

  get name(): string {
    return this.#name;
  }

  get lastModified(): number {
    return this.#lastModified;
  }

  get [Symbol.toStringTag](): string {
    return "File";
  }

  [inspectCustom](): string {
    return `File { size: ${this.size}, type: ${JSON.stringify(this.type)}, name: ${JSON.stringify(this.#name)}, lastModified: ${this.#lastModified} }`;
  }
}

function partBytes(part: unknown): Uint8Array {
  if (part instanceof Blob) return bytesOfBlob(part);
  if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) return bytesOf(part);
  return encodeUtf8(String(part));
}

/** The standard's rule: a type with a character outside U+0020..U+007E is dropped; the rest is lowercased. */
function mediaType(type: unknown): string {
  if (type === undefined) return "";
  const text = String(type);
  return /^[\x20-\x7e]*$/.test(text) ? text.toLowerCase() : "";
}

function position(value: number | undefined, fallback: number, size: number): number {
  if (value === undefined) return fallback;
  const number = Math.trunc(Number(value)) || 0;
  return number < 0 ? Math.max(size + number, 0) : Math.min(number, size);
}
