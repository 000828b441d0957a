//! What the lines Claude Code prints (`--output-format stream-json`) say, for turns and for
//! compactions.
//!
//! Its stream: `system/init{session_id}`, `assistant` messages (text, `tool_use`), `user`
//! messages with the `tool_result`s, `system/permission_denied`, and a last `result` with the
//! run's `usage`, the session's running `total_cost_usd`, `is_error` and `api_error_status`.
//! A denied permission or a refused key makes the turn `blocked`.

use serde_json::Value;

use crate::harness::cli::{self, count, text};
use crate::harness::{HarnessEvent, LineMemory, Tokens, UsageBasis};

pub(super) fn read_event(event: &Value, memory: &mut LineMemory) -> Vec<HarnessEvent> {
    match (text(event, "type"), text(event, "subtype")) {
        ("system", "init") if !text(event, "session_id").is_empty() => {
            vec![HarnessEvent::Session(text(event, "session_id").to_string())]
        }
        ("system", "permission_denied") => vec![HarnessEvent::Error {
            message: format!(
                "claude was denied {}: {}; allow it with runtime.args (e.g. [\"--allowedTools\", \"{}\"])",
                text(event, "tool_name"),
                text(event, "message"),
                text(event, "tool_name")
            ),
            blocked: true,
        }],
        ("assistant", _) => {
            let mut events: Vec<HarnessEvent> = content(&event["message"])
                .filter_map(|part| read_assistant_part(part, memory))
                .collect();
            events.extend(read_response_usage(&event["message"], memory));
            events
        }
        ("user", _) => content(&event["message"])
            .filter_map(|part| read_tool_result(part, memory))
            .collect(),
        ("result", _) => read_result(event),
        _ => Vec::new(),
    }
}

fn content(message: &Value) -> impl Iterator<Item = &Value> {
    message["content"].as_array().into_iter().flatten()
}

fn read_assistant_part(part: &Value, memory: &mut LineMemory) -> Option<HarnessEvent> {
    match text(part, "type") {
        "text" if !text(part, "text").trim().is_empty() => {
            Some(HarnessEvent::Message(text(part, "text").to_string()))
        }
        "tool_use" if text(part, "name") == "Bash" => {
            let command = text(&part["input"], "command").to_string();
            memory
                .shells
                .insert(text(part, "id").to_string(), command.clone());
            Some(HarnessEvent::ShellStarted { command })
        }
        "tool_use" => Some(HarnessEvent::ToolUsed {
            tool: text(part, "name").to_string(),
            detail: tool_detail(&part["input"]),
        }),
        _ => None,
    }
}

/// What a tool was used on: its path, pattern or URL, else its input as JSON.
fn tool_detail(input: &Value) -> String {
    [
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ]
    .iter()
    .find_map(|field| input.get(*field).and_then(Value::as_str))
    .map(str::to_string)
    .unwrap_or_else(|| input.to_string())
}

fn read_tool_result(part: &Value, memory: &mut LineMemory) -> Option<HarnessEvent> {
    if text(part, "type") != "tool_result" {
        return None;
    }
    let command = memory.shells.remove(text(part, "tool_use_id"))?;
    let output = content_text(&part["content"]);
    // A failed command's result starts "Exit code N"; a good one has none.
    let exit_code = if part["is_error"] == Value::Bool(true) {
        output
            .strip_prefix("Exit code ")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|code| code.parse().ok())
    } else {
        Some(0)
    };
    Some(HarnessEvent::ShellFinished {
        command,
        exit_code,
        output: Some(output),
    })
}

/// Tokens in Anthropic's usage shape (input without the cache's parts).
fn tokens(usage: &Value) -> Tokens {
    let cached = count(usage, "cache_read_input_tokens");
    Tokens {
        input_tokens: count(usage, "input_tokens")
            + count(usage, "cache_creation_input_tokens")
            + cached,
        cached_input_tokens: cached,
        output_tokens: count(usage, "output_tokens"),
        reasoning_tokens: count(&usage["output_tokens_details"], "thinking_tokens"),
    }
}

/// What one model response used, as its `assistant` message carries it: its growth since the
/// same response's last part said (the run's total in `result` replaces these at the end).
fn read_response_usage(message: &Value, memory: &mut LineMemory) -> Option<HarnessEvent> {
    let usage = message.get("usage").filter(|u| u.is_object())?;
    let now = tokens(usage);
    let id = text(message, "id").to_string();
    let before = memory.responses.insert(id, now).unwrap_or_default();
    let grown = now.since(before);
    (!grown.is_zero()).then_some(HarnessEvent::Usage {
        tokens: grown,
        basis: UsageBasis::Request,
    })
}

fn read_result(event: &Value) -> Vec<HarnessEvent> {
    let mut events = vec![HarnessEvent::Usage {
        tokens: tokens(&event["usage"]),
        basis: UsageBasis::Run,
    }];
    if let Some(usd) = event["total_cost_usd"].as_f64() {
        events.push(HarnessEvent::Cost {
            usd,
            basis: UsageBasis::Session,
        });
    }
    if event["is_error"] == Value::Bool(true) {
        let said = match event.get("result").and_then(Value::as_str) {
            Some(result) if !result.is_empty() => result.to_string(),
            _ => event["errors"]
                .as_array()
                .map(|errors| {
                    errors
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .filter(|joined| !joined.is_empty())
                .unwrap_or_else(|| format!("claude ended with {}", text(event, "subtype"))),
        };
        let status = event["api_error_status"].as_u64();
        events.push(HarnessEvent::Error {
            blocked: matches!(status, Some(401 | 403)) || cli::says_login_needed(&said),
            message: said,
        });
    }
    events
}

/// A message's or tool result's `content`, as claude writes it: a string, or parts whose texts
/// are joined by lines.
pub(super) fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| text(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
