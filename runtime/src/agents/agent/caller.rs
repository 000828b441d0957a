//! An agent's tool calls: the agent as a `Caller` of tools/dispatch.rs, whose calls run only
//! inside an open turn that has no accepted answer yet; and what a running call holds up (an
//! answer, `wfa waiting`, the end of the turn).

use std::path::Path;

use serde_json::Value;

use super::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::js::JsRequester;
use crate::limits::SIGNAL_ABORT_GRACE;
use crate::records::Event;
use crate::tools::calls::{CallSlot, CallStart, RefusedCall, TurnEnding, TurnWindow};
use crate::tools::dispatch::Caller;
use crate::tools::ToolSet;

impl Agent {
    /// Whether a tool call of this agent is running: the agent waits for a handler, so giving
    /// it work now would wait for that handler too.
    pub fn tool_call_running(&self) -> Option<String> {
        self.state().calls.running_tool().map(str::to_string)
    }

    /// Aborts the signal of the tool call still running when a turn ends, before the turn's
    /// outcome goes back to the workflow: the host takes requests in order, so the handler's
    /// abort listeners run before the code awaiting the turn goes on. (The call's own task
    /// also aborts it, later; a second abort does nothing.) Once the run is cancelled its
    /// engine runs only for `SIGNAL_ABORT_GRACE` more, so the wait is no longer than that.
    pub(in crate::agents) async fn abort_running_call(&self, ending: &TurnEnding) {
        let running = self.state().calls.running_id().map(str::to_string);
        if let Some(call) = running {
            let payload = serde_json::json!({ "run": self.link.run_id, "call": call, "reason": ending.abort_reason() });
            let abort = self.link.js.request("tool.abort", payload);
            if *self.link.cancelled.borrow() {
                let _ = tokio::time::timeout(SIGNAL_ABORT_GRACE, abort).await;
            } else {
                let _ = abort.await;
            }
        }
    }

    /// `busy` while a tool call runs: the agent cannot answer or ask for time meanwhile.
    pub(in crate::agents) fn refuse_while_calling(&self) -> Option<Response> {
        let tool = self.tool_call_running()?;
        Some(refused(
            Code::Busy,
            &format!("{tool} is still running; answer once it has answered"),
            vec![],
            Some("wait for the tool's answer, then send your answer again"),
        ))
    }
}

impl Caller for Agent {
    fn key(&self) -> &str {
        &self.key
    }

    fn tools(&self) -> &ToolSet {
        &self.tools
    }

    fn launcher(&self) -> &Path {
        &self.launcher
    }

    fn begin_call(&self, tool: &str, input: &Value) -> CallStart {
        let mut state = self.state();
        let window = match &state.open {
            Some(open) if open.accepted.is_none() => Ok(TurnWindow {
                id: open.id.clone(),
                deadline: open.deadline,
                over: open.over.clone(),
            }),
            Some(open) => Err(format!(
                "turn {} is answered; a tool is callable only while you work on a turn",
                open.id
            )),
            None => Err(
                "you have no open turn; a tool is callable only while you work on a turn".into(),
            ),
        };
        let start = state.calls.begin(tool, input, window);
        if let CallStart::Run(_) = start {
            state.call_in_flight = Some(self.link.in_flight.enter());
        }
        start
    }

    fn end_call(&self, slot: &CallSlot, response: Response) {
        {
            let mut state = self.state();
            state.calls.end(slot);
            if state.calls.running_id().is_none() {
                state.call_in_flight = None;
            }
        }
        slot.finish(response);
    }

    fn refused_call(&self) -> RefusedCall {
        let mut state = self.state();
        let turn = state.open.as_ref().map(|open| open.id.clone());
        state.calls.refused(turn)
    }

    fn record(&self, event: &Event) {
        Agent::record(self, event)
    }

    fn run_id(&self) -> &str {
        &self.link.run_id
    }

    fn js(&self) -> &JsRequester {
        &self.link.js
    }

    fn cancelled(&self) -> tokio::sync::watch::Receiver<bool> {
        self.link.cancelled.clone()
    }

    fn turn_cancel(&self, turn: &str) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        self.cancels.watch(turn)
    }
}
