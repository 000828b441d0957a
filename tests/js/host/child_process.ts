// node:child_process through awf: spawn with events, stdin and kill, exec/execFile in callback and
// promisify forms, the sync forms, errors as Node gives them, AbortSignal, and process groups.
// Run by tests/cli/host_apis.rs; its output must equal child_process.expected.json.

import { exec, execFile, execFileSync, execSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";

const execFileP = promisify(execFile);
const execP = promisify(exec);

/** Exit code and signal once the child closed, with everything it printed. */
function finished(child: ReturnType<typeof spawn>): Promise<{ code: number | null; signal: string | null; out: string; err: string; events: string[] }> {
  const events: string[] = [];
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => (out += d));
  child.stderr?.on("data", (d: Uint8Array) => (err += new TextDecoder().decode(d)));
  child.on("spawn", () => events.push("spawn"));
  child.on("exit", () => events.push("exit"));
  child.on("error", (e: any) => events.push(`error:${e.name}:${e.code}`));
  return new Promise((resolve) =>
    child.on("close", (code: number | null, signal: string | null) => {
      events.push("close");
      resolve({ code, signal, out, err, events });
    }),
  );
}

export default defineWorkflow({
  meta: { name: "host-child-process", description: "node:child_process through awf" },
  async run() {
    const r: Record<string, unknown> = {};

    r.spawn = await finished(spawn("sh", ["-c", "echo out; echo err >&2; exit 3"]));
    const cat = spawn("cat");
    const catDone = finished(cat);
    cat.stdin!.write("one ");
    cat.stdin!.end("two");
    r.stdin = await catDone;
    r.pid = typeof cat.pid === "number" && cat.pid > 0;

    const sleeper = spawn("sleep", ["30"]);
    const sleeperDone = finished(sleeper);
    await once(sleeper as any, "spawn");
    r.kill = [sleeper.kill(), sleeper.killed];
    r.killed = await sleeperDone;
    r.killAfterExit = sleeper.kill();

    r.notFound = await finished(spawn("awf-no-such-program"));
    r.shell = await finished(spawn("echo $((6 * 7))", { shell: true }));
    r.cwdEnv = await finished(spawn("sh", ["-c", "pwd; echo $GREETING"], { cwd: "/", env: { GREETING: "hi" } }));
    r.inheritedEnv = (await finished(spawn("sh", ["-c", "echo ${HOST_API_TEST:-unset}"]))).out;

    const controller = new AbortController();
    const aborted = spawn("sleep", ["30"], { signal: controller.signal });
    const abortedDone = finished(aborted);
    setTimeout(() => controller.abort(), 20);
    r.abortSignal = await abortedDone;

    r.timeout = await finished(spawn("sleep", ["30"], { timeout: 50 }));

    r.execFileCallback = await new Promise((resolve) =>
      execFile("sh", ["-c", "echo a; echo b >&2"], (error, stdout, stderr) => resolve({ error, stdout, stderr })),
    );
    r.execFilePromisified = await execFileP("echo", ["promised"]);
    r.execPromisified = await execP("echo $((1 + 2)) | tr 3 x");
    r.execFailure = await execP("echo partial; echo broken >&2; exit 2").catch((e: any) => ({
      message: e.message,
      code: e.code,
      killed: e.killed,
      signal: e.signal,
      stdout: e.stdout,
      stderr: e.stderr,
    }));
    r.execFileNotFound = await execFileP("awf-no-such-program").catch((e: any) => [e.code, e.message, e.syscall, e.path]);
    r.execBuffer = await execFileP("printf", ["\\001\\002"], { encoding: "buffer" }).then(({ stdout }) => Array.from(stdout as Uint8Array));
    r.maxBuffer = await execFileP("sh", ["-c", "yes | head -c 5000"], { maxBuffer: 100 }).catch((e: any) => [e.name, e.code, e.message]);

    r.execFileSync = execFileSync("echo", ["sync"], { encoding: "utf8" });
    r.execFileSyncBuffer = Buffer.isBuffer(execFileSync("true"));
    r.execSync = execSync("echo $((2 + 2))").toString();
    r.execSyncInput = execSync("tr a-z A-Z", { input: "shout", encoding: "utf8" });
    try {
      execFileSync("sh", ["-c", "echo before; exit 4"], { stdio: "pipe" });
    } catch (e: any) {
      r.execFileSyncFailure = { message: e.message, status: e.status, signal: e.signal, stdout: e.stdout.toString() };
    }
    const sync = spawnSync("sh", ["-c", "echo x; echo y >&2; kill -TERM $$"], { encoding: "utf8" });
    r.spawnSync = { status: sync.status, signal: sync.signal, stdout: sync.stdout, stderr: sync.stderr, output: sync.output };
    const timedOut = spawnSync("sleep", ["30"], { timeout: 50 });
    r.spawnSyncTimeout = { status: timedOut.status, signal: timedOut.signal, error: [timedOut.error?.message, (timedOut.error as any)?.code] };
    const missing = spawnSync("awf-no-such-program");
    r.spawnSyncNotFound = { status: missing.status, error: [missing.error?.message, (missing.error as any)?.code] };

    r.badArgs = [
      (() => { try { spawn(42 as any); } catch (e: any) { return [e.name, e.code]; } })(),
      (() => { try { spawn("ls", [], { detached: true } as any); } catch (e: any) { return [e.name, e.message]; } })(),
      (() => { try { spawn("ls", [], { stdio: ["pipe", "pipe", "pipe", "ipc"] }); } catch (e: any) { return [e.name, e.message]; } })(),
    ];
    return r;
  },
});
