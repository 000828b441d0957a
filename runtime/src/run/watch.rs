//! `RunWatch`: what stops a run from outside its own code — its deadline, SIGINT, SIGTERM — and
//! the second signal that ends awf at once.
//!
//! The watch runs as a task of its own on the runtime's worker threads, not in the future that
//! drives the workflow: workflow code that never yields (`while (true) {}` in `run()` or in a
//! tool's handler) holds the thread that polls that future, so a `select!` there would never
//! see the deadline or the signal. The watch records why the run stops and sets the engine's
//! interrupt flag, which QuickJS polls while JS runs, so the stuck code throws and the run ends
//! with its records: at once for the deadline (which already had its grace), and
//! `SIGNAL_ABORT_GRACE` after a signal, the moment the run gives running tool calls' abort
//! listeners (run/mod.rs `drive`). A signal that arrives once the run is stopping (or once
//! its code is done) kills every agent group and exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::limits::SIGNAL_ABORT_GRACE;

/// What stopped a run from outside its own code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Deadline,
    Signal(i32),
}

/// The watch over one run; dropping it ends its task.
pub struct RunWatch {
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

struct Shared {
    stop: Mutex<Option<Stop>>,
    stopped: Notify,
    /// Set once the workflow's code is done: any signal from then on exits at once.
    code_done: AtomicBool,
}

impl RunWatch {
    /// Starts watching: at `stop_at`, or on SIGINT or SIGTERM, the run stops and `interrupt` is
    /// set (`SIGNAL_ABORT_GRACE` after a signal). Listening starts before this returns, so no
    /// early signal is lost.
    pub fn start(stop_at: Instant, interrupt: Arc<AtomicBool>) -> RunWatch {
        let shared = Arc::new(Shared {
            stop: Mutex::new(None),
            stopped: Notify::new(),
            code_done: AtomicBool::new(false),
        });
        let mut signals = Signals::listen();
        let watching = shared.clone();
        let task = tokio::spawn(async move {
            let mut deadline_passed = false;
            // When a signal's grace ends and the code is stopped.
            let mut interrupt_at: Option<Instant> = None;
            loop {
                let stop = tokio::select! {
                    _ = tokio::time::sleep_until(stop_at.into()), if !deadline_passed => {
                        deadline_passed = true;
                        // The code is done: what runs now (present, report) has its own limit.
                        if watching.code_done.load(Ordering::SeqCst) {
                            continue;
                        }
                        Stop::Deadline
                    }
                    _ = sleep_until(interrupt_at), if interrupt_at.is_some() => {
                        interrupt_at = None;
                        if !watching.code_done.load(Ordering::SeqCst) {
                            interrupt.store(true, Ordering::SeqCst);
                        }
                        continue;
                    }
                    sig = signals.next() => {
                        if watching.code_done.load(Ordering::SeqCst) || watching.stop().is_some() {
                            exit_at_once(sig);
                        }
                        Stop::Signal(sig)
                    }
                };
                let first = {
                    let mut slot = watching.stop.lock().unwrap_or_else(|p| p.into_inner());
                    slot.get_or_insert(stop) == &stop
                };
                if first {
                    match stop {
                        Stop::Deadline => interrupt.store(true, Ordering::SeqCst),
                        Stop::Signal(_) => interrupt_at = Some(Instant::now() + SIGNAL_ABORT_GRACE),
                    }
                    watching.stopped.notify_waiters();
                }
            }
        });
        RunWatch { shared, task }
    }

    /// Why the run was stopped, if it was.
    pub fn stop(&self) -> Option<Stop> {
        self.shared.stop()
    }

    /// Resolves when the run is stopped from outside.
    pub async fn stopped(&self) -> Stop {
        loop {
            let notified = self.shared.stopped.notified();
            if let Some(stop) = self.stop() {
                return stop;
            }
            notified.await;
        }
    }

    /// The workflow's code is done (returned, threw or was stopped): a signal from now on exits at
    /// once instead of asking the code to stop, and neither the deadline nor a signal's grace
    /// interrupts the engine any more (the ending's `present` and `report` run in it).
    pub fn code_done(&self) {
        self.shared.code_done.store(true, Ordering::SeqCst);
    }
}

impl Drop for RunWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Shared {
    fn stop(&self) -> Option<Stop> {
        *self.stop.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// SIGINT and SIGTERM, as they arrive.
struct Signals {
    interrupt: Option<Signal>,
    terminate: Option<Signal>,
}

impl Signals {
    fn listen() -> Signals {
        Signals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    async fn next(&mut self) -> i32 {
        tokio::select! {
            _ = recv(&mut self.interrupt) => libc::SIGINT,
            _ = recv(&mut self.terminate) => libc::SIGTERM,
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

async fn recv(signal: &mut Option<Signal>) {
    match signal {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending().await,
    }
}

/// A second Ctrl-C: kill every agent group and exit now, without records.
fn exit_at_once(signal: i32) -> ! {
    crate::harness::process::kill_all_now();
    tracing::error!("stopped at once; the run's records may be incomplete");
    std::process::exit(128 + signal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_deadline_stops_code_that_never_yields() {
        let interrupt = Arc::new(AtomicBool::new(false));
        let watch = RunWatch::start(
            Instant::now() + Duration::from_millis(50),
            interrupt.clone(),
        );
        // This thread spins without yielding, as `while (true) {}` does; only the flag ends it.
        while !interrupt.load(Ordering::SeqCst) {
            std::hint::spin_loop();
        }
        assert_eq!(watch.stop(), Some(Stop::Deadline));
        assert_eq!(watch.stopped().await, Stop::Deadline);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn nothing_stops_before_the_deadline() {
        let interrupt = Arc::new(AtomicBool::new(false));
        let watch = RunWatch::start(
            Instant::now() + Duration::from_secs(3600),
            interrupt.clone(),
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(watch.stop(), None);
        assert!(!interrupt.load(Ordering::SeqCst));
    }
}
