//! Whole files: written to a temp file beside their name, flushed to disk, then renamed (or
//! linked) into place, so a reader, `kill -9` or a crash sees the old file or the whole new one,
//! never half; and one exception, a copy written in place (`write_in_place`). Records are
//! private: folders are made 0700 and files 0600, whatever the umask.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Pretty JSON and a final newline: how every JSON record reads.
pub(crate) fn json_text(value: &serde_json::Value) -> io::Result<Vec<u8>> {
    let mut text = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    text.push(b'\n');
    Ok(text)
}

/// Makes `path` and the folders above it that are missing, each 0700.
pub fn make_private_dirs(path: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(path)
}

/// Temp file beside the target, fsync, rename: the target is either old or whole.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> io::Result<()> {
    publish(&write_durably(target, bytes)?, target)
}

/// Temp file beside the target, rename, no flush: the target is either old or whole for every
/// reader and after `kill -9`, but a power cut may lose it. For files that do not outlive the
/// machine's uptime anyway (a run's control folder in /tmp).
pub fn write_whole(target: &Path, bytes: &[u8]) -> io::Result<()> {
    publish(&write_temp(target, bytes)?, target)
}

/// Writes `bytes` over the file at `target`, in place (made if missing), not flushed. No inode
/// is made or freed: on a file system without a journal, ext4 makes every new file step over
/// the inodes freed in the last one to five minutes, so each replaced file slows the creations
/// after it (docs/benchmarks.md). A reader, `kill -9` or a power cut may find the file empty or cut off:
/// only for a copy whose readers then take the durable record it copies (writer.rs `Copy`).
pub(crate) fn write_in_place(target: &Path, bytes: &[u8]) -> io::Result<()> {
    OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(target)?
        .write_all(bytes)
}

/// Writes `bytes` to a temp file beside `target` and waits until they are on disk; gives the
/// temp file's path.
pub(crate) fn write_durably(target: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (temp, file) = create_temp(target, bytes)?;
    file.sync_all().inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })?;
    Ok(temp)
}

/// Writes `bytes` to a temp file beside `target`; gives its path.
fn write_temp(target: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    create_temp(target, bytes).map(|(temp, _)| temp)
}

fn create_temp(target: &Path, bytes: &[u8]) -> io::Result<(PathBuf, fs::File)> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("file");
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .mode(0o600)
        .open(&temp)?;
    file.write_all(bytes).inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })?;
    Ok((temp, file))
}

/// Gives the temp file its name: readers see the whole file or none.
pub(crate) fn publish(temp: &Path, target: &Path) -> io::Result<()> {
    fs::rename(temp, target).inspect_err(|_| {
        let _ = fs::remove_file(temp);
    })
}

/// Writes `bytes` at `target` whole and durably, failing with `AlreadyExists` if the name is
/// taken: a hard link of the flushed temp file, which no two writers can both make.
pub(crate) fn claim_durably(target: &Path, bytes: &[u8]) -> io::Result<()> {
    link_in_place(&write_durably(target, bytes)?, target)
}

/// `claim_durably` without the flush: for a record whose content a durable record beside it
/// also holds (writer.rs, `RecordWrite::ClaimedCopy`).
pub(crate) fn claim_whole(target: &Path, bytes: &[u8]) -> io::Result<()> {
    link_in_place(&write_temp(target, bytes)?, target)
}

/// Links the temp file at `target` unless the name is taken, and removes the temp name.
fn link_in_place(temp: &Path, target: &Path) -> io::Result<()> {
    let linked = fs::hard_link(temp, target);
    let _ = fs::remove_file(temp);
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-whole-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        make_private_dirs(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_replaced_file_is_whole_and_leaves_no_temp_file() {
        let dir = scratch("replace");
        let target = dir.join("a.json");
        write_atomically(&target, b"one\n").unwrap();
        write_atomically(&target, b"two\n").unwrap();
        write_whole(&target, b"three\n").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "three\n");
        assert_eq!(names(&dir), ["a.json"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_copy_written_in_place_keeps_its_inode_and_is_private() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = scratch("in-place");
        let target = dir.join("1.json");
        claim_whole(&target, b"a longer first record\n").unwrap();
        let inode = fs::metadata(&target).unwrap().ino();
        write_in_place(&target, b"second\n").unwrap();
        let after = fs::metadata(&target).unwrap();
        assert_eq!(after.ino(), inode, "no inode made, none freed");
        assert_eq!(fs::read_to_string(&target).unwrap(), "second\n");
        write_in_place(&dir.join("2.json"), b"made\n").unwrap();
        let made = fs::metadata(dir.join("2.json")).unwrap();
        assert_eq!(made.permissions().mode() & 0o777, 0o600);
        assert_eq!(names(&dir), ["1.json", "2.json"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_claim_fails_when_the_name_is_taken_and_keeps_what_is_there() {
        let dir = scratch("claim");
        let target = dir.join("run.json");
        claim_durably(&target, b"first\n").unwrap();
        let error = claim_durably(&target, b"second\n").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_to_string(&target).unwrap(), "first\n");
        assert_eq!(names(&dir), ["run.json"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_write_that_cannot_land_leaves_no_temp_file() {
        let dir = scratch("blocked");
        let target = dir.join("output.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside"), b"x").unwrap();
        assert!(write_atomically(&target, b"{}\n").is_err());
        assert_eq!(names(&dir), ["output.json"]);
        fs::remove_dir_all(dir).unwrap();
    }
}
