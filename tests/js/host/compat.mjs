// Host APIs as a workflow written for Node: the same file runs under awf (`awf run compat.mjs`)
// and under node (compat-node.mjs), and tests/cli/host_apis.rs requires the same output from
// both. Plain JavaScript, so node runs it as it is.

import fs from "node:fs";
import { mkdtemp, readFile, readdir, rm, stat, writeFile, appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import os from "node:os";
import { execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { promisify, format, inspect, isDeepStrictEqual, types } from "node:util";
import { EventEmitter, once } from "node:events";
import { Buffer } from "node:buffer";

const errorShape = (e) => ({ name: e.name, code: e.code, errno: e.errno, syscall: e.syscall, message: e.message });

export default defineWorkflow({
  meta: { name: "host-compat", description: "host APIs, the same under awf and node" },
  async run() {
    const r = {};
    const root = await fs.promises.realpath(await mkdtemp(path.join(os.tmpdir(), "compat-")));
    const at = (p) => path.join(root, p);
    const hide = (text) => text.replaceAll(root, "<root>");
    try {
      await writeFile(at("a.txt"), "line 1\n");
      await appendFile(at("a.txt"), "line 2\n");
      await mkdir(at("sub/deep"), { recursive: true });
      fs.writeFileSync(at("sub/b.json"), JSON.stringify({ ok: true }));
      r.fs = {
        text: await readFile(at("a.txt"), "utf8"),
        bytes: [...(await readFile(at("a.txt"))).subarray(0, 4)],
        list: await readdir(root),
        types: (await readdir(at("sub"), { withFileTypes: true })).map((d) => `${d.name}:${d.isDirectory() ? "dir" : "file"}`),
        json: JSON.parse(fs.readFileSync(at("sub/b.json"), "utf8")),
        size: (await stat(at("a.txt"))).size,
        isDir: fs.statSync(at("sub")).isDirectory(),
        exists: [fs.existsSync(at("a.txt")), fs.existsSync(at("zzz"))],
      };
      const errors = {};
      for (const [name, f] of Object.entries({
        readMissing: () => readFile(at("missing")),
        readDir: () => readFile(at("sub")),
        mkdirExisting: () => mkdir(at("sub")),
        rmdirNotEmpty: () => fs.promises.rmdir(at("sub")),
        readdirFile: () => readdir(at("a.txt")),
        renameMissing: () => fs.promises.rename(at("missing"), at("other")),
        unlinkMissing: () => fs.promises.unlink(at("missing")),
        accessMissing: () => fs.promises.access(at("missing")),
        statMissing: () => stat(at("missing")),
        syncReadMissing: () => fs.readFileSync(at("missing")),
        syncMkdirExisting: () => fs.mkdirSync(at("sub")),
        badArgument: () => fs.readFileSync({}),
      })) {
        try {
          await f();
          errors[name] = "no error";
        } catch (e) {
          const shape = errorShape(e);
          shape.message = hide(shape.message);
          if (e.path) shape.path = hide(e.path);
          errors[name] = shape;
        }
      }
      r.fsErrors = errors;
      await rm(at("sub"), { recursive: true });
      r.afterRm = fs.existsSync(at("sub"));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }

    r.path = [
      path.join("/a", "b", "../c"),
      path.resolve("/a/b", "./c", "../d"),
      path.relative("/data/orandea/test/aaa", "/data/orandea/impl/bbb"),
      path.dirname("/foo/bar/baz/asdf/quux"),
      path.basename("/foo/bar/baz/asdf/quux.html", ".html"),
      path.extname("index.coffee.md"),
      path.normalize("/foo/bar//baz/asdf/quux/.."),
      path.parse("/home/user/dir/file.txt"),
      path.format({ root: "/ignored", dir: "/home/user/dir", base: "file.txt" }),
      path.isAbsolute("./x"),
    ];

    const b = Buffer.from("Grüße, world");
    r.buffer = [b.length, b.toString("hex"), b.toString("base64"), b.toString("latin1").length, Buffer.concat([b.subarray(0, 3), Buffer.from([33])]).toString(), JSON.stringify(Buffer.from("hi")), Buffer.alloc(3, "x").toString(), b.indexOf("world"), Buffer.byteLength("€")];

    r.util = [format("%s has %d items (%i%%) %j", "list", 3, 42.9, { a: [1] }), isDeepStrictEqual([1, { a: 2 }], [1, { a: 2 }]), isDeepStrictEqual([1], ["1"]), types.isDate(new Date()), await promisify((v, cb) => cb(null, v + 1))(1)];

    const emitter = new EventEmitter();
    const seen = [];
    emitter.on("x", (v) => seen.push(`on ${v}`));
    emitter.once("x", (v) => seen.push(`once ${v}`));
    emitter.emit("x", 1);
    emitter.emit("x", 2);
    setTimeout(() => emitter.emit("later", "done"), 5);
    r.events = [seen, emitter.listenerCount("x"), await once(emitter, "later")];

    const url = new URL("/p/a/t/h?query=string&a=1#hash", "https://user:pass@sub.example.com:8080");
    url.searchParams.append("b", "x y");
    r.url = [url.href, url.origin, url.host, url.pathname, url.search, [...url.searchParams.keys()], new URLSearchParams({ q: "a&b", r: "é" }).toString()];

    r.text = [[...new TextEncoder().encode("€uro")], new TextDecoder().decode(new Uint8Array([0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]))];

    const controller = new AbortController();
    const events = [];
    controller.signal.addEventListener("abort", () => events.push("abort"));
    controller.abort();
    r.abort = [controller.signal.aborted, controller.signal.reason.name, controller.signal.reason.message, events];
    const timed = AbortSignal.timeout(5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    r.timeout = [timed.aborted, timed.reason.name];

    const execFileAsync = promisify(execFile);
    r.child = {
      execFile: await execFileAsync("sh", ["-c", "echo out; echo err >&2"]),
      execFileSync: execFileSync("echo", ["hello"], { encoding: "utf8" }),
      spawnSync: (({ status, stdout }) => ({ status, stdout: stdout.toString() }))(spawnSync("sh", ["-c", "printf abc; exit 7"])),
      failure: await execFileAsync("sh", ["-c", "exit 3"]).catch((e) => ({ code: e.code, killed: e.killed, signal: e.signal })),
      missing: await execFileAsync("definitely-not-a-program").catch((e) => ({ code: e.code, errno: e.errno, syscall: e.syscall })),
      spawned: await new Promise((resolve) => {
        const child = spawn("cat");
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("close", (code, signal) => resolve({ out, code, signal }));
        child.stdin.end("piped through cat");
      }),
      killed: await new Promise((resolve) => {
        const child = spawn("sleep", ["10"]);
        child.on("exit", (code, signal) => resolve({ code, signal, killed: child.killed }));
        child.kill("SIGTERM");
      }),
    };
    r.os = [os.EOL, os.platform(), typeof os.tmpdir()];
    r.inspect = [Buffer.from(""), Buffer.from("ab"), new String(" "), Object.assign(new String("ab"), { x: 1 }), new Number(-0), new Boolean(false), Object(1n), Object(Symbol("s")), (function* () {})(), new (class Tagged {
      get [Symbol.toStringTag]() {
        return "Tag";
      }
    })()].map((value) => inspect(value));

    const blob = new Blob(["h€", new Uint8Array([33]), new Blob(["!"])], { type: "Text/Plain" });
    const file = new File(["abc"], "a.txt", { type: "text/plain", lastModified: 42 });
    const form = new FormData();
    form.append("name", "x\ny");
    form.append("file", file);
    form.append("blob", new Blob([new Uint8Array([0, 255])]), "raw.bin");
    form.append("name", "second");
    form.set("only", "1");
    form.delete("nothing");
    const entries = (f) => [...f].map(([k, v]) => [k, typeof v === "string" ? v : [v.constructor.name, v.name, v.size, v.type]]);
    const sent = new Response(form);
    const back = await sent.clone().formData();
    const blobBack = await new Response(blob).blob();
    r.blobs = {
      blob: [blob.size, blob.type, await blob.text(), [...new Uint8Array(await blob.arrayBuffer())], Object.prototype.toString.call(blob)],
      slices: [await blob.slice(1, -1).text(), blob.slice(-2).size, blob.slice(3, 1).size, blob.slice(0, 1, "a/b").type],
      file: [file.name, file.size, file.type, file.lastModified, file instanceof Blob, Object.prototype.toString.call(file)],
      form: entries(form),
      formGet: [form.get("name"), form.getAll("name"), form.has("blob"), form.get("missing"), Object.prototype.toString.call(form)],
      multipart: [sent.headers.get("content-type").split(";")[0], entries(back), await back.get("blob").bytes().then((b) => [...b])],
      urlencoded: entries(await new Response("a=1&b=%C3%A9", { headers: { "content-type": "application/x-www-form-urlencoded" } }).formData()),
      blobBody: [blobBack.type, await blobBack.text(), new Response(blob).headers.get("content-type")],
    };
    return r;
  },
});
