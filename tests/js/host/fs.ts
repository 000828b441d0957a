// node:fs and node:fs/promises through awf: promise, sync and callback forms, Node's error shape,
// relative paths against process.cwd(), and options awf refuses rather than ignores.
// Run by tests/cli/host_apis.rs; its output must equal fs.expected.json.

import fs from "node:fs";
import * as fsp from "node:fs/promises";
import path from "node:path";
import os from "node:os";

export default defineWorkflow({
  meta: { name: "host-fs", description: "node:fs and node:fs/promises through awf" },
  async run() {
    const root = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), "awf-fs-")));
    const at = (p: string) => path.join(root, p);
    const hide = (text: unknown) => (typeof text === "string" ? text.replaceAll(root, "<root>") : text ?? null);
    const errorOf = async (f: () => unknown) => {
      try {
        await f();
        return "no error";
      } catch (e: any) {
        return { name: e.name, code: e.code, errno: e.errno ?? null, syscall: e.syscall ?? null, path: hide(e.path), message: hide(e.message) };
      }
    };
    const r: Record<string, unknown> = {};
    try {
      await fsp.writeFile(at("a.txt"), "héllo");
      await fsp.appendFile(at("a.txt"), " world");
      r.readText = await fsp.readFile(at("a.txt"), "utf8");
      r.readIsBuffer = Buffer.isBuffer(await fsp.readFile(at("a.txt")));
      r.readBase64 = await fsp.readFile(at("a.txt"), { encoding: "base64" });
      r.mkdirRecursive = hide(await fsp.mkdir(at("d/e/f"), { recursive: true }));
      r.mkdirAgain = (await fsp.mkdir(at("d/e/f"), { recursive: true })) ?? null;
      fs.writeFileSync(at("d/b.bin"), new Uint8Array([0, 1, 2, 255]));
      r.readdir = await fsp.readdir(at("d"));
      r.dirents = (await fsp.readdir(at("d"), { withFileTypes: true })).map((d) => [d.name, d.isFile(), d.isDirectory(), hide(d.parentPath)]);
      const st = await fsp.stat(at("d/b.bin"));
      r.stat = { size: st.size, isFile: st.isFile(), isDirectory: st.isDirectory(), mtimeIsDate: st.mtime instanceof Date, mode: (st.mode & 0o170000).toString(8) };
      r.lstatDir = fs.lstatSync(at("d")).isDirectory();
      await fsp.rename(at("a.txt"), at("moved.txt"));
      await fsp.copyFile(at("moved.txt"), at("copy.txt"));
      r.copied = fs.readFileSync(at("copy.txt"), "utf8");
      r.accessOk = (await fsp.access(at("copy.txt"), fs.constants.R_OK)) ?? null;
      r.realpath = hide(await fsp.realpath(at("d/e/../e")));
      r.existsSync = [fs.existsSync(at("copy.txt")), fs.existsSync(at("gone"))];
      r.mkdtempPrefix = hide(fs.mkdtempSync(at("tmp-"))).replace(/[A-Za-z0-9]{6}$/, "XXXXXX");

      r.errors = {
        enoent: await errorOf(() => fsp.readFile(at("nope.txt"))),
        enoentSync: await errorOf(() => fs.readFileSync(at("nope.txt"))),
        eexist: await errorOf(() => fsp.mkdir(at("d"))),
        eisdir: await errorOf(() => fsp.readFile(at("d"))),
        enotempty: await errorOf(() => fsp.rmdir(at("d"))),
        enotdir: await errorOf(() => fsp.readdir(at("copy.txt"))),
        rename: await errorOf(() => fs.renameSync(at("nope"), at("other"))),
        copyExclusive: await errorOf(() => fsp.copyFile(at("moved.txt"), at("copy.txt"), fs.constants.COPYFILE_EXCL)),
        accessMissing: await errorOf(() => fs.accessSync(at("nope"))),
        writeExclusive: await errorOf(() => fsp.writeFile(at("copy.txt"), "x", { flag: "wx" })),
        rmDirectory: await errorOf(() => fsp.rm(at("d"))),
        rmMissing: await errorOf(() => fs.rmSync(at("nope"))),
        badPath: await errorOf(() => fs.readFileSync({} as any)),
        fileDescriptor: await errorOf(() => fs.readFileSync(42 as any)),
        nullByte: await errorOf(() => fs.readFileSync("a\0b")),
        badEncoding: await errorOf(() => fs.readFileSync(at("copy.txt"), "klingon")),
        recursiveReaddir: await errorOf(() => fsp.readdir(at("d"), { recursive: true })),
        unknownFlag: await errorOf(() => fsp.writeFile(at("x"), "x", { flag: "r+" })),
        signalOption: await errorOf(() => fsp.readFile(at("copy.txt"), { signal: new AbortController().signal } as any)),
      };

      process.chdir(root);
      fs.writeFileSync("rel.txt", "relative");
      r.relativeRead = fs.readFileSync(at("rel.txt"), "utf8");
      r.relativeError = await errorOf(() => fs.readFileSync("missing-rel.txt"));
      r.callback = await new Promise((resolve) => fs.readFile("rel.txt", "utf8", (err: unknown, data: unknown) => resolve([err, data])));
      r.callbackError = await new Promise((resolve) => fs.stat("nope", (err: any) => resolve(err.code)));
      r.exists = await new Promise((resolve) => fs.exists("rel.txt", resolve));

      await fsp.rm(at("d"), { recursive: true });
      r.rmForceMissing = (await fsp.rm(at("d"), { recursive: true, force: true })) ?? null;
      r.afterRm = fs.existsSync(at("d"));

      fs.mkdirSync(at("s"));
      fs.appendFileSync(at("s/x"), "1");
      fs.appendFileSync(at("s/x"), "2");
      fs.renameSync(at("s/x"), at("s/y"));
      fs.copyFileSync(at("s/y"), at("s/z"));
      fs.chmodSync(at("s/z"), 0o600);
      r.sync = { list: fs.readdirSync(at("s")), y: fs.readFileSync(at("s/y"), "utf8"), size: fs.statSync(at("s/z")).size, mode: (fs.statSync(at("s/z")).mode & 0o777).toString(8) };
      fs.unlinkSync(at("s/y"));
      fs.rmSync(at("s"), { recursive: true });
      r.syncGone = fs.existsSync(at("s"));
      r.statNoThrow = fs.statSync(at("none"), { throwIfNoEntry: false }) ?? null;
    } finally {
      process.chdir("/");
      fs.rmSync(root, { recursive: true, force: true });
    }
    r.cleaned = fs.existsSync(root);
    return r;
  },
});
