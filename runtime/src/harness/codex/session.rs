//! Codex's session operations, through `codex app-server --listen stdio://` (JSON-RPC lines on
//! stdin, held open until the answer; reference: agentswf.md §4.3).
//!
//! Fork, without a model call: `initialize`, `initialized`, `thread/fork { threadId,
//! excludeTurns: true, model? }`; the new thread's id is `result.thread.id` of that request.
//!
//! Compaction: `initialize`, `initialized`, `thread/resume { threadId, excludeTurns, model? }`,
//! `thread/inject_items` (a user message with the focus: codex's compaction takes no focus of
//! its own), `thread/compact/start { threadId }`; it compacted when an `item/completed` of type
//! `contextCompaction` comes before `turn/completed`. Codex keeps its summary opaque.

use serde_json::{json, Value};

use super::sandbox::gate;
use crate::harness::cli::{count, json_line, text, CliConfig, CliInfo};
use crate::harness::session::{self, converse, rpc, Exchange, SessionOp};
use crate::harness::{Compacted, Forked, Launch, OpEnd, Tokens};

/// `codex app-server` with the sandbox and shell settings of `codex exec` turns (the model goes
/// in each thread request), told `requests` after the lines that open a conversation.
fn app_server(
    info: &CliInfo,
    config: &CliConfig,
    op: &SessionOp<'_>,
    requests: Vec<String>,
) -> Launch {
    let mut args: Vec<String> = ["app-server", "--listen", "stdio://"]
        .iter()
        .chain(gate(op.sandbox.is_some()).iter())
        .map(|a| a.to_string())
        .collect();
    args.extend(info.effort_args(config));
    let stdin = hello()
        .into_iter()
        .chain(requests)
        .map(|l| l + "\n")
        .collect();
    session::launch(&config.program, args, op, stdin, true)
}

/// The lines that open a conversation with the app-server.
fn hello() -> Vec<String> {
    vec![
        rpc(
            Some(1),
            "initialize",
            json!({ "clientInfo": { "name": "awf", "version": env!("CARGO_PKG_VERSION") } }),
        ),
        rpc(None, "initialized", Value::Null),
    ]
}

fn thread_params(thread: &str, config: &CliConfig) -> Value {
    let mut params = json!({ "threadId": thread, "excludeTurns": true });
    if let Some(model) = &config.model {
        params["model"] = json!(model);
    }
    params
}

/// A fork of the agent's thread, as a new agent of `info` (codex) with the same settings.
pub(super) async fn fork(
    info: &'static CliInfo,
    config: &CliConfig,
    op: SessionOp<'_>,
) -> OpEnd<Forked> {
    let Some(parent) = op.session else {
        return OpEnd::Failed("the agent has no codex thread to fork yet".into());
    };
    let requests = vec![rpc(Some(2), "thread/fork", thread_params(parent, config))];
    let launch = app_server(info, config, &op, requests);
    let read = Box::new(|line: &str| read_fork(&json_line(line)?));
    converse(&op, Exchange { launch, read })
        .await
        .map(|thread| info.forked(config, thread))
}

/// An error answer to any request, as a failure.
fn refused(row: &Value) -> Option<String> {
    let error = row.get("error")?;
    Some(format!(
        "codex app-server refused {}: {}",
        row["id"],
        error["message"].as_str().unwrap_or(&error.to_string())
    ))
}

fn read_fork(row: &Value) -> Option<Result<String, String>> {
    if let Some(why) = refused(row) {
        return Some(Err(why));
    }
    if row["id"] != json!(2) {
        return None;
    }
    Some(match row["result"]["thread"]["id"].as_str() {
        Some(id) if !id.is_empty() => Ok(id.to_string()),
        _ => Err(format!("codex forked no thread: {row}")),
    })
}

pub(super) async fn compact(
    info: &CliInfo,
    config: &CliConfig,
    op: SessionOp<'_>,
    focus: &str,
) -> OpEnd<Compacted> {
    let Some(thread) = op.session else {
        return OpEnd::Failed("the agent has no codex thread to compact yet".into());
    };
    let requests = vec![
        rpc(Some(2), "thread/resume", thread_params(thread, config)),
        rpc(
            Some(3),
            "thread/inject_items",
            json!({ "threadId": thread, "items": [{
                "type": "message",
                "role": "user",
                "content": [{ "type": "input_text", "text": focus_message(focus) }],
            }]}),
        ),
        rpc(
            Some(4),
            "thread/compact/start",
            json!({ "threadId": thread }),
        ),
    ];
    let launch = app_server(info, config, &op, requests);
    let mut reading = CompactReading::default();
    let read = Box::new(move |line: &str| reading.row(&json_line(line)?));
    converse(&op, Exchange { launch, read }).await
}

/// What the compaction is told to keep.
fn focus_message(focus: &str) -> String {
    format!("The conversation is about to be compacted. In its summary, focus on: {focus}")
}

#[derive(Default)]
struct CompactReading {
    compacted: bool,
    tokens: Option<Tokens>,
    before: Option<u64>,
}

impl CompactReading {
    fn row(&mut self, row: &Value) -> Option<Result<Compacted, String>> {
        if let Some(why) = refused(row) {
            return Some(Err(why));
        }
        let params = &row["params"];
        match text(row, "method") {
            "item/completed" if text(&params["item"], "type") == "contextCompaction" => {
                self.compacted = true;
            }
            "thread/tokenUsage/updated" => {
                let usage = &params["tokenUsage"];
                self.before
                    .get_or_insert_with(|| count(&usage["total"], "totalTokens"));
                let last = &usage["last"];
                if last.is_object() {
                    self.tokens = Some(Tokens {
                        input_tokens: count(last, "inputTokens"),
                        cached_input_tokens: count(last, "cachedInputTokens"),
                        output_tokens: count(last, "outputTokens"),
                        reasoning_tokens: count(last, "reasoningOutputTokens"),
                    });
                }
            }
            "turn/completed" => {
                let turn = &params["turn"];
                return Some(if self.compacted && text(turn, "status") == "completed" {
                    Ok(Compacted {
                        summary: None,
                        tokens: self.tokens,
                        tokens_before: self.before,
                    })
                } else {
                    Err(format!(
                        "codex's compaction ended {} without compacting{}",
                        text(turn, "status"),
                        match turn["error"]["message"].as_str() {
                            Some(said) => format!(": {said}"),
                            None => String::new(),
                        }
                    ))
                });
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_reads_the_new_thread_from_its_answer() {
        assert_eq!(read_fork(&json!({"id": 1, "result": {}})), None);
        assert_eq!(
            read_fork(&json!({"id": 2, "result": {"thread": {"id": "th2"}}})),
            Some(Ok("th2".into()))
        );
        let why = read_fork(&json!({"id": 2, "error": {"message": "no rollout found"}}))
            .unwrap()
            .unwrap_err();
        assert!(why.ends_with("no rollout found"), "{why}");
    }

    #[test]
    fn a_compaction_needs_its_item_before_the_turn_ends() {
        let mut reading = CompactReading::default();
        let usage = json!({"method": "thread/tokenUsage/updated", "params": {"tokenUsage": {
            "total": {"totalTokens": 80000},
            "last": {"inputTokens": 100, "cachedInputTokens": 20, "outputTokens": 10, "reasoningOutputTokens": 2}}}});
        assert_eq!(reading.row(&usage), None);
        let item =
            json!({"method": "item/completed", "params": {"item": {"type": "contextCompaction"}}});
        assert_eq!(reading.row(&item), None);
        let done = json!({"method": "turn/completed", "params": {"turn": {"status": "completed"}}});
        let compacted = reading.row(&done).unwrap().unwrap();
        assert_eq!(compacted.summary, None);
        assert_eq!(compacted.tokens_before, Some(80000));
        assert_eq!(compacted.tokens.unwrap().input_tokens, 100);
        let mut never = CompactReading::default();
        assert!(never
            .row(&done)
            .unwrap()
            .unwrap_err()
            .contains("without compacting"));
    }
}
