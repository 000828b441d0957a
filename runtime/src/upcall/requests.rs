//! What each upcall carries, as JS receives it (the fields are the wire's, in its order), and
//! the typed reply of a test script.

use serde::Serialize;
use serde_json::Value;

/// `tool.call`: run the handler of `tool` for `agent`'s call `call`.
#[derive(Serialize)]
pub struct ToolCall<'a> {
    pub run: &'a str,
    pub agent: &'a str,
    pub tool: &'a str,
    pub call: &'a str,
    pub input: &'a Value,
}

/// `tool.abort`: abort the running call's `call.signal`, with `reason` as its reason (a
/// `{ name, message }` object, tools/calls.rs `abort_reason`).
#[derive(Serialize)]
pub struct ToolAbort<'a> {
    pub run: &'a str,
    pub call: &'a str,
    pub reason: &'a Value,
}

/// `message.arrived`: an agent's message for the workflow's queue (messages/ `to_json`).
#[derive(Serialize)]
pub struct MessageArrived<'a> {
    pub run: &'a str,
    pub message: Value,
}

/// `script.turn`: a test's script plays one attempt of a turn.
#[derive(Serialize)]
pub struct ScriptTurn<'a> {
    pub run: &'a str,
    pub agent: &'a str,
    pub turn: &'a str,
    pub n: u32,
    pub prompt: &'a str,
    pub schema: Option<&'a Value>,
    #[serde(rename = "checkIn")]
    pub check_in: bool,
    /// The agent CLI the agent's spec declared, or `None` for a command.
    pub harness: Option<&'a str>,
    /// Unix milliseconds.
    pub deadline: u64,
    pub message: Option<Value>,
}

/// `script.fork`: the script state of `parent` is forked for the new agent `fork`.
#[derive(Serialize)]
pub struct ScriptFork<'a> {
    pub run: &'a str,
    pub parent: &'a str,
    pub fork: Option<&'a str>,
}

/// `script.compact`: the test's answer for a compaction of `agent`.
#[derive(Serialize)]
pub struct ScriptCompact<'a> {
    pub run: &'a str,
    pub agent: &'a str,
    pub id: &'a str,
    pub focus: &'a str,
}

/// `script.abort`: the scripted turn `turn` is over (its `turn.signal` aborts).
#[derive(Serialize)]
pub struct ScriptAbort<'a> {
    pub run: &'a str,
    pub turn: &'a str,
}

/// How a test's script says its part of a turn or compaction ended: `reply` is `answered`,
/// `silent`, `failed`, `blocked` or `timed-out` (js/agentswf/testing.ts), with what it said
/// the model used (`turn.spend`, checked there); a field that is not what it should be is left
/// out, as the script's reply is read leniently.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScriptReply {
    pub reply: Option<String>,
    pub reason: Option<String>,
    pub summary: Option<String>,
    pub usage: Option<crate::usage::Usage>,
}

impl ScriptReply {
    pub fn read(value: &Value) -> ScriptReply {
        let text = |key: &str| value[key].as_str().map(str::to_string);
        let usage = value
            .get("usage")
            .filter(|u| u.is_object())
            .map(crate::usage::Usage::from_json);
        ScriptReply {
            reply: text("reply"),
            reason: text("reason"),
            summary: text("summary"),
            usage,
        }
    }
}
