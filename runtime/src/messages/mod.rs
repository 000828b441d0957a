//! Messages between a run's agents and its workflow.
//!
//! An agent opened with `messages: true` sends with `wfa send 'TEXT'` (or `wfa send --json`
//! with JSON on stdin, or text on stdin with no words); the workflow takes them with
//! `wf.receive()`, whose queue lives in JS (js/workflow/messages.ts) so that a receive can be
//! given up without losing a message. The workflow sends to an agent with `agent.send(...)`,
//! which gives the agent a message turn (agents/message_turn.rs).
//!
//! This module owns what a message is ([`Body`], [`Message`]), how its text and data are read
//! and bounded (`MAX_MESSAGE_BYTES`), the run's [`Ledger`] of messages sent and not yet
//! received (reported when the run ends), and how an agent is taught to send ([`teaching`]).
//! It knows nothing of agents or sockets.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

use serde_json::{json, Value};

use crate::limits::{MAX_JSON_DEPTH, MAX_MESSAGE_BYTES};
use crate::records::{time, Event};

/// What a message says: its text, and JSON data when it has some.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub text: String,
    pub data: Option<Value>,
}

impl Body {
    /// `{ text, data? }`, as records and JS see it.
    pub fn to_json(&self) -> Value {
        let mut object = json!({ "text": self.text });
        if let Some(data) = &self.data {
            object["data"] = data.clone();
        }
        object
    }

    /// Its size as the limit counts it: the text's bytes and the data's as JSON text.
    fn size(&self) -> usize {
        self.text.len() + self.data.as_ref().map_or(0, |d| d.to_string().len())
    }
}

/// Why a message was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyProblem {
    /// Neither text nor data.
    Empty,
    TooLarge(usize),
    /// The data (`wfa send --json`) is not JSON.
    NotJson(String),
    /// What `agent.send` was given is not a string or `{ text, data? }`.
    Shape(String),
}

impl std::fmt::Display for BodyProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyProblem::Empty => f.write_str("the message is empty: give it text, or data"),
            BodyProblem::TooLarge(size) => write!(
                f,
                "the message is {size} bytes (text, and data as JSON), over the limit of {MAX_MESSAGE_BYTES}"
            ),
            BodyProblem::NotJson(why) => write!(f, "the message's data is not JSON: {why}"),
            BodyProblem::Shape(why) => f.write_str(why),
        }
    }
}

fn checked(body: Body) -> Result<Body, BodyProblem> {
    if body.text.trim().is_empty() && body.data.is_none() {
        return Err(BodyProblem::Empty);
    }
    let size = body.size();
    if size > MAX_MESSAGE_BYTES {
        return Err(BodyProblem::TooLarge(size));
    }
    Ok(body)
}

/// A message an agent sent with `wfa send`: `text` from its words (or stdin without `--json`),
/// `json` the data it gave on stdin with `--json`.
pub fn read_sent(text: Option<&str>, json: Option<&str>) -> Result<Body, BodyProblem> {
    let data = match json {
        None => None,
        Some(raw) => Some(parse_json(raw)?),
    };
    checked(Body {
        text: text.unwrap_or_default().trim_end_matches('\n').to_string(),
        data,
    })
}

fn parse_json(raw: &str) -> Result<Value, BodyProblem> {
    let value: Value =
        serde_json::from_str(raw.trim()).map_err(|e| BodyProblem::NotJson(e.to_string()))?;
    if depth(&value) > MAX_JSON_DEPTH {
        return Err(BodyProblem::NotJson(format!(
            "it nests deeper than {MAX_JSON_DEPTH} levels"
        )));
    }
    Ok(value)
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// What `agent.send(message)` was given: a string, or `{ text?, data? }` with at least one.
pub fn read_given(value: &Value) -> Result<Body, BodyProblem> {
    let shape = |why: &str| BodyProblem::Shape(format!("agent.send(message): {why}"));
    match value {
        Value::String(text) => checked(Body {
            text: text.clone(),
            data: None,
        }),
        Value::Object(fields) => {
            if let Some(unknown) = fields
                .keys()
                .find(|k| !["text", "data"].contains(&k.as_str()))
            {
                return Err(shape(&format!(
                    "unknown field `{unknown}`; a message is a string or {{ text, data }}"
                )));
            }
            let text = match fields.get("text") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(text)) => text.clone(),
                Some(_) => return Err(shape("text must be a string")),
            };
            let data = fields.get("data").filter(|d| !d.is_null()).cloned();
            checked(Body { text, data })
        }
        _ => Err(shape("a message is a string or { text, data }")),
    }
}

/// A message an agent sent, as `wf.receive()` resolves with it (`seq` stays in Rust and JS).
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The run's count of messages sent, from 1: their order.
    pub seq: u64,
    /// The key of the agent that sent it.
    pub from: String,
    pub body: Body,
    /// When it was sent, RFC 3339.
    pub at: String,
}

impl Message {
    /// `{ seq, from, text, data?, at }`.
    pub fn to_json(&self) -> Value {
        let mut object = self.body.to_json();
        object["seq"] = json!(self.seq);
        object["from"] = json!(self.from);
        object["at"] = json!(self.at);
        object
    }
}

/// A run's messages sent by agents and not yet received by the workflow.
#[derive(Debug, Default)]
pub struct Ledger {
    sent: AtomicU64,
    unreceived: Mutex<BTreeMap<u64, Message>>,
}

impl Ledger {
    /// Numbers and keeps a message `from` sent now.
    pub fn post(&self, from: &str, body: Body) -> Message {
        let message = Message {
            seq: self.sent.fetch_add(1, Ordering::SeqCst) + 1,
            from: from.to_string(),
            body,
            at: time::rfc3339(SystemTime::now()),
        };
        self.unreceived
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(message.seq, message.clone());
        message
    }

    /// The workflow received message `seq`; `None` if it was never sent or already received.
    pub fn received(&self, seq: u64) -> Option<Message> {
        self.unreceived
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&seq)
    }

    /// A message that could not be queued for the workflow after all.
    pub fn withdraw(&self, seq: u64) {
        self.received(seq);
    }

    /// The record of the messages never received, if there are any (at the run's end).
    pub fn unreceived_event(&self) -> Option<Event> {
        let left = self.unreceived();
        if left.is_empty() {
            return None;
        }
        Some(Event::MessagesUnreceived {
            count: left.len(),
            messages: left
                .iter()
                .map(|m| json!({ "agent": m.from, "seq": m.seq, "text": m.body.text }))
                .collect(),
        })
    }

    /// The messages sent and never received, in the order they were sent.
    pub fn unreceived(&self) -> Vec<Message> {
        self.unreceived
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }
}

/// How an agent opened with `messages: true` is taught to send, after its tools in the prompt.
pub fn teaching(launcher: &str) -> String {
    format!(
        "You can send the workflow a message at any time, in this turn or later; it does not \
         answer the turn. Send text with:\n\n\
         {launcher} send '<text>'\n\n\
         Put the text in single quotes; a ' inside it is written '\\''. Send data as JSON on \
         standard input:\n\n\
         {launcher} send --json <<'WF_JSON'\n\
         {{\"key\": \"value\"}}\n\
         WF_JSON\n\n\
         A message is at most {} KiB.",
        MAX_MESSAGE_BYTES / 1024
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sent_message_has_text_or_data_within_the_limit() {
        assert_eq!(
            read_sent(Some("hi\n"), None),
            Ok(Body {
                text: "hi".into(),
                data: None
            })
        );
        let data = read_sent(None, Some(" {\"n\": 1}\n")).unwrap();
        assert_eq!(data.text, "");
        assert_eq!(data.data, Some(json!({"n": 1})));
        assert_eq!(read_sent(Some("  "), None), Err(BodyProblem::Empty));
        assert!(matches!(
            read_sent(None, Some("{nope")),
            Err(BodyProblem::NotJson(_))
        ));
        let big = "x".repeat(MAX_MESSAGE_BYTES + 1);
        assert_eq!(
            read_sent(Some(&big), None),
            Err(BodyProblem::TooLarge(MAX_MESSAGE_BYTES + 1))
        );
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(matches!(
            read_sent(None, Some(&deep)),
            Err(BodyProblem::NotJson(_))
        ));
    }

    #[test]
    fn a_given_message_is_a_string_or_text_and_data() {
        assert_eq!(read_given(&json!("go")).unwrap().text, "go");
        let both = read_given(&json!({"text": "go", "data": [1]})).unwrap();
        assert_eq!(both.data, Some(json!([1])));
        assert!(read_given(&json!({"data": {"a": 1}})).is_ok());
        for bad in [json!(3), json!({"text": 1}), json!({"txt": "x"}), json!({})] {
            assert!(read_given(&bad).is_err(), "{bad}");
        }
        assert!(read_given(&json!({"txt": "x"}))
            .unwrap_err()
            .to_string()
            .contains("unknown field `txt`"));
    }

    #[test]
    fn the_ledger_keeps_what_was_not_received_in_order() {
        let ledger = Ledger::default();
        let body = |t: &str| Body {
            text: t.into(),
            data: None,
        };
        let first = ledger.post("a", body("1"));
        let second = ledger.post("b", body("2"));
        assert_eq!((first.seq, second.seq), (1, 2));
        assert_eq!(ledger.received(1).unwrap().from, "a");
        assert_eq!(ledger.received(1), None);
        ledger.post("a", body("3"));
        let left: Vec<u64> = ledger.unreceived().iter().map(|m| m.seq).collect();
        assert_eq!(left, vec![2, 3]);
        match ledger.unreceived_event() {
            Some(Event::MessagesUnreceived { count, messages }) => {
                assert_eq!(count, 2);
                assert_eq!(messages[0], json!({"agent": "b", "seq": 2, "text": "2"}));
            }
            other => panic!("{other:?}"),
        }
        assert!(Ledger::default().unreceived_event().is_none());
        assert_eq!(second.to_json()["from"], "b");
    }
}
