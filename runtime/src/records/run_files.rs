//! The whole-file records of a run beside its events: `run.json` (written once, by the first
//! attempt), `attempts/<n>.json` (one per attempt: written when it starts and again, whole, when
//! it ends) and `stages/<name>.json` (one per stage: written when it starts and when it ends; a
//! record a later attempt redoes moves to `replaced/<name>.<attempt>.json`).
//!
//! Every file is written whole (temp file, fsync, rename), so a reader sees the old file or the
//! new one, never half. The first write of `run.json` and of an attempt's record is a claim: a
//! hard link that fails when the name exists, so two awfs cannot both create one run id or both
//! start attempt 3. Nothing here stores a run's status: status.rs derives it from these files and
//! from whether the awf an open attempt names still runs.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{json_text, make_private_dirs, publish, write_atomically, write_durably};
use crate::os::proc::Identity;

/// The version every record file here carries; a newer one is refused.
pub const VERSION: u64 = 1;

/// A native session an earlier attempt of the run left, for an agent opened again under its key
/// in a later attempt (agents/registry.rs resumes it when the harness can).
#[derive(Clone, Debug, PartialEq)]
pub struct PriorSession {
    pub harness: String,
    pub session: String,
    pub attempt: u32,
}

/// Reads a record file; `None` when it is missing. A file that is not JSON, or is of a newer
/// version, is an error naming it.
pub fn read(path: &Path) -> io::Result<Option<Value>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not a record ({e})", path.display()),
        )
    })?;
    if value["version"].as_u64().is_some_and(|v| v > VERSION) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: written by a newer awf (version {}); use that awf",
                path.display(),
                value["version"]
            ),
        ));
    }
    Ok(Some(value))
}

/// Writes `value` at `target` whole, failing with `AlreadyExists` if the name is taken.
pub fn claim(target: &Path, value: &Value) -> io::Result<()> {
    if let Some(dir) = target.parent() {
        make_private_dirs(dir)?;
    }
    let temp = write_durably(target, &json_text(value)?)?;
    let linked = fs::hard_link(&temp, target);
    let _ = fs::remove_file(&temp);
    linked
}

/// Writes `value` at `target` whole, replacing what was there.
pub fn replace(target: &Path, value: &Value) -> io::Result<()> {
    if let Some(dir) = target.parent() {
        make_private_dirs(dir)?;
    }
    write_atomically(target, &json_text(value)?)
}

pub fn attempt_path(run: &Path, attempt: u32) -> PathBuf {
    run.join("attempts").join(format!("{attempt}.json"))
}

pub fn stage_path(run: &Path, stage: &str) -> PathBuf {
    run.join("stages").join(format!("{stage}.json"))
}

/// Moves a stage's record aside, as `replaced/<name>.<attempt>.json`, before the stage runs
/// again; nothing when it has none.
pub fn replace_stage(run: &Path, stage: &str, attempt: u32) -> io::Result<()> {
    let from = stage_path(run, stage);
    if !from.exists() {
        return Ok(());
    }
    let dir = run.join("replaced");
    make_private_dirs(&dir)?;
    let to = dir.join(format!("{stage}.{attempt}.json"));
    publish(&from, &to)
}

/// The attempts recorded in a run folder, by number, in order.
pub fn attempts(run: &Path) -> io::Result<Vec<Value>> {
    let mut numbers: Vec<u32> = match fs::read_dir(run.join("attempts")) {
        Ok(entries) => entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json")?.parse().ok())
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    numbers.sort_unstable();
    let mut found = Vec::new();
    for n in numbers {
        if let Some(record) = read(&attempt_path(run, n))? {
            found.push(record);
        }
    }
    Ok(found)
}

/// The stage records of a run folder (not the replaced ones), by name.
pub fn stages(run: &Path) -> io::Result<Vec<Value>> {
    let mut names: Vec<String> = match fs::read_dir(run.join("stages")) {
        Ok(entries) => entries
            .flatten()
            .filter_map(|e| Some(e.file_name().to_str()?.strip_suffix(".json")?.to_string()))
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    names.sort();
    let mut found = Vec::new();
    for name in names {
        if let Some(record) = read(&stage_path(run, &name))? {
            found.push(record);
        }
    }
    Ok(found)
}

/// The awf process an attempt record names.
pub fn owner_of(attempt: &Value) -> Option<Identity> {
    Some(Identity {
        pid: attempt["awf"]["pid"].as_i64()? as i32,
        start: attempt["awf"]["start"].as_u64()?,
    })
}

/// Whether an attempt record says its attempt ended.
pub fn has_ended(attempt: &Value) -> bool {
    attempt["outcome"].is_string()
}

/// The awf that runs this process, as an attempt record names it.
pub fn me() -> Value {
    let me = Identity::current();
    json!({ "pid": me.pid, "start": me.start })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-run-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_claim_is_refused_once_the_name_is_taken_and_leaves_no_temp_file() {
        let dir = scratch("claim");
        let path = attempt_path(&dir, 1);
        claim(&path, &json!({"version": 1, "attempt": 1})).unwrap();
        let again = claim(&path, &json!({"version": 1, "attempt": 1})).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        let names: Vec<_> = fs::read_dir(dir.join("attempts"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["1.json"]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn attempts_come_in_number_order_and_a_newer_version_is_refused() {
        let dir = scratch("attempts");
        for n in [10, 2, 1] {
            claim(&attempt_path(&dir, n), &json!({"version": 1, "attempt": n})).unwrap();
        }
        let numbers: Vec<u64> = attempts(&dir)
            .unwrap()
            .iter()
            .map(|a| a["attempt"].as_u64().unwrap())
            .collect();
        assert_eq!(numbers, [1, 2, 10]);
        replace(&stage_path(&dir, "plan"), &json!({"version": 9})).unwrap();
        let error = stages(&dir).unwrap_err();
        assert!(error.to_string().contains("newer awf"), "{error}");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_replaced_stage_moves_aside_under_its_attempt() {
        let dir = scratch("replaced");
        replace(
            &stage_path(&dir, "plan"),
            &json!({"version": 1, "stage": "plan"}),
        )
        .unwrap();
        replace_stage(&dir, "plan", 1).unwrap();
        assert!(!stage_path(&dir, "plan").exists());
        assert!(dir.join("replaced/plan.1.json").is_file());
        replace_stage(&dir, "absent", 1).unwrap();
        fs::remove_dir_all(dir).unwrap();
    }
}
