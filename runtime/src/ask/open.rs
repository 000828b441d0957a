//! The questions a run's records say wait for a person: those its latest attempt `asked` and
//! neither `answered` nor timed out (`ask-timed-out`). `awf answer` picks from these and checks
//! the value against them; `awf runs` lists them. A run that stopped while waiting keeps its
//! questions open until `awf run --continue` asks them again.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde_json::Value;

use super::mailbox;
use crate::records::reader::each_event;

/// A question waiting for a person, as the records hold it.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenQuestion {
    pub key: String,
    pub question: String,
    /// Its `asked` record, whole (choices, schema, context, where it was asked).
    pub asked: Value,
    /// An answer was given (`answers/<key>.json`) that the run has not taken yet.
    pub given: bool,
}

/// The open questions of the run in folder `run`, oldest first.
pub fn open_questions(run: &Path) -> io::Result<Vec<OpenQuestion>> {
    let mut latest = 0;
    let mut order = 0u64;
    // (attempt, key) to (order, asked record).
    let mut open: BTreeMap<(u64, String), (u64, Value)> = BTreeMap::new();
    each_event(&run.join("events.jsonl"), |event| {
        let attempt = event["attempt"].as_u64().unwrap_or(0);
        let key = event["key"].as_str().unwrap_or("").to_string();
        match event["event"].as_str() {
            Some("run-started") => latest = latest.max(attempt),
            Some("asked") => {
                order += 1;
                open.insert((attempt, key), (order, event));
            }
            Some("answered" | "ask-timed-out") => {
                open.remove(&(attempt, key));
            }
            _ => {}
        }
        true
    })?;
    let mut questions: Vec<(u64, OpenQuestion)> = open
        .into_iter()
        .filter(|((attempt, _), _)| *attempt == latest)
        .map(|((_, key), (order, asked))| {
            let given = mailbox::path(run, &key).is_file();
            let question = asked["question"].as_str().unwrap_or("").to_string();
            (
                order,
                OpenQuestion {
                    key,
                    question,
                    asked,
                    given,
                },
            )
        })
        .collect();
    questions.sort_by_key(|(order, _)| *order);
    Ok(questions.into_iter().map(|(_, q)| q).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write_events(dir: &Path, events: &[Value]) {
        let text: String = events.iter().map(|e| format!("{e}\n")).collect();
        std::fs::write(dir.join("events.jsonl"), text).unwrap();
    }

    #[test]
    fn the_latest_attempts_unanswered_questions_are_open() {
        let dir = tempfile::tempdir().unwrap();
        write_events(
            dir.path(),
            &[
                json!({"event": "run-started", "attempt": 1}),
                json!({"event": "asked", "attempt": 1, "key": "old", "question": "Old?"}),
                json!({"event": "run-started", "attempt": 2}),
                json!({"event": "asked", "attempt": 2, "key": "ship", "question": "Ship?", "choices": ["yes", "no"]}),
                json!({"event": "asked", "attempt": 2, "key": "notes", "question": "Notes?"}),
                json!({"event": "asked", "attempt": 2, "key": "done", "question": "Done?"}),
                json!({"event": "answered", "attempt": 2, "key": "done", "value": "x", "how": "awf answer"}),
                json!({"event": "asked", "attempt": 2, "key": "late", "question": "Late?"}),
                json!({"event": "ask-timed-out", "attempt": 2, "key": "late"}),
            ],
        );
        mailbox::give(dir.path(), "notes", &json!("n")).unwrap();
        let open = open_questions(dir.path()).unwrap();
        let keys: Vec<(&str, bool)> = open.iter().map(|q| (q.key.as_str(), q.given)).collect();
        assert_eq!(keys, [("ship", false), ("notes", true)]);
        assert_eq!(open[0].question, "Ship?");
        assert_eq!(open[0].asked["choices"], json!(["yes", "no"]));
    }
}
