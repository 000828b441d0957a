//! The Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, or
//! `:generateContent` for one JSON reply), as gemini-cli speaks it.

use crate::engine::{property_names, Conversation, Decision, Entry, Reply, Tool};
use crate::http::{Event, Response};
use crate::script::Usage;
use serde_json::{json, Value};

pub const AUTH_MESSAGE: &str = "API key not valid. Please pass a valid API key.";

/// The history and tools of a request body.
pub fn conversation(body: &Value) -> Conversation {
    let mut entries = Vec::new();
    for content in body
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let parts = content
            .get("parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match content.get("role").and_then(Value::as_str) {
            Some("user") => {
                for response in parts.iter().filter_map(|p| p.get("functionResponse")) {
                    let response = response.get("response").cloned().unwrap_or(json!({}));
                    entries.push(Entry::Output(
                        match response.get("output").and_then(Value::as_str) {
                            Some(output) => output.to_string(),
                            None => response.to_string(),
                        },
                    ));
                }
                let text: Vec<&str> = parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect();
                if !text.is_empty() {
                    entries.push(Entry::User(text.join("\n")));
                }
            }
            Some("model") => {
                for call in parts.iter().filter_map(|p| p.get("functionCall")) {
                    entries.push(Entry::Call {
                        name: call
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .into(),
                        arguments: call.get("args").cloned().unwrap_or(json!({})),
                    });
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
        .filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array))
        .flatten()
        .filter_map(|d| {
            Some(Tool {
                name: d.get("name")?.as_str()?.to_string(),
                params: property_names(
                    d.get("parametersJsonSchema")
                        .or_else(|| d.get("parameters")),
                ),
            })
        })
        .collect();
    Conversation { entries, tools }
}

/// The reply: one SSE event for `streamGenerateContent`, JSON for `generateContent`.
pub fn reply(model: &str, stream: bool, decision: &Decision) -> Response {
    let part = match &decision.reply {
        Reply::Call { name, arguments } => {
            json!({"functionCall": {"name": name, "args": arguments}})
        }
        Reply::Text(text) => json!({"text": text}),
    };
    let data = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage(&decision.usage),
        "modelVersion": model,
    });
    if stream {
        Response::sse(vec![Event { name: None, data }])
    } else {
        Response::json(200, data)
    }
}

/// The model named in a path `.../models/{model}:method`.
pub fn model_of(path: &str) -> &str {
    let tail = path.rsplit("/models/").next().unwrap_or("");
    tail.split(':').next().unwrap_or(tail)
}

/// A Google API error body.
pub fn error(status: u16, message: &str) -> Response {
    let kind = match status {
        401 => "UNAUTHENTICATED",
        404 => "NOT_FOUND",
        _ => "INVALID_ARGUMENT",
    };
    Response::json(
        status,
        json!({"error": {"code": status, "message": message, "status": kind}}),
    )
}

/// Gemini counts thoughts apart: `candidatesTokenCount` excludes them.
fn usage(u: &Usage) -> Value {
    json!({"promptTokenCount": u.input, "cachedContentTokenCount": u.cached,
           "candidatesTokenCount": u.output - u.reasoning, "thoughtsTokenCount": u.reasoning,
           "totalTokenCount": u.input + u.output})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::decide;
    use crate::http::Body;
    use crate::script::Script;

    fn body() -> Value {
        json!({"tools": [{"functionDeclarations": [
                  {"name": "read_file", "parametersJsonSchema": {"properties": {"file_path": {}}}},
                  {"name": "run_shell_command", "parametersJsonSchema": {"properties": {"command": {}, "description": {}}}}]}],
               "contents": [
                  {"role": "user", "parts": [{"text": "This is the Gemini CLI."}]},
                  {"role": "user", "parts": [{"text": "Go.\n/tmp/a/wfa result t9 --ok <x>"}]},
                  {"role": "model", "parts": [{"functionCall": {"id": "f1", "name": "run_shell_command", "args": {"command": "ls"}}}]},
                  {"role": "user", "parts": [{"functionResponse": {"id": "f1", "name": "run_shell_command",
                                                                  "response": {"output": "Output: (empty)"}}}]}]})
    }

    #[test]
    fn contents_become_the_history() {
        let c = conversation(&body());
        assert_eq!(c.entries.len(), 4);
        assert_eq!(
            c.entries[2],
            Entry::Call {
                name: "run_shell_command".into(),
                arguments: json!({"command": "ls"})
            }
        );
        assert_eq!(c.entries[3], Entry::Output("Output: (empty)".into()));
        assert_eq!(c.tools[1].params, ["command", "description"]);
        assert_eq!(
            model_of("/v1beta/models/gemini-2.5-flash:streamGenerateContent"),
            "gemini-2.5-flash"
        );
    }

    #[test]
    fn a_call_is_one_event_with_usage_metadata() {
        let script = Script::parse(r#"{"prompts": [{"steps": [{"shell": "a"}, {"shell": "{wfa} result {turn} --ok 'true'"}],
            "usage": {"input": 1200, "cached": 200, "output": 40, "reasoning": 8}}]}"#).unwrap();
        let decision = decide(&script, &conversation(&body()));
        let Body::Sse { events, .. } = reply("gemini-2.5-flash", true, &decision).body else {
            panic!("not SSE")
        };
        assert_eq!(events.len(), 1);
        let call = &events[0].data["candidates"][0]["content"]["parts"][0]["functionCall"];
        assert_eq!(call["args"]["command"], "/tmp/a/wfa result t9 --ok 'true'");
        let usage = &events[0].data["usageMetadata"];
        assert_eq!(
            (
                usage["candidatesTokenCount"].as_u64(),
                usage["thoughtsTokenCount"].as_u64()
            ),
            (Some(32), Some(8))
        );
        let Body::Json(plain) = reply("m", false, &decision).body else {
            panic!()
        };
        assert_eq!(plain["modelVersion"], "m");
        let Body::Json(e) = error(401, AUTH_MESSAGE).body else {
            panic!()
        };
        assert_eq!(e["error"]["status"], "UNAUTHENTICATED");
    }
}
