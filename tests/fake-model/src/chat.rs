//! OpenAI Chat Completions (`POST /v1/chat/completions`), as opencode and pi speak it: streamed
//! `tool_calls` deltas, a usage-only chunk, then `data: [DONE]`.

use crate::engine::{
    parse_arguments, property_names, text_of, Conversation, Decision, Entry, Reply, Tool,
};
use crate::http::{Body, Event, Response};
use crate::script::Usage;
use serde_json::{json, Value};

/// The history and tools of a request body.
pub fn conversation(body: &Value) -> Conversation {
    let mut entries = Vec::new();
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match message.get("role").and_then(Value::as_str) {
            Some("user") => entries.push(Entry::User(text_of(message.get("content")))),
            Some("assistant") => {
                for call in message
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let function = call.get("function").cloned().unwrap_or(json!({}));
                    entries.push(Entry::Call {
                        name: function
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .into(),
                        arguments: parse_arguments(function.get("arguments")),
                    });
                }
            }
            Some("tool") => entries.push(Entry::Output(text_of(message.get("content")))),
            _ => {}
        }
    }
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let function = t.get("function")?;
            Some(Tool {
                name: function.get("name")?.as_str()?.to_string(),
                params: property_names(function.get("parameters")),
            })
        })
        .collect();
    Conversation { entries, tools }
}

/// The reply: chunks when the request streams, else one `chat.completion`.
pub fn reply(body: &Value, decision: &Decision, n: usize) -> Response {
    let model = body.get("model").cloned().unwrap_or(json!("fake-model"));
    let id = format!("chatcmpl-{n}");
    let usage = usage(&decision.usage);
    let call_id = format!("call_{n}");
    if body.get("stream") != Some(&Value::Bool(true)) {
        let (message, finish) = match &decision.reply {
            Reply::Call { name, arguments } => (
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": call_id, "type": "function",
                       "function": {"name": name, "arguments": arguments.to_string()}}]}),
                "tool_calls",
            ),
            Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        };
        return Response::json(
            200,
            json!({"id": id, "object": "chat.completion", "created": 0, "model": model,
                   "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}),
        );
    }
    let chunk = |choices: Value| Event {
        name: None,
        data: json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": choices}),
    };
    let delta = |delta: Value, finish: Value| {
        chunk(json!([{"index": 0, "delta": delta, "finish_reason": finish}]))
    };
    let mut events = match &decision.reply {
        Reply::Call { name, arguments } => vec![
            delta(
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": call_id, "type": "function",
                         "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ),
            delta(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments.to_string()}}]}),
                Value::Null,
            ),
            delta(json!({}), json!("tool_calls")),
        ],
        Reply::Text(text) => vec![
            delta(json!({"role": "assistant", "content": ""}), Value::Null),
            delta(json!({"content": text}), Value::Null),
            delta(json!({}), json!("stop")),
        ],
    };
    let mut last = chunk(json!([]));
    last.data["usage"] = usage;
    events.push(last);
    Response {
        status: 200,
        body: Body::Sse { events, done: true },
    }
}

fn usage(u: &Usage) -> Value {
    json!({"prompt_tokens": u.input, "completion_tokens": u.output, "total_tokens": u.input + u.output,
           "prompt_tokens_details": {"cached_tokens": u.cached},
           "completion_tokens_details": {"reasoning_tokens": u.reasoning}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::decide;
    use crate::script::Script;

    fn body() -> Value {
        json!({"model": "fake-model", "stream": true, "stream_options": {"include_usage": true},
          "tools": [{"type": "function", "function": {"name": "read", "parameters": {"properties": {"path": {}}}}},
                    {"type": "function", "function": {"name": "bash", "parameters": {"properties": {"command": {}, "timeout": {}}}}}],
          "messages": [
            {"role": "system", "content": "You are pi"},
            {"role": "user", "content": [{"type": "text", "text": "\"Go.\n/tmp/a/wfa result t1 --ok <x>\""}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
              "function": {"name": "bash", "arguments": "{\"command\":\"/tmp/a/wfa tool add --x '1'\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "Recorded; 1 so far."}]})
    }

    #[test]
    fn messages_become_the_history() {
        let c = conversation(&body());
        assert_eq!(c.entries.len(), 3);
        assert_eq!(
            c.entries[1],
            Entry::Call {
                name: "bash".into(),
                arguments: json!({"command": "/tmp/a/wfa tool add --x '1'"})
            }
        );
        assert_eq!(c.entries[2], Entry::Output("Recorded; 1 so far.".into()));
        assert_eq!(c.tools[1].name, "bash");
    }

    #[test]
    fn a_call_streams_as_tool_call_deltas_then_usage_then_done() {
        let script = Script::parse(r#"{"prompts": [{"steps": [{"shell": "a"}, {"shell": "{wfa} result {turn} --ok 'true'"}],
            "usage": {"input": 1200, "cached": 200, "output": 40, "reasoning": 8}}]}"#).unwrap();
        let decision = decide(&script, &conversation(&body()));
        assert_eq!(
            decision.command.as_deref(),
            Some("/tmp/a/wfa result t1 --ok 'true'")
        );
        let Body::Sse { events, done: true } = reply(&body(), &decision, 4).body else {
            panic!("not SSE")
        };
        assert_eq!(events.len(), 4);
        assert_eq!(
            events[0].data["choices"][0]["delta"]["tool_calls"][0]["function"]["name"],
            "bash"
        );
        let args = events[1].data["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(args).unwrap(),
            json!({"command": "/tmp/a/wfa result t1 --ok 'true'"})
        );
        assert_eq!(events[2].data["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(events[3].data["choices"], json!([]));
        assert_eq!(
            events[3].data["usage"]["prompt_tokens_details"]["cached_tokens"],
            200
        );
        assert_eq!(events[3].data["usage"]["completion_tokens"], 40);
    }

    #[test]
    fn an_untooled_request_gets_plain_text() {
        let b =
            json!({"model": "m", "messages": [{"role": "user", "content": "Generate a title"}]});
        let script = Script::parse(r#"{"prompts": []}"#).unwrap();
        let Body::Json(m) = reply(&b, &decide(&script, &conversation(&b)), 1).body else {
            panic!()
        };
        assert_eq!(m["choices"][0]["message"]["content"], "Fake title");
        assert_eq!(m["choices"][0]["finish_reason"], "stop");
    }
}
