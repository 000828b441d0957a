// The `process` global (also `node:process`): argv, env, cwd, exit, platform and friends.
//
// `process.env` is a plain object copied from awf's environment on first use; changing it changes
// what later child processes get. Under `awf run --sandbox` it holds only the variables
// `--allow-env` grants. `process.exit(code)` ends the run at once with that code:
// agents are stopped and the records are written before awf exits.

import * as ops from "awf:ops";
import { onHostReset } from "../core.ts";
import { setImmediate } from "./timers.ts";

const info = ops.process_info();
// Asked of the host when first read: the host's next user has its own (js/core.ts, onHostReset).
let currentDir: string | undefined = info.cwd;
let argv: string[] | undefined = info.argv;

function write(fd: 1 | 2) {
  return {
    write(chunk: unknown): boolean {
      ops.print(fd, typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk as Uint8Array));
      return true;
    },
    isTTY: false,
  };
}

let env: Record<string, string> | undefined;
onHostReset(() => {
  currentDir = undefined;
  argv = undefined;
  env = undefined;
});

// awf's environment as the permission gate lets workflow code see it (asked on first use, once
// the run has set the gate): a denied variable that is set throws when read, naming the flag.
function environment(): Record<string, string> {
  const { env: granted, denied } = ops.process_env();
  if (denied.length === 0) return granted;
  const hidden = new Set<string>(denied);
  return new Proxy(granted, {
    get(target, key, receiver) {
      if (typeof key === "string" && hidden.has(key) && !Object.hasOwn(target, key)) {
        throw Object.assign(new Error(`env access to "${key}" is denied`), {
          code: "ERR_ACCESS_DENIED",
          permission: "env",
          resource: key,
          hint: `run again with --allow-env=${key} to grant it`,
        });
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

export const process = {
  get argv(): string[] {
    return (argv ??= ops.process_info().argv);
  },
  set argv(value: string[]) {
    argv = value;
  },
  argv0: "awf",
  get env(): Record<string, string> {
    return (env ??= environment());
  },
  set env(value: Record<string, string>) {
    env = value;
  },
  pid: info.pid,
  platform: info.platform,
  arch: info.arch,
  execPath: info.execPath,
  versions: { awf: info.version },
  exitCode: undefined as number | undefined,
  stdout: write(1),
  stderr: write(2),
  cwd(): string {
    return (currentDir ??= ops.process_info().cwd);
  },
  chdir(dir: string): void {
    ops.process_chdir(dir);
    currentDir = ops.process_info().cwd;
  },
  exit(code?: number): never {
    return ops.process_exit(code ?? process.exitCode ?? 0);
  },
  nextTick(callback: (...args: unknown[]) => void, ...args: unknown[]): void {
    queueMicrotask(() => callback(...args));
  },
  hrtime: Object.assign(
    (previous?: [number, number]): [number, number] => {
      const ns = Math.round(performance.now() * 1e6);
      const now: [number, number] = [Math.floor(ns / 1e9), ns % 1e9];
      if (!previous) return now;
      let [s, n] = [now[0] - previous[0], now[1] - previous[1]];
      if (n < 0) [s, n] = [s - 1, n + 1e9];
      return [s, n];
    },
    { bigint: (): bigint => BigInt(Math.round(performance.now() * 1e6)) },
  ),
  uptime(): number {
    return performance.now() / 1000;
  },
  emitWarning(warning: string | Error): void {
    setImmediate(() => ops.print(2, `warning: ${typeof warning === "string" ? warning : warning.message}\n`));
  },
};
