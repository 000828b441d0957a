// The file system for `node:fs` and `node:fs/promises`, over the ops of
// runtime/src/js/host/fs.rs: promise, sync and callback forms of each call.
//
// Paths are strings, Buffers or file: URLs; relative ones resolve against `process.cwd()`.
// Errors are Node's: `code` (ENOENT, EACCES, EEXIST, ...), `errno`, `syscall`, `path` (and
// `dest`), message `ENOENT: no such file or directory, open 'x'`. An option awf does not
// implement throws a "not supported yet" TypeError rather than being ignored.

import * as ops from "awf:ops";
import { type AwfError, opAsync } from "../core.ts";
import { decodeUtf8, encodeUtf8 } from "./encoding.ts";
import { checkOptions, invalidArgType, invalidArgValue, notSupported } from "../node/errors.ts";

type BufferClass = typeof import("./buffer.ts").Buffer;

const Buffer = (): BufferClass => (globalThis as unknown as { Buffer: BufferClass }).Buffer;

export const constants = Object.freeze({
  F_OK: 0,
  R_OK: 4,
  W_OK: 2,
  X_OK: 1,
  COPYFILE_EXCL: 1,
  COPYFILE_FICLONE: 2,
  COPYFILE_FICLONE_FORCE: 4,
  O_RDONLY: 0,
  O_WRONLY: 1,
  O_RDWR: 2,
  S_IFMT: 0o170000,
  S_IFREG: 0o100000,
  S_IFDIR: 0o040000,
  S_IFLNK: 0o120000,
});

// ---------------------------------------------------------------------------------------------
// Arguments

function pathArg(value: unknown, name = "path"): string {
  let path: string;
  if (typeof value === "string") {
    path = value;
  } else if (value instanceof Uint8Array) {
    path = decodeUtf8(value);
  } else if (typeof value === "number") {
    throw notSupported(`file descriptors (the ${name} ${value})`);
  } else if (isUrl(value)) {
    if (value.protocol !== "file:") {
      const error = new TypeError("The URL must be of scheme file") as TypeError & { code: string };
      error.code = "ERR_INVALID_URL_SCHEME";
      throw error;
    }
    path = decodeURIComponent(value.pathname);
  } else {
    throw invalidArgType(name, "of type string or an instance of Buffer or URL", value);
  }
  if (path.includes("\0")) {
    throw invalidArgValue(name, path, "must be a string, Uint8Array, or URL without null bytes");
  }
  return path;
}

function isUrl(value: unknown): value is { href: string; protocol: string; pathname: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { href?: unknown }).href === "string" &&
    typeof (value as { protocol?: unknown }).protocol === "string"
  );
}

type EncodingOption = string | null | undefined | { encoding?: string | null; flag?: string; mode?: number };

function optionsOf(api: string, options: EncodingOption, allowed: readonly string[]): { encoding?: string | null; flag?: string; mode?: number } {
  if (options === undefined || options === null) return {};
  if (typeof options === "string") return { encoding: options };
  if (typeof options !== "object") throw invalidArgType("options", "of type string or an instance of Object", options);
  checkOptions(api, options, allowed);
  return options;
}

function checkEncoding(encoding: string | null | undefined): string | null {
  if (encoding === undefined || encoding === null || encoding === "buffer") return null;
  if (!Buffer().isEncoding(encoding)) {
    const error = new TypeError(`The argument 'encoding' is invalid encoding. Received '${encoding}'`) as TypeError & { code: string };
    error.code = "ERR_INVALID_ARG_VALUE";
    throw error;
  }
  return encoding;
}

function dataBytes(data: unknown, encoding: string | null): Uint8Array {
  if (typeof data === "string") {
    return encoding === null || encoding === "utf8" || encoding === "utf-8" ? encodeUtf8(data) : Buffer().from(data, encoding);
  }
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw invalidArgType("data", "of type string or an instance of Buffer, TypedArray, or DataView", data);
}

function decoded(bytes: Uint8Array, encoding: string | null): string | Uint8Array {
  const B = Buffer();
  const buffer = new B(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === null ? buffer : buffer.toString(encoding);
}

function writeFlags(flag: string | undefined, fallback: "w" | "a"): { append: boolean; exclusive: boolean } {
  const f = flag ?? fallback;
  switch (f) {
    case "w":
      return { append: false, exclusive: false };
    case "wx":
    case "xw":
      return { append: false, exclusive: true };
    case "a":
      return { append: true, exclusive: false };
    case "ax":
    case "xa":
      return { append: true, exclusive: true };
    default:
      throw notSupported(`file flag "${f}"`);
  }
}

function modeArg(mode: unknown, fallback: number | null): number | null {
  if (mode === undefined || mode === null) return fallback;
  if (typeof mode === "number") return mode;
  if (typeof mode === "string" && /^[0-7]+$/.test(mode)) return parseInt(mode, 8);
  throw invalidArgType("mode", "of type number or a string of octal digits", mode);
}

// ---------------------------------------------------------------------------------------------
// Calls: one description per call, run by either door

interface Call {
  op: string;
  [key: string]: unknown;
}

/** An op failure rebuilt as Node's error, with the caller's frames. */
function nodeError(error: unknown): unknown {
  // Op failures are AwfErrors; a refusal before the op started is an Error with the same code.
  if (!(error instanceof Error) || typeof (error as { code?: unknown }).code !== "string") return error;
  const failure = error as AwfError & Record<string, unknown>;
  const node = new Error(failure.message) as Error & Record<string, unknown>;
  if (failure.errno !== undefined) node.errno = failure.errno;
  node.code = failure.code;
  for (const key of ["syscall", "path", "dest", "permission", "resource", "hint"]) {
    if (failure[key] !== undefined) node[key] = failure[key];
  }
  return node;
}

async function run(call: Call, bytes?: Uint8Array): Promise<unknown> {
  try {
    return await opAsync(ops.fs_async(call, bytes));
  } catch (error) {
    throw nodeError(error);
  }
}

function runSync(call: Call, bytes?: Uint8Array): unknown {
  return ops.fs_sync(call, bytes);
}

// ---------------------------------------------------------------------------------------------
// Stats and Dirent

interface RawStats {
  dev: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  blksize: number;
  ino: number;
  size: number;
  blocks: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
  birthtimeMs: number;
  kind: string;
}

/** The file-type predicates `Stats` and `Dirent` share, over the kind the op reports. */
class FileKind {
  readonly #kind: string;

  constructor(kind: string) {
    this.#kind = kind;
  }

  isFile(): boolean {
    return this.#kind === "file";
  }
  isDirectory(): boolean {
    return this.#kind === "directory";
  }
  isSymbolicLink(): boolean {
    return this.#kind === "symlink";
  }
  isFIFO(): boolean {
    return this.#kind === "fifo";
  }
  isSocket(): boolean {
    return this.#kind === "socket";
  }
  isBlockDevice(): boolean {
    return this.#kind === "block";
  }
  isCharacterDevice(): boolean {
    return this.#kind === "char";
  }
}

export class Stats extends FileKind {
  dev: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  blksize: number;
  ino: number;
  size: number;
  blocks: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
  birthtimeMs: number;
  atime: Date;
  mtime: Date;
  ctime: Date;
  birthtime: Date;

  constructor(raw: RawStats) {
    super(raw.kind);
    this.dev = raw.dev;
    this.mode = raw.mode;
    this.nlink = raw.nlink;
    this.uid = raw.uid;
    this.gid = raw.gid;
    this.rdev = raw.rdev;
    this.blksize = raw.blksize;
    this.ino = raw.ino;
    this.size = raw.size;
    this.blocks = raw.blocks;
    this.atimeMs = raw.atimeMs;
    this.mtimeMs = raw.mtimeMs;
    this.ctimeMs = raw.ctimeMs;
    this.birthtimeMs = raw.birthtimeMs;
    this.atime = new Date(raw.atimeMs);
    this.mtime = new Date(raw.mtimeMs);
    this.ctime = new Date(raw.ctimeMs);
    this.birthtime = new Date(raw.birthtimeMs);
  }
}

export class Dirent extends FileKind {
  name: string;
  parentPath: string;
  path: string;

  constructor(name: string, kind: string, parent: string) {
    super(kind);
    this.name = name;
    this.parentPath = parent;
    this.path = parent;
  }
}

// ---------------------------------------------------------------------------------------------
// Each call: arguments -> (Call, bytes), and the value from the op's answer

interface Plan {
  call: Call;
  bytes?: Uint8Array;
  finish(value: unknown): unknown;
}

const same = (value: unknown) => value;
const nothing = () => undefined;

const plans = {
  readFile(path: unknown, options?: EncodingOption): Plan {
    const o = optionsOf("readFile", options, ["encoding", "flag"]);
    if (o.flag !== undefined && o.flag !== "r") throw notSupported(`readFile: file flag "${o.flag}"`);
    const encoding = checkEncoding(o.encoding);
    return { call: { op: "readFile", path: pathArg(path) }, finish: (bytes) => decoded(bytes as Uint8Array, encoding) };
  },
  writeFile(path: unknown, data: unknown, options?: EncodingOption, fallback: "w" | "a" = "w"): Plan {
    const o = optionsOf(fallback === "a" ? "appendFile" : "writeFile", options, ["encoding", "flag", "mode"]);
    const flags = writeFlags(o.flag, fallback);
    const bytes = dataBytes(data, checkEncoding(o.encoding));
    return {
      call: { op: "writeFile", path: pathArg(path), ...flags, mode: modeArg(o.mode, null) },
      bytes,
      finish: nothing,
    };
  },
  mkdir(path: unknown, options?: number | string | { recursive?: boolean; mode?: number | string }): Plan {
    const o = typeof options === "object" && options !== null ? options : { mode: options };
    checkOptions("mkdir", o, ["recursive", "mode"]);
    return {
      call: { op: "mkdir", path: pathArg(path), recursive: Boolean(o.recursive), mode: modeArg(o.mode, null) },
      finish: same,
    };
  },
  readdir(path: unknown, options?: string | { withFileTypes?: boolean; encoding?: string; recursive?: boolean }): Plan {
    const o = typeof options === "string" ? { encoding: options } : (options ?? {});
    checkOptions("readdir", o, ["withFileTypes", "encoding", "recursive"]);
    if (o.recursive) throw notSupported('readdir: option "recursive"');
    const encoding = o.encoding ?? "utf8";
    if (encoding !== "utf8" && encoding !== "utf-8") throw notSupported(`readdir: encoding "${encoding}"`);
    const p = pathArg(path);
    return {
      call: { op: "readdir", path: p },
      finish: (entries) => {
        const list = entries as { name: string; kind: string }[];
        return o.withFileTypes ? list.map((e) => new Dirent(e.name, e.kind, p)) : list.map((e) => e.name);
      },
    };
  },
  stat(path: unknown, options?: { bigint?: boolean; throwIfNoEntry?: boolean }, follow = true): Plan {
    checkOptions(follow ? "stat" : "lstat", options, ["bigint", "throwIfNoEntry"]);
    if (options?.bigint) throw notSupported(`${follow ? "stat" : "lstat"}: option "bigint"`);
    return { call: { op: "stat", path: pathArg(path), follow }, finish: (raw) => new Stats(raw as RawStats) };
  },
  rm(path: unknown, options?: { recursive?: boolean; force?: boolean; maxRetries?: number; retryDelay?: number }): Plan {
    checkOptions("rm", options, ["recursive", "force", "maxRetries", "retryDelay"]);
    return {
      call: { op: "rm", path: pathArg(path), recursive: Boolean(options?.recursive), force: Boolean(options?.force) },
      finish: nothing,
    };
  },
  rmdir(path: unknown, options?: { recursive?: boolean }): Plan {
    checkOptions("rmdir", options, ["recursive", "maxRetries", "retryDelay"]);
    const p = pathArg(path);
    if (options?.recursive) return { call: { op: "rm", path: p, recursive: true, force: false }, finish: nothing };
    return { call: { op: "rmdir", path: p }, finish: nothing };
  },
  unlink(path: unknown): Plan {
    return { call: { op: "unlink", path: pathArg(path) }, finish: nothing };
  },
  rename(from: unknown, to: unknown): Plan {
    return { call: { op: "rename", from: pathArg(from, "oldPath"), to: pathArg(to, "newPath") }, finish: nothing };
  },
  copyFile(from: unknown, to: unknown, mode = 0): Plan {
    if (mode & ~constants.COPYFILE_EXCL) throw notSupported("copyFile: COPYFILE_FICLONE modes");
    return {
      call: { op: "copyFile", from: pathArg(from, "src"), to: pathArg(to, "dest"), exclusive: Boolean(mode & constants.COPYFILE_EXCL) },
      finish: nothing,
    };
  },
  access(path: unknown, mode: number = constants.F_OK): Plan {
    return { call: { op: "access", path: pathArg(path), mode }, finish: nothing };
  },
  chmod(path: unknown, mode: unknown): Plan {
    return { call: { op: "chmod", path: pathArg(path), mode: modeArg(mode, null) }, finish: nothing };
  },
  realpath(path: unknown, options?: EncodingOption): Plan {
    optionsOf("realpath", options, ["encoding"]);
    return { call: { op: "realpath", path: pathArg(path) }, finish: same };
  },
  mkdtemp(prefix: unknown, options?: EncodingOption): Plan {
    optionsOf("mkdtemp", options, ["encoding"]);
    if (typeof prefix !== "string") throw invalidArgType("prefix", "of type string", prefix);
    return { call: { op: "mkdtemp", prefix }, finish: same };
  },
};

type PlanName = keyof typeof plans;

function asyncForm<N extends PlanName>(name: N) {
  return async (...args: Parameters<(typeof plans)[N]>): Promise<any> => {
    const plan = (plans[name] as (...a: unknown[]) => Plan)(...args);
    return plan.finish(await run(plan.call, plan.bytes));
  };
}

function syncForm<N extends PlanName>(name: N) {
  return (...args: Parameters<(typeof plans)[N]>): any => {
    const plan = (plans[name] as (...a: unknown[]) => Plan)(...args);
    return plan.finish(runSync(plan.call, plan.bytes));
  };
}

/** Node's callback form: the last argument is `(error, value) => void`, called later. */
function callbackForm(promised: (...args: any[]) => Promise<unknown>) {
  return (...args: unknown[]): void => {
    const callback = args.pop();
    if (typeof callback !== "function") throw invalidArgType("cb", "of type function", callback);
    promised(...args).then(
      (value) => callback(null, value),
      (error) => callback(error),
    );
  };
}

// ---------------------------------------------------------------------------------------------
// The three faces

export const promises = {
  readFile: asyncForm("readFile"),
  writeFile: (path: unknown, data: unknown, options?: EncodingOption) => asyncForm("writeFile")(path, data, options, "w"),
  appendFile: (path: unknown, data: unknown, options?: EncodingOption) => asyncForm("writeFile")(path, data, options, "a"),
  mkdir: asyncForm("mkdir"),
  readdir: asyncForm("readdir"),
  stat: (path: unknown, options?: { bigint?: boolean }) => asyncForm("stat")(path, options, true),
  lstat: (path: unknown, options?: { bigint?: boolean }) => asyncForm("stat")(path, options, false),
  rm: asyncForm("rm"),
  rmdir: asyncForm("rmdir"),
  unlink: asyncForm("unlink"),
  rename: asyncForm("rename"),
  copyFile: asyncForm("copyFile"),
  access: asyncForm("access"),
  chmod: asyncForm("chmod"),
  realpath: asyncForm("realpath"),
  mkdtemp: asyncForm("mkdtemp"),
  constants,
};

function statSync(path: unknown, options?: { bigint?: boolean; throwIfNoEntry?: boolean }, follow = true): Stats | undefined {
  try {
    return syncForm("stat")(path, options, follow);
  } catch (error) {
    if (options?.throwIfNoEntry === false && (error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

export const sync = {
  readFileSync: syncForm("readFile"),
  writeFileSync: (path: unknown, data: unknown, options?: EncodingOption): void => syncForm("writeFile")(path, data, options, "w"),
  appendFileSync: (path: unknown, data: unknown, options?: EncodingOption): void => syncForm("writeFile")(path, data, options, "a"),
  mkdirSync: syncForm("mkdir"),
  readdirSync: syncForm("readdir"),
  statSync: (path: unknown, options?: { bigint?: boolean; throwIfNoEntry?: boolean }) => statSync(path, options, true),
  lstatSync: (path: unknown, options?: { bigint?: boolean; throwIfNoEntry?: boolean }) => statSync(path, options, false),
  rmSync: syncForm("rm"),
  rmdirSync: syncForm("rmdir"),
  unlinkSync: syncForm("unlink"),
  renameSync: syncForm("rename"),
  copyFileSync: syncForm("copyFile"),
  accessSync: syncForm("access"),
  chmodSync: syncForm("chmod"),
  realpathSync: syncForm("realpath"),
  mkdtempSync: syncForm("mkdtemp"),
  existsSync(path: unknown): boolean {
    try {
      syncForm("access")(pathArg(path), constants.F_OK);
      return true;
    } catch {
      return false;
    }
  },
};

export const callbacks = {
  readFile: callbackForm(promises.readFile),
  writeFile: callbackForm(promises.writeFile),
  appendFile: callbackForm(promises.appendFile),
  mkdir: callbackForm(promises.mkdir),
  readdir: callbackForm(promises.readdir),
  stat: callbackForm(promises.stat),
  lstat: callbackForm(promises.lstat),
  rm: callbackForm(promises.rm),
  rmdir: callbackForm(promises.rmdir),
  unlink: callbackForm(promises.unlink),
  rename: callbackForm(promises.rename),
  copyFile: callbackForm(promises.copyFile),
  access: callbackForm(promises.access),
  chmod: callbackForm(promises.chmod),
  realpath: callbackForm(promises.realpath),
  mkdtemp: callbackForm(promises.mkdtemp),
  /** Node's deprecated `exists`: the callback gets one boolean. */
  exists(path: unknown, callback: (exists: boolean) => void): void {
    if (typeof callback !== "function") throw invalidArgType("cb", "of type function", callback);
    promises.access(path).then(
      () => callback(true),
      () => callback(false),
    );
  },
};
