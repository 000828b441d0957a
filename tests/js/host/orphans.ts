// Leaves children running when the run ends: a direct child, a grandchild in a spawned child's
// group, a background process an execSync left behind, and one started with a signal that never
// aborts. tests/cli/host_apis.rs checks that none of them outlives awf.

import { execSync, spawn } from "node:child_process";
import { once } from "node:events";

export default defineWorkflow({
  meta: { name: "host-orphans", description: "children left running at the end of a run" },
  async run() {
    const direct = spawn("sleep", ["300"]);
    const parent = spawn("sh", ["-c", "sleep 300 & echo $!; wait"]);
    parent.stdout!.setEncoding("utf8");
    const [line] = (await once(parent.stdout as any, "data")) as [string];
    const background = Number(execSync("sleep 300 > /dev/null 2>&1 & echo $!", { encoding: "utf8" }).trim());
    const withSignal = spawn("sleep", ["300"], { signal: new AbortController().signal });
    return { pids: [direct.pid, Number(line.trim()), background, withSignal.pid] };
  },
});
