// `URL` and `URLSearchParams` (lazy globals): WHATWG URLs, parsed and changed by the `url` crate
// (runtime/src/js/host/url.rs) so they match what browsers and Node make; query strings follow
// the application/x-www-form-urlencoded rules. `url.searchParams` and `url.search` stay in step.
//
// Reached through the globals only (js/host/lazy_global.ts): built-ins use `globalThis.URL`.

import * as ops from "awf:ops";
import { decodeUtf8, encodeUtf8 } from "./encoding.ts";

interface Parts {
  href: string;
  origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
}

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

function invalidUrl(input: unknown, base?: unknown): TypeError {
  const error = new TypeError("Invalid URL") as TypeError & { code: string; input: string; base?: string };
  error.code = "ERR_INVALID_URL";
  error.input = String(input);
  if (base !== undefined) error.base = String(base);
  return error;
}

// Set in URL's static block: lets URLSearchParams write back into the URL it belongs to.
let setSearchFromParams: (url: URL, query: string) => void;

export class URL {
  #parts: Parts;
  #params: URLSearchParams;

  constructor(url: string | URL, base?: string | URL) {
    if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
    const parts = ops.url_parse(String(url), base === undefined ? undefined : String(base)) as Parts | null;
    if (!parts) throw invalidUrl(url, base);
    this.#parts = parts;
    this.#params = new URLSearchParams(parts.search);
    attach(this.#params, this);
  }

  static canParse(url: string, base?: string): boolean {
    return ops.url_parse(String(url), base === undefined ? undefined : String(base)) !== null;
  }

  static parse(url: string, base?: string): URL | null {
    return URL.canParse(url, base) ? new URL(url, base) : null;
  }

  static {
    setSearchFromParams = (url, query) => url.#set("search", query);
  }

  #set(part: keyof Parts, value: unknown): void {
    const parts = ops.url_set(this.#parts.href, part, String(value)) as Parts | null;
    if (!parts) {
      if (part === "href") throw invalidUrl(value);
      return;
    }
    this.#parts = parts;
    if (part === "href" || part === "search") reparse(this.#params, parts.search);
  }

  get href(): string {
    return this.#parts.href;
  }
  set href(value: string) {
    this.#set("href", value);
  }
  get origin(): string {
    return this.#parts.origin;
  }
  get protocol(): string {
    return this.#parts.protocol;
  }
  set protocol(value: string) {
    this.#set("protocol", value);
  }
  get username(): string {
    return this.#parts.username;
  }
  set username(value: string) {
    this.#set("username", value);
  }
  get password(): string {
    return this.#parts.password;
  }
  set password(value: string) {
    this.#set("password", value);
  }
  get host(): string {
    return this.#parts.host;
  }
  set host(value: string) {
    this.#set("host", value);
  }
  get hostname(): string {
    return this.#parts.hostname;
  }
  set hostname(value: string) {
    this.#set("hostname", value);
  }
  get port(): string {
    return this.#parts.port;
  }
  set port(value: string) {
    this.#set("port", value);
  }
  get pathname(): string {
    return this.#parts.pathname;
  }
  set pathname(value: string) {
    this.#set("pathname", value);
  }
  get search(): string {
    return this.#parts.search;
  }
  set search(value: string) {
    this.#set("search", value);
  }
  get hash(): string {
    return this.#parts.hash;
  }
  set hash(value: string) {
    this.#set("hash", value);
  }
  get searchParams(): URLSearchParams {
    return this.#params;
  }

  toString(): string {
    return this.#parts.href;
  }
  toJSON(): string {
    return this.#parts.href;
  }

  get [Symbol.toStringTag](): string {
    return "URL";
  }

  [inspectCustom](): string {
    const p = this.#parts;
    const fields = Object.entries({ ...p, searchParams: this.#params.toString() })
      .map(([k, v]) => `  ${k}: ${JSON.stringify(v).replace(/^"|"$/g, "'")}`)
      .join(",\n");
    return `URL {\n${fields}\n}`;
  }
}

// Set in URLSearchParams' static block: the URL a params object writes into, and re-reading it.
let attach: (params: URLSearchParams, url: URL) => void;
let reparse: (params: URLSearchParams, query: string) => void;

type ParamsInit = string | Iterable<readonly [string, string]> | Record<string, string> | URLSearchParams;

export class URLSearchParams {
  #list: [string, string][] = [];
  #url: URL | null = null;

  constructor(init: ParamsInit = "") {
    if (typeof init === "string") {
      this.#list = parseQuery(init);
    } else if (init instanceof URLSearchParams) {
      this.#list = init.#list.map(([k, v]) => [k, v]);
    } else if (init !== null && typeof init === "object") {
      const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
      if (typeof iterator === "function") {
        for (const pair of init as Iterable<readonly [string, string]>) {
          const entry = [...(pair as Iterable<string>)];
          if (entry.length !== 2) {
            throw new TypeError("Each query pair must be an iterable [name, value] tuple");
          }
          this.#list.push([String(entry[0]), String(entry[1])]);
        }
      } else {
        for (const key of Object.keys(init)) this.#list.push([key, String((init as Record<string, unknown>)[key])]);
      }
    } else if (init !== undefined && init !== null) {
      this.#list = parseQuery(String(init));
    }
  }

  static {
    attach = (params, url) => {
      params.#url = url;
    };
    reparse = (params, query) => {
      params.#list = parseQuery(query);
    };
  }

  #update(): void {
    if (this.#url) setSearchFromParams(this.#url, this.toString());
  }

  get size(): number {
    return this.#list.length;
  }

  append(name: string, value: string): void {
    this.#list.push([String(name), String(value)]);
    this.#update();
  }

  delete(name: string, value?: string): void {
    const n = String(name);
    this.#list = this.#list.filter(([k, v]) => k !== n || (value !== undefined && v !== String(value)));
    this.#update();
  }

  get(name: string): string | null {
    const n = String(name);
    return this.#list.find(([k]) => k === n)?.[1] ?? null;
  }

  getAll(name: string): string[] {
    const n = String(name);
    return this.#list.filter(([k]) => k === n).map(([, v]) => v);
  }

  has(name: string, value?: string): boolean {
    const n = String(name);
    return this.#list.some(([k, v]) => k === n && (value === undefined || v === String(value)));
  }

  set(name: string, value: string): void {
    const n = String(name);
    const index = this.#list.findIndex(([k]) => k === n);
    if (index < 0) {
      this.#list.push([n, String(value)]);
    } else {
      this.#list[index][1] = String(value);
      this.#list = this.#list.filter(([k], i) => k !== n || i <= index);
    }
    this.#update();
  }

  sort(): void {
    this.#list = this.#list
      .map((entry, i) => ({ entry, i }))
      .sort((a, b) => (a.entry[0] < b.entry[0] ? -1 : a.entry[0] > b.entry[0] ? 1 : a.i - b.i))
      .map(({ entry }) => entry);
    this.#update();
  }

  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void {
    if (typeof callback !== "function") {
      throw new TypeError(`The "callback" argument must be of type function. Received ${typeof callback}`);
    }
    for (const [k, v] of [...this.#list]) callback.call(thisArg, v, k, this);
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.#list) yield k;
  }
  *values(): IterableIterator<string> {
    for (const [, v] of this.#list) yield v;
  }
  *entries(): IterableIterator<[string, string]> {
    for (const [k, v] of this.#list) yield [k, v];
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  toString(): string {
    return this.#list.map(([k, v]) => `${encodeForm(k)}=${encodeForm(v)}`).join("&");
  }

  get [Symbol.toStringTag](): string {
    return "URLSearchParams";
  }

  [inspectCustom](): string {
    const entries = this.#list.map(([k, v]) => `'${k}' => '${v}'`);
    return entries.length ? `URLSearchParams { ${entries.join(", ")} }` : "URLSearchParams {}";
  }
}

const FORM_SAFE = /[*\-._0-9A-Za-z]/;

function encodeForm(text: string): string {
  let out = "";
  for (const byte of encodeUtf8(text)) {
    const c = String.fromCharCode(byte);
    if (byte === 0x20) out += "+";
    else if (byte < 0x80 && FORM_SAFE.test(c)) out += c;
    else out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

function parseQuery(query: string): [string, string][] {
  const text = query.startsWith("?") ? query.slice(1) : query;
  const list: [string, string][] = [];
  for (const piece of text.split("&")) {
    if (!piece) continue;
    const eq = piece.indexOf("=");
    const name = eq < 0 ? piece : piece.slice(0, eq);
    const value = eq < 0 ? "" : piece.slice(eq + 1);
    list.push([decodeForm(name), decodeForm(value)]);
  }
  return list;
}

function decodeForm(text: string): string {
  const bytes = encodeUtf8(text.replaceAll("+", " "));
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[n++] = parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
      i += 2;
    } else {
      out[n++] = b;
    }
  }
  return decodeUtf8(out.subarray(0, n));
}

function isHex(byte: number | undefined): boolean {
  return byte !== undefined && /[0-9A-Fa-f]/.test(String.fromCharCode(byte));
}
