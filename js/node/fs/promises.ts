// `node:fs/promises` (and `fs/promises`): the promise forms of js/host/fs.ts. Not provided yet:
// open() and FileHandle, watch, opendir, symlink, link, chown, utimes.

import { promises } from "../../host/fs.ts";

export const {
  readFile,
  writeFile,
  appendFile,
  mkdir,
  readdir,
  stat,
  lstat,
  rm,
  rmdir,
  unlink,
  rename,
  copyFile,
  access,
  chmod,
  realpath,
  mkdtemp,
  constants,
} = promises;

export default promises;
