//! The run folder's `answers/`: how an answer reaches a run. `awf answer` claims
//! `answers/<key>.json` (written whole and flushed, then linked into place, so a second answer
//! to the same question is refused and no reader sees half a file); the run waiting on `key`
//! looks for it every `POLL` and removes it once its `answered` record is written. A file left
//! when awf stopped is taken by the attempt that asks the question again.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::records::time::rfc3339;
use crate::records::whole_file::{claim_durably, json_text, make_private_dirs};

/// How often a waiting run looks for its answer.
pub const POLL: Duration = Duration::from_millis(100);

/// The folder of answers given and not yet taken, in a run's folder.
pub const ANSWERS_DIR: &str = "answers";

/// An answer as `awf answer` left it.
#[derive(Clone, Debug, PartialEq)]
pub struct Given {
    pub value: Value,
    /// When it was given, RFC 3339.
    pub at: String,
}

/// Where the answer to `key` is left in the run folder `run`.
pub fn path(run: &Path, key: &str) -> PathBuf {
    run.join(ANSWERS_DIR).join(format!("{key}.json"))
}

/// Leaves `value` as the answer to `key`; `AlreadyExists` when one is there, not yet taken.
pub fn give(run: &Path, key: &str, value: &Value) -> io::Result<()> {
    let target = path(run, key);
    make_private_dirs(target.parent().unwrap_or(run))?;
    let text = json_text(&json!({
        "key": key,
        "value": value,
        "at": rfc3339(SystemTime::now()),
    }))?;
    claim_durably(&target, &text)
}

/// The answer left for `key`, if one is there. A file that is not an answer is an error naming
/// it (whoever wrote it by hand can remove it).
pub fn read(run: &Path, key: &str) -> io::Result<Option<Given>> {
    let target = path(run, key);
    let text = match std::fs::read(&target) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let bad = |why: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not an answer: {why}", target.display()),
        )
    };
    let record: Value = serde_json::from_slice(&text).map_err(|e| bad(e.to_string()))?;
    let value = record
        .get("value")
        .cloned()
        .ok_or_else(|| bad("no value".into()))?;
    Ok(Some(Given {
        value,
        at: record["at"].as_str().unwrap_or("").to_string(),
    }))
}

/// Removes the answer left for `key` (taken, or refused).
pub fn remove(run: &Path, key: &str) {
    let _ = std::fs::remove_file(path(run, key));
}

/// How a wait for an answer ended.
#[derive(Debug)]
pub enum Waited {
    Given(Given),
    /// A file that is not an answer: the error names it.
    Unreadable(io::Error),
    TimedOut,
    /// `still_waiting` said no (the question was given up).
    GivenUp,
}

/// Waits for the answer to `key` in run folder `run`, until `deadline`, while `still_waiting`.
pub async fn wait(
    run: &Path,
    key: &str,
    deadline: Option<Instant>,
    still_waiting: impl Fn() -> bool,
) -> Waited {
    loop {
        match read(run, key) {
            Ok(Some(given)) => return Waited::Given(given),
            Ok(None) => {}
            Err(e) => return Waited::Unreadable(e),
        }
        if !still_waiting() {
            return Waited::GivenUp;
        }
        let now = Instant::now();
        let next = match deadline {
            Some(deadline) if deadline <= now => return Waited::TimedOut,
            Some(deadline) => (now + POLL).min(deadline),
            None => now + POLL,
        };
        tokio::time::sleep_until(next.into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_given_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path(), "ship").unwrap(), None);
        give(dir.path(), "ship", &json!("yes")).unwrap();
        let again = give(dir.path(), "ship", &json!("no")).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(
            read(dir.path(), "ship").unwrap().unwrap().value,
            json!("yes")
        );
        remove(dir.path(), "ship");
        assert_eq!(read(dir.path(), "ship").unwrap(), None);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join(ANSWERS_DIR))
            .unwrap()
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[tokio::test]
    async fn a_wait_ends_with_the_answer_or_its_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let waited = wait(
            dir.path(),
            "k",
            Some(Instant::now() + Duration::from_millis(250)),
            || true,
        )
        .await;
        assert!(matches!(waited, Waited::TimedOut), "{waited:?}");
        give(dir.path(), "k", &json!({"ok": true})).unwrap();
        let waited = wait(dir.path(), "k", None, || true).await;
        assert!(
            matches!(waited, Waited::Given(Given { value, .. }) if value == json!({"ok": true}))
        );
        remove(dir.path(), "k");
        let waited = wait(dir.path(), "k", None, || false).await;
        assert!(matches!(waited, Waited::GivenUp));
    }

    #[test]
    fn a_file_that_is_not_an_answer_is_named() {
        let dir = tempfile::tempdir().unwrap();
        make_private_dirs(&dir.path().join(ANSWERS_DIR)).unwrap();
        std::fs::write(path(dir.path(), "k"), "yes").unwrap();
        let error = read(dir.path(), "k").unwrap_err();
        assert!(
            error.to_string().contains("k.json is not an answer"),
            "{error}"
        );
    }
}
