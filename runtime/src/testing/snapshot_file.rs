//! Where a test file's snapshots live and how they reach the disk: `<dir>/__snapshots__/<file
//! name>.snap`, as bun keeps them, read whole and written atomically (a temp file beside it,
//! then a rename), so a run that dies midway leaves the old file or the new one, never half.
//! What goes in the file is js/test/snapshot.ts's business; this only reads and writes it. A
//! test file whose inline snapshots were written is rewritten the same way.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `a/b.test.ts` -> `a/__snapshots__/b.test.ts.snap`.
pub fn snapshot_path(test_file: &Path) -> PathBuf {
    let dir = test_file.parent().unwrap_or(Path::new("."));
    let name = test_file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join("__snapshots__").join(format!("{name}.snap"))
}

/// The file's text, or `None` when there is no file yet.
pub fn read(path: &Path) -> io::Result<Option<String>> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text")),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Writes `text` as the whole file, making `__snapshots__` if needed. Readable by all, as bun
/// writes it (0644 under the usual umask).
pub fn write(path: &Path, text: &str) -> io::Result<()> {
    fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    write_atomically(path, text, 0o644)
}

/// Rewrites a test file whose inline snapshots changed (`toMatchInlineSnapshot`), whole and
/// atomically as a snapshot file, keeping its permissions.
pub fn rewrite_test_file(path: &Path, text: &str) -> io::Result<()> {
    let mode = fs::metadata(path)?.permissions().mode();
    write_atomically(path, text, mode)
}

fn write_atomically(path: &Path, text: &str, mode: u32) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(mode)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_sit_beside_the_test_file_under_snapshots() {
        assert_eq!(
            snapshot_path(Path::new("/p/src/a.test.ts")),
            Path::new("/p/src/__snapshots__/a.test.ts.snap")
        );
    }

    #[test]
    fn a_missing_file_reads_as_none_and_a_write_makes_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = snapshot_path(&dir.path().join("x.test.ts"));
        assert_eq!(read(&path).unwrap(), None);
        write(&path, "// Bun Snapshot v1\n").unwrap();
        write(&path, "second\n").unwrap();
        assert_eq!(read(&path).unwrap().as_deref(), Some("second\n"));
        let left: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temp file is left beside it");
    }
}
