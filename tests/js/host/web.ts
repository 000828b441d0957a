// The web globals through awf: URL and URLSearchParams, TextEncoder and TextDecoder,
// AbortController and AbortSignal (timeout, any), Event and EventTarget, crypto, atob/btoa,
// performance. Run by tests/cli/host_apis.rs; its output must equal web.expected.json.

export default defineWorkflow({
  meta: { name: "host-web", description: "web globals through awf" },
  async run() {
    const r: Record<string, unknown> = {};
    // Nothing has used these yet, so their modules are not loaded: each is still a getter.
    const lazy = ["fetch", "Headers", "URL", "Buffer", "AbortController", "Event", "TextEncoder", "crypto"];
    r.notLoadedAtStart = lazy.filter((name) => typeof Object.getOwnPropertyDescriptor(globalThis, name)?.get !== "function");
    const thrown = (f: () => unknown) => {
      try {
        f();
        return "no error";
      } catch (e: any) {
        return [e.name, e.code ?? null, e.message];
      }
    };

    const u = new URL("HTTPS://user:pw@Example.COM:8080/a/./b/../c?x=1&y=%20z#frag");
    r.url = { href: u.href, origin: u.origin, protocol: u.protocol, username: u.username, password: u.password, host: u.host, hostname: u.hostname, port: u.port, pathname: u.pathname, search: u.search, hash: u.hash };
    r.urlRelative = new URL("../d?q", "http://h.com/a/b/c").href;
    r.urlIdna = new URL("http://bücher.example/").hostname;
    r.urlDefaultPort = new URL("https://h.com:443/").href;
    u.searchParams.append("added", "a b&c");
    u.hash = "";
    u.pathname = "/new path";
    r.urlSet = u.href;
    u.search = "?fresh=1";
    r.urlSearchParamsFollow = [...u.searchParams];
    r.urlInvalid = thrown(() => new URL("no scheme"));
    r.urlCanParse = [URL.canParse("http://x"), URL.canParse("nope"), URL.canParse("/p", "http://x")];
    r.urlJson = JSON.stringify({ u: new URL("http://x/y") });

    const p = new URLSearchParams("a=1&b=2&a=3&c=%C3%A9+x");
    p.append("d", "é&=");
    p.delete("b");
    p.set("a", "9");
    r.params = { string: p.toString(), all: p.getAll("a"), c: p.get("c"), missing: p.get("zz"), has: [p.has("d"), p.has("d", "no")], size: p.size };
    const sorted = new URLSearchParams({ z: "1", a: "2", m: "3" });
    sorted.sort();
    r.paramsSorted = sorted.toString();
    r.paramsFromPairs = new URLSearchParams([["x", "1"], ["y", "2"]]).toString();

    const enc = new TextEncoder();
    r.encode = Array.from(enc.encode("aé€😀"));
    r.encodeLoneSurrogate = Array.from(enc.encode("\ud800x"));
    const into = new Uint8Array(4);
    r.encodeInto = [enc.encodeInto("aé€", into), Array.from(into)];
    const dec = new TextDecoder();
    r.decode = dec.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9, 0xff, 0x21]));
    const streaming = new TextDecoder();
    r.decodeStream = streaming.decode(new Uint8Array([0xe2, 0x82]), { stream: true }) + "|" + streaming.decode(new Uint8Array([0xac]));
    r.decodeFatal = thrown(() => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])));
    r.decodeUtf16 = new TextDecoder("utf-16le").decode(new Uint8Array([0x68, 0x00, 0x69, 0x00]));
    r.decoderLabel = [new TextDecoder("UTF8").encoding, thrown(() => new TextDecoder("klingon"))];

    const controller = new AbortController();
    const seen: string[] = [];
    controller.signal.addEventListener("abort", (e) => seen.push(`listener:${e.type}`));
    controller.signal.onabort = () => seen.push("onabort");
    controller.abort();
    controller.abort("again");
    const reason = controller.signal.reason as DOMException;
    r.abort = { aborted: controller.signal.aborted, reason: [reason.name, reason.message], seen, throws: thrown(() => controller.signal.throwIfAborted()) };
    r.abortWithReason = AbortSignal.abort("why").reason;
    r.illegalSignal = thrown(() => new (AbortSignal as any)());
    const timeout = AbortSignal.timeout(10);
    // Its timer is unref'd: something else must keep the run alive meanwhile, as in Node.
    await new Promise((resolve) => setTimeout(resolve, 40));
    r.timeout = [(timeout.reason as DOMException).name, (timeout.reason as DOMException).message];
    const a = new AbortController();
    const b = new AbortController();
    const any = AbortSignal.any([a.signal, b.signal]);
    b.abort("b went first");
    r.any = [any.aborted, any.reason];
    r.unrefTimeoutDoesNotHold = AbortSignal.timeout(60_000).aborted;

    const target = new EventTarget();
    const log: string[] = [];
    const listener = (e: Event) => log.push(`fn:${e.type}:${e.target === target}`);
    target.addEventListener("ping", listener);
    target.addEventListener("ping", listener);
    target.addEventListener("ping", { handleEvent: (e: Event) => log.push(`object:${e.type}`) }, { once: true });
    target.dispatchEvent(new Event("ping"));
    target.dispatchEvent(new Event("ping"));
    target.removeEventListener("ping", listener);
    target.dispatchEvent(new Event("ping"));
    const cancelable = new Event("c", { cancelable: true });
    target.addEventListener("c", (e) => e.preventDefault());
    r.events = { log, notCanceled: target.dispatchEvent(cancelable), defaultPrevented: cancelable.defaultPrevented };
    const stopped: string[] = [];
    target.addEventListener("s", (e) => { stopped.push("first"); e.stopImmediatePropagation(); });
    target.addEventListener("s", () => stopped.push("second"));
    target.dispatchEvent(new Event("s"));
    r.stopImmediate = stopped;
    const viaSignal = new AbortController();
    const removed: string[] = [];
    target.addEventListener("r", () => removed.push("r"), { signal: viaSignal.signal });
    target.dispatchEvent(new Event("r"));
    viaSignal.abort();
    target.dispatchEvent(new Event("r"));
    r.removedBySignal = removed;

    const uuid = crypto.randomUUID();
    r.uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid);
    const values = crypto.getRandomValues(new Uint32Array(8));
    r.randomValues = [values.length, values.some((v) => v !== 0)];
    r.randomFloat = thrown(() => crypto.getRandomValues(new Float64Array(2) as any));
    r.randomQuota = thrown(() => crypto.getRandomValues(new Uint8Array(65537)));

    r.base64 = [btoa("hello"), atob("aGVsbG8=")];
    r.performance = typeof performance.now() === "number" && performance.now() >= 0;
    r.lazyGlobalsReplaceable = (() => {
      const saved = globalThis.fetch;
      (globalThis as any).fetch = "mine";
      const replaced = (globalThis as any).fetch;
      (globalThis as any).fetch = saved;
      return replaced;
    })();
    return r;
  },
});
