//! Whether a run's records say it ended, and closing the records of a run whose awf died
//! (`kill -9`, a crash, the OOM killer, a reboot) as `interrupted`.
//!
//! A run's highest attempt record names the awf process that runs it (pid and start time, so a
//! reused pid is not taken for it). Records without a `run-ended` event whose awf is gone get
//! one, with outcome `interrupted`, and an output.json saying the same; a later `awf run` does
//! this. The attempt record itself is left as the dead awf left it: the run's status is derived
//! (status.rs), and an attempt without an ending whose awf is gone reads `interrupted`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::SystemTime;

use serde_json::{json, Value};

use super::{event, time, write_atomically, Event};
use crate::os::proc::Identity;

/// The outcome recorded for a run whose awf died before ending it.
pub const INTERRUPTED: &str = "interrupted";

/// Whether the last whole line of `events.jsonl` in `dir` is the run's end.
pub fn has_ended(dir: &Path) -> io::Result<bool> {
    let mut file = File::open(dir.join("events.jsonl"))?;
    let len = file.metadata()?.len();
    // The last line is at most an event's size; a run's end is short.
    let from = len.saturating_sub(64 * 1024);
    file.seek(SeekFrom::Start(from))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let whole = match tail.iter().rposition(|b| *b == b'\n') {
        Some(end) => &tail[..end],
        None => return Ok(false),
    };
    let last = whole.rsplit(|b| *b == b'\n').next().unwrap_or_default();
    Ok(serde_json::from_slice::<Value>(last).is_ok_and(|event| event["event"] == "run-ended"))
}

/// The awf process that runs the highest attempt in `dir` (or, in records from before attempts,
/// the one `run.json` names).
pub fn owner(dir: &Path) -> Option<Identity> {
    if let Some(last) = super::run_files::attempts(dir).ok()?.last() {
        return super::run_files::owner_of(last);
    }
    let run: Value = serde_json::from_str(&fs::read_to_string(dir.join("run.json")).ok()?).ok()?;
    Some(Identity {
        pid: run["awf"]["pid"].as_i64()? as i32,
        start: run["awf"]["start"].as_u64()?,
    })
}

/// Closes the records in `dir` as interrupted if they are not ended and their awf is gone;
/// whether it did.
pub fn close_if_orphaned(dir: &Path) -> io::Result<bool> {
    if has_ended(dir)? {
        return Ok(false);
    }
    match owner(dir) {
        Some(owner) if !owner.alive() => {}
        _ => return Ok(false),
    }
    close_interrupted(dir)?;
    Ok(true)
}

/// Appends `run-ended` (`interrupted`) and writes output.json saying so.
fn close_interrupted(dir: &Path) -> io::Result<()> {
    let reason = "awf ended without closing the run (killed, crashed or out of memory); its agents were stopped with it";
    let mut events = OpenOptions::new()
        .append(true)
        .open(dir.join("events.jsonl"))?;
    // A torn last line (awf died mid-append) must not swallow the end: start a new line.
    if fs::metadata(dir.join("events.jsonl"))?.len() > 0 && !ends_with_newline(dir)? {
        events.write_all(b"\n")?;
    }
    let line = event::line(
        SystemTime::now(),
        &Event::RunEnded {
            outcome: INTERRUPTED.to_string(),
            reason: Some(reason.to_string()),
        },
    );
    events.write_all(line.as_bytes())?;
    let attempts = super::run_files::attempts(dir).unwrap_or_default();
    let last = attempts.last().cloned().unwrap_or_default();
    let attempt = last["attempt"].as_u64().unwrap_or(1);
    let output = super::run_files::read(&dir.join("output.json"))
        .ok()
        .flatten();
    // output.json is the last ended attempt's: one from an earlier attempt is replaced.
    let stale = output.is_none_or(|o| o["attempt"].as_u64().unwrap_or(1) < attempt);
    if stale {
        let run: Value = fs::read_to_string(dir.join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let started = last.get("startedAt").unwrap_or(&run["startedAt"]);
        let record = json!({
            "version": 1,
            "runId": run["runId"],
            "attempt": attempt,
            "workflow": { "name": run["workflow"], "file": run["file"] },
            "cwd": run["cwd"],
            "outcome": INTERRUPTED,
            "startedAt": started,
            "endedAt": time::rfc3339(SystemTime::now()),
            "reason": reason,
            "records": dir.display().to_string(),
        });
        let mut text = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
        text.push(b'\n');
        write_atomically(&dir.join("output.json"), &text)?;
    }
    Ok(())
}

fn ends_with_newline(dir: &Path) -> io::Result<bool> {
    let mut file = File::open(dir.join("events.jsonl"))?;
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_dir(name: &str, owner: Identity, events: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-ending-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let run = json!({"runId": "r1", "workflow": "w", "awf": {"pid": owner.pid, "start": owner.start}});
        fs::write(dir.join("run.json"), run.to_string()).unwrap();
        fs::write(dir.join("events.jsonl"), events).unwrap();
        dir
    }

    #[test]
    fn a_run_whose_awf_is_gone_is_closed_interrupted_once() {
        let gone = Identity {
            start: Identity::current().start + 1,
            ..Identity::current()
        };
        let dir = run_dir("gone", gone, "{\"event\":\"run-started\"}\n{\"event\":\"lo");
        assert!(!has_ended(&dir).unwrap());
        assert!(close_if_orphaned(&dir).unwrap());
        assert!(has_ended(&dir).unwrap());
        let events = super::super::reader::read_events(&dir.join("events.jsonl")).unwrap();
        assert_eq!(events.last().unwrap()["outcome"], INTERRUPTED);
        let output: Value =
            serde_json::from_str(&fs::read_to_string(dir.join("output.json")).unwrap()).unwrap();
        assert_eq!(output["outcome"], INTERRUPTED);
        assert!(!close_if_orphaned(&dir).unwrap(), "closed once");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_run_whose_awf_lives_is_left_alone() {
        let dir = run_dir(
            "alive",
            Identity::current(),
            "{\"event\":\"run-started\"}\n",
        );
        assert!(!close_if_orphaned(&dir).unwrap());
        assert!(!has_ended(&dir).unwrap());
        fs::remove_dir_all(dir).unwrap();
    }
}
