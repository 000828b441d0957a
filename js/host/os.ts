// `node:os` (and `os`), over the facts of runtime/src/js/host/os.rs. CPU entries carry the
// count only: model, speed and times are not read yet (empty and zero). Not provided yet:
// totalmem, freemem, loadavg, uptime, networkInterfaces, userInfo, setPriority, getPriority.

import * as ops from "awf:ops";

interface OsInfo {
  hostname: string;
  homedir: string;
  tmpdir: string;
  cpus: number;
  type: string;
  release: string;
  machine: string;
  endianness: "LE" | "BE";
}

let facts: OsInfo | undefined;
const info = (): OsInfo => (facts ??= ops.os_info() as OsInfo);

export const EOL = "\n";
export const devNull = "/dev/null";
export const constants = Object.freeze({
  signals: Object.freeze({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 }),
});

export function hostname(): string {
  return ops.os_info().hostname as string;
}
export function homedir(): string {
  return info().homedir;
}
export function tmpdir(): string {
  return info().tmpdir;
}
export function platform(): string {
  return process.platform;
}
export function arch(): string {
  return process.arch;
}
export function machine(): string {
  return info().machine;
}
export function type(): string {
  return info().type;
}
export function release(): string {
  return info().release;
}
export function endianness(): "LE" | "BE" {
  return info().endianness;
}
export function availableParallelism(): number {
  return info().cpus;
}
export function cpus(): { model: string; speed: number; times: { user: number; nice: number; sys: number; idle: number; irq: number } }[] {
  return Array.from({ length: info().cpus }, () => ({
    model: "",
    speed: 0,
    times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 },
  }));
}
