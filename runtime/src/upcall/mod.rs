//! The seam between awf's concerns and the workflow code they call back into: tool handlers,
//! the message queue, a test's scripts. `Upcall` is what tools/, agents/ and the scripted
//! harness hold (as `Arc<dyn Upcall>`); the engine implements it (js/engine/requester.rs), and
//! unit tests implement it in-process (`fake`). Its requests are typed (requests.rs), their
//! kinds spelled once (kinds.rs), and what fails comes back as plain data: `UpcallFailure`,
//! with a thrown error as a `JsError` (js_error.rs), no engine type in sight.

#[cfg(test)]
pub(crate) mod fake;
mod js_error;
mod kinds;
mod pending;
mod requests;

pub(crate) use js_error::Frame;
pub use js_error::{JsError, Location};
pub use kinds::Kind;
pub use pending::{Answer, Pending, Reply};
pub use requests::{
    MessageArrived, ScriptAbort, ScriptCompact, ScriptFork, ScriptReply, ScriptTurn, ToolAbort,
    ToolCall,
};

use serde_json::Value;

/// Why workflow code could not answer a request.
#[derive(Debug, Clone)]
pub enum UpcallFailure {
    /// The handler threw or its promise rejected.
    Threw(JsError),
    /// The handler's value is not JSON (what is wrong with it).
    NotJson(String),
    /// The host is gone (the run ended).
    HostGone,
}

/// Calls into the run's workflow code. Each request is sent when asked; the `Pending` it gives
/// is its answer.
pub trait Upcall: Send + Sync {
    /// Runs a tool's handler; the call's code can be stopped by `stop_call`.
    fn call_tool(&self, call: &ToolCall<'_>) -> Pending<Option<Value>>;
    /// Aborts a running call's `call.signal`.
    fn abort_tool(&self, abort: &ToolAbort<'_>) -> Pending<()>;
    /// Queues an agent's message for `wf.receive()`.
    fn message_arrived(&self, arrived: &MessageArrived<'_>) -> Pending<()>;
    /// `call`'s time is up: if its code holds the JS thread, throw out of it.
    fn stop_call(&self, call: &str);
    /// Whether `stop_call` stopped `call`'s running code; asked once the call has settled.
    fn call_was_stopped(&self, call: &str) -> bool;
    /// A test's script plays one attempt of a turn.
    fn script_turn(&self, turn: &ScriptTurn<'_>) -> Pending<Option<ScriptReply>>;
    /// A test's script state is forked for a forked agent.
    fn script_fork(&self, fork: &ScriptFork<'_>) -> Pending<()>;
    /// A test's answer for a compaction.
    fn script_compact(&self, compact: &ScriptCompact<'_>) -> Pending<Option<ScriptReply>>;
    /// A scripted turn is over.
    fn script_abort(&self, abort: &ScriptAbort<'_>) -> Pending<()>;
}
