// fetch through awf against the test's own HTTP server on 127.0.0.1 (its port after `--`): JSON,
// text, status codes, headers, bodies sent, redirects (followed, manual, refused, 303 to GET),
// streaming reads, abort, timeout and a refused connection. No traffic leaves 127.0.0.1.
// Run by tests/cli/host_apis.rs; its output must equal fetch.expected.json.

export default defineWorkflow({
  meta: { name: "host-fetch", description: "fetch against a local test server" },
  prepare: ({ argv }) => ({ port: Number(argv[0]), closedPort: Number(argv[1]) }),
  async run(_wf, { port, closedPort }: { port: number; closedPort: number }) {
    const base = `http://127.0.0.1:${port}`;
    const r: Record<string, unknown> = {};
    const failure = (e: any) => ({ name: e.name, message: e.message, cause: e.cause ? { code: e.cause.code, syscall: e.cause.syscall ?? null } : null });

    const json = await fetch(`${base}/json`);
    r.json = { status: json.status, ok: json.ok, statusText: json.statusText, type: json.headers.get("Content-Type"), body: await json.json(), bodyUsed: json.bodyUsed, redirected: json.redirected, url: json.url.replace(String(port), "PORT") };
    r.text = await (await fetch(`${base}/text`)).text();
    const missing = await fetch(`${base}/status/404`);
    r.notFound = { status: missing.status, ok: missing.ok, statusText: missing.statusText, body: await missing.text() };
    r.serverError = (await fetch(`${base}/status/503`)).status;

    const echoed = await fetch(new URL("/echo?q=1", base), {
      method: "post",
      headers: { "X-Test": "yes", "content-type": "application/json" },
      body: JSON.stringify({ a: 1 }),
    });
    r.post = await echoed.json();
    r.putBytes = await (await fetch(`${base}/echo`, { method: "PUT", body: new Uint8Array([104, 105]) })).json();
    r.form = await (await fetch(`${base}/echo`, { method: "POST", body: new URLSearchParams({ a: "1 2", b: "é" }) })).json();

    const redirected = await fetch(`${base}/redirect`);
    r.redirect = { status: redirected.status, redirected: redirected.redirected, url: redirected.url.replace(String(port), "PORT"), body: await redirected.json() };
    const manual = await fetch(`${base}/redirect`, { redirect: "manual" });
    r.manual = { status: manual.status, location: manual.headers.get("location") };
    r.redirectError = await fetch(`${base}/redirect`, { redirect: "error" }).then(() => "no error", failure);
    r.redirectLoop = await fetch(`${base}/loop`).then(() => "no error", failure);
    r.seeOther = await (await fetch(`${base}/see-other`, { method: "POST", body: "dropped" })).json();

    const streamed = await fetch(`${base}/chunks`);
    const reader = streamed.body!.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(new TextDecoder().decode(value));
    }
    r.stream = chunks.join("");
    let iterated = "";
    for await (const chunk of (await fetch(`${base}/chunks`)).body as any) iterated += new TextDecoder().decode(chunk);
    r.iterate = iterated;
    const cloned = await fetch(`${base}/text`);
    const copy = cloned.clone();
    r.clone = [await cloned.text(), await copy.text()];
    r.readTwice = await cloned.text().then(() => "no error", (e: any) => [e.name, e.message]);

    const controller = new AbortController();
    const pending = fetch(`${base}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    r.abort = await pending.then(() => "no error", (e: any) => [e.name, e.message]);
    r.abortReason = await fetch(`${base}/slow`, { signal: AbortSignal.abort("mine") }).catch((e) => e);
    r.timeout = await fetch(`${base}/slow`, { signal: AbortSignal.timeout(50) }).then(() => "no error", (e: any) => [e.name, e.message]);
    const bodyController = new AbortController();
    const slowBody = await fetch(`${base}/slow-body`, { signal: bodyController.signal });
    setTimeout(() => bodyController.abort(), 30);
    r.abortBody = await slowBody.text().then(() => "no error", (e: any) => [e.name, e.message]);

    r.refused = await fetch(`http://127.0.0.1:${closedPort}/`).then(() => "no error", failure);
    if (r.refused && typeof r.refused === "object") (r.refused as any).message = (r.refused as any).message.replace(String(closedPort), "PORT");
    r.badUrl = await fetch("not a url").then(() => "no error", (e: any) => [e.name, e.message]);
    r.fileUrl = await fetch("file:///etc/hostname").then(() => "no error", (e: any) => [e.name, e.code, e.message]);
    r.getWithBody = await fetch(base, { body: "x" }).then(() => "no error", (e: any) => [e.name, e.message]);

    const headers = new Headers([["B", "2"], ["a", "1"], ["set-cookie", "x=1"], ["Set-Cookie", "y=2"]]);
    headers.append("a", "3");
    r.headers = { entries: [...headers], a: headers.get("A"), cookies: headers.getSetCookie(), has: headers.has("b") };
    r.badHeader = (() => { try { new Headers({ "bad name": "x" }); } catch (e: any) { return [e.name, e.message]; } })();
    const made = Response.json({ made: true }, { status: 201, headers: { "x-a": "b" } });
    r.response = { status: made.status, type: made.headers.get("content-type"), body: await made.json() };
    r.immutable = await fetch(`${base}/text`).then((res) => { try { res.headers.set("x", "y"); return "mutable"; } catch (e: any) { return e.message; } });
    return r;
  },
});
