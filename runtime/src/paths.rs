//! Paths as written by authors: joined and normalized lexically (`a/./b/../c` -> `a/c`), without
//! touching the file system, so what awf shows is what the author wrote, not a symlink target.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// A new folder `<parent>/<prefix>XXXXXX`, mode 0700 (mkdtemp).
pub fn make_temp_dir(parent: &Path, prefix: &str) -> io::Result<PathBuf> {
    let template = CString::new(
        parent
            .join(format!("{prefix}XXXXXX"))
            .as_os_str()
            .as_bytes(),
    )
    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the folder name"))?;
    let raw = template.into_raw();
    let made = unsafe { libc::mkdtemp(raw) };
    let template = unsafe { CString::from_raw(raw) };
    if made.is_null() {
        return Err(io::Error::last_os_error());
    }
    let path = PathBuf::from(OsStr::from_bytes(template.as_bytes()));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))?;
    Ok(path)
}

/// `base` joined with `path`, with `.` and `..` resolved lexically.
pub fn join_normalized(base: &Path, path: &str) -> PathBuf {
    normalize(&base.join(path))
}

pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_dirs_are_new_and_private() {
        let a = make_temp_dir(&std::env::temp_dir(), "awf-paths-").unwrap();
        let b = make_temp_dir(&std::env::temp_dir(), "awf-paths-").unwrap();
        assert_ne!(a, b);
        assert_eq!(
            std::fs::metadata(&a).unwrap().permissions().mode() & 0o777,
            0o700
        );
        std::fs::remove_dir(a).unwrap();
        std::fs::remove_dir(b).unwrap();
    }

    #[test]
    fn resolves_dots_lexically() {
        assert_eq!(
            join_normalized(Path::new("/a/b"), "./c/../d"),
            PathBuf::from("/a/b/d")
        );
        assert_eq!(
            join_normalized(Path::new("/a/b"), "/x/./y"),
            PathBuf::from("/x/y")
        );
        assert_eq!(normalize(Path::new("/a/../../b")), PathBuf::from("/b"));
    }
}
