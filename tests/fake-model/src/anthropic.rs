//! The Anthropic Messages API (`POST /v1/messages`), as Claude Code speaks it. Tool input is
//! streamed only as `input_json_delta`: Claude Code ignores input given in `content_block_start`.

use crate::engine::{property_names, text_of, Conversation, Decision, Entry, Reply, Tool};
use crate::http::{Event, Response};
use crate::script::Usage;
use serde_json::{json, Value};

pub const AUTH_MESSAGE: &str = "invalid x-api-key";

/// The history and tools of a request body.
pub fn conversation(body: &Value) -> Conversation {
    let mut entries = Vec::new();
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = message.get("content");
        match message.get("role").and_then(Value::as_str) {
            Some("user") => {
                let blocks = content
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for block in blocks.iter().filter(|b| is_type(b, "tool_result")) {
                    entries.push(Entry::Output(text_of(block.get("content"))));
                }
                let texts: Vec<Value> = blocks.into_iter().filter(|b| is_type(b, "text")).collect();
                let text = match content {
                    Some(Value::String(s)) => s.clone(),
                    _ => text_of(Some(&Value::Array(texts))),
                };
                if !text.is_empty() {
                    entries.push(Entry::User(text));
                }
            }
            Some("assistant") => {
                for block in content.and_then(Value::as_array).into_iter().flatten() {
                    if is_type(block, "tool_use") {
                        entries.push(Entry::Call {
                            name: block
                                .get("name")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .into(),
                            arguments: block.get("input").cloned().unwrap_or(json!({})),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some(Tool {
                name: t.get("name")?.as_str()?.to_string(),
                params: property_names(t.get("input_schema")),
            })
        })
        .collect();
    Conversation { entries, tools }
}

fn is_type(block: &Value, kind: &str) -> bool {
    block.get("type").and_then(Value::as_str) == Some(kind)
}

/// The reply: SSE when the request streams, else the message object.
pub fn reply(body: &Value, decision: &Decision, n: usize) -> Response {
    let model = body.get("model").cloned().unwrap_or(json!("fake-claude"));
    let id = format!("msg_{n:04}");
    let usage = usage(&decision.usage);
    let (block, stop) = match &decision.reply {
        Reply::Call { name, arguments } => (
            json!({"type": "tool_use", "id": format!("toolu_{n:04}"), "name": name, "input": arguments}),
            "tool_use",
        ),
        Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
    };
    if body.get("stream") != Some(&Value::Bool(true)) {
        return Response::json(
            200,
            json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": [block],
                   "stop_reason": stop, "stop_sequence": null, "usage": usage}),
        );
    }
    let mut start_usage = usage.clone();
    start_usage["output_tokens"] = json!(1);
    let (start_block, delta) = match &decision.reply {
        Reply::Call { arguments, .. } => {
            let mut start = block.clone();
            start["input"] = json!({});
            (
                start,
                json!({"type": "input_json_delta", "partial_json": arguments.to_string()}),
            )
        }
        Reply::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
    };
    Response::sse(vec![
        event(
            "message_start",
            json!({"message": {"id": id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": start_usage}}),
        ),
        event(
            "content_block_start",
            json!({"index": 0, "content_block": start_block}),
        ),
        event("content_block_delta", json!({"index": 0, "delta": delta})),
        event("content_block_stop", json!({"index": 0})),
        event(
            "message_delta",
            json!({"delta": {"stop_reason": stop, "stop_sequence": null}, "usage": usage}),
        ),
        event("message_stop", json!({})),
    ])
}

/// An Anthropic error body.
pub fn error(status: u16, message: &str) -> Response {
    let kind = match status {
        401 => "authentication_error",
        404 => "not_found_error",
        _ => "invalid_request_error",
    };
    Response::json(
        status,
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}),
    )
}

/// Anthropic counts cache reads apart: `input_tokens` excludes them.
fn usage(u: &Usage) -> Value {
    json!({"input_tokens": u.input - u.cached, "cache_creation_input_tokens": 0,
           "cache_read_input_tokens": u.cached, "output_tokens": u.output})
}

fn event(name: &'static str, mut data: Value) -> Event {
    data["type"] = json!(name);
    Event {
        name: Some(name),
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::decide;
    use crate::http::Body;
    use crate::script::Script;

    fn body() -> Value {
        json!({"model": "fake-claude", "stream": true,
          "tools": [{"name": "Read", "input_schema": {"properties": {"file_path": {}}}},
                    {"name": "Bash", "input_schema": {"properties": {"command": {}, "description": {}, "timeout": {}}}}],
          "messages": [
            {"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                         {"type": "text", "text": "Go.\n/tmp/a/wfa result t1 <<'WF_JSON'"}]},
            {"role": "system", "content": "# Environment"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                               "input": {"command": "/tmp/a/wfa tool bad", "description": "d"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
              "content": "Exit code 2\nwfa: bad: refused (invalid-input): no"}]}]})
    }

    #[test]
    fn tool_results_are_outputs_and_the_prompt_is_the_text() {
        let c = conversation(&body());
        assert_eq!(c.entries.len(), 3);
        assert!(
            matches!(&c.entries[0], Entry::User(t) if t.ends_with("wfa result t1 <<'WF_JSON'"))
        );
        assert_eq!(
            c.entries[2],
            Entry::Output("Exit code 2\nwfa: bad: refused (invalid-input): no".into())
        );
        assert_eq!(c.tools[1].params, ["command", "description", "timeout"]);
    }

    #[test]
    fn tool_input_arrives_only_as_a_json_delta() {
        let script = Script::parse(r#"{"prompts": [{"steps": [{"shell": "a"}, {"shell": "{wfa} result {turn} --ok 'true'"}],
            "usage": {"input": 1200, "cached": 200, "output": 40}}]}"#).unwrap();
        let decision = decide(&script, &conversation(&body()));
        assert_eq!(
            decision.tool_outputs,
            ["Exit code 2\nwfa: bad: refused (invalid-input): no"]
        );
        let Body::Sse { events, .. } = reply(&body(), &decision, 2).body else {
            panic!("not SSE")
        };
        assert_eq!(events[1].data["content_block"]["input"], json!({}));
        let delta = &events[2].data["delta"];
        assert_eq!(delta["type"], "input_json_delta");
        let input: Value = serde_json::from_str(delta["partial_json"].as_str().unwrap()).unwrap();
        assert_eq!(
            input,
            json!({"command": "/tmp/a/wfa result t1 --ok 'true'", "description": "Run the scripted command"})
        );
        assert_eq!(events[4].data["delta"]["stop_reason"], "tool_use");
        assert_eq!(events[4].data["usage"]["input_tokens"], 1000);
        assert_eq!(events[4].data["usage"]["cache_read_input_tokens"], 200);
        assert_eq!(events[5].name, Some("message_stop"));
    }

    #[test]
    fn a_plain_request_gets_a_message_and_the_error_a_type() {
        let mut b = body();
        b["stream"] = json!(false);
        b["tools"] = json!([]);
        let script = Script::parse(r#"{"prompts": []}"#).unwrap();
        let Body::Json(m) = reply(&b, &decide(&script, &conversation(&b)), 1).body else {
            panic!()
        };
        assert_eq!(m["content"][0]["type"], "text");
        assert_eq!(m["stop_reason"], "end_turn");
        let Body::Json(e) = error(401, AUTH_MESSAGE).body else {
            panic!()
        };
        assert_eq!(e["error"]["type"], "authentication_error");
    }
}
