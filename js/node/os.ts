// `node:os` (and `os`): the public face of js/host/os.ts.

import * as os from "../host/os.ts";

export const { EOL, devNull, constants, hostname, homedir, tmpdir, platform, arch, machine, type, release, endianness, availableParallelism, cpus } = os;
export default { ...os };
