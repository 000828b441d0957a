//! `CallStop`: stopping one tool call's handler that never yields, and only it.
//!
//! A handler stuck in synchronous code (`while (true) {}`) holds the JS thread, so its call's
//! budget running out cannot reach it through the event loop. The host marks whose code it is
//! running (`enter`/`leave`): while it runs a request on behalf of a call, and whenever the
//! async context (async_context.rs) resumes code that belongs to a call, after an `await` in
//! its handler too; a task whose call's
//! time is up asks `stop`; QuickJS's interrupt handler, which it polls while JS runs, then
//! throws out of that code only while the code is that call's. The run goes on; the call's
//! reply is the interrupt, and `was_stopped` tells the task that is why.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Which call's code runs now, and which calls are to be stopped. Shared between the JS thread
/// and the tasks serving tool calls.
#[derive(Default)]
pub struct CallStop {
    /// Some call is to be stopped: the interrupt handler's fast path reads only this.
    armed: AtomicBool,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    running: Option<String>,
    to_stop: HashSet<String>,
    stopped: HashSet<String>,
    /// The call whose code the interrupt threw out of last, until the host sees the throw.
    unwinding: Option<String>,
}

impl CallStop {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The JS thread runs `call`'s code from now until `leave`.
    pub fn enter(&self, call: &str) {
        self.inner().running = Some(call.to_string());
    }

    pub fn leave(&self) {
        self.inner().running = None;
    }

    /// `call`'s time is up: stop its code if it is running, now or when it next runs.
    pub fn stop(&self, call: &str) {
        self.inner().to_stop.insert(call.to_string());
        self.armed.store(true, Ordering::SeqCst);
    }

    /// Whether `call`'s code was stopped by `stop`; forgets the call either way.
    pub fn was_stopped(&self, call: &str) -> bool {
        let mut inner = self.inner();
        inner.to_stop.remove(call);
        if inner.to_stop.is_empty() {
            self.armed.store(false, Ordering::SeqCst);
        }
        inner.stopped.remove(call)
    }

    /// For the interrupt handler: whether the code running now is a call's that is to stop.
    pub(super) fn should_interrupt(&self) -> bool {
        if !self.armed.load(Ordering::Relaxed) {
            return false;
        }
        let mut inner = self.inner();
        let Some(call) = inner.running.clone() else {
            return false;
        };
        if !inner.to_stop.contains(&call) {
            return false;
        }
        inner.stopped.insert(call.clone());
        inner.unwinding = Some(call);
        true
    }

    /// The call whose code was just stopped, once: the error that unwound a job or callback is
    /// that stop's, not an error of the workflow's, and the call's request is answered with it.
    pub(super) fn take_unwinding(&self) -> Option<String> {
        self.inner().unwinding.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_code_of_a_call_to_stop_is_interrupted() {
        let stop = CallStop::default();
        stop.enter("t1-c1");
        assert!(!stop.should_interrupt(), "nothing asked to stop yet");
        stop.stop("t2-c1");
        assert!(!stop.should_interrupt(), "another call's code runs");
        stop.leave();
        stop.enter("t2-c1");
        assert!(stop.should_interrupt());
        assert_eq!(stop.take_unwinding().as_deref(), Some("t2-c1"));
        assert_eq!(stop.take_unwinding(), None);
        stop.leave();
        assert!(!stop.should_interrupt(), "no call's code runs");
        assert!(stop.was_stopped("t2-c1"));
        assert!(!stop.was_stopped("t2-c1"), "forgotten once told");
    }

    #[test]
    fn a_call_asked_to_stop_that_was_not_running_is_not_reported_stopped() {
        let stop = CallStop::default();
        stop.stop("t1-c1");
        assert!(!stop.was_stopped("t1-c1"));
        stop.enter("t1-c1");
        assert!(
            !stop.should_interrupt(),
            "forgotten: its settlement was seen"
        );
    }
}
