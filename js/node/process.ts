// `node:process` (and `process`): the `process` global itself, default and by member.

import { process } from "../host/process.ts";

export const { argv, argv0, env, pid, platform, arch, execPath, versions, stdout, stderr, cwd, chdir, exit, nextTick, hrtime, uptime, emitWarning } = process;
export default process;
