// `fetch`, `Headers`, `Request` and `Response` (lazy globals), over the HTTP ops of
// runtime/src/js/host/fetch.rs.
//
// Bodies sent: string, ArrayBuffer or a view of one (Buffer too), URLSearchParams, Blob (File
// too) and FormData (as multipart/form-data, js/host/form_data.ts); streams are not supported
// yet and throw. Bodies received: text(), json(), arrayBuffer(), bytes(), blob(), formData(),
// and `body`, a small stream (getReader().read(), cancel(), for await) rather than a full
// ReadableStream. An `AbortSignal` stops the request or the body read at once,
// with the signal's reason. A network failure rejects with `TypeError: fetch failed: ...`, its
// `cause` carrying Node's code (`ECONNREFUSED`, `ENOTFOUND`, ...).
//
// Reached through the globals only (js/host/lazy_global.ts).

import * as ops from "awf:ops";
import { type AwfError, opAsync } from "../core.ts";

type AbortModule = typeof import("./abort.ts");
const { AbortController, AbortSignal } = globalThis as unknown as AbortModule;
type AbortSignal = InstanceType<AbortModule["AbortSignal"]>;
import { bytesOf, concatBytes, decodeUtf8, encodeUtf8 } from "./encoding.ts";
import { Blob, blobBytes } from "./blob.ts";
import { FormData, encodeMultipart, parseFormBody } from "./form_data.ts";

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

// ---------------------------------------------------------------------------------------------
// Headers

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

type HeadersInit = Headers | Iterable<readonly [string, string]> | Record<string, string>;
type Guard = "none" | "immutable";

// Set in Headers' static block: makes a Headers immutable (responses from the network).
let freezeHeaders: (headers: Headers) => void;

export class Headers {
  #list: [string, string][] = [];
  #guard: Guard = "none";

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (typeof init !== "object") {
      throw new TypeError("Headers constructor: expected a record or a sequence of [name, value] pairs");
    }
    if (init instanceof Headers) {
      this.#list = init.#list.map(([k, v]) => [k, v]);
    } else if (typeof (init as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function") {
      for (const pair of init as Iterable<readonly [string, string]>) {
        const entry = [...(pair as Iterable<string>)];
        if (entry.length !== 2) throw new TypeError("Headers constructor: expected name/value pair to be length 2");
        this.append(entry[0], entry[1]);
      }
    } else {
      for (const key of Object.keys(init)) this.append(key, (init as Record<string, string>)[key]);
    }
  }

  static {
    freezeHeaders = (headers) => {
      headers.#guard = "immutable";
    };
  }

  #check(method: string, name: string, value?: string): [string, string] {
    if (this.#guard === "immutable") throw new TypeError("immutable");
    const n = String(name);
    if (!TOKEN.test(n)) throw new TypeError(`Headers.${method}: "${n}" is an invalid header name.`);
    const v = value === undefined ? "" : normalizeValue(String(value));
    if (/[\0\r\n]/.test(v) || [...v].some((c) => c.charCodeAt(0) > 0xff)) {
      throw new TypeError(`Headers.${method}: "${v}" is an invalid header value.`);
    }
    return [n.toLowerCase(), v];
  }

  append(name: string, value: string): void {
    this.#list.push(this.#check("append", name, value));
  }

  set(name: string, value: string): void {
    const [n, v] = this.#check("set", name, value);
    const index = this.#list.findIndex(([k]) => k === n);
    if (index < 0) {
      this.#list.push([n, v]);
    } else {
      this.#list[index][1] = v;
      this.#list = this.#list.filter(([k], i) => k !== n || i <= index);
    }
  }

  delete(name: string): void {
    const [n] = this.#check("delete", name);
    this.#list = this.#list.filter(([k]) => k !== n);
  }

  get(name: string): string | null {
    const n = String(name).toLowerCase();
    const values = this.#list.filter(([k]) => k === n).map(([, v]) => v);
    return values.length ? values.join(", ") : null;
  }

  getSetCookie(): string[] {
    return this.#list.filter(([k]) => k === "set-cookie").map(([, v]) => v);
  }

  has(name: string): boolean {
    const n = String(name).toLowerCase();
    return this.#list.some(([k]) => k === n);
  }

  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  /** Sorted by name, values of a repeated name joined (set-cookie kept apart), as the standard says. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...new Set(this.#list.map(([k]) => k))].sort();
    for (const name of names) {
      if (name === "set-cookie") {
        for (const value of this.getSetCookie()) yield [name, value];
      } else {
        yield [name, this.get(name) as string];
      }
    }
  }
  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  [inspectCustom](): string {
    const entries = [...this.entries()].map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    return entries.length ? `Headers { ${entries.join(", ")} }` : "Headers {}";
  }
}

function normalizeValue(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

// ---------------------------------------------------------------------------------------------
// Bodies

type BodyInit = string | ArrayBuffer | ArrayBufferView | URLSearchParams | Blob | FormData | null;

/** A body in memory, with the content-type its kind implies. */
function extractBody(body: unknown): { bytes: Uint8Array; type: string | null } {
  if (typeof body === "string") return { bytes: encodeUtf8(body), type: "text/plain;charset=UTF-8" };
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { bytes: bytesOf(body).slice(), type: null };
  const URLSearchParamsClass = (globalThis as unknown as { URLSearchParams: Function }).URLSearchParams;
  if (body instanceof URLSearchParamsClass) {
    return { bytes: encodeUtf8(String(body)), type: "application/x-www-form-urlencoded;charset=UTF-8" };
  }
  if (body instanceof Blob) return { bytes: blobBytes(body).slice(), type: body.type || null };
  if (body instanceof FormData) return encodeMultipart(body);
  const kind = (body as object)?.constructor?.name ?? typeof body;
  throw new TypeError(`a ${kind} body is not supported yet: pass a string, an ArrayBuffer, a Uint8Array, URLSearchParams, a Blob or FormData`);
}

/** Chunks of a response body from the network, shared by a response and its clones. */
class NetworkSource {
  readonly id: number;
  readonly chunks: Uint8Array[] = [];
  done = false;
  #pulling: Promise<void> | null = null;
  #readers = 0;
  #signal: AbortSignal | null;
  #onAbort: (() => void) | null = null;
  #failure: unknown = null;

  constructor(id: number, signal: AbortSignal | null) {
    this.id = id;
    this.#signal = signal;
    if (signal) {
      this.#onAbort = () => this.close(signal.reason);
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  cursor(): Cursor {
    this.#readers++;
    return new Cursor(this);
  }

  /** Brings the next chunk (or the end) into `chunks`. */
  pull(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    this.#pulling ??= opAsync(ops.fetch_read({ id: this.id }))
      .then(
        (chunk) => {
          if (chunk === undefined) this.close(null);
          else this.chunks.push(chunk);
        },
        (error) => {
          const reason = this.#failure ?? fetchFailed(error);
          this.close(reason);
          throw reason;
        },
      )
      .finally(() => {
        this.#pulling = null;
      });
    return this.#pulling;
  }

  /** Ends the exchange: at the end of the body (`reason` null), on abort or on cancel. */
  close(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    if (reason !== null) this.#failure = reason;
    if (this.#signal && this.#onAbort) this.#signal.removeEventListener("abort", this.#onAbort);
    ops.fetch_close(this.id);
  }

  failure(): unknown {
    return this.#failure;
  }

  /** A reader gave up; the exchange ends when none is left. */
  release(): void {
    if (--this.#readers === 0) this.close(new DOMException("The body was cancelled", "AbortError"));
  }
}

class Cursor {
  #source: NetworkSource;
  #index = 0;

  constructor(source: NetworkSource) {
    this.#source = source;
  }

  async next(): Promise<Uint8Array | undefined> {
    const source = this.#source;
    for (;;) {
      if (this.#index < source.chunks.length) {
        const chunk = source.chunks[this.#index];
        // Chunks no other reader needs any more are let go.
        this.#index++;
        return chunk;
      }
      if (source.done) {
        if (source.failure() !== null) throw source.failure();
        return undefined;
      }
      await source.pull();
    }
  }

  cancel(): void {
    this.#source.release();
  }
}

type BodySource = { kind: "none" } | { kind: "bytes"; bytes: Uint8Array } | { kind: "network"; cursor: Cursor; source: NetworkSource };

/** A subset of ReadableStream: getReader().read(), cancel(), and for await. */
class BodyStream {
  #next: () => Promise<Uint8Array | undefined>;
  #cancel: () => void;
  #locked = false;

  constructor(next: () => Promise<Uint8Array | undefined>, cancel: () => void) {
    this.#next = next;
    this.#cancel = cancel;
  }

  get locked(): boolean {
    return this.#locked;
  }

  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void>; releaseLock(): void } {
    if (this.#locked) throw new TypeError("ReadableStream is locked");
    this.#locked = true;
    return {
      read: async () => {
        const value = await this.#next();
        return value === undefined ? { done: true, value: undefined } : { done: false, value };
      },
      cancel: async () => this.#cancel(),
      releaseLock: () => {
        this.#locked = false;
      },
    };
  }

  async cancel(): Promise<void> {
    this.#cancel();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    const reader = this.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value as Uint8Array;
    }
  }

  get [Symbol.toStringTag](): string {
    return "ReadableStream";
  }
}

// Set in Body's static block: give a network response or a clone its source after construction.
let setSource: (body: Body, source: BodySource) => void;

/** What Request and Response share: one body, read once. */
abstract class Body {
  #source: BodySource;
  #used = false;
  #stream: BodyStream | null = null;

  constructor(source: BodySource) {
    this.#source = source;
  }

  static {
    setSource = (body, source) => {
      body.#source = source;
    };
  }

  abstract readonly headers: Headers;

  get bodyUsed(): boolean {
    return this.#used;
  }

  get body(): BodyStream | null {
    const source = this.#source;
    if (source.kind === "none") return null;
    if (!this.#stream) {
      let given = false;
      this.#stream =
        source.kind === "bytes"
          ? new BodyStream(
              async () => {
                this.#used = true;
                if (given) return undefined;
                given = true;
                return source.bytes;
              },
              () => {
                this.#used = true;
              },
            )
          : new BodyStream(
              () => {
                this.#used = true;
                return source.cursor.next();
              },
              () => {
                this.#used = true;
                source.cursor.cancel();
              },
            );
    }
    return this.#stream;
  }

  /** The source for a clone, leaving this body readable too. */
  protected cloneSource(): BodySource {
    if (this.#used || this.#stream?.locked) throw new TypeError("Response.clone: Body has already been consumed.");
    const source = this.#source;
    return source.kind === "network" ? { kind: "network", source: source.source, cursor: source.source.cursor() } : source;
  }

  async #consume(): Promise<Uint8Array> {
    if (this.#used || this.#stream?.locked) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    const source = this.#source;
    if (source.kind === "none") return new Uint8Array(0);
    if (source.kind === "bytes") return source.bytes;
    const chunks: Uint8Array[] = [];
    for (let chunk = await source.cursor.next(); chunk !== undefined; chunk = await source.cursor.next()) {
      chunks.push(chunk);
    }
    return concatBytes(chunks);
  }

  async bytes(): Promise<Uint8Array> {
    return (await this.#consume()).slice();
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#consume();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return decodeUtf8(stripBom(await this.#consume()));
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  abstract readonly headers: Headers;

  async blob(): Promise<Blob> {
    return new Blob([await this.#consume()], { type: this.headers.get("content-type") ?? "" });
  }

  async formData(): Promise<FormData> {
    return parseFormBody(await this.#consume(), this.headers.get("content-type"));
  }
}

function stripBom(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

// ---------------------------------------------------------------------------------------------
// Request

type RedirectMode = "follow" | "error" | "manual";

export interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit;
  signal?: AbortSignal | null;
  redirect?: RedirectMode;
  /** Browser-only options: accepted as Node accepts them, with no effect outside a browser. */
  mode?: string;
  credentials?: string;
  cache?: string;
  referrer?: string;
  referrerPolicy?: string;
  integrity?: string;
  keepalive?: boolean;
  priority?: string;
  duplex?: string;
}

/** Options awf cannot honour: refused rather than ignored. */
const UNSUPPORTED_INIT = ["dispatcher", "agent", "window"];

// Set in Request's static block: the body as sent (fetch reads it without consuming the request).
let requestBytes: (request: Request) => Uint8Array | null;

const NORMALIZED_METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"];

export class Request extends Body {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly redirect: RedirectMode;
  readonly #bytes: Uint8Array | null;

  constructor(input: string | URL | Request, init: RequestInit = {}) {
    const from = input instanceof Request ? input : null;
    const options = init ?? {};
    for (const key of UNSUPPORTED_INIT) {
      if ((options as Record<string, unknown>)[key] !== undefined) {
        throw new TypeError(`fetch option "${key}" is not supported yet`);
      }
    }
    const url = from ? from.url : parseUrl(input);
    let method = options.method !== undefined ? String(options.method) : (from?.method ?? "GET");
    if (!TOKEN.test(method)) throw new TypeError(`'${method}' is not a valid HTTP method.`);
    const upper = method.toUpperCase();
    if (["CONNECT", "TRACE", "TRACK"].includes(upper)) throw new TypeError(`'${method}' HTTP method is unsupported.`);
    if (NORMALIZED_METHODS.includes(upper)) method = upper;
    const headers = new Headers(options.headers ?? from?.headers);
    let bytes: Uint8Array | null = from ? from.#bytes : null;
    if (options.body !== undefined && options.body !== null) {
      if (method === "GET" || method === "HEAD") throw new TypeError("Request with GET/HEAD method cannot have body.");
      const extracted = extractBody(options.body);
      bytes = extracted.bytes;
      if (extracted.type && !headers.has("content-type")) headers.set("content-type", extracted.type);
    }
    super(bytes ? { kind: "bytes", bytes } : { kind: "none" });
    this.#bytes = bytes;
    this.url = url;
    this.method = method;
    this.headers = headers;
    const redirect = options.redirect ?? from?.redirect ?? "follow";
    if (!["follow", "error", "manual"].includes(redirect)) {
      throw new TypeError(`Request constructor: ${redirect} is not an accepted type. Expected one of follow, manual, error.`);
    }
    this.redirect = redirect;
    const parent = options.signal !== undefined ? options.signal : (from?.signal ?? null);
    if (parent !== null && !(parent instanceof AbortSignal)) {
      throw new TypeError("Request constructor: the signal option must be an AbortSignal");
    }
    this.signal = parent ? AbortSignal.any([parent]) : new AbortController().signal;
  }

  static {
    requestBytes = (request) => request.#bytes;
  }

  clone(): Request {
    if (this.bodyUsed) throw new TypeError("Request.clone: Body has already been consumed.");
    return new Request(this);
  }

  get [Symbol.toStringTag](): string {
    return "Request";
  }
}

function parseUrl(input: unknown): string {
  const URLClass = (globalThis as unknown as { URL: new (u: string) => { href: string } }).URL;
  try {
    return new URLClass(String(input)).href;
  } catch (cause) {
    throw new TypeError(`Failed to parse URL from ${String(input)}`, { cause });
  }
}

// ---------------------------------------------------------------------------------------------
// Response

export interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

interface NetworkHead {
  status: number;
  statusText: string;
  headers: [string, string][];
  url: string;
  redirected: boolean;
}

// Set in Response's static block: builds a response from the network, or a clone.
let networkResponse: (head: NetworkHead, source: NetworkSource) => Response;

export class Response extends Body {
  #status: number;
  #statusText: string;
  #headers: Headers;
  #url = "";
  #redirected = false;
  #type: "default" | "basic" | "error" = "default";

  constructor(body: BodyInit = null, init: ResponseInit = {}) {
    const options = init ?? {};
    const status = options.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    }
    const headers = new Headers(options.headers);
    let source: BodySource = { kind: "none" };
    if (body !== null && body !== undefined) {
      if ([101, 204, 205, 304].includes(status)) throw new TypeError("Response constructor: Invalid response status code " + status);
      const extracted = extractBody(body);
      source = { kind: "bytes", bytes: extracted.bytes };
      if (extracted.type && !headers.has("content-type")) headers.set("content-type", extracted.type);
    }
    super(source);
    this.#status = status;
    this.#statusText = String(options.statusText ?? "");
    this.#headers = headers;
  }

  static {
    networkResponse = (head, source) => {
      const made = new Response(null, { status: 200 });
      made.#status = head.status;
      made.#statusText = head.statusText;
      made.#headers = new Headers(head.headers);
      freezeHeaders(made.#headers);
      made.#url = head.url;
      made.#redirected = head.redirected;
      made.#type = "basic";
      const cursor = source.cursor();
      setSource(made, { kind: "network", source, cursor });
      collectWith(made, cursor);
      return made;
    };
  }

  static json(data: unknown, init: ResponseInit = {}): Response {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError("Value is not JSON serializable");
    const headers = new Headers(init?.headers);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    return new Response(text, { ...init, headers });
  }

  static redirect(url: string | URL, status = 302): Response {
    if (![301, 302, 303, 307, 308].includes(status)) throw new RangeError(`Invalid status code ${status}`);
    return new Response(null, { status, headers: { location: parseUrl(url) } });
  }

  get status(): number {
    return this.#status;
  }
  get statusText(): string {
    return this.#statusText;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }
  get headers(): Headers {
    return this.#headers;
  }
  get url(): string {
    return this.#url;
  }
  get redirected(): boolean {
    return this.#redirected;
  }
  get type(): string {
    return this.#type;
  }

  clone(): Response {
    const source = this.cloneSource();
    const copy = new Response(null, { status: 200 });
    copy.#status = this.#status;
    copy.#statusText = this.#statusText;
    copy.#headers = new Headers(this.#headers);
    if (this.#type === "basic") freezeHeaders(copy.#headers);
    copy.#url = this.#url;
    copy.#redirected = this.#redirected;
    copy.#type = this.#type;
    setSource(copy, source);
    if (source.kind === "network") collectWith(copy, source.cursor);
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return "Response";
  }

  [inspectCustom](): string {
    return `Response { status: ${this.#status}, statusText: ${JSON.stringify(this.#statusText)}, url: ${JSON.stringify(this.#url)}, bodyUsed: ${this.bodyUsed} }`;
  }
}

// ---------------------------------------------------------------------------------------------
// fetch

let nextExchange = 0;

/** A reader nobody holds any more lets its exchange go. */
const collected = new FinalizationRegistry<Cursor>((cursor) => cursor.cancel());

function collectWith(owner: object, cursor: Cursor): void {
  collected.register(owner, cursor);
}

export async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const signal = request.signal;
  signal.throwIfAborted();
  const id = ++nextExchange;
  const body = requestBytes(request);
  let sent: Promise<NetworkHead>;
  try {
    sent = opAsync(
      ops.fetch_send(
        { id, url: request.url, method: request.method, headers: [...request.headers], redirect: request.redirect },
        body ?? undefined,
      ),
    ) as Promise<NetworkHead>;
  } catch (error) {
    throw fetchFailed(error);
  }
  let onAbort: (() => void) | null = null;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      ops.fetch_close(id);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
  let head: NetworkHead;
  try {
    head = await Promise.race([sent.catch((error) => Promise.reject(fetchFailed(error))), aborted]);
  } catch (error) {
    ops.fetch_close(id);
    throw signal.aborted ? signal.reason : error;
  } finally {
    signal.removeEventListener("abort", onAbort as unknown as () => void);
  }
  // Rejections of the losing side are expected; keep them from reading as unhandled.
  aborted.catch(() => {});
  return networkResponse(head, new NetworkSource(id, signal));
}

/** An op failure as Node's fetch reports it: TypeError "fetch failed", the system error as cause. */
function fetchFailed(error: unknown): unknown {
  // Op failures are AwfErrors; a refusal before the op started is an Error with the same code.
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== "string") return error;
  const failure = error as AwfError & Record<string, unknown>;
  if (failure.code === "ERR_ACCESS_DENIED") return error;
  if (failure.code === "ERR_NOT_SUPPORTED") return Object.assign(new TypeError(failure.message), { code: failure.code });
  const cause = new Error(failure.message) as Error & Record<string, unknown>;
  for (const key of ["errno", "code", "syscall", "address", "port", "hostname"]) {
    if (key === "code") cause.code = failure.code;
    else if (failure[key] !== undefined) cause[key] = failure[key];
  }
  return new TypeError(`fetch failed: ${failure.message}`, { cause });
}
