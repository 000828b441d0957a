//! Rust asking JS: a `JsRequester` is a `Send` handle that any task (a socket serving a tool
//! call) uses to have the host's JS run something and answer; it is the engine's `Upcall`.
//!
//! A request travels as a `HostEvent` to the host's event loop, which calls the handler
//! js/core.ts registered for its kind (`onRequest`, under the names of `UPCALLS`), and keeps
//! the reply channel in the `ReplyBook` under a fresh id until JS answers through the `reply`
//! primitive (primitives.rs). A host that is gone, before or while a request waits, answers
//! `UpcallFailure::HostGone`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::call_stop::CallStop;
use super::host_event::HostEvent;
use crate::upcall::{
    Answer, Kind, MessageArrived, Pending, Reply, ScriptAbort, ScriptCompact, ScriptFork,
    ScriptReply, ScriptTurn, ToolAbort, ToolCall, Upcall, UpcallFailure,
};

/// A `Send` handle for Rust tasks that need JS to run something and answer.
#[derive(Clone)]
pub struct JsRequester {
    events: mpsc::UnboundedSender<HostEvent>,
    call_stop: Arc<CallStop>,
}

impl JsRequester {
    pub(crate) fn new(
        events: mpsc::UnboundedSender<HostEvent>,
        call_stop: Arc<CallStop>,
    ) -> JsRequester {
        JsRequester { events, call_stop }
    }

    /// Asks the JS handler registered for `kind` (see `onRequest` in js/core.ts), whatever it is.
    #[cfg(test)]
    pub(crate) fn request(&self, kind: &'static str, payload: Value) -> Pending<Option<Value>> {
        self.send(kind, payload, None)
    }

    /// Sends `request` as `kind`, for code that runs on behalf of the tool call `call`, if any:
    /// `stop_call` can stop that code while it runs without yielding.
    fn ask<T: Reply>(
        &self,
        kind: Kind,
        request: &impl Serialize,
        call: Option<&str>,
    ) -> Pending<T> {
        match serde_json::to_value(request) {
            Ok(payload) => self.send(kind.as_str(), payload, call.map(str::to_string)),
            Err(e) => Pending::settled(Err(UpcallFailure::NotJson(e.to_string()))),
        }
    }

    fn send<T: Reply>(
        &self,
        kind: &'static str,
        payload: Value,
        call: Option<String>,
    ) -> Pending<T> {
        let (reply, answer) = oneshot::channel();
        let event = HostEvent::Request {
            kind,
            payload,
            call,
            reply,
        };
        if self.events.send(event).is_err() {
            return Pending::settled(Err(UpcallFailure::HostGone));
        }
        Pending::waiting(answer)
    }
}

impl Upcall for JsRequester {
    fn call_tool(&self, call: &ToolCall<'_>) -> Pending<Option<Value>> {
        self.ask(Kind::ToolCall, call, Some(call.call))
    }

    fn abort_tool(&self, abort: &ToolAbort<'_>) -> Pending<()> {
        self.ask(Kind::ToolAbort, abort, None)
    }

    fn message_arrived(&self, arrived: &MessageArrived<'_>) -> Pending<()> {
        self.ask(Kind::MessageArrived, arrived, None)
    }

    fn stop_call(&self, call: &str) {
        self.call_stop.stop(call);
    }

    fn call_was_stopped(&self, call: &str) -> bool {
        self.call_stop.was_stopped(call)
    }

    fn script_turn(&self, turn: &ScriptTurn<'_>) -> Pending<Option<ScriptReply>> {
        self.ask(Kind::ScriptTurn, turn, None)
    }

    fn script_fork(&self, fork: &ScriptFork<'_>) -> Pending<()> {
        self.ask(Kind::ScriptFork, fork, None)
    }

    fn script_compact(&self, compact: &ScriptCompact<'_>) -> Pending<Option<ScriptReply>> {
        self.ask(Kind::ScriptCompact, compact, None)
    }

    fn script_abort(&self, abort: &ScriptAbort<'_>) -> Pending<()> {
        self.ask(Kind::ScriptAbort, abort, None)
    }
}

/// Where a request's answer goes, and the tool call it runs code for.
type Waiting = (oneshot::Sender<Answer>, Option<String>);

/// Requests JS is working on, by reply id, with the tool call each runs code for.
#[derive(Default)]
pub struct ReplyBook(RefCell<HashMap<u64, Waiting>>);

impl ReplyBook {
    pub fn wait(&self, id: u64, reply: oneshot::Sender<Answer>, call: Option<String>) {
        self.0.borrow_mut().insert(id, (reply, call));
    }

    /// Sends JS's answer to the request `id`.
    pub fn answer(&self, id: u64, reply: Answer) {
        if let Some((sender, _)) = self.0.borrow_mut().remove(&id) {
            let _ = sender.send(reply);
        }
    }

    /// Answers the requests that run code for `call` (its code was stopped, so JS never will).
    pub fn answer_call(&self, call: &str, reply: Answer) {
        let ids: Vec<u64> = self
            .0
            .borrow()
            .iter()
            .filter(|(_, (_, of))| of.as_deref() == Some(call))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.answer(id, reply.clone());
        }
    }

    /// Drops every waiting request: each requester hears `HostGone`.
    pub fn clear(&self) {
        self.0.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call_js, current_thread, host};
    use super::*;

    #[test]
    fn a_request_to_a_dropped_host_hears_that_it_is_gone() {
        let requester = host().requester();
        let reply = current_thread().block_on(requester.request("tool", serde_json::json!({})));
        assert!(matches!(reply, Err(UpcallFailure::HostGone)), "{reply:?}");
    }

    #[test]
    fn a_request_still_waiting_when_the_host_drops_hears_that_it_is_gone() {
        let runtime = current_thread();
        let host = host();
        let requester = host.requester();
        let waiting =
            runtime.spawn(async move { requester.request("tool", serde_json::json!(1)).await });
        runtime.block_on(tokio::task::yield_now());
        drop(host);
        let reply = runtime.block_on(waiting).expect("the request task ends");
        assert!(matches!(reply, Err(UpcallFailure::HostGone)), "{reply:?}");
    }

    #[test]
    fn a_request_is_answered_by_js_while_a_call_runs() {
        let mut host = host();
        let requester = host.requester();
        let runtime = current_thread();
        let waiting =
            runtime.spawn(async move { requester.request("nobody", serde_json::json!(1)).await });
        runtime.block_on(tokio::task::yield_now());
        call_js(
            &mut host,
            "export const main = () => new Promise((resolve) => setTimeout(resolve, 20));",
        );
        let reply = runtime.block_on(waiting).expect("the request task ends");
        match reply {
            Err(UpcallFailure::Threw(error)) => {
                assert_eq!(error.message, "no handler for host request nobody")
            }
            other => panic!("{other:?}"),
        }
    }
}
