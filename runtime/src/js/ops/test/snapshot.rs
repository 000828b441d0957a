//! The ops of js/test/snapshot.ts: read and write a test file's `__snapshots__/<file>.snap`
//! (runtime/src/testing/snapshot_file.rs says where it is and writes it atomically), and the
//! test file itself, where `toMatchInlineSnapshot` writes its snapshots.

use std::path::Path;
use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::js::engine::{sync_op, HostState, OpCode, OpDecl, OpError};
use crate::testing::snapshot_file;

pub const OPS: &[OpDecl] = &[
    sync_op!(test_snapshot_read),
    sync_op!(test_snapshot_write),
    sync_op!(test_source_read),
    sync_op!(test_source_write),
];

/// `test_snapshot_read(testFile)`: `{ path, text }` for the test file's snapshot file, `text`
/// null when there is none yet.
fn test_snapshot_read(_state: &Rc<HostState>, file: String) -> Result<Value, OpError> {
    let path = snapshot_file::snapshot_path(Path::new(&file));
    let text = snapshot_file::read(&path).map_err(|e| failed("read", &path, &e))?;
    Ok(json!({ "path": path.display().to_string(), "text": text }))
}

#[derive(Deserialize)]
struct SnapshotWrite(String, String);

/// `test_snapshot_write(testFile, text)`: the whole snapshot file, written atomically.
fn test_snapshot_write(
    _state: &Rc<HostState>,
    SnapshotWrite(file, text): SnapshotWrite,
) -> Result<(), OpError> {
    let path = snapshot_file::snapshot_path(Path::new(&file));
    snapshot_file::write(&path, &text).map_err(|e| failed("write", &path, &e))
}

/// `test_source_read(testFile)`: the test file's text, where its inline snapshots are written.
fn test_source_read(_state: &Rc<HostState>, file: String) -> Result<String, OpError> {
    let path = Path::new(&file);
    std::fs::read_to_string(path).map_err(|e| source_failed("read", path, &e))
}

/// `test_source_write(testFile, text)`: the test file with its inline snapshots written, atomically.
fn test_source_write(
    _state: &Rc<HostState>,
    SnapshotWrite(file, text): SnapshotWrite,
) -> Result<(), OpError> {
    let path = Path::new(&file);
    snapshot_file::rewrite_test_file(path, &text).map_err(|e| source_failed("write", path, &e))
}

fn source_failed(verb: &str, path: &Path, error: &std::io::Error) -> OpError {
    OpError::new(OpCode::SnapshotFile, format!("cannot {verb} the test file {} to write its inline snapshots: {error}", path.display()))
        .with_hint(Some("check that the test file is writable, or run in CI (CI=true) to compare inline snapshots without writing them".into()))
}

fn failed(verb: &str, path: &Path, error: &std::io::Error) -> OpError {
    OpError::new(OpCode::SnapshotFile, format!("cannot {verb} the snapshot file {}: {error}", path.display()))
        .with_hint(Some("check that the test file's folder is writable; delete a damaged .snap file and run `awf test -u` to write it again".into()))
}
