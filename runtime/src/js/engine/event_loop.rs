//! The event loop of one call into JS: run queued promise jobs, fire due timers, take op
//! completions and requests as they arrive, until the called function settles.
//!
//! The loop ends when the call settles (even with timers or ops still pending: dropping the
//! host drops them, and aborts op tasks), when `process.exit` is called or the host is
//! interrupted, when an error goes uncaught (unless `report_uncaught` takes such errors), or
//! when nothing is left that could ever settle it (no op in flight, no ref'd timer, no queued
//! job): a stall is reported, never a hang.

use std::time::Instant;

use rquickjs::{CatchResultExt, CaughtError, Ctx};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use super::call::CallEnd;
use super::host::JsHost;
use super::host_event::HostEvent;
use super::host_state::HostState;
use super::op_value::{OpFuture, OpResult};
use super::ops_module::{op_error_to_js, op_value_to_js};
use crate::js::convert;
use crate::js::errors::JsError;
use crate::upcall::{Answer, UpcallFailure};

impl HostState {
    /// Runs an async op's future on tokio, in the span of its caller (the run's); its result
    /// comes back as an event. Gives its id.
    pub(super) fn spawn_op(&self, name: &'static str, future: OpFuture) -> u64 {
        let id = self.next_id();
        let events = self.events.clone();
        tracing::trace!(op = name, id, "async op started");
        let task = tokio::spawn(
            async move {
                let result = future.await;
                tracing::trace!(op = name, id, ok = result.is_ok(), "async op done");
                let _ = events.send(HostEvent::OpDone { id, result });
            }
            .instrument(tracing::Span::current()),
        );
        self.op_tasks.borrow_mut().insert(id, task.abort_handle());
        id
    }
}

impl JsHost {
    pub(super) async fn run_event_loop(&mut self) -> CallEnd {
        loop {
            if let Some(end) = self.drain_jobs() {
                return end;
            }
            if let Some(end) = self.finished() {
                return end;
            }
            // Bound first: the callback may start or clear timers, which borrows the wheel again.
            let due = self.state.timers.borrow_mut().pop_due(Instant::now());
            if let Some(id) = due {
                self.fire_timer(id);
                self.state.clear_async_context();
                continue;
            }
            match self.events.try_recv() {
                Ok(event) => {
                    self.handle(event);
                    continue;
                }
                Err(mpsc::error::TryRecvError::Empty) => {}
                Err(mpsc::error::TryRecvError::Disconnected) => return CallEnd::Stalled,
            }
            if self.stalled() {
                return CallEnd::Stalled;
            }
            let next_timer = self.state.timers.borrow().next_at();
            tokio::select! {
                event = self.events.recv() => match event {
                    Some(event) => self.handle(event),
                    None => return CallEnd::Stalled,
                },
                _ = sleep_until(next_timer), if next_timer.is_some() => {}
            }
        }
    }

    fn stalled(&self) -> bool {
        self.state.op_tasks.borrow().is_empty()
            && !self.state.timers.borrow().any_refed()
            && !self.runtime.runtime.is_job_pending()
    }

    /// Runs queued promise jobs. A job that throws (a `queueMicrotask` or `nextTick` callback)
    /// goes to `report_uncaught`'s handler and the jobs after it still run; without a handler
    /// it is an unhandled error of the call.
    fn drain_jobs(&self) -> Option<CallEnd> {
        loop {
            let ran = self.runtime.runtime.execute_pending_job();
            // A continuation that was not rewritten must not see the context of the last one.
            self.state.clear_async_context();
            match ran {
                Ok(true) => continue,
                Ok(false) => return None,
                Err(job) => {
                    if self.state.interrupted() {
                        return Some(self.interrupted());
                    }
                    let error = job.0.with(|ctx| JsError::from_value(&ctx, &ctx.catch()));
                    if self.answered_stopped_call(&error) {
                        continue;
                    }
                    let handler = self.state.uncaught.borrow().clone();
                    match handler {
                        Some(handler) => handler(error),
                        None => return Some(CallEnd::Threw(error)),
                    }
                }
            }
        }
    }

    fn interrupted(&self) -> CallEnd {
        match self.state.exit_code() {
            Some(code) => CallEnd::Exited(code),
            None => CallEnd::Interrupted,
        }
    }

    fn finished(&self) -> Option<CallEnd> {
        if let Some(code) = self.state.exit_code() {
            return Some(CallEnd::Exited(code));
        }
        if self.state.interrupted() {
            return Some(CallEnd::Interrupted);
        }
        let unhandled: Vec<JsError> = self
            .state
            .unhandled
            .borrow_mut()
            .drain(..)
            .map(|(_, error)| error.unhandled_rejection())
            .collect();
        let handler = self.state.uncaught.borrow().clone();
        match handler {
            Some(handler) => unhandled.into_iter().for_each(|error| handler(error)),
            None => {
                if let Some(error) = unhandled.into_iter().next() {
                    return Some(CallEnd::Threw(error));
                }
            }
        }
        match self.state.settled.borrow_mut().take() {
            Some(Ok(value)) => Some(CallEnd::Returned(value)),
            Some(Err(error)) => Some(CallEnd::Threw(error)),
            None => None,
        }
    }

    fn fire_timer(&self, id: u64) {
        let Some(fire) = self.state.callback(|c| &c.fire_timer) else {
            return;
        };
        self.context.with(|ctx| {
            if let Ok(fire) = fire.restore(&ctx) {
                if let Err(e) = fire.call::<_, ()>((id as f64,)).catch(&ctx) {
                    self.record_uncaught(&ctx, e);
                }
            }
        });
    }

    fn handle(&self, event: HostEvent) {
        match event {
            HostEvent::OpDone { id, result } => self.complete_op(id, result),
            HostEvent::Request {
                kind,
                payload,
                call,
                reply,
            } => {
                if let Some(call) = &call {
                    self.state.call_stop.enter(call);
                }
                self.deliver_request(kind, &payload, call.as_deref(), reply);
            }
        }
        self.state.clear_async_context();
    }

    fn complete_op(&self, id: u64, result: OpResult) {
        self.state.op_tasks.borrow_mut().remove(&id);
        let Some(complete) = self.state.callback(|c| &c.complete) else {
            return;
        };
        self.context.with(|ctx| {
            let call = || -> rquickjs::Result<()> {
                let complete = complete.restore(&ctx)?;
                let (ok, value) = match result {
                    Ok(value) => (true, op_value_to_js(&ctx, value)?),
                    Err(error) => (false, op_error_to_js(&ctx, &error)?),
                };
                complete.call::<_, ()>((id as f64, ok, value))
            };
            if let Err(e) = call().catch(&ctx) {
                self.record_uncaught(&ctx, e);
            }
        });
    }

    fn deliver_request(
        &self,
        kind: &str,
        payload: &serde_json::Value,
        call: Option<&str>,
        reply: oneshot::Sender<Answer>,
    ) {
        let Some(request) = self.state.callback(|c| &c.request) else {
            let _ = reply.send(Err(UpcallFailure::HostGone));
            return;
        };
        let reply_id = self.state.next_id();
        self.state
            .replies
            .wait(reply_id, reply, call.map(str::to_string));
        self.context.with(|ctx| {
            let deliver = || -> rquickjs::Result<()> {
                let request = request.restore(&ctx)?;
                let payload = convert::to_js(&ctx, payload)?;
                request.call::<_, ()>((kind, payload, reply_id as f64))
            };
            if let Err(e) = deliver().catch(&ctx) {
                let error = JsError::from_caught(&ctx, e);
                // Stopped in its synchronous part: this reply is the one the stop answers.
                self.state.call_stop.take_unwinding();
                self.state
                    .replies
                    .answer(reply_id, Err(UpcallFailure::Threw(error)));
            }
        });
    }

    /// Whether `error` is the throw of a tool call's code that `CallStop` stopped (an
    /// interrupt, which nothing can catch, so the handler's promise never settles): then the
    /// call's request is answered with it here, and it is no error of the workflow's.
    fn answered_stopped_call(&self, error: &JsError) -> bool {
        let Some(call) = self.state.call_stop.take_unwinding() else {
            return false;
        };
        self.state
            .replies
            .answer_call(&call, Err(UpcallFailure::Threw(error.clone())));
        true
    }

    /// An exception thrown straight out of a host callback: the call fails with it, unless
    /// uncaught errors are reported elsewhere.
    fn record_uncaught<'js>(&self, ctx: &Ctx<'js>, error: CaughtError<'js>) {
        if self.state.interrupted() {
            return;
        }
        let error = JsError::from_caught(ctx, error);
        if self.answered_stopped_call(&error) {
            return;
        }
        let handler = self.state.uncaught.borrow().clone();
        match handler {
            Some(handler) => handler(error),
            None => *self.state.settled.borrow_mut() = Some(Err(error)),
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call_js, host};
    use super::*;

    #[test]
    fn a_call_that_nothing_can_settle_is_reported_as_stalled() {
        let mut host = host();
        let end = call_js(
            &mut host,
            "export const main = () => new Promise(() => {});",
        );
        assert!(matches!(end, CallEnd::Stalled), "{end:?}");
    }

    #[test]
    fn an_unref_timer_does_not_keep_a_call_alive() {
        let mut host = host();
        let end = call_js(
            &mut host,
            "export const main = () => new Promise((resolve) => { setTimeout(resolve, 60000).unref(); });",
        );
        assert!(matches!(end, CallEnd::Stalled), "{end:?}");
    }

    #[test]
    fn a_rejection_nobody_handles_ends_the_call() {
        let mut host = host();
        let end = call_js(
            &mut host,
            "export const main = () => { Promise.reject(new Error('lost')); return new Promise((r) => setTimeout(r, 50)); };",
        );
        match end {
            CallEnd::Threw(error) => {
                assert_eq!(error.message, "lost");
                assert!(error.unhandled);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_throwing_microtask_goes_to_the_uncaught_handler_and_later_jobs_still_run() {
        let mut host = host();
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let record = seen.clone();
        host.report_uncaught(move |error| record.borrow_mut().push(error.message));
        let end = call_js(
            &mut host,
            "export const main = async () => {
               queueMicrotask(() => { throw new Error('first'); });
               queueMicrotask(() => { throw new Error('second'); });
               await null;
               await new Promise((resolve) => setTimeout(resolve, 1));
               return 'still running';
             };",
        );
        assert!(matches!(end, CallEnd::Returned(_)), "{end:?}");
        assert_eq!(*seen.borrow(), ["first", "second"]);
    }

    #[test]
    fn a_throwing_microtask_without_a_handler_ends_the_call() {
        let mut host = host();
        let end = call_js(
            &mut host,
            "export const main = () => { queueMicrotask(() => { throw new Error('lost'); }); return new Promise((r) => setTimeout(r, 50)); };",
        );
        match end {
            CallEnd::Threw(error) => assert_eq!(error.message, "lost"),
            other => panic!("{other:?}"),
        }
    }
}
