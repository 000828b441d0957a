//! An agent's tool calls: the agent as a `Caller` of tools/dispatch.rs, whose calls run only
//! inside an open turn that has no accepted answer yet; and what a running call holds up (an
//! answer, `wfa waiting`, the end of the turn).

use std::path::Path;

use serde_json::Value;

use super::{refused, Agent};
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::limits::SIGNAL_ABORT_GRACE;
use crate::records::Event;
use crate::tools::calls::{CallSlot, CallStart, RefusedCall, TurnEnding, TurnWindow};
use crate::tools::dispatch::Caller;
use crate::tools::ToolSet;
use crate::upcall::{ToolAbort, Upcall};

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
            let run_cancelled = *self.link.cancelled.borrow();
            let workflow = self.link.workflow.as_ref();
            let reason = ending.abort_reason();
            abort_call(workflow, &self.link.run_id, &call, &reason, run_cancelled).await;
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

/// Aborts the signal of `call` and waits until the workflow has taken the abort: no longer than
/// `SIGNAL_ABORT_GRACE` once the run is cancelled.
async fn abort_call(
    workflow: &dyn Upcall,
    run: &str,
    call: &str,
    reason: &Value,
    run_cancelled: bool,
) {
    let abort = workflow.abort_tool(&ToolAbort { run, call, reason });
    if run_cancelled {
        let _ = tokio::time::timeout(SIGNAL_ABORT_GRACE, abort).await;
    } else {
        let _ = abort.await;
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

    fn workflow(&self) -> &dyn Upcall {
        self.link.workflow.as_ref()
    }

    fn cancelled(&self) -> tokio::sync::watch::Receiver<bool> {
        self.link.cancelled.clone()
    }

    fn turn_cancel(&self, turn: &str) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        self.cancels.watch(turn)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::tools::calls::abort_reason;
    use crate::upcall::fake::{FakeWorkflow, Handler};
    use crate::upcall::Kind;

    fn abort(workflow: &FakeWorkflow, run_cancelled: bool) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        let reason = abort_reason(false, "its turn ended (cancelled)");
        let aborting = abort_call(workflow, "r1", "t1-c1", &reason, run_cancelled);
        // A generous bound: the wait under test is SIGNAL_ABORT_GRACE at most.
        runtime
            .block_on(async { tokio::time::timeout(Duration::from_secs(30), aborting).await })
            .expect("the abort is over");
    }

    #[test]
    fn a_running_call_is_aborted_with_its_turn_s_reason() {
        let workflow = FakeWorkflow::new(Handler::Hangs);
        abort(&workflow, false);
        assert_eq!(
            workflow.asked(),
            vec![(
                Kind::ToolAbort,
                json!({ "run": "r1", "call": "t1-c1", "reason": { "name": "AbortError", "message": "its turn ended (cancelled)" } })
            )]
        );
    }

    #[test]
    fn once_the_run_is_cancelled_an_abort_the_workflow_never_takes_is_not_waited_for() {
        let workflow = FakeWorkflow::new(Handler::Hangs).with_aborts(Handler::Hangs);
        abort(&workflow, true);
        assert_eq!(workflow.asked()[0].0, Kind::ToolAbort);
    }

    #[test]
    fn an_abort_after_the_host_is_gone_ends_at_once() {
        let workflow = FakeWorkflow::new(Handler::Hangs).with_aborts(Handler::Gone);
        abort(&workflow, false);
        assert_eq!(workflow.asked().len(), 1);
    }
}
