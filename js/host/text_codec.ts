// `TextEncoder` and `TextDecoder` (lazy globals): UTF-8 both ways (and UTF-16LE to text), with
// the WHATWG rules: lone surrogates encode as U+FFFD, invalid bytes decode as U+FFFD per maximal
// subpart (or a TypeError when `fatal`), a leading BOM is dropped unless `ignoreBOM`, and
// `decode(chunk, { stream: true })` keeps an incomplete character for the next chunk.

import { bytesOf, decodeUtf8, encodeUtf8 } from "./encoding.ts";

export class TextEncoder {
  get encoding(): string {
    return "utf-8";
  }

  encode(input: string = ""): Uint8Array {
    return encodeUtf8(String(input));
  }

  /** Writes as many whole characters of `source` as fit into `destination`. */
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number } {
    const text = String(source).toWellFormed();
    let read = 0;
    let written = 0;
    for (const char of text) {
      const bytes = encodeUtf8(char);
      if (written + bytes.length > destination.length) break;
      destination.set(bytes, written);
      written += bytes.length;
      read += char.length;
    }
    return { read, written };
  }
}

const LABELS: Record<string, "utf-8" | "utf-16le"> = {
  "utf-8": "utf-8",
  utf8: "utf-8",
  "unicode-1-1-utf-8": "utf-8",
  "unicode11utf8": "utf-8",
  "unicode20utf8": "utf-8",
  "x-unicode20utf8": "utf-8",
  "utf-16le": "utf-16le",
  "utf-16": "utf-16le",
  ucs2: "utf-16le",
  "ucs-2": "utf-16le",
};

export class TextDecoder {
  readonly #encoding: "utf-8" | "utf-16le";
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  #pending = new Uint8Array(0);
  #started = false;

  constructor(label: string = "utf-8", options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const encoding = LABELS[String(label).trim().toLowerCase()];
    if (!encoding) {
      const error = new RangeError(`The "${label}" encoding is not supported`);
      (error as RangeError & { code: string }).code = "ERR_ENCODING_NOT_SUPPORTED";
      throw error;
    }
    this.#encoding = encoding;
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
  }

  get encoding(): string {
    return this.#encoding;
  }
  get fatal(): boolean {
    return this.#fatal;
  }
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  decode(input?: ArrayBuffer | ArrayBufferView, options: { stream?: boolean } = {}): string {
    const chunk = input === undefined || input === null ? new Uint8Array(0) : bytesOf(input);
    let bytes = chunk;
    if (this.#pending.length) {
      bytes = new Uint8Array(this.#pending.length + chunk.length);
      bytes.set(this.#pending);
      bytes.set(chunk, this.#pending.length);
    }
    const stream = Boolean(options?.stream);
    const cut = stream ? this.#completeLength(bytes) : bytes.length;
    this.#pending = bytes.slice(cut);
    let text = this.#encoding === "utf-8" ? this.#utf8(bytes.subarray(0, cut)) : this.#utf16(bytes.subarray(0, cut));
    if (!this.#started && !this.#ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    this.#started = stream && (this.#started || text.length > 0 || cut > 0);
    if (!stream) this.#pending = new Uint8Array(0);
    return text;
  }

  /** How many leading bytes make whole characters; the rest waits for the next chunk. */
  #completeLength(bytes: Uint8Array): number {
    if (this.#encoding === "utf-16le") {
      let end = bytes.length - (bytes.length % 2);
      const last = end >= 2 ? bytes[end - 2] | (bytes[end - 1] << 8) : 0;
      if (last >= 0xd800 && last <= 0xdbff) end -= 2;
      return end;
    }
    for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
      const b = bytes[i];
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 && b < 0xf8 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      return bytes.length - i < need ? i : bytes.length;
    }
    return bytes.length;
  }

  #utf8(bytes: Uint8Array): string {
    try {
      return decodeUtf8(bytes, this.#fatal);
    } catch {
      throw invalidData("utf-8");
    }
  }

  #utf16(bytes: Uint8Array): string {
    if (bytes.length % 2 && this.#fatal) throw invalidData("utf-16le");
    let text = "";
    for (let i = 0; i + 1 < bytes.length; i += 2) text += String.fromCharCode(bytes[i] | (bytes[i + 1] << 8));
    if (bytes.length % 2) text += "\ufffd";
    if (this.#fatal && !text.isWellFormed()) throw invalidData("utf-16le");
    return text.toWellFormed();
  }
}

function invalidData(encoding: string): TypeError {
  const error = new TypeError(`The encoded data was not valid for encoding ${encoding}`);
  (error as TypeError & { code: string }).code = "ERR_ENCODING_INVALID_ENCODED_DATA";
  return error;
}
