//! The OpenAI Responses API (`POST /v1/responses`), as codex speaks it: history from `input`
//! items, replies as SSE ending in the `response.completed` codex requires.

use crate::engine::{
    parse_arguments, property_names, text_of, Conversation, Decision, Entry, Reply, Tool,
};
use crate::http::{Event, Response};
use crate::script::Usage;
use serde_json::{json, Value};

pub const AUTH_MESSAGE: &str = "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.";

/// The history and tools of a request body.
pub fn conversation(body: &Value) -> Conversation {
    let mut entries = Vec::new();
    match body.get("input") {
        Some(Value::String(text)) => entries.push(Entry::User(text.clone())),
        Some(Value::Array(items)) => {
            for item in items {
                match item
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("message")
                {
                    "message" if item.get("role").and_then(Value::as_str) == Some("user") => {
                        entries.push(Entry::User(text_of(item.get("content"))));
                    }
                    "function_call" => entries.push(Entry::Call {
                        name: str_of(item, "name"),
                        arguments: parse_arguments(item.get("arguments")),
                    }),
                    "function_call_output" => {
                        entries.push(Entry::Output(text_of(item.get("output"))))
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("function"))
        .map(|t| Tool {
            name: str_of(t, "name"),
            params: property_names(t.get("parameters")),
        })
        .collect();
    Conversation { entries, tools }
}

/// The reply to a request: SSE when it asks for a stream, else the response object.
pub fn reply(body: &Value, decision: &Decision, n: usize) -> Response {
    let id = format!("resp_{n}");
    let model = body.get("model").cloned().unwrap_or(json!("fake-model"));
    let (added, item) = match &decision.reply {
        Reply::Call { name, arguments } => {
            let item = json!({"type": "function_call", "id": format!("fc_{n}"), "call_id": format!("call_{n}"),
                              "name": name, "arguments": arguments.to_string(), "status": "completed"});
            let mut added = item.clone();
            added["arguments"] = json!("");
            added["status"] = json!("in_progress");
            (added, item)
        }
        Reply::Text(text) => {
            let item = json!({"type": "message", "id": format!("msg_{n}"), "role": "assistant", "status": "completed",
                              "content": [{"type": "output_text", "text": text, "annotations": []}]});
            let mut added = item.clone();
            added["content"] = json!([]);
            added["status"] = json!("in_progress");
            (added, item)
        }
    };
    let completed = json!({"id": id, "object": "response", "status": "completed", "model": model,
                           "output": [item.clone()], "usage": usage(&decision.usage)});
    if body.get("stream") != Some(&Value::Bool(true)) {
        return Response::json(200, completed);
    }
    let mut events = vec![
        event(
            "response.created",
            json!({"response": {"id": id, "object": "response", "status": "in_progress",
                                                       "model": model, "output": []}}),
        ),
        event(
            "response.output_item.added",
            json!({"output_index": 0, "item": added}),
        ),
    ];
    if let Reply::Text(text) = &decision.reply {
        events.push(event(
            "response.output_text.delta",
            json!({"item_id": format!("msg_{n}"), "output_index": 0, "content_index": 0, "delta": text}),
        ));
    }
    events.push(event(
        "response.output_item.done",
        json!({"output_index": 0, "item": item}),
    ));
    events.push(event("response.completed", json!({"response": completed})));
    Response::sse(events)
}

/// An OpenAI error body; Chat Completions shares it and its [`AUTH_MESSAGE`].
pub fn error(status: u16, message: &str) -> Response {
    let code = if status == 401 {
        json!("invalid_api_key")
    } else {
        Value::Null
    };
    Response::json(
        status,
        json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": code}}),
    )
}

fn usage(u: &Usage) -> Value {
    json!({"input_tokens": u.input, "input_tokens_details": {"cached_tokens": u.cached},
           "output_tokens": u.output, "output_tokens_details": {"reasoning_tokens": u.reasoning},
           "total_tokens": u.input + u.output})
}

fn event(name: &'static str, mut data: Value) -> Event {
    data["type"] = json!(name);
    Event {
        name: Some(name),
        data,
    }
}

fn str_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::decide;
    use crate::http::Body;
    use crate::script::Script;

    fn body() -> Value {
        json!({"model": "m", "stream": true,
          "tools": [{"type": "function", "name": "exec_command", "parameters": {"properties": {"cmd": {}, "yield_time_ms": {}}}},
                    {"type": "function", "name": "write_stdin", "parameters": {"properties": {"session_id": {}}}},
                    {"type": "namespace", "name": "multi_agent_v1", "tools": []}, {"type": "web_search"}],
          "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are codex"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context/>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go.\n/tmp/a/wfa result t1 --ok <x>"}]},
            {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{\"cmd\":\"/tmp/a/wfa tool add\"}"},
            {"type": "function_call_output", "call_id": "c1", "output": "Chunk ID: 1\nProcess running with session ID 7\n"}]})
    }

    #[test]
    fn input_items_become_the_history() {
        let c = conversation(&body());
        assert_eq!(
            c.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["exec_command", "write_stdin"]
        );
        assert_eq!(c.entries.len(), 4);
        assert_eq!(
            c.entries[1],
            Entry::User("Go.\n/tmp/a/wfa result t1 --ok <x>".into())
        );
        assert_eq!(
            c.entries[2],
            Entry::Call {
                name: "exec_command".into(),
                arguments: json!({"cmd": "/tmp/a/wfa tool add"})
            }
        );
        assert!(matches!(&c.entries[3], Entry::Output(o) if o.contains("session ID 7")));
    }

    #[test]
    fn a_poll_streams_as_a_function_call_with_usage() {
        let script = Script::parse(
            r#"{"prompts": [{"steps": [{"shell": "x"}, {"poll": true}],
            "usage": {"input": 1200, "cached": 200, "output": 40, "reasoning": 8}}]}"#,
        )
        .unwrap();
        let decision = decide(&script, &conversation(&body()));
        assert_eq!((decision.kind, decision.step_index), ("poll", 1));
        let Body::Sse {
            events,
            done: false,
        } = reply(&body(), &decision, 3).body
        else {
            panic!("not SSE")
        };
        let names: Vec<_> = events.iter().map(|e| e.name.unwrap()).collect();
        assert_eq!(
            names,
            [
                "response.created",
                "response.output_item.added",
                "response.output_item.done",
                "response.completed"
            ]
        );
        let item = &events[2].data["item"];
        assert_eq!(item["name"], "write_stdin");
        assert_eq!(
            serde_json::from_str::<Value>(item["arguments"].as_str().unwrap()).unwrap(),
            json!({"session_id": 7, "chars": "", "yield_time_ms": 30000})
        );
        let usage = &events[3].data["response"]["usage"];
        assert_eq!(usage["input_tokens"], 1200);
        assert_eq!(usage["input_tokens_details"]["cached_tokens"], 200);
        assert_eq!(usage["output_tokens_details"]["reasoning_tokens"], 8);
        assert_eq!(events[3].data["type"], "response.completed");
    }

    #[test]
    fn a_text_reply_has_a_delta_and_the_auth_error_a_code() {
        let mut b = body();
        b["input"].as_array_mut().unwrap().truncate(3);
        let script = Script::parse(r#"{"prompts": [{"steps": [{"text": "Done."}]}]}"#).unwrap();
        let Body::Sse { events, .. } = reply(&b, &decide(&script, &conversation(&b)), 1).body
        else {
            panic!()
        };
        assert_eq!(events[2].data["delta"], "Done.");
        assert_eq!(events[3].data["item"]["content"][0]["text"], "Done.");
        let Body::Json(e) = error(401, AUTH_MESSAGE).body else {
            panic!()
        };
        assert_eq!(e["error"]["code"], "invalid_api_key");
    }
}
