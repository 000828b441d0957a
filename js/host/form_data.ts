// `FormData` (a lazy global): an ordered list of name/value entries, each value a string or a
// `File`, as the XMLHttpRequest standard describes it (without the HTML form element). fetch
// sends it as `multipart/form-data` and reads one back with `formData()`: the encoding and the
// parsing are here too (`encodeMultipart`, `parseFormBody`), used by js/host/fetch.ts.
//
// Reached through the global (js/host/lazy_global.ts) and fetch's import: the same module.

import { Blob, File, blobBytes } from "./blob.ts";
import { concatBytes, decodeUtf8, encodeUtf8 } from "./encoding.ts";

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

export type FormDataEntryValue = string | File;

export class FormData {
  #entries: [string, FormDataEntryValue][] = [];

  constructor(form?: unknown) {
    if (form !== undefined) throw new TypeError("Failed to construct 'FormData': awf has no HTML form elements; make it empty and append to it");
  }

  append(name: string, value: string | Blob, filename?: string): void {
    this.#entries.push(entry(arguments.length, "append", name, value, filename));
  }

  /** Replaces the first entry of that name with this one and drops the others. */
  set(name: string, value: string | Blob, filename?: string): void {
    const made = entry(arguments.length, "set", name, value, filename);
    const first = this.#entries.findIndex(([key]) => key === made[0]);
    if (first < 0) {
      this.#entries.push(made);
      return;
    }
    this.#entries = this.#entries.filter(([key], index) => index <= first || key !== made[0]);
    this.#entries[first] = made;
  }

  get(name: string): FormDataEntryValue | null {
    const key = String(name);
    return this.#entries.find(([entryName]) => entryName === key)?.[1] ?? null;
  }

  getAll(name: string): FormDataEntryValue[] {
    const key = String(name);
    return this.#entries.filter(([entryName]) => entryName === key).map(([, value]) => value);
  }

  has(name: string): boolean {
    const key = String(name);
    return this.#entries.some(([entryName]) => entryName === key);
  }

  delete(name: string): void {
    const key = String(name);
    this.#entries = this.#entries.filter(([entryName]) => entryName !== key);
  }

  forEach(callback: (value: FormDataEntryValue, name: string, form: FormData) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#entries) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, FormDataEntryValue]> {
    for (let index = 0; index < this.#entries.length; index++) {
      const [name, value] = this.#entries[index];
      yield [name, value];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<FormDataEntryValue> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, FormDataEntryValue]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "FormData";
  }

  [inspectCustom](): string {
    const shown = this.#entries.map(([name, value]) => `${JSON.stringify(name)}: ${typeof value === "string" ? JSON.stringify(value) : `File { name: ${JSON.stringify(value.name)}, size: ${value.size} }`}`);
    return shown.length === 0 ? "FormData {}" : `FormData { ${shown.join(", ")} }`;
  }
}

/** One entry: a blob becomes a File named `filename` (or its own name, or "blob"), as the standard says. */
function entry(count: number, method: string, name: unknown, value: unknown, filename: unknown): [string, FormDataEntryValue] {
  if (count < 2) throw new TypeError(`Failed to execute '${method}' on 'FormData': 2 arguments required, but only ${count} present.`);
  if (!(value instanceof Blob)) {
    if (filename !== undefined) throw new TypeError(`Failed to execute '${method}' on 'FormData': parameter 2 is not of type 'Blob'.`);
    return [String(name), String(value)];
  }
  if (value instanceof File && filename === undefined) return [String(name), value];
  const fileName = filename !== undefined ? String(filename) : value instanceof File ? value.name : "blob";
  const options = value instanceof File ? { type: value.type, lastModified: value.lastModified } : { type: value.type };
  return [String(name), new File([value], fileName, options)];
}

/** `multipart/form-data` bytes of a FormData, and the content type naming their boundary. */
export function encodeMultipart(form: FormData): { bytes: Uint8Array; type: string } {
  const boundary = `----awf-formdata-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
  const parts: (string | Uint8Array)[] = [];
  for (const [name, value] of form) {
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(name)}"`);
    if (typeof value === "string") {
      parts.push(`\r\n\r\n${value.replace(/\r(?!\n)|(?<!\r)\n/g, "\r\n")}\r\n`);
    } else {
      parts.push(`; filename="${escapeQuoted(value.name)}"\r\nContent-Type: ${value.type || "application/octet-stream"}\r\n\r\n`);
      parts.push(blobBytes(value));
      parts.push("\r\n");
    }
  }
  parts.push(`--${boundary}--\r\n`);
  const bytes = concatBytes(parts.map((part) => (typeof part === "string" ? encodeUtf8(part) : part)));
  return { bytes, type: `multipart/form-data; boundary=${boundary}` };
}

/** What `formData()` reads: a `multipart/form-data` or `application/x-www-form-urlencoded` body. */
export function parseFormBody(bytes: Uint8Array, contentType: string | null): FormData {
  const type = (contentType ?? "").toLowerCase();
  const form = new FormData();
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const URLSearchParamsClass = (globalThis as unknown as { URLSearchParams: new (init: string) => Iterable<[string, string]> }).URLSearchParams;
    for (const [name, value] of new URLSearchParamsClass(decodeUtf8(bytes))) form.append(name, value);
    return form;
  }
  const boundary = /^multipart\/form-data\s*;.*\bboundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? "");
  if (!boundary) throw new TypeError(`Could not parse content as FormData: the content type ${JSON.stringify(contentType ?? "")} is neither multipart/form-data with a boundary nor application/x-www-form-urlencoded`);
  for (const part of multipartParts(bytes, boundary[1] ?? boundary[2])) {
    const headers = decodeUtf8(part.subarray(0, headerEnd(part)));
    const body = part.subarray(headerEnd(part) + 4);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers);
    const name = disposition && /;\s*name="((?:[^"\\]|\\.)*)"/i.exec(disposition[1]);
    if (!name) throw new TypeError("Could not parse content as FormData: a part has no Content-Disposition name");
    const filename = /;\s*filename="((?:[^"\\]|\\.)*)"/i.exec(disposition[1]);
    if (filename) {
      const partType = /^content-type:\s*(.*)$/im.exec(headers)?.[1].trim() ?? "";
      form.append(unescapeQuoted(name[1]), new File([body], unescapeQuoted(filename[1]), { type: partType }));
    } else {
      form.append(unescapeQuoted(name[1]), decodeUtf8(body));
    }
  }
  return form;
}

/** The parts between `--boundary` lines, each still with its headers. */
function multipartParts(bytes: Uint8Array, boundary: string): Uint8Array[] {
  const delimiter = encodeUtf8(`--${boundary}`);
  const parts: Uint8Array[] = [];
  let at = indexOf(bytes, delimiter, 0);
  if (at < 0) throw new TypeError("Could not parse content as FormData: the boundary does not occur in the body");
  for (;;) {
    const after = at + delimiter.length;
    if (bytes[after] === 0x2d && bytes[after + 1] === 0x2d) return parts;
    const next = indexOf(bytes, encodeUtf8(`\r\n--${boundary}`), after);
    if (next < 0) throw new TypeError("Could not parse content as FormData: the body ends before its closing boundary");
    parts.push(bytes.subarray(after + 2, next));
    at = next + 2;
  }
}

function headerEnd(part: Uint8Array): number {
  const end = indexOf(part, encodeUtf8("\r\n\r\n"), 0);
  if (end >= 0) return end;
  throw new TypeError("Could not parse content as FormData: a part's headers do not end");
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let at = from; at <= haystack.length - needle.length; at++) {
    for (let index = 0; index < needle.length; index++) if (haystack[at + index] !== needle[index]) continue outer;
    return at;
  }
  return -1;
}

/** A name or file name in a quoted header parameter, with `"` and line breaks percent-encoded as browsers do. */
function escapeQuoted(text: string): string {
  return text.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
}

function unescapeQuoted(text: string): string {
  return text.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n").replace(/\\(.)/g, "$1");
}
