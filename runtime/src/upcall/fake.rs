//! Workflow code played by Rust, for unit tests of the concerns that call into it (tools/,
//! agents/): an `Upcall` with no engine, whose handlers answer, throw, never answer (until
//! their call is stopped), or whose host is gone; it keeps what it was asked.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use super::{
    Answer, JsError, Kind, MessageArrived, Pending, Reply, ScriptAbort, ScriptCompact, ScriptFork,
    ScriptReply, ScriptTurn, ToolAbort, ToolCall, Upcall, UpcallFailure,
};

/// How a fake handler takes a request.
#[derive(Clone)]
pub(crate) enum Handler {
    /// Answers with this value.
    Answers(Value),
    /// Throws this error.
    Throws(JsError),
    /// Never answers; a tool call's stop throws out of it, as the engine's interrupt does.
    Hangs,
    /// The host is gone.
    Gone,
}

/// A run's workflow code, played in-process.
pub(crate) struct FakeWorkflow {
    tool: Handler,
    message: Handler,
    abort: Handler,
    asked: Mutex<Vec<(Kind, Value)>>,
    /// The answers of hanging requests, by call id (`""` for a request of no call).
    hanging: Mutex<HashMap<String, Vec<oneshot::Sender<Answer>>>>,
    stopped: Mutex<HashSet<String>>,
}

impl FakeWorkflow {
    /// Tool calls go to `tool`; messages and aborts are taken at once, as other requests are.
    pub fn new(tool: Handler) -> FakeWorkflow {
        FakeWorkflow {
            tool,
            message: Handler::Answers(Value::Null),
            abort: Handler::Answers(Value::Null),
            asked: Mutex::default(),
            hanging: Mutex::default(),
            stopped: Mutex::default(),
        }
    }

    /// Messages go to `message`.
    pub fn with_messages(self, message: Handler) -> FakeWorkflow {
        FakeWorkflow { message, ..self }
    }

    /// Aborts of a call's signal go to `abort`.
    pub fn with_aborts(self, abort: Handler) -> FakeWorkflow {
        FakeWorkflow { abort, ..self }
    }

    /// Every request so far, in order, with its payload as JS would get it.
    pub fn asked(&self) -> Vec<(Kind, Value)> {
        self.asked.lock().expect("not poisoned").clone()
    }

    fn take<T: Reply>(
        &self,
        kind: Kind,
        request: &impl Serialize,
        handler: &Handler,
        call: Option<&str>,
    ) -> Pending<T> {
        let payload = serde_json::to_value(request).expect("a request is JSON");
        self.asked
            .lock()
            .expect("not poisoned")
            .push((kind, payload));
        match handler {
            Handler::Answers(value) => Pending::settled(Ok(Some(value.clone()))),
            Handler::Throws(error) => Pending::settled(Err(UpcallFailure::Threw(error.clone()))),
            Handler::Gone => Pending::settled(Err(UpcallFailure::HostGone)),
            Handler::Hangs => {
                let (answer, waiting) = oneshot::channel();
                self.hanging
                    .lock()
                    .expect("not poisoned")
                    .entry(call.unwrap_or_default().to_string())
                    .or_default()
                    .push(answer);
                Pending::waiting(waiting)
            }
        }
    }

    fn settled<T: Reply>(&self, kind: Kind, request: &impl Serialize) -> Pending<T> {
        self.take(kind, request, &Handler::Answers(Value::Null), None)
    }
}

impl Upcall for FakeWorkflow {
    fn call_tool(&self, call: &ToolCall<'_>) -> Pending<Option<Value>> {
        self.take(Kind::ToolCall, call, &self.tool, Some(call.call))
    }

    fn abort_tool(&self, abort: &ToolAbort<'_>) -> Pending<()> {
        self.take(Kind::ToolAbort, abort, &self.abort, None)
    }

    fn message_arrived(&self, arrived: &MessageArrived<'_>) -> Pending<()> {
        self.take(Kind::MessageArrived, arrived, &self.message, None)
    }

    fn stop_call(&self, call: &str) {
        let hanging = self.hanging.lock().expect("not poisoned").remove(call);
        for answer in hanging.unwrap_or_default() {
            self.stopped
                .lock()
                .expect("not poisoned")
                .insert(call.to_string());
            let _ = answer.send(Err(UpcallFailure::Threw(JsError::internal("interrupted"))));
        }
    }

    fn call_was_stopped(&self, call: &str) -> bool {
        self.stopped.lock().expect("not poisoned").remove(call)
    }

    fn script_turn(&self, turn: &ScriptTurn<'_>) -> Pending<Option<ScriptReply>> {
        self.settled(Kind::ScriptTurn, turn)
    }

    fn script_fork(&self, fork: &ScriptFork<'_>) -> Pending<()> {
        self.settled(Kind::ScriptFork, fork)
    }

    fn script_compact(&self, compact: &ScriptCompact<'_>) -> Pending<Option<ScriptReply>> {
        self.settled(Kind::ScriptCompact, compact)
    }

    fn script_abort(&self, abort: &ScriptAbort<'_>) -> Pending<()> {
        self.settled(Kind::ScriptAbort, abort)
    }
}
