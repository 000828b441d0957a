// `node:child_process` (and `child_process`): the public face of js/host/child_process.ts. Not
// provided yet: fork, IPC, detached children, uid/gid, stdio beyond fd 2, ChildProcess.unref.

import { ChildProcess, exec, execFile, execFileSync, execSync, spawn, spawnSync } from "../host/child_process.ts";

export { ChildProcess, exec, execFile, execFileSync, execSync, spawn, spawnSync };
export default { ChildProcess, exec, execFile, execFileSync, execSync, spawn, spawnSync };
