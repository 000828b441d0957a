//! Paths as written by authors: joined and normalized lexically (`a/./b/../c` -> `a/c`), without
//! touching the file system, so what awf shows is what the author wrote, not a symlink target.

use std::path::{Component, Path, PathBuf};

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
