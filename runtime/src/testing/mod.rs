//! `awf test`: find the test files, run them on as many threads as there are cores, each thread
//! taking the next file when it is done with one and running its files one after the other in
//! one `JsHost`, reset between files so that each sees none of the one before (file.rs); hand
//! their events to the reporters in a stable order.
//!
//! - `discover`: which files run.
//! - `file`: one file in one host: its lifecycle, from start to the host's drop.
//! - `event`: the `TestEvent` stream reporters read, and what a file's JS runner reports.
//! - `report/`: `pretty` (bun's text) and `junit` (bun's XML); each only reads events.
//!
//! Files run in parallel but report in plan order (sorted by path): the first file not yet
//! done streams its events live, the ones after it wait in a buffer until it ends, so output
//! never interleaves. The CLI (cli/src/commands/test.rs) only parses arguments and prints.

mod bail;
pub mod discover;
pub mod event;
mod file;
pub mod report;
pub mod snapshot_file;

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use tokio::runtime::Handle;
use tokio::sync::watch;

use bail::Bail;

use crate::js::{CallEnd, ConsoleTarget, HostConfig, JsHost, JsRuntime};
use event::{TestEvent, TestFile, Totals};
use file::{FileMessage, FileSettings};
use report::TestReporter;

/// Stack of each file's thread: QuickJS stops JS at 4 MiB of stack (js/engine/js_runtime.rs), with room to
/// spare for the Rust frames around it.
const FILE_THREAD_STACK: usize = 8 * 1024 * 1024;

/// Why a test run could not start: the command line asked for something that is not there.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    #[error("{}: {source}", path.display())]
    MissingPath {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the folder {}: {source}", dir.display())]
    Unreadable {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("-t {pattern:?} is not a regular expression: {reason}")]
    BadPattern { pattern: String, reason: String },
    #[error("cannot start the JS engine to check -t: {0}")]
    Engine(String),
}

impl crate::hint::Hint for TestError {
    fn hint(&self) -> Option<String> {
        match self {
            TestError::MissingPath { .. } => {
                Some("pass test files or folders that exist, or none to search the current directory".into())
            }
            TestError::BadPattern { .. } => {
                Some("-t takes a JavaScript regular expression; escape ( ) [ ] . * + ? with a backslash to match them as text".into())
            }
            TestError::Unreadable { .. } | TestError::Engine(_) => None,
        }
    }
}

/// How the tests run.
#[derive(Clone, Debug)]
pub struct TestOptions {
    /// Relative paths are read against it; test files see it as `process.cwd()`.
    pub cwd: PathBuf,
    /// `-t`: run only tests whose describe names and own name, joined by spaces, match.
    pub name_pattern: Option<String>,
    /// Time limit of a test or hook that sets none.
    pub timeout: Duration,
    /// `--bail`: stop after this many failures.
    pub bail: Option<usize>,
    /// Files that run at once.
    pub jobs: usize,
    /// `--update-snapshots`: rewrite the snapshot files from what the tests give.
    pub update_snapshots: bool,
    /// A CI run (`running_in_ci`): a missing snapshot fails instead of being written, as in bun.
    pub ci: bool,
}

/// CI variables whose presence means a CI run when `CI` itself is not set (a few of the ones bun
/// recognises).
const CI_VARIABLES: &[&str] = &[
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "TEAMCITY_VERSION",
    "TF_BUILD",
    "CODEBUILD_BUILD_ID",
    "BITBUCKET_BUILD_NUMBER",
    "DRONE",
    "APPVEYOR",
];

/// Whether the environment is a CI run, as bun decides for snapshots: `CI` set to anything but
/// `false`, `0` or nothing; when `CI` is not set, one of the CI services' own variables.
pub fn running_in_ci(var: impl Fn(&str) -> Option<String>) -> bool {
    match var("CI") {
        Some(value) => !matches!(value.trim(), "" | "0" | "false"),
        None => CI_VARIABLES
            .iter()
            .any(|name| var(name).is_some_and(|value| !value.is_empty())),
    }
}

/// The files of a run and how to run them, checked.
#[derive(Debug)]
pub struct TestRun {
    files: Vec<TestFile>,
    options: TestOptions,
}

impl TestRun {
    /// Finds the test files under `paths` (the cwd when empty) and checks the options.
    pub fn prepare(
        paths: &[PathBuf],
        options: TestOptions,
        runtime: &Handle,
    ) -> Result<TestRun, TestError> {
        let files = discover::find_test_files(&options.cwd, paths)?;
        if let Some(pattern) = &options.name_pattern {
            check_name_pattern(pattern, &options.cwd, runtime)?;
        }
        Ok(TestRun { files, options })
    }

    pub fn files(&self) -> &[TestFile] {
        &self.files
    }

    /// Runs every file and reports to each reporter; gives back the totals. The process is
    /// expected to exit soon after: the engines' last hosts are left to it, not freed.
    pub fn run(self, runtime: &Handle, reporters: &mut [&mut dyn TestReporter]) -> Totals {
        let started = Instant::now();
        let totals = Cell::new(Totals::default());
        let mut emit = |event: TestEvent| {
            let mut sum = totals.get();
            sum.add(&event);
            totals.set(sum);
            for reporter in reporters.iter_mut() {
                reporter.report(&event);
            }
        };
        emit(TestEvent::Plan {
            files: self.files.clone(),
        });
        let failures = run_files(&self.files, &self.options, runtime, &mut emit);
        if let Some(failures) = failures {
            emit(TestEvent::Bailed { failures });
        }
        emit(TestEvent::Finished {
            totals: totals.get(),
            elapsed: started.elapsed(),
        });
        totals.get()
    }
}

/// Runs the files on up to `options.jobs` threads and emits their events in plan order.
/// Gives back the number of failures when `--bail` stopped the run.
fn run_files(
    files: &[TestFile],
    options: &TestOptions,
    runtime: &Handle,
    emit: &mut dyn FnMut(TestEvent),
) -> Option<usize> {
    let (stop, stopped) = watch::channel(false);
    let settings = FileSettings {
        cwd: options.cwd.clone(),
        name_pattern: options.name_pattern.clone(),
        timeout: options.timeout,
        update_snapshots: options.update_snapshots,
        ci: options.ci,
        bail: Arc::new(Bail {
            limit: options.bail,
            failures: AtomicUsize::new(0),
            stop,
        }),
    };
    let next_file = AtomicUsize::new(0);
    let (sender, batches) = mpsc::channel::<(usize, Vec<FileMessage>)>();
    let workers = options.jobs.clamp(1, files.len().max(1));
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let sender = sender.clone();
            let stopped = stopped.clone();
            let (settings, next_file) = (&settings, &next_file);
            std::thread::Builder::new()
                .name(format!("awf-test-{worker}"))
                .stack_size(FILE_THREAD_STACK)
                .spawn_scoped(scope, move || {
                    // One QuickJS runtime for the thread's files, and one host in it for as many
                    // of them as it can serve (file.rs).
                    let js = JsRuntime::new();
                    let mut worker = file::WorkerHost::new(&js);
                    loop {
                        let index = next_file.fetch_add(1, Ordering::SeqCst);
                        let Some(file) = files.get(index) else {
                            break;
                        };
                        if *stopped.borrow() {
                            let _ = sender.send((index, vec![FileMessage::NotRun]));
                            continue;
                        }
                        let sender = sender.clone();
                        let send = move |batch| {
                            let _ = sender.send((index, batch));
                        };
                        file::run_file(file, settings, &mut worker, runtime, stopped.clone(), send);
                    }
                    worker.finish();
                })
                .expect("the OS starts a thread for a test file");
        }
        drop(sender);
        let mut order = Sequencer::new(files.len());
        for (index, batch) in batches {
            order.push(index, batch, emit);
        }
    });
    settings.bail.limit.filter(|_| *stopped.borrow())
}

/// Releases each file's messages in plan order: those of the first file not yet done go out as
/// they come; later files' wait until every file before them is done.
struct Sequencer {
    next: usize,
    buffered: Vec<Vec<FileMessage>>,
    /// The `next` file's `FileStart` went out.
    started: bool,
}

impl Sequencer {
    fn new(files: usize) -> Sequencer {
        Sequencer {
            next: 0,
            buffered: (0..files).map(|_| Vec::new()).collect(),
            started: false,
        }
    }

    fn push(&mut self, file: usize, batch: Vec<FileMessage>, emit: &mut dyn FnMut(TestEvent)) {
        self.buffered[file].extend(batch);
        while self.next < self.buffered.len() {
            let file = self.next;
            let mut done = false;
            for message in std::mem::take(&mut self.buffered[file]) {
                match message {
                    FileMessage::NotRun => done = true,
                    FileMessage::Event(event) => {
                        self.start(file, emit);
                        emit(*event);
                    }
                    FileMessage::End {
                        expect_calls,
                        filtered,
                        snapshots,
                    } => {
                        self.start(file, emit);
                        emit(TestEvent::FileEnd {
                            file,
                            expect_calls,
                            filtered,
                            snapshots,
                        });
                        done = true;
                    }
                }
            }
            if !done {
                break;
            }
            self.next += 1;
            self.started = false;
        }
    }

    fn start(&mut self, file: usize, emit: &mut dyn FnMut(TestEvent)) {
        if !self.started {
            self.started = true;
            emit(TestEvent::FileStart { file });
        }
    }
}

/// `-t` is a JS regular expression: the engine says whether it is one, before any file runs.
fn check_name_pattern(pattern: &str, cwd: &Path, runtime: &Handle) -> Result<(), TestError> {
    let config = HostConfig {
        cwd: cwd.to_path_buf(),
        argv: Vec::new(),
        console: ConsoleTarget::Stderr,
    };
    let mut host = JsHost::new(config).map_err(|e| TestError::Engine(e.headline()))?;
    let end = runtime.block_on(host.call(
        "awf:test/file_runner",
        "namePatternError",
        serde_json::Value::String(pattern.to_string()),
    ));
    match end {
        CallEnd::Returned(Some(serde_json::Value::String(reason))) => Err(TestError::BadPattern {
            pattern: pattern.to_string(),
            reason,
        }),
        CallEnd::Returned(_) => Ok(()),
        other => Err(TestError::Engine(format!("{other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use event::{TestName, TestOutcome};

    fn result(name: &str) -> FileMessage {
        FileMessage::Event(Box::new(TestEvent::Result {
            test: TestName {
                path: vec![],
                name: name.into(),
            },
            duration: Duration::ZERO,
            outcome: TestOutcome::Passed,
        }))
    }

    fn end() -> FileMessage {
        FileMessage::End {
            expect_calls: 0,
            filtered: 0,
            snapshots: Default::default(),
        }
    }

    fn names(events: &[TestEvent]) -> Vec<String> {
        events
            .iter()
            .map(|event| match event {
                TestEvent::FileStart { file } => format!("start {file}"),
                TestEvent::FileEnd { file, .. } => format!("end {file}"),
                TestEvent::Result { test, .. } => test.name.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn ci_is_what_bun_takes_for_ci() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.to_string())
            }
        };
        assert!(running_in_ci(env(&[("CI", "true")])));
        assert!(running_in_ci(env(&[("CI", "1")])));
        assert!(!running_in_ci(env(&[("CI", "false")])));
        assert!(!running_in_ci(env(&[("CI", "0")])));
        assert!(!running_in_ci(env(&[("CI", "")])));
        assert!(running_in_ci(env(&[("GITHUB_ACTIONS", "true")])));
        assert!(!running_in_ci(env(&[
            ("CI", "false"),
            ("GITHUB_ACTIONS", "true")
        ])));
        assert!(!running_in_ci(env(&[])));
    }

    #[test]
    fn files_report_in_plan_order_whatever_order_they_finish_in() {
        let mut order = Sequencer::new(4);
        let mut events = Vec::new();
        let mut emit = |event| events.push(event);
        order.push(1, vec![result("b1")], &mut emit);
        order.push(0, vec![result("a1")], &mut emit);
        order.push(3, vec![FileMessage::NotRun], &mut emit);
        order.push(1, vec![end()], &mut emit);
        order.push(2, vec![end()], &mut emit);
        order.push(0, vec![result("a2"), end()], &mut emit);
        assert_eq!(
            names(&events),
            ["start 0", "a1", "a2", "end 0", "start 1", "b1", "end 1", "start 2", "end 2"]
        );
    }
}
