//! pi's session operations, through `pi --mode rpc` (JSON lines on stdin, held open until the
//! answer; reference: agentswf.md §4.3).
//!
//! Fork, without a model call: `pi --mode rpc --fork <session> [--model M] [--thinking E]
//! [ARGS]` given `{"type":"get_state"}`; the answer's `data.sessionId` is the fork's session
//! (in pi's own sessions folder, so later turns resume it with `--session <id>`).
//!
//! Compaction: `pi --mode rpc --session <id> [...]` given `{"type":"compact",
//! "customInstructions": <focus>}`; the answer's `data.summary` and `data.tokensBefore`. pi
//! compacts only what is older than its last ~20k tokens: a short session answers that there
//! is nothing to compact, which fails the compaction with pi's words.

use serde_json::{json, Value};

use crate::harness::cli::{json_line, text, CliConfig, CliInfo};
use crate::harness::session::{self, converse, Exchange, SessionOp};
use crate::harness::{Compacted, Forked, OpEnd};

fn rpc_args(info: &CliInfo, config: &CliConfig, session: (&str, &str)) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "--mode".into(),
        "rpc".into(),
        session.0.into(),
        session.1.into(),
    ];
    args.extend(info.chosen_args(config));
    args
}

/// A fork of the agent's session, as a new agent of `info` (pi) with the same settings.
pub(super) async fn fork(
    info: &'static CliInfo,
    config: &CliConfig,
    op: SessionOp<'_>,
) -> OpEnd<Forked> {
    let Some(parent) = op.session else {
        return OpEnd::Failed("the agent has no pi session to fork yet".into());
    };
    let launch = session::launch(
        &config.program,
        rpc_args(info, config, ("--fork", parent)),
        &op,
        "{\"type\":\"get_state\"}\n".into(),
        true,
    );
    let read = Box::new(|line: &str| {
        let data = answer(&json_line(line)?, "get_state")?;
        Some(data.and_then(|data| match data["sessionId"].as_str() {
            Some(id) if !id.is_empty() => Ok(id.to_string()),
            _ => Err(format!("pi's fork named no session: {data}")),
        }))
    });
    converse(&op, Exchange { launch, read })
        .await
        .map(|id| info.forked(config, id))
}

pub(super) async fn compact(
    info: &CliInfo,
    config: &CliConfig,
    op: SessionOp<'_>,
    focus: &str,
) -> OpEnd<Compacted> {
    let Some(id) = op.session else {
        return OpEnd::Failed("the agent has no pi session to compact yet".into());
    };
    let request = json!({ "type": "compact", "customInstructions": focus }).to_string() + "\n";
    let launch = session::launch(
        &config.program,
        rpc_args(info, config, ("--session", id)),
        &op,
        request,
        true,
    );
    let read = Box::new(|line: &str| {
        let data = answer(&json_line(line)?, "compact")?;
        Some(data.map(|data| Compacted {
            summary: Some(text(&data, "summary").to_string()),
            tokens: None,
            tokens_before: data["tokensBefore"].as_u64(),
        }))
    });
    converse(&op, Exchange { launch, read }).await
}

/// The answer to the `command` request: its data, or why it failed; `None` for other lines.
fn answer(row: &Value, command: &str) -> Option<Result<Value, String>> {
    if text(row, "type") != "response" || text(row, "command") != command {
        return None;
    }
    Some(if row["success"] == Value::Bool(true) {
        Ok(row["data"].clone())
    } else {
        Err(format!(
            "pi could not {}: {}",
            if command == "compact" {
                "compact the session"
            } else {
                "fork the session"
            },
            row["error"].as_str().unwrap_or("it did not say why")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_by_their_command() {
        assert_eq!(
            answer(&json!({"type": "compaction_start"}), "compact"),
            None
        );
        let ok = json!({"type": "response", "command": "compact", "success": true,
                        "data": {"summary": "S", "tokensBefore": 80000}});
        assert_eq!(answer(&ok, "compact").unwrap().unwrap()["summary"], "S");
        assert_eq!(answer(&ok, "get_state"), None);
        let failed = json!({"type": "response", "command": "compact", "success": false,
                            "error": "Nothing to compact"});
        assert_eq!(
            answer(&failed, "compact").unwrap().unwrap_err(),
            "pi could not compact the session: Nothing to compact"
        );
    }
}
