//! Opening a file to write under a gate that limits writes, without a window between the check
//! and the open.
//!
//! The path is walked one folder at a time with `openat(O_PATH | O_NOFOLLOW)`, each symlink met
//! (the file's own too) read and followed by hand, so the folder reached is the one checked: the
//! file is then created or opened in that folder's descriptor with `O_NOFOLLOW`. A link swapped
//! in after the walk makes the open fail (`ELOOP`), never lead out of the write set.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::permissions::{parts_reversed, Access, Denied, Permissions};
use crate::js::engine::OpError;

/// Why a confined open failed.
pub enum OpenError {
    Denied(Denied),
    Io(std::io::Error),
}

impl From<std::io::Error> for OpenError {
    fn from(error: std::io::Error) -> OpenError {
        OpenError::Io(error)
    }
}

impl OpenError {
    /// A denial as the gate's error; an I/O failure as `io` makes it.
    pub fn into_op_error(self, io: impl FnOnce(&std::io::Error) -> OpError) -> OpError {
        match self {
            OpenError::Denied(denied) => denied.into(),
            OpenError::Io(error) => io(&error),
        }
    }
}

/// Opens `path` (absolute; `shown` names it in a denial) with `flags` (`O_WRONLY`, `O_CREAT`,
/// ...) and `mode`, when where it leads is in `gate`'s write set.
pub fn open_for_write(
    path: &Path,
    shown: &str,
    flags: libc::c_int,
    mode: u32,
    gate: &Permissions,
) -> Result<File, OpenError> {
    /// Linux's own bound on the links one lookup follows.
    const MOST_LINKS: usize = 40;
    let mut pending = parts_reversed(path);
    let mut dir = open_dir(None, Path::new("/"))?;
    let mut real = PathBuf::from("/");
    let mut links = 0;
    while let Some(part) = pending.pop() {
        let last = pending.is_empty();
        if part == ".." {
            dir = open_dir(Some(&dir), Path::new(".."))?;
            real.pop();
            continue;
        }
        match read_link_at(&dir, &part)? {
            // O_EXCL never follows a link, not even a dangling one (open(2)).
            Some(_) if last && flags & libc::O_EXCL != 0 => {
                return Err(std::io::Error::from_raw_os_error(libc::EEXIST).into());
            }
            Some(target) => {
                links += 1;
                if links > MOST_LINKS {
                    return Err(std::io::Error::from_raw_os_error(libc::ELOOP).into());
                }
                if target.is_absolute() {
                    dir = open_dir(None, Path::new("/"))?;
                    real = PathBuf::from("/");
                }
                pending.extend(parts_reversed(&target));
            }
            None if last => {
                real.push(&part);
                if !gate.allows_write_at(&real) {
                    let denied = Denied::new(Access::Write, shown.to_string());
                    return Err(OpenError::Denied(denied));
                }
                return Ok(open_at(&dir, &part, flags | libc::O_NOFOLLOW, mode)?);
            }
            None => {
                dir = open_dir(Some(&dir), Path::new(&part))?;
                real.push(&part);
            }
        }
    }
    // The path named a folder ("/"): opening it to write fails as open(2) would.
    Err(std::io::Error::from_raw_os_error(libc::EISDIR).into())
}

fn c_name(name: &Path) -> std::io::Result<CString> {
    CString::new(name.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))
}

/// The folder `name` in `dir` (or the absolute `name`), not following a symlink.
fn open_dir(dir: Option<&OwnedFd>, name: &Path) -> std::io::Result<OwnedFd> {
    let at = dir.map_or(libc::AT_FDCWD, |d| d.as_raw_fd());
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let name = c_name(name)?;
    // SAFETY: a valid descriptor (or AT_FDCWD) and a NUL-terminated name; the new descriptor
    // is owned by the result.
    let fd = unsafe { libc::openat(at, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// What the symlink `name` in `dir` points to; `None` when `name` is not a symlink (or does not
/// exist yet).
fn read_link_at(dir: &OwnedFd, name: &OsString) -> std::io::Result<Option<PathBuf>> {
    let c = c_name(Path::new(name))?;
    let mut buffer = vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: a valid descriptor, a NUL-terminated name and a buffer of the length given.
    let n = unsafe {
        libc::readlinkat(
            dir.as_raw_fd(),
            c.as_ptr(),
            buffer.as_mut_ptr().cast(),
            buffer.len(),
        )
    };
    if n < 0 {
        let error = std::io::Error::last_os_error();
        return match error.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOENT) => Ok(None),
            _ => Err(error),
        };
    }
    buffer.truncate(n as usize);
    Ok(Some(PathBuf::from(std::ffi::OsStr::from_bytes(&buffer))))
}

fn open_at(dir: &OwnedFd, name: &OsString, flags: libc::c_int, mode: u32) -> std::io::Result<File> {
    let c = c_name(Path::new(name))?;
    // SAFETY: a valid descriptor and a NUL-terminated name; the new descriptor is owned by the
    // File.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::host::permissions::Grant;

    fn gate(root: &Path) -> Permissions {
        let root = crate::js::host::permissions::resolve(root, true);
        Permissions {
            write: Grant::Only(vec![root.display().to_string()]),
            ..Permissions::deny_all()
        }
    }

    fn open(path: &Path, gate: &Permissions) -> Result<File, OpenError> {
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC;
        open_for_write(path, "shown", flags, 0o644, gate)
    }

    #[test]
    fn links_inside_are_followed_and_links_out_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("in");
        std::fs::create_dir_all(inside.join("sub")).unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, inside.join(at));
        link("sub/real.txt", "to-sub").unwrap();
        link("../out/made.txt", "dangling").unwrap();
        link("../out", "folder").unwrap();
        link("sub/not-yet.txt", "to-new").unwrap();
        let gate = gate(&inside);
        assert!(open(&inside.join("to-sub"), &gate).is_ok());
        assert!(inside.join("sub/real.txt").exists());
        assert!(open(&inside.join("sub/../new.txt"), &gate).is_ok());
        for escape in ["dangling", "folder/made.txt", "sub/../../out/made.txt"] {
            match open(&inside.join(escape), &gate) {
                Err(OpenError::Denied(denied)) => assert_eq!(denied.resource, "shown"),
                _ => panic!("{escape} was not refused"),
            }
        }
        assert!(!dir.path().join("out/made.txt").exists());
        let exclusive = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        match open_for_write(&inside.join("to-new"), "shown", exclusive, 0o644, &gate) {
            Err(OpenError::Io(e)) => assert_eq!(e.raw_os_error(), Some(libc::EEXIST)),
            _ => panic!("an exclusive open followed a link"),
        }
        assert!(!inside.join("sub/not-yet.txt").exists());
        match open(&inside.join("missing/x.txt"), &gate) {
            Err(OpenError::Io(e)) => assert_eq!(e.raw_os_error(), Some(libc::ENOENT)),
            _ => panic!("a missing folder opened"),
        }
    }
}
