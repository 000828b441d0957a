//! Claude Code's session operations (reference: agentswf.md §4.3).
//!
//! Fork, without a model call: `claude -p --resume <id> --fork-session --session-id <new>
//! --output-format json [--model M] [ARGS]` given `/cost` on stdin; the fork is good when the
//! result names the new session and ran no model turn (`num_turns: 0`).
//!
//! Compaction: `claude -p --resume <id> --output-format stream-json --verbose [--model M]
//! [--effort E] [ARGS]` given `/compact <focus>`; a `system/compact_boundary` row says it
//! compacted (`compact_metadata.pre_tokens`: what the session held), and the user row after it
//! holds the summary. A `system/status` row with `compact_result: "failed"` says why not.

use serde_json::Value;

use super::stream::content_text;
use crate::harness::cli::{self, count, json_line, text, CliConfig, CliInfo};
use crate::harness::session::{self, converse, Exchange, SessionOp};
use crate::harness::{Compacted, Forked, OpEnd};

/// A fork of the agent's session, as a new agent of `info` (claude) with the same settings.
pub(super) async fn fork(
    info: &'static CliInfo,
    config: &CliConfig,
    op: SessionOp<'_>,
) -> OpEnd<Forked> {
    let Some(parent) = op.session else {
        return OpEnd::Failed("the agent has no claude session to fork yet".into());
    };
    let new = match cli::new_session_id() {
        Ok(id) => id,
        Err(e) => return OpEnd::Failed(e.to_string()),
    };
    let mut args: Vec<String> = vec![
        "-p".into(),
        "--resume".into(),
        parent.into(),
        "--fork-session".into(),
        "--session-id".into(),
        new.clone(),
        "--output-format".into(),
        "json".into(),
    ];
    args.extend(info.model_args(config));
    args.extend(config.args.iter().cloned());
    let launch = session::launch(&config.program, args, &op, "/cost".into(), false);
    let expected = new.clone();
    let read = Box::new(move |line: &str| read_fork(&json_line(line)?, &expected));
    converse(&op, Exchange { launch, read })
        .await
        .map(|()| info.forked(config, new))
}

fn read_fork(row: &Value, expected: &str) -> Option<Result<(), String>> {
    if text(row, "type") != "result" {
        return None;
    }
    let session = text(row, "session_id");
    Some(if row["is_error"] == Value::Bool(true) {
        Err(format!(
            "claude could not fork the session: {}",
            text(row, "result")
        ))
    } else if session != expected {
        Err(format!(
            "claude forked into session \"{session}\", not the {expected} awf asked for"
        ))
    } else if count(row, "num_turns") != 0 {
        Err("claude ran a model turn while forking".into())
    } else {
        Ok(())
    })
}

pub(super) async fn compact(
    info: &CliInfo,
    config: &CliConfig,
    op: SessionOp<'_>,
    focus: &str,
) -> OpEnd<Compacted> {
    let Some(id) = op.session else {
        return OpEnd::Failed("the agent has no claude session to compact yet".into());
    };
    let mut args: Vec<String> = [
        "-p",
        "--resume",
        id,
        "--output-format",
        "stream-json",
        "--verbose",
    ]
    .map(String::from)
    .to_vec();
    args.extend(info.chosen_args(config));
    let stdin = format!("/compact {}", one_line(focus));
    let launch = session::launch(&config.program, args, &op, stdin, false);
    let mut reading = CompactReading::default();
    let read = Box::new(move |line: &str| reading.row(&json_line(line)?));
    converse(&op, Exchange { launch, read }).await
}

/// A focus on one line: `/compact` takes the rest of its line.
fn one_line(focus: &str) -> String {
    focus.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a compaction's stream said so far.
#[derive(Default)]
struct CompactReading {
    compacted: Option<Compacted>,
}

impl CompactReading {
    fn row(&mut self, row: &Value) -> Option<Result<Compacted, String>> {
        match (text(row, "type"), text(row, "subtype")) {
            ("system", "status") if text(row, "compact_result") == "failed" => Some(Err(format!(
                "claude could not compact the session: {}",
                text(row, "compact_error")
            ))),
            ("system", "compact_boundary") => {
                let before = row["compact_metadata"]["pre_tokens"].as_u64();
                self.compacted = Some(Compacted {
                    tokens_before: before,
                    ..Compacted::default()
                });
                None
            }
            ("user", _) if self.compacted.is_some() => {
                let mut compacted = self.compacted.take()?;
                compacted.summary = Some(content_text(&row["message"]["content"]));
                Some(Ok(compacted))
            }
            ("result", _) => Some(match self.compacted.take() {
                Some(compacted) => Ok(compacted),
                None => Err(format!(
                    "claude ended without compacting the session{}",
                    match text(row, "result") {
                        "" => String::new(),
                        said => format!(": {said}"),
                    }
                )),
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_fork_is_good_when_it_names_the_new_session_and_ran_no_turn() {
        let ok = json!({"type": "result", "session_id": "n1", "num_turns": 0, "is_error": false});
        assert_eq!(read_fork(&ok, "n1"), Some(Ok(())));
        assert!(read_fork(&ok, "n2")
            .unwrap()
            .unwrap_err()
            .contains("not the n2"));
        assert_eq!(read_fork(&json!({"type": "system"}), "n1"), None);
        let failed = json!({"type": "result", "is_error": true, "result": "No conversation found"});
        assert!(read_fork(&failed, "n1")
            .unwrap()
            .unwrap_err()
            .contains("No conversation found"));
    }

    #[test]
    fn a_compaction_reads_its_boundary_and_summary_or_why_it_failed() {
        let mut reading = CompactReading::default();
        assert_eq!(
            reading.row(&json!({"type": "system", "subtype": "compact_boundary", "compact_metadata": {"pre_tokens": 5000}})),
            None
        );
        let done = reading
            .row(&json!({"type": "user", "message": {"content": "Summary: the numbers were 1."}}))
            .unwrap()
            .unwrap();
        assert_eq!(
            done.summary.as_deref(),
            Some("Summary: the numbers were 1.")
        );
        assert_eq!(done.tokens_before, Some(5000));
        let mut failed = CompactReading::default();
        let why = failed
            .row(&json!({"type": "system", "subtype": "status", "compact_result": "failed", "compact_error": "Error during compaction: API Error: Invalid URL"}))
            .unwrap()
            .unwrap_err();
        assert!(why.ends_with("Invalid URL"), "{why}");
        let mut never = CompactReading::default();
        assert!(never
            .row(&json!({"type": "result", "result": ""}))
            .unwrap()
            .is_err());
        assert_eq!(one_line("keep\n the  numbers"), "keep the numbers");
    }
}
