// `node:fs` (and `fs`): the callback and sync forms, plus `promises` and `constants`; all of it
// implemented in js/host/fs.ts. Not provided yet: file descriptors (open, read, write, close),
// streams (createReadStream, createWriteStream), watch, symlinks and links, chown, utimes.

import { callbacks, constants, Dirent, promises, Stats, sync } from "../host/fs.ts";

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
  exists,
} = callbacks;

export const {
  readFileSync,
  writeFileSync,
  appendFileSync,
  mkdirSync,
  readdirSync,
  statSync,
  lstatSync,
  rmSync,
  rmdirSync,
  unlinkSync,
  renameSync,
  copyFileSync,
  accessSync,
  chmodSync,
  realpathSync,
  mkdtempSync,
  existsSync,
} = sync;

export { constants, Dirent, promises, Stats };
export default { ...callbacks, ...sync, promises, constants, Dirent, Stats };
