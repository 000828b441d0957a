//! The whole-file records of a run beside its events: `run.json` (written once, by the first
//! attempt), `attempts/<n>.json` (one per attempt: written when it starts and again, whole, when
//! it ends) and `stages/<name>.json` (one per stage: written when it starts and when it ends; a
//! record a later attempt redoes moves to `replaced/<name>.<attempt>.json`).
//!
//! Every file is written whole (temp file, fsync, rename), so a reader sees the old file or the
//! new one, never half; the one not flushed is the ending of an attempt, a copy of what
//! output.json holds (see `attempts`). The first write of `run.json` and of an attempt's record is a claim: a
//! hard link that fails when the name exists, so two awfs cannot both create one run id or both
//! start attempt 3. Nothing here stores a run's status: status.rs derives it from these files and
//! from whether the awf an open attempt names still runs.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::whole_file::{json_text, make_private_dirs, write_atomically};
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

/// A record file awf cannot use, and what is wrong with it. It travels inside an `io::Error`
/// (of the failure's own kind), so that a caller can name the file in its hint
/// ([`broken_record`]).
#[derive(Debug)]
pub struct BrokenRecord {
    pub path: PathBuf,
    pub problem: String,
}

impl std::fmt::Display for BrokenRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for BrokenRecord {}

fn broken(kind: io::ErrorKind, path: &Path, problem: String) -> io::Error {
    io::Error::new(
        kind,
        BrokenRecord {
            path: path.to_path_buf(),
            problem,
        },
    )
}

/// The record file an error is about, when it is one of these.
pub fn broken_record(error: &io::Error) -> Option<&BrokenRecord> {
    error.get_ref()?.downcast_ref::<BrokenRecord>()
}

/// Why `path` could not be read, in words that name it.
fn unreadable(path: &Path, e: io::Error) -> io::Error {
    let problem = match e.kind() {
        io::ErrorKind::InvalidData => "is not UTF-8 text, so not a record".to_string(),
        io::ErrorKind::IsADirectory => "is a folder, not a record".to_string(),
        io::ErrorKind::NotADirectory => {
            "cannot be read: a file is in the way of a folder above it".to_string()
        }
        _ => format!("cannot be read: {e}"),
    };
    broken(e.kind(), path, problem)
}

/// Reads a record file; `None` when it is missing. A file that cannot be read, is not JSON, or
/// is of a newer version, is an error naming it ([`BrokenRecord`]).
pub fn read(path: &Path) -> io::Result<Option<Value>> {
    match fs::read_to_string(path) {
        Ok(text) => parse(path, &text).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(unreadable(path, e)),
    }
}

fn parse(path: &Path, text: &str) -> io::Result<Value> {
    let invalid = |problem: String| broken(io::ErrorKind::InvalidData, path, problem);
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(_) if text.trim().is_empty() => return Err(invalid("is empty, not a record".into())),
        Err(e) => return Err(invalid(format!("is not a whole JSON record ({e})"))),
    };
    if !value.is_object() {
        return Err(invalid(
            "holds JSON that is not an object, so not a record".into(),
        ));
    }
    if value["version"].as_u64().is_some_and(|v| v > VERSION) {
        return Err(invalid(format!(
            "written by a newer awf (version {}); use that awf",
            value["version"]
        )));
    }
    Ok(value)
}

/// A folder of records (`attempts`, `stages`): its entries' names; none when it is missing.
fn record_names(dir: &Path) -> io::Result<Vec<String>> {
    match fs::read_dir(dir) {
        Ok(entries) => Ok(entries
            .flatten()
            .filter_map(|e| Some(e.file_name().to_str()?.strip_suffix(".json")?.to_string()))
            .collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => Err(broken(
            e.kind(),
            dir,
            "is a file, where awf keeps a folder of records".into(),
        )),
        Err(e) => Err(broken(e.kind(), dir, format!("cannot be listed: {e}"))),
    }
}

/// An attempt record read from `attempts/<n>.json` must say it is attempt `n`.
fn check_attempt(path: &Path, n: u32, record: Value) -> io::Result<Value> {
    match record.get("attempt").and_then(Value::as_u64) {
        Some(said) if said == u64::from(n) => Ok(record),
        Some(said) => Err(broken(
            io::ErrorKind::InvalidData,
            path,
            format!("says it is attempt {said}, not {n}"),
        )),
        None => Err(broken(
            io::ErrorKind::InvalidData,
            path,
            format!("holds no attempt number, so not an attempt record (one has \"attempt\": {n})"),
        )),
    }
}

/// Writes `value` at `target` whole, failing with `AlreadyExists` if the name is taken. A run
/// claims through its `RunDir`; tests lay out records with this.
#[cfg(test)]
pub fn claim(target: &Path, value: &Value) -> io::Result<()> {
    if let Some(dir) = target.parent() {
        make_private_dirs(dir)?;
    }
    super::whole_file::claim_durably(target, &json_text(value)?)
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

/// Where a stage's record is moved aside when a later attempt runs the stage again:
/// `replaced/<name>.<attempt>.json`, under the attempt that replaces it.
pub fn replaced_stage_path(run: &Path, stage: &str, attempt: u32) -> PathBuf {
    run.join("replaced").join(format!("{stage}.{attempt}.json"))
}

/// What an attempt's ending is made of, in output.json and in the attempt's record alike.
const ENDING: [&str; 9] = [
    "outcome",
    "reason",
    "stage",
    "stages",
    "endedAt",
    "durationMs",
    "exitCode",
    "usage",
    "budgets",
];

/// `attempt` with the ending that `output` (output.json's record) says.
pub fn with_ending(mut attempt: Value, output: &Value) -> Value {
    for key in ENDING {
        if let Some(value) = output.get(key) {
            attempt[key] = value.clone();
        }
    }
    attempt
}

/// The attempts recorded in a run folder, by number, in order.
///
/// The last one's ending is output.json's when its own record does not hold it: awf writes
/// output.json durably and then the attempt's ending as a copy, in place and not flushed
/// (writer.rs), which `kill -9` between the two, or a power cut soon after, leaves unwritten,
/// and which a reader meets empty or cut off while it is written. `make_ending_durable` settles
/// it before a new attempt replaces output.json.
pub fn attempts(run: &Path) -> io::Result<Vec<Value>> {
    let mut numbers: Vec<u32> = record_names(&run.join("attempts"))?
        .iter()
        .filter_map(|name| name.parse().ok())
        .collect();
    numbers.sort_unstable();
    let last = numbers.pop();
    let mut found = Vec::new();
    for n in numbers {
        let path = attempt_path(run, n);
        if let Some(record) = read(&path)? {
            found.push(check_attempt(&path, n, record)?);
        }
    }
    if let Some(n) = last {
        found.extend(last_attempt(run, n)?);
    }
    Ok(found)
}

/// The number the next attempt of the run in `run` takes: one past every attempt any record
/// shows (an attempt's own record, or output.json's, which outlives a record moved away), so
/// that no number is used twice.
pub fn next_attempt(run: &Path, attempts: &[Value]) -> u32 {
    let recorded = attempts
        .iter()
        .filter_map(|a| a["attempt"].as_u64())
        .max()
        .unwrap_or(0);
    // output.json of records from before attempts has no number: it was the first.
    let ended = read(&run.join("output.json"))
        .ok()
        .flatten()
        .map_or(0, |o| o["attempt"].as_u64().unwrap_or(1));
    u32::try_from(recorded.max(ended)).unwrap_or(u32::MAX - 1) + 1
}

fn last_attempt(run: &Path, n: u32) -> io::Result<Option<Value>> {
    let path = attempt_path(run, n);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(&path, e)),
    };
    let own = parse(&path, &text).and_then(|record| check_attempt(&path, n, record));
    if own.as_ref().is_ok_and(has_ended) {
        return own.map(Some);
    }
    let output = read(&run.join("output.json"))
        .ok()
        .flatten()
        .filter(|o| o["attempt"].as_u64().unwrap_or(1) == u64::from(n) && o["outcome"].is_string());
    let Some(output) = output else {
        return own.map(Some);
    };
    match own {
        Ok(record) => Ok(Some(with_ending(record, &output))),
        // An empty or cut-off copy: what output.json says of the attempt is all there is.
        Err(_) if serde_json::from_str::<Value>(&text).is_err() => {
            let record = json!({
                "version": VERSION,
                "attempt": n,
                "file": output["workflow"]["file"],
                "startedAt": output["startedAt"],
            });
            Ok(Some(with_ending(record, &output)))
        }
        Err(e) => Err(e),
    }
}

/// Before a new attempt of the run in `run` replaces output.json: the last attempt's record
/// holds its ending (from output.json when its copy did not land) and is on disk.
pub fn make_ending_durable(run: &Path) -> io::Result<()> {
    let Some(last) = attempts(run)?.pop() else {
        return Ok(());
    };
    let n = last["attempt"].as_u64().unwrap_or(0) as u32;
    let path = attempt_path(run, n);
    let stored = fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok());
    if stored.as_ref() == Some(&last) {
        return fs::File::open(&path)?.sync_all();
    }
    replace(&path, &last)
}

/// The stage records of a run folder (not the replaced ones), by name.
pub fn stages(run: &Path) -> io::Result<Vec<Value>> {
    let mut names = record_names(&run.join("stages"))?;
    names.sort();
    let mut found = Vec::new();
    for name in names {
        let path = stage_path(run, &name);
        if let Some(record) = read(&path)? {
            found.push(check_stage(&path, &name, record)?);
        }
    }
    Ok(found)
}

/// A stage record read from `stages/<name>.json` must say it is stage `name`.
fn check_stage(path: &Path, name: &str, record: Value) -> io::Result<Value> {
    match record.get("stage").and_then(Value::as_str) {
        Some(said) if said == name => Ok(record),
        Some(said) => Err(broken(
            io::ErrorKind::InvalidData,
            path,
            format!("says it is stage {said}, not {name}"),
        )),
        None => Err(broken(
            io::ErrorKind::InvalidData,
            path,
            format!("holds no stage name, so not a stage record (one has \"stage\": \"{name}\")"),
        )),
    }
}

/// Where a stage record sorts among the run's stages, by when it started: its `startedAt`, then
/// (for stages started within one millisecond) its attempt and its `order` in that attempt.
pub fn stage_start_key(record: &Value) -> (String, u64, u64) {
    (
        record["startedAt"].as_str().unwrap_or_default().to_string(),
        record["attempt"].as_u64().unwrap_or(0),
        record["order"].as_u64().unwrap_or(0),
    )
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

    fn started(n: u32) -> Value {
        json!({"version": 1, "attempt": n, "file": "/w/wf.ts", "sources": {}, "startedAt": "2026-12-02T00:00:00.000Z"})
    }

    fn output(n: u32, outcome: &str) -> Value {
        json!({"version": 1, "attempt": n, "workflow": {"name": "wf", "file": "/w/wf.ts"},
               "outcome": outcome, "startedAt": "2026-12-02T00:00:00.000Z",
               "endedAt": "2026-12-02T00:00:01.000Z", "durationMs": 1000, "stage": "check"})
    }

    #[test]
    fn the_last_attempt_whose_ending_did_not_land_takes_it_from_output_json() {
        let dir = scratch("fold");
        claim(
            &attempt_path(&dir, 1),
            &with_ending(started(1), &output(1, "failed")),
        )
        .unwrap();
        claim(&attempt_path(&dir, 2), &started(2)).unwrap();
        // No output.json of attempt 2 yet: attempt 2 has no ending (it runs, or was killed).
        replace(&dir.join("output.json"), &output(1, "failed")).unwrap();
        assert!(!has_ended(&attempts(&dir).unwrap()[1]));
        // Attempt 2's output.json landed, its copy into attempts/2.json did not.
        replace(&dir.join("output.json"), &output(2, "completed")).unwrap();
        let found = attempts(&dir).unwrap();
        assert_eq!(found[1]["outcome"], "completed");
        assert_eq!(
            (found[1]["stage"].clone(), found[1]["durationMs"].clone()),
            (json!("check"), json!(1000))
        );
        assert_eq!(
            found[1]["sources"],
            json!({}),
            "the record's own fields stay"
        );
        assert_eq!(found[0]["outcome"], "failed");
        // A copy left empty by a power cut: what output.json says of the attempt.
        fs::write(attempt_path(&dir, 2), b"").unwrap();
        let found = attempts(&dir).unwrap();
        assert_eq!(
            (found[1]["attempt"].clone(), found[1]["outcome"].clone()),
            (json!(2), json!("completed"))
        );
        assert_eq!(found[1]["file"], "/w/wf.ts");
        // A copy cut off mid-write (read while it is written over, or `kill -9` then).
        let whole = serde_json::to_string_pretty(&started(2)).unwrap();
        fs::write(attempt_path(&dir, 2), &whole[..whole.len() / 2]).unwrap();
        let found = attempts(&dir).unwrap();
        assert_eq!(found[1]["outcome"], "completed");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn before_a_new_attempt_the_last_ones_ending_is_written_into_its_record() {
        let dir = scratch("settle");
        claim(&attempt_path(&dir, 1), &started(1)).unwrap();
        replace(&dir.join("output.json"), &output(1, "failed")).unwrap();
        make_ending_durable(&dir).unwrap();
        let stored = read(&attempt_path(&dir, 1)).unwrap().unwrap();
        assert_eq!(stored["outcome"], "failed");
        assert_eq!(stored["sources"], json!({}));
        // Already whole: left as it is.
        make_ending_durable(&dir).unwrap();
        assert_eq!(read(&attempt_path(&dir, 1)).unwrap().unwrap(), stored);
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

    /// The broken record an error names, and what it says is wrong.
    fn named(error: io::Error) -> (PathBuf, String) {
        let broken = broken_record(&error).expect("names its record");
        (broken.path.clone(), broken.problem.clone())
    }

    #[test]
    fn a_broken_record_is_named_with_what_is_wrong_never_guessed_around() {
        let dir = scratch("broken");
        claim(&attempt_path(&dir, 1), &started(1)).unwrap();
        fs::write(attempt_path(&dir, 2), "{}").unwrap();
        assert_eq!(
            named(attempts(&dir).unwrap_err()),
            (
                attempt_path(&dir, 2),
                "holds no attempt number, so not an attempt record (one has \"attempt\": 2)".into()
            )
        );
        replace(&attempt_path(&dir, 2), &started(3)).unwrap();
        assert_eq!(
            named(attempts(&dir).unwrap_err()).1,
            "says it is attempt 3, not 2"
        );
        // Moved away: no longer read, and its number is not given again while output.json or an
        // event shows it.
        fs::rename(attempt_path(&dir, 2), dir.join("attempts/2.json.broken")).unwrap();
        let found = attempts(&dir).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(next_attempt(&dir, &found), 2);
        replace(&dir.join("output.json"), &output(2, "failed")).unwrap();
        assert_eq!(next_attempt(&dir, &found), 3);

        fs::create_dir_all(dir.join("stages")).unwrap();
        fs::write(stage_path(&dir, "plan"), [0xff, 0xfe]).unwrap();
        assert_eq!(
            named(stages(&dir).unwrap_err()),
            (
                stage_path(&dir, "plan"),
                "is not UTF-8 text, so not a record".into()
            )
        );
        fs::write(stage_path(&dir, "plan"), "{\"version\": 1, \"stage\": \"pl").unwrap();
        assert!(named(stages(&dir).unwrap_err())
            .1
            .starts_with("is not a whole JSON record ("));
        replace(
            &stage_path(&dir, "plan"),
            &json!({"version": 1, "stage": "ship"}),
        )
        .unwrap();
        assert_eq!(
            named(stages(&dir).unwrap_err()).1,
            "says it is stage ship, not plan"
        );
        fs::remove_dir_all(dir.join("stages")).unwrap();
        fs::write(dir.join("stages"), "").unwrap();
        assert_eq!(
            named(stages(&dir).unwrap_err()),
            (
                dir.join("stages"),
                "is a file, where awf keeps a folder of records".into()
            )
        );
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
        let writer = crate::records::writer::RecordWriter::default();
        let aside = |stage: &str| crate::records::writer::RecordWrite::MoveAside {
            from: stage_path(&dir, stage),
            to: replaced_stage_path(&dir, stage, 1),
        };
        writer.wait(aside("plan")).unwrap();
        assert!(!stage_path(&dir, "plan").exists());
        assert!(dir.join("replaced/plan.1.json").is_file());
        writer.wait(aside("absent")).unwrap();
        fs::remove_dir_all(dir).unwrap();
    }
}
