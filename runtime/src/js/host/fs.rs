//! File-system ops behind js/host/fs.ts (`node:fs`, `node:fs/promises`).
//!
//! One request type, `FsCall`, serves both doors: `fs_async` checks the call on the JS thread and
//! runs it on tokio's blocking pool; `fs_sync` runs it in place. Paths arrive as the author wrote
//! them: relative ones resolve against `process.cwd()`, and errors name them as written, as Node
//! does (`ENOENT: no such file or directory, open 'notes.txt'`). Every call passes the
//! permission gate first: reads through `check_read`, changes through `check_write` (or
//! `check_write_entry` for what acts on a directory entry itself: mkdir, rm, rename). When the
//! gate limits writes, a file opened to write (writeFile, appendFile, copyFile's destination)
//! is opened through confined.rs, which checks the folder it opens in, with no gap between.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::UNIX_EPOCH;

use serde::Deserialize;
use serde_json::json;

use super::confined::{self, OpenError};
use super::permissions::{Grant, Permissions};
use super::system_error::{errno_error, fs_error};
use crate::js::engine::{async_op, sync_op, Bytes, HostState, OpDecl, OpError, OpValue};

pub const OPS: &[OpDecl] = &[async_op!(fs_async), sync_op!(fs_sync)];

/// `(call, bytes?)`: the call, and the bytes a write writes.
#[derive(Deserialize)]
struct FsArgs(FsCall, Option<Bytes>);

/// One file-system call, as js/host/fs.ts sends it.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
enum FsCall {
    ReadFile {
        path: String,
    },
    /// The bytes to write come beside the JSON.
    WriteFile {
        path: String,
        append: bool,
        exclusive: bool,
        mode: Option<u32>,
    },
    Mkdir {
        path: String,
        recursive: bool,
        mode: Option<u32>,
    },
    Readdir {
        path: String,
    },
    Stat {
        path: String,
        follow: bool,
    },
    Rm {
        path: String,
        recursive: bool,
        force: bool,
    },
    Rmdir {
        path: String,
    },
    Unlink {
        path: String,
    },
    Rename {
        from: String,
        to: String,
    },
    CopyFile {
        from: String,
        to: String,
        exclusive: bool,
    },
    Access {
        path: String,
        mode: i32,
    },
    Chmod {
        path: String,
        mode: u32,
    },
    Realpath {
        path: String,
    },
    Mkdtemp {
        prefix: String,
    },
}

impl FsCall {
    /// Asks the gate about every path the call touches.
    fn check(&self, cwd: &Path, permissions: &Permissions) -> Result<(), OpError> {
        let at = |p: &str| resolve(cwd, p);
        match self {
            FsCall::ReadFile { path }
            | FsCall::Readdir { path }
            | FsCall::Stat { path, .. }
            | FsCall::Access { path, .. }
            | FsCall::Realpath { path } => permissions.check_read(&at(path))?,
            FsCall::WriteFile { path, .. } | FsCall::Chmod { path, .. } => {
                permissions.check_write(&at(path))?
            }
            FsCall::Mkdir { path, .. }
            | FsCall::Rm { path, .. }
            | FsCall::Rmdir { path }
            | FsCall::Unlink { path } => permissions.check_write_entry(&at(path))?,
            FsCall::Mkdtemp { prefix } => permissions.check_write_entry(&at(prefix))?,
            FsCall::Rename { from, to } => {
                permissions.check_write_entry(&at(from))?;
                permissions.check_write_entry(&at(to))?;
            }
            FsCall::CopyFile { from, to, .. } => {
                permissions.check_read(&at(from))?;
                permissions.check_write(&at(to))?;
            }
        }
        Ok(())
    }

    /// Does the call; blocking. `confine`: the gate, when it limits writes.
    fn perform(
        self,
        cwd: &Path,
        bytes: Option<Vec<u8>>,
        confine: Option<&Permissions>,
    ) -> Result<OpValue, OpError> {
        let at = |p: &str| resolve(cwd, p);
        match self {
            FsCall::ReadFile { path } => read_file(&at(&path), &path).map(OpValue::Bytes),
            FsCall::WriteFile {
                path,
                append,
                exclusive,
                mode,
            } => {
                let how = WriteMode {
                    append,
                    exclusive,
                    mode: mode.unwrap_or(0o666),
                };
                let mut file = open_to_write(&at(&path), how, confine).map_err(|e| {
                    e.into_op_error(|e| fs_error(e, "open", Path::new(&path), None))
                })?;
                file.write_all(&bytes.unwrap_or_default())
                    .map_err(|e| fs_error(&e, "write", Path::new(&path), None))?;
                Ok(OpValue::Undefined)
            }
            FsCall::Mkdir {
                path,
                recursive,
                mode,
            } => mkdir(&at(&path), &path, recursive, mode.unwrap_or(0o777)),
            FsCall::Readdir { path } => readdir(&at(&path), &path),
            FsCall::Stat { path, follow } => {
                let target = at(&path);
                let (metadata, syscall) = if follow {
                    (fs::metadata(&target), "stat")
                } else {
                    (fs::symlink_metadata(&target), "lstat")
                };
                metadata
                    .map(|m| OpValue::Json(stats(&m)))
                    .map_err(|e| fs_error(&e, syscall, Path::new(&path), None))
            }
            FsCall::Rm {
                path,
                recursive,
                force,
            } => rm(&at(&path), &path, recursive, force),
            FsCall::Rmdir { path } => fs::remove_dir(at(&path))
                .map(|_| OpValue::Undefined)
                .map_err(|e| fs_error(&e, "rmdir", Path::new(&path), None)),
            FsCall::Unlink { path } => fs::remove_file(at(&path))
                .map(|_| OpValue::Undefined)
                .map_err(|e| fs_error(&e, "unlink", Path::new(&path), None)),
            FsCall::Rename { from, to } => fs::rename(at(&from), at(&to))
                .map(|_| OpValue::Undefined)
                .map_err(|e| fs_error(&e, "rename", Path::new(&from), Some(Path::new(&to)))),
            FsCall::CopyFile {
                from,
                to,
                exclusive,
            } => {
                let fail = |errno: i32| {
                    errno_error(
                        errno,
                        "copyfile",
                        Some(Path::new(&from)),
                        Some(Path::new(&to)),
                    )
                };
                if exclusive && fs::symlink_metadata(at(&to)).is_ok() {
                    return Err(fail(libc::EEXIST));
                }
                if confine.is_some() {
                    return copy_confined(&at(&from), &at(&to), exclusive, confine).map_err(|e| {
                        e.into_op_error(|e| {
                            fs_error(e, "copyfile", Path::new(&from), Some(Path::new(&to)))
                        })
                    });
                }
                fs::copy(at(&from), at(&to))
                    .map(|_| OpValue::Undefined)
                    .map_err(|e| fs_error(&e, "copyfile", Path::new(&from), Some(Path::new(&to))))
            }
            FsCall::Access { path, mode } => access(&at(&path), &path, mode),
            FsCall::Chmod { path, mode } => {
                fs::set_permissions(at(&path), fs::Permissions::from_mode(mode))
                    .map(|_| OpValue::Undefined)
                    .map_err(|e| fs_error(&e, "chmod", Path::new(&path), None))
            }
            FsCall::Realpath { path } => fs::canonicalize(at(&path))
                .map(|p| OpValue::Json(json!(p.display().to_string())))
                .map_err(|e| fs_error(&e, "realpath", Path::new(&path), None)),
            FsCall::Mkdtemp { prefix } => mkdtemp(&at(&prefix), &prefix),
        }
    }
}

/// `fs_async(call, bytes?)`: checked here, done on tokio's blocking pool.
fn fs_async(
    state: &Rc<HostState>,
    FsArgs(call, bytes): FsArgs,
) -> Result<impl std::future::Future<Output = Result<OpValue, OpError>>, OpError> {
    let cwd = state.cwd();
    let gate = super::gate(state);
    call.check(&cwd, &gate)?;
    let confine = confining(&gate).then(|| (*gate).clone());
    let bytes = bytes.map(|b| b.0);
    Ok(async move {
        tokio::task::spawn_blocking(move || call.perform(&cwd, bytes, confine.as_ref()))
            .await
            .unwrap_or_else(|e| Err(OpError::internal(format!("fs call failed: {e}"))))
    })
}

/// `fs_sync(call, bytes?)`: checked and done in place.
fn fs_sync(state: &Rc<HostState>, FsArgs(call, bytes): FsArgs) -> Result<OpValue, OpError> {
    let cwd = state.cwd();
    let gate = super::gate(state);
    call.check(&cwd, &gate)?;
    let confine = confining(&gate).then_some(&*gate);
    call.perform(&cwd, bytes.map(|b| b.0), confine)
}

/// Whether `gate` limits writes: then files are opened to write through confined.rs.
fn confining(gate: &Permissions) -> bool {
    gate.write != Grant::All
}

/// How writeFile and appendFile open their file.
struct WriteMode {
    append: bool,
    exclusive: bool,
    mode: u32,
}

/// A file opened to write: in place, or through confined.rs when `confine` limits writes.
fn open_to_write(
    target: &Path,
    how: WriteMode,
    confine: Option<&Permissions>,
) -> Result<fs::File, OpenError> {
    let Some(gate) = confine else {
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).mode(how.mode);
        if how.append {
            options.append(true);
        } else {
            options.truncate(true);
        }
        if how.exclusive {
            options.create_new(true);
        }
        return Ok(options.open(target)?);
    };
    let mut flags = libc::O_WRONLY | libc::O_CREAT;
    flags |= if how.append {
        libc::O_APPEND
    } else {
        libc::O_TRUNC
    };
    if how.exclusive {
        flags |= libc::O_EXCL;
    }
    let shown = target.display().to_string();
    confined::open_for_write(target, &shown, flags, how.mode, gate)
}

/// copyFile when the gate limits writes: the destination opened through confined.rs, then
/// given the source's mode, as `fs::copy` does.
fn copy_confined(
    from: &Path,
    to: &Path,
    exclusive: bool,
    confine: Option<&Permissions>,
) -> Result<OpValue, OpenError> {
    let mut source = fs::File::open(from)?;
    let permissions = source.metadata()?.permissions();
    let how = WriteMode {
        append: false,
        exclusive,
        mode: permissions.mode(),
    };
    let mut destination = open_to_write(to, how, confine)?;
    std::io::copy(&mut source, &mut destination)?;
    destination.set_permissions(permissions)?;
    Ok(OpValue::Undefined)
}

fn resolve(cwd: &Path, path: &str) -> PathBuf {
    cwd.join(path)
}

fn read_file(target: &Path, shown: &str) -> Result<Vec<u8>, OpError> {
    let mut file =
        fs::File::open(target).map_err(|e| fs_error(&e, "open", Path::new(shown), None))?;
    let mut bytes = Vec::new();
    // Node names no path for a failed read (a directory opens, then fails to read).
    file.read_to_end(&mut bytes)
        .map_err(|e| errno_error(e.raw_os_error().unwrap_or(libc::EIO), "read", None, None))?;
    Ok(bytes)
}

/// Node's mkdir: with `recursive`, no error for an existing directory, and the first directory
/// it created as the value.
fn mkdir(target: &Path, shown: &str, recursive: bool, mode: u32) -> Result<OpValue, OpError> {
    let mut builder = fs::DirBuilder::new();
    builder.mode(mode);
    if !recursive {
        return builder
            .create(target)
            .map(|_| OpValue::Undefined)
            .map_err(|e| fs_error(&e, "mkdir", Path::new(shown), None));
    }
    let first_missing = target
        .ancestors()
        .take_while(|p| fs::symlink_metadata(p).is_err())
        .last()
        .map(Path::to_path_buf);
    builder.recursive(true);
    builder
        .create(target)
        .map_err(|e| fs_error(&e, "mkdir", Path::new(shown), None))?;
    if !fs::metadata(target).map(|m| m.is_dir()).unwrap_or(false) {
        return Err(errno_error(
            libc::EEXIST,
            "mkdir",
            Some(Path::new(shown)),
            None,
        ));
    }
    Ok(match first_missing {
        Some(dir) => OpValue::Json(json!(dir.display().to_string())),
        None => OpValue::Undefined,
    })
}

/// Entries by name in byte order (as libuv's scandir gives them), each with its kind.
fn readdir(target: &Path, shown: &str) -> Result<OpValue, OpError> {
    let fail = |e: std::io::Error| fs_error(&e, "scandir", Path::new(shown), None);
    let mut entries = Vec::new();
    for entry in fs::read_dir(target).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let kind = entry.file_type().map(|t| kind_of(&t)).unwrap_or("unknown");
        entries.push((entry.file_name().to_string_lossy().into_owned(), kind));
    }
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let list: Vec<serde_json::Value> = entries
        .into_iter()
        .map(|(name, kind)| json!({ "name": name, "kind": kind }))
        .collect();
    Ok(OpValue::Json(serde_json::Value::Array(list)))
}

fn kind_of(t: &fs::FileType) -> &'static str {
    if t.is_file() {
        "file"
    } else if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symlink"
    } else if t.is_fifo() {
        "fifo"
    } else if t.is_socket() {
        "socket"
    } else if t.is_block_device() {
        "block"
    } else if t.is_char_device() {
        "char"
    } else {
        "unknown"
    }
}

/// The fields of Node's `fs.Stats`; the TS twin adds the methods.
fn stats(m: &fs::Metadata) -> serde_json::Value {
    let ms = |secs: i64, nanos: i64| secs as f64 * 1000.0 + nanos as f64 / 1e6;
    let birth = m
        .created()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_else(|| ms(m.ctime(), m.ctime_nsec()));
    json!({
        "dev": m.dev(),
        "mode": m.mode(),
        "nlink": m.nlink(),
        "uid": m.uid(),
        "gid": m.gid(),
        "rdev": m.rdev(),
        "blksize": m.blksize(),
        "ino": m.ino(),
        "size": m.size(),
        "blocks": m.blocks(),
        "atimeMs": ms(m.atime(), m.atime_nsec()),
        "mtimeMs": ms(m.mtime(), m.mtime_nsec()),
        "ctimeMs": ms(m.ctime(), m.ctime_nsec()),
        "birthtimeMs": birth,
        "kind": kind_of(&m.file_type()),
    })
}

/// Node's rm: `force` ignores a missing path; a directory needs `recursive`.
fn rm(target: &Path, shown: &str, recursive: bool, force: bool) -> Result<OpValue, OpError> {
    let metadata = match fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(OpValue::Undefined)
        }
        Err(e) => return Err(fs_error(&e, "lstat", Path::new(shown), None)),
    };
    if metadata.is_dir() {
        if !recursive {
            return Err(OpError::system(
                "ERR_FS_EISDIR",
                format!("Path is a directory: rm returned EISDIR (is a directory) {shown}"),
                json!({ "errno": 21, "syscall": "rm", "path": shown }),
            ));
        }
        fs::remove_dir_all(target).map_err(|e| fs_error(&e, "rm", Path::new(shown), None))?;
    } else {
        fs::remove_file(target).map_err(|e| fs_error(&e, "unlink", Path::new(shown), None))?;
    }
    Ok(OpValue::Undefined)
}

fn access(target: &Path, shown: &str, mode: i32) -> Result<OpValue, OpError> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(target.as_os_str().as_bytes())
        .map_err(|_| errno_error(libc::EINVAL, "access", Some(Path::new(shown)), None))?;
    // SAFETY: a valid NUL-terminated path; access(2) only reads it.
    if unsafe { libc::access(c_path.as_ptr(), mode) } == 0 {
        Ok(OpValue::Undefined)
    } else {
        Err(fs_error(
            &std::io::Error::last_os_error(),
            "access",
            Path::new(shown),
            None,
        ))
    }
}

/// A new directory named `prefix` plus six random characters.
fn mkdtemp(prefix: &Path, shown: &str) -> Result<OpValue, OpError> {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let pattern = format!("{shown}XXXXXX");
    for _ in 0..100 {
        let mut random = [0u8; 6];
        getrandom::fill(&mut random)
            .map_err(|_| errno_error(libc::EIO, "mkdtemp", Some(Path::new(&pattern)), None))?;
        let suffix: String = random
            .iter()
            .map(|b| CHARS[*b as usize % CHARS.len()] as char)
            .collect();
        let candidate = PathBuf::from(format!("{}{suffix}", prefix.display()));
        match fs::DirBuilder::new().mode(0o700).create(&candidate) {
            Ok(()) => {
                let shown_dir = format!("{shown}{suffix}");
                return Ok(OpValue::Json(json!(shown_dir)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fs_error(&e, "mkdtemp", Path::new(&pattern), None)),
        }
    }
    Err(errno_error(
        libc::EEXIST,
        "mkdtemp",
        Some(Path::new(&pattern)),
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(json: serde_json::Value, cwd: &Path) -> Result<OpValue, OpError> {
        let call: FsCall = serde_json::from_value(json).expect("an fs call");
        call.perform(cwd, None, None)
    }

    #[test]
    fn relative_paths_resolve_against_cwd_and_errors_name_them_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let error = match call(json!({ "op": "readFile", "path": "nope.txt" }), dir.path()) {
            Err(e) => e,
            Ok(_) => panic!("read a missing file"),
        };
        assert_eq!(
            error.message,
            "ENOENT: no such file or directory, open 'nope.txt'"
        );
        fs::write(dir.path().join("a.txt"), "hi").unwrap();
        match call(json!({ "op": "readFile", "path": "a.txt" }), dir.path()) {
            Ok(OpValue::Bytes(bytes)) => assert_eq!(bytes, b"hi"),
            _ => panic!("a.txt not read"),
        }
    }

    #[test]
    fn recursive_mkdir_returns_the_first_directory_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let made = call(
            json!({ "op": "mkdir", "path": "a/b/c", "recursive": true, "mode": null }),
            dir.path(),
        );
        match made {
            Ok(OpValue::Json(path)) => {
                assert_eq!(path, json!(dir.path().join("a").display().to_string()))
            }
            _ => panic!("mkdir -p failed"),
        }
        let again = call(
            json!({ "op": "mkdir", "path": "a/b/c", "recursive": true, "mode": null }),
            dir.path(),
        );
        assert!(matches!(again, Ok(OpValue::Undefined)));
    }

    #[test]
    fn rm_refuses_a_directory_without_recursive_and_force_ignores_missing() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        let refused = call(
            json!({ "op": "rm", "path": "d", "recursive": false, "force": false }),
            dir.path(),
        );
        assert_eq!(refused.err().unwrap().code, "ERR_FS_EISDIR");
        let missing = call(
            json!({ "op": "rm", "path": "gone", "recursive": false, "force": true }),
            dir.path(),
        );
        assert!(missing.is_ok());
    }

    #[test]
    fn denied_paths_never_reach_the_file_system() {
        let call: FsCall =
            serde_json::from_value(json!({ "op": "readFile", "path": "/etc/hostname" })).unwrap();
        let error = call
            .check(Path::new("/"), &Permissions::deny_all())
            .unwrap_err();
        assert_eq!(error.code, "ERR_ACCESS_DENIED");
        assert_eq!(error.message, "read access to \"/etc/hostname\" is denied");
    }
}
