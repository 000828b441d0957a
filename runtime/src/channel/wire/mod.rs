//! The agent channel's wire protocol, version 1: the [`Request`] `wfa` sends on an agent's socket,
//! the [`Response`] the run sends back, and the checks every line passes (size, JSON, version,
//! shape) before anyone acts on it.
//!
//! One connection carries one exchange: the client writes one newline-terminated request,
//! half-closes, and reads one newline-terminated response. The socket a request arrives on says
//! which agent sent it (the connection is the authority), so requests carry no agent identity.
//!
//! This folder owns the shapes and their encoding only. Sockets, turning a tool's flags into JSON
//! by its schema, and judging answers belong to the server (`server.rs`) and the engine; the codes
//! are `refusal.rs`'s. `wfa` compiles this folder by `#[path]` beside `refusal.rs`, so it names
//! nothing but std, serde, serde_json and that sibling (`super::refusal`), and takes size limits
//! as arguments: callers pass `limits::MAX_REQUEST_BYTES` or `limits::MAX_RESPONSE_BYTES`.
//!
//! - `mod.rs` (this file): the messages' shapes, and a code's form on the wire (its name).
//! - `line.rs`: a message as one line and back, the checks in their order.
//! - `error.rs`: why a line is not a message, and the refusal the server sends for it.
//! - `launch.rs`: the launcher file beside the socket: the secret, and the TCP route if any.

mod error;
mod launch;
mod line;

pub use error::{DecodeError, Oversized};
pub use launch::{pin_of, LaunchFile, TcpRoute, LAUNCH_FILE};
pub use line::Presented;

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize, Serializer};

use super::refusal::Code;

/// The protocol version this build speaks; every line carries it as `"version"`.
pub const VERSION: u64 = 1;

/// The name of an agent's socket in its folder, beside its launcher `wfa`: wfa started by the
/// launcher's path connects to the socket in the same folder.
pub const SOCKET_NAME: &str = "s.sock";

/// What an agent asks of its run, one per connection.
///
/// `Tools {}` is a struct variant rather than a unit one because serde ignores unknown fields
/// beside the tag of a unit variant, and this protocol refuses them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "lowercase", deny_unknown_fields)]
pub enum Request {
    /// `wfa tool <name> [words]`: call a tool. `args` are the words after the name as typed; the
    /// server reads them as flags by the tool's schema. `stdin` is JSON input given on standard
    /// input, when there was any.
    Tool {
        name: String,
        args: Vec<String>,
        stdin: Option<String>,
    },
    /// `wfa tool` alone: list this agent's tools, their limits and the codes.
    Tools {},
    /// `wfa tool <name> --help`: how to call that one tool.
    #[serde(rename = "tool-help")]
    ToolHelp { name: String },
    /// What input a tool (`tool`) or a turn's answer (`turn`) is taught as: `json`, `text`,
    /// `flags` or `nothing`, on `stdout`. `wfa` asks only when it was given no words and
    /// standard input is open but silent, to know whether to wait for a slow producer.
    Expects {
        tool: Option<String>,
        turn: Option<String>,
    },
    /// `wfa result <turn> [words]`: answer a turn, by flags in `args` or on standard input.
    Result {
        turn: String,
        args: Vec<String>,
        stdin: Option<String>,
    },
    /// `wfa result <turn> --help`: how to answer that turn; no answer, nothing recorded.
    #[serde(rename = "result-help")]
    ResultHelp { turn: String },
    /// `wfa waiting <turn> --reason <text> [--timeout <duration>]`: the agent still works on the
    /// turn and asks for time; `timeout` is as typed ("2m") and read by the server.
    Waiting {
        turn: String,
        reason: String,
        timeout: Option<String>,
    },
    /// `wfa send 'TEXT'` (or text on standard input), `wfa send --json` (JSON `data` on
    /// standard input): a message to the workflow, for an agent opened with `messages: true`.
    Send {
        text: Option<String>,
        data: Option<String>,
    },
}

/// The run's answer to one request. The kind and the code agree: `refused` carries a refusal
/// code, `failed` a failure code ([`Code::is_refusal`]); [`Response::decode`] checks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Response {
    /// Done: `stdout` is what `wfa` prints (a tool's result, the listing, an acknowledgement).
    Ok { stdout: String },
    /// Nothing ran. `details` are the lines under the message (one per field that was wrong).
    Refused {
        code: Code,
        message: String,
        details: Vec<String>,
        hint: Option<String>,
    },
    /// The call ran and failed.
    Failed {
        code: Code,
        message: String,
        hint: Option<String>,
    },
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = String::deserialize(deserializer)?;
        Code::from_wire(&wire).ok_or_else(|| D::Error::custom(format!("unknown code `{wire}`")))
    }
}
