//! One test file in a `JsHost` of its worker thread, on that thread.
//!
//! A worker's host serves one file after another (`WorkerHost`): the bootstrap and the test
//! framework are loaded once, and between files the host forgets what a file left behind, puts
//! back the globals, built-ins and framework objects it changed, and retires the modules it
//! loaded, so the next file imports fresh ones (runtime/src/js/engine/reuse.rs). A file that
//! ends in a way that leaves the host unsure (it exited, was interrupted or stopped, or changed
//! a shared object past putting back) is the host's last; the next file gets a new one.
//!
//! The host's console output, its test results (the `test_event` op) and the errors nobody
//! caught all go to one `Recorder`, which turns them into `TestEvent`s in the order they
//! happen. An error nobody caught while a test runs fails that test, as in bun; between tests
//! it is an error of the file.
//!
//! Lifecycle: `runTestFile` (js/test/file_runner.ts) settles once the last test has run, and
//! the call returns then, whatever the file left behind: timers of a test that timed out, ops
//! still in flight. The host's reset (or its drop) then drops its timers and aborts its op
//! tasks, so nothing a file started outlives it. `--bail` stops the file whose failure reached
//! the limit at once (its JS is interrupted; nothing after the failure is reported) and the
//! other running files at their event loop's next step, dropping their hosts the same way. A
//! test that never yields to the event loop (`while (true)`) cannot be stopped, as in bun.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::runtime::Handle;
use tokio::sync::watch;

use super::bail::Bail;
use super::event::{
    millis, FileReport, FileReportSink, SnapshotCounts, SourceLocation, TestEvent, TestFailure,
    TestFile, TestName, TestOutcome,
};
use crate::js::{CallEnd, ConsoleTarget, HostConfig, JsError, JsHost, JsRuntime, OutputSink};

/// How often a running file's results go to the runner (and, for the file being shown, to
/// the screen).
const FLUSH_EVERY: Duration = Duration::from_millis(50);

/// Files one host serves at most: a file's retired modules stay in memory until their context
/// goes, so a new host after this many bounds what a long suite keeps.
const FILES_PER_HOST: usize = 64;

/// What a file's thread sends the runner.
#[derive(Debug)]
pub(super) enum FileMessage {
    Event(Box<TestEvent>),
    /// The file is done; nothing follows.
    End {
        expect_calls: u64,
        filtered: u64,
        snapshots: SnapshotCounts,
    },
    /// `--bail` stopped the run before this file started; nothing follows.
    NotRun,
}

/// What every file of a run shares.
pub(super) struct FileSettings {
    pub cwd: PathBuf,
    pub name_pattern: Option<String>,
    pub timeout: Duration,
    pub update_snapshots: bool,
    pub ci: bool,
    pub bail: Arc<Bail>,
}

/// A worker thread's host, kept from one file to the next while it can be.
pub(super) struct WorkerHost<'a> {
    js: &'a Result<JsRuntime, JsError>,
    /// The host the last file ran in, not reset yet (the thread's last file needs no reset).
    host: Option<JsHost>,
    /// Files the kept host has served.
    served: usize,
    /// The recorder of the file running now: the host's console writes to it.
    recorder: Rc<RefCell<Option<Rc<Recorder>>>>,
}

impl<'a> WorkerHost<'a> {
    pub(super) fn new(js: &'a Result<JsRuntime, JsError>) -> WorkerHost<'a> {
        WorkerHost {
            js,
            host: None,
            served: 0,
            recorder: Rc::default(),
        }
    }

    /// The kept host, reset for its next file, or a new one.
    #[allow(clippy::result_large_err)] // once per host, as JsHost::new_in gives it
    fn take(&mut self, settings: &FileSettings, file: &TestFile) -> Result<JsHost, JsError> {
        if let Some(mut host) = self.host.take() {
            if host.reset_for_next_user() {
                return Ok(host);
            }
            self.drop_host(host);
        }
        self.served = 0;
        let current = self.recorder.clone();
        let config = HostConfig {
            cwd: settings.cwd.clone(),
            argv: file_argv(file),
            console: ConsoleTarget::Capture(OutputSink::new(move |stream, text| {
                if let Some(recorder) = current.borrow().as_ref() {
                    recorder.event(TestEvent::Output {
                        stream,
                        text: text.to_string(),
                    });
                }
            })),
        };
        match self.js {
            Ok(js) => JsHost::new_in(js, config),
            Err(error) => Err(error.clone()),
        }
    }

    /// The file is done with `host`: keep it for the next file if it ended well, else drop it.
    fn give_back(&mut self, host: JsHost, ended_well: bool) {
        self.recorder.borrow_mut().take();
        self.served += 1;
        if ended_well && self.served < FILES_PER_HOST {
            self.host = Some(host);
        } else {
            self.drop_host(host);
        }
    }

    /// Drops `host` and collects what its context leaves behind (its objects refer to each
    /// other, and to it).
    fn drop_host(&self, host: JsHost) {
        drop(host);
        if let Ok(js) = self.js {
            js.collect_garbage();
        }
    }

    /// The thread has run its last file and the process is about to exit: the kept host's
    /// engine memory is left to the operating system, which frees it faster than QuickJS does.
    pub(super) fn finish(mut self) {
        if let Some(mut host) = self.host.take() {
            host.leak_engine_at_exit();
        }
    }
}

/// Runs `file` to its end (or until `stop` turns true) and sends what happens through `send`,
/// in batches (every `FLUSH_EVERY` while the file runs), `FileMessage::End` last.
pub(super) fn run_file(
    file: &TestFile,
    settings: &FileSettings,
    worker: &mut WorkerHost<'_>,
    runtime: &Handle,
    stop: watch::Receiver<bool>,
    send: impl Fn(Vec<FileMessage>) + 'static,
) {
    let recorder = Rc::new(Recorder::new(Box::new(send), settings.bail.clone()));
    let end = runtime.block_on(drive(file, settings, worker, recorder.clone(), stop));
    if let Some(end) = end {
        recorder.call_ended(end);
    }
    recorder.finish();
}

/// Takes the worker's host, runs the file's tests, gives the host back. `None` when stopped
/// by `stop`.
async fn drive(
    file: &TestFile,
    settings: &FileSettings,
    worker: &mut WorkerHost<'_>,
    recorder: Rc<Recorder>,
    stop: watch::Receiver<bool>,
) -> Option<Ended> {
    let mut host = match worker.take(settings, file) {
        Ok(host) => host,
        Err(error) => return Some(Ended::NoEngine(error)),
    };
    *worker.recorder.borrow_mut() = Some(recorder.clone());
    host.state().set_argv(file_argv(file));
    recorder.set_interrupt(host.interrupt_flag());
    let reports = recorder.clone();
    host.state().put(Rc::new(FileReportSink::new(move |report| {
        reports.report(report)
    })));
    let uncaught = recorder.clone();
    host.report_uncaught(move |error| uncaught.uncaught(&error));
    let args = json!({
        "file": file.path.display().to_string(),
        "namePattern": settings.name_pattern,
        "timeoutMs": settings.timeout.as_secs_f64() * 1000.0,
        "updateSnapshots": settings.update_snapshots,
        "ci": settings.ci,
    });
    let end = tokio::select! {
        end = host.call("awf:test/file_runner", "runTestFile", args) => Some(Ended::Call(end)),
        _ = stopped(stop) => None,
        _ = flush_while_running(&recorder) => None,
    };
    let ended_well =
        matches!(end, Some(Ended::Call(CallEnd::Returned(_)))) && !recorder.bailed.get();
    worker.give_back(host, ended_well);
    end
}

/// `process.argv` of a test file: awf, then the file.
fn file_argv(file: &TestFile) -> Vec<String> {
    vec![awf_executable(), file.path.display().to_string()]
}

/// Sends what the file reported so far every `FLUSH_EVERY`, whenever its JS lets the thread
/// run; never resolves.
async fn flush_while_running(recorder: &Recorder) {
    loop {
        tokio::time::sleep(FLUSH_EVERY).await;
        recorder.flush();
    }
}

/// Resolves once `stop` turns true (never, if its sender goes away first).
async fn stopped(mut stop: watch::Receiver<bool>) {
    if stop.wait_for(|stop| *stop).await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn awf_executable() -> String {
    std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_else(|_| "awf".to_string())
}

enum Ended {
    Call(CallEnd),
    NoEngine(JsError),
}

/// Turns a file's reports, output and uncaught errors into its events, in order.
struct Recorder {
    send: Box<dyn Fn(Vec<FileMessage>)>,
    /// Messages not sent yet: one send per batch spares the runner's thread a wake-up per test.
    pending: RefCell<Vec<FileMessage>>,
    bail: Arc<Bail>,
    /// `--bail` stopped the run at one of this file's failures: nothing after it is reported,
    /// and the host's JS is interrupted.
    bailed: Cell<bool>,
    interrupt: RefCell<Option<Arc<AtomicBool>>>,
    /// The test between its `start` and its result, and when it started.
    running: RefCell<Option<(TestName, Instant)>>,
    /// The first error nobody caught while `running` ran: the test fails with it.
    caught: RefCell<Option<TestFailure>>,
    /// `running` is a `test.failing`: an error nobody caught makes it pass instead, as in bun.
    running_failing: Cell<bool>,
    /// `expect()` calls, filtered tests and snapshot counts, from the `end` report.
    counts: Cell<(u64, u64, SnapshotCounts)>,
}

impl Recorder {
    fn new(send: Box<dyn Fn(Vec<FileMessage>)>, bail: Arc<Bail>) -> Recorder {
        Recorder {
            send,
            pending: RefCell::default(),
            bail,
            bailed: Cell::new(false),
            interrupt: RefCell::default(),
            running: RefCell::default(),
            caught: RefCell::default(),
            running_failing: Cell::new(false),
            counts: Cell::new((0, 0, SnapshotCounts::default())),
        }
    }

    fn set_interrupt(&self, flag: Arc<AtomicBool>) {
        *self.interrupt.borrow_mut() = Some(flag);
    }

    fn event(&self, event: TestEvent) {
        if self.bailed.get() {
            return;
        }
        let failure = matches!(
            event,
            TestEvent::UncaughtError { .. }
                | TestEvent::Result {
                    outcome: TestOutcome::Failed(_),
                    ..
                }
        );
        self.pending
            .borrow_mut()
            .push(FileMessage::Event(Box::new(event)));
        if failure && self.bail.count_failure() {
            self.bailed.set(true);
            if let Some(flag) = self.interrupt.borrow().as_ref() {
                flag.store(true, Ordering::SeqCst);
            }
        }
    }

    fn report(&self, report: FileReport) {
        match report {
            FileReport::Start { test, failing } => {
                *self.running.borrow_mut() = Some((test, Instant::now()));
                self.running_failing.set(failing);
                self.caught.borrow_mut().take();
            }
            FileReport::Pass { test, duration_ms } => {
                let outcome = match self.caught.borrow_mut().take() {
                    Some(_) if self.running_failing.get() => TestOutcome::Passed,
                    Some(failure) => TestOutcome::Failed(failure),
                    None => TestOutcome::Passed,
                };
                self.test_ended(test, millis(duration_ms), outcome);
            }
            FileReport::Fail {
                test,
                duration_ms,
                failure,
            } => {
                // The uncaught error came first; what the test threw may only follow from it.
                let outcome = match self.caught.borrow_mut().take() {
                    Some(_) if self.running_failing.get() => TestOutcome::Passed,
                    caught => TestOutcome::Failed(caught.unwrap_or(failure)),
                };
                self.test_ended(test, millis(duration_ms), outcome);
            }
            FileReport::Skip { test } => {
                self.test_ended(test, Duration::ZERO, TestOutcome::Skipped)
            }
            FileReport::Todo { test } => self.test_ended(test, Duration::ZERO, TestOutcome::Todo),
            FileReport::Error { origin, failure } => {
                self.event(TestEvent::UncaughtError { origin, failure })
            }
            FileReport::End {
                expect_calls,
                filtered,
                snapshots,
            } => self.counts.set((expect_calls, filtered, snapshots)),
        }
    }

    fn test_ended(&self, test: TestName, duration: Duration, outcome: TestOutcome) {
        self.running.borrow_mut().take();
        self.event(TestEvent::Result {
            test,
            duration,
            outcome,
        });
    }

    /// An error nobody caught: the running test's failure, else an error of the file.
    fn uncaught(&self, error: &JsError) {
        let failure = failure_of(error);
        let running = self.running.borrow().clone();
        match running {
            Some(_) if self.caught.borrow().is_none() => *self.caught.borrow_mut() = Some(failure),
            Some((test, _)) => self.event(TestEvent::UncaughtError {
                origin: format!("while \"{}\" ran", test.full()),
                failure,
            }),
            None => self.event(TestEvent::UncaughtError {
                origin: "between tests".into(),
                failure,
            }),
        }
    }

    /// The call into the file's runner is over. Anything but a normal return fails the test
    /// that was running, or else is an error of the file.
    fn call_ended(&self, end: Ended) {
        let running = self.running.borrow_mut().take();
        let subject = match &running {
            Some((test, _)) => format!("test \"{}\"", test.full()),
            None => "the file".to_string(),
        };
        let (origin, failure) = match end {
            Ended::Call(_) if self.bailed.get() => return,
            Ended::Call(CallEnd::Returned(_)) => return,
            Ended::Call(CallEnd::Threw(error)) => ("running the tests", failure_of(&error)),
            Ended::Call(CallEnd::Exited(code)) => (
                "process.exit",
                TestFailure {
                    hint: Some("a test file must not end the process; throw, or let the test fail, instead".into()),
                    ..TestFailure::message("Error", format!("{subject} called process.exit({code}); the file's remaining tests did not run"))
                },
            ),
            Ended::Call(CallEnd::Stalled) => (
                "stalled",
                TestFailure {
                    hint: Some("no timer or I/O was pending; look for a promise that is never resolved, or give the test a time limit".into()),
                    ..TestFailure::message("Error", format!("{subject} can never finish: it awaits a promise that nothing will settle"))
                },
            ),
            Ended::Call(CallEnd::Interrupted) => (
                "interrupted",
                TestFailure::message("Error", format!("{subject} was interrupted")),
            ),
            Ended::NoEngine(error) => ("starting the JS engine", failure_of(&error)),
        };
        match running {
            Some((test, started)) => self.event(TestEvent::Result {
                test,
                duration: started.elapsed(),
                outcome: TestOutcome::Failed(failure),
            }),
            None => self.event(TestEvent::UncaughtError {
                origin: origin.to_string(),
                failure,
            }),
        }
    }

    fn finish(&self) {
        let (expect_calls, filtered, snapshots) = self.counts.get();
        self.pending.borrow_mut().push(FileMessage::End {
            expect_calls,
            filtered,
            snapshots,
        });
        self.flush();
    }

    fn flush(&self) {
        let batch = std::mem::take(&mut *self.pending.borrow_mut());
        if !batch.is_empty() {
            (self.send)(batch);
        }
    }
}

/// An error the engine caught, as a test failure.
fn failure_of(error: &JsError) -> TestFailure {
    TestFailure {
        name: error.name.clone(),
        message: error.message.clone(),
        diff: None,
        stack: Some(error.stack.clone()).filter(|stack| !stack.is_empty()),
        code: error.code.clone(),
        hint: error.hint.clone(),
        location: error.location.as_ref().map(|at| SourceLocation {
            file: at.file.clone(),
            line: at.line,
            col: at.col,
        }),
    }
}
