//! The test event stream: what a test run reports, in the order reporters read it (deno's
//! `TestEvent`), and `FileReport`, what one file's JS runner (js/test/file_runner.ts) sends
//! through the `test_event` op.
//!
//! The runner (mod.rs) turns each file's reports into `TestEvent`s and releases the files in
//! their plan order, so a file's events always arrive between its `FileStart` and `FileEnd`.
//! Reporters (report/) only read these events; `Totals` is the count they and the CLI share.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

pub use crate::js::OutputStream;

/// A test file about to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFile {
    /// Absolute path.
    pub path: PathBuf,
    /// As the user sees it: relative to the cwd when under it.
    pub shown: String,
}

/// A test: the names of the describes around it, outermost first, and its own name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct TestName {
    pub path: Vec<String>,
    pub name: String,
}

impl TestName {
    /// `describe > inner > name`, bun's way of naming a test.
    pub fn full(&self) -> String {
        let mut parts = self.path.clone();
        parts.push(self.name.clone());
        parts.join(" > ")
    }
}

/// A place in a source file (1-based).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct SourceLocation {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// Why a test (or a file, outside any test) failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct TestFailure {
    /// `AssertionError` for a failed matcher, `TimeoutError` for a time-out, else the error's class.
    pub name: String,
    /// A matcher's headline (`expect(received).toEqual(expected)`), else the error's message.
    pub message: String,
    /// A matcher's Expected/Received lines or its `- Expected` / `+ Received` diff.
    #[serde(default)]
    pub diff: Option<String>,
    /// The `at ...` frames outside the test machinery, innermost first, one per line.
    #[serde(default)]
    pub stack: Option<String>,
    /// awf's error code (`module-not-found`, `syntax-error`, ...).
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub hint: Option<String>,
    /// Where a syntax or resolve error was written; other failures are placed by their stack.
    #[serde(default)]
    pub location: Option<SourceLocation>,
}

impl TestFailure {
    pub fn message(name: &str, message: impl Into<String>) -> TestFailure {
        TestFailure {
            name: name.to_string(),
            message: message.into(),
            ..TestFailure::default()
        }
    }

    pub fn is_timeout(&self) -> bool {
        self.name == "TimeoutError"
    }

    /// The frames, one per line, without their indentation.
    pub fn frames(&self) -> impl Iterator<Item = &str> {
        self.stack
            .as_deref()
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
    }

    /// Where to show a code frame: the error's own location, else the first frame in a file
    /// (not a built-in `awf:` module, not native code).
    pub fn source_location(&self) -> Option<SourceLocation> {
        if let Some(location) = &self.location {
            return Some(location.clone());
        }
        self.frames().find_map(frame_location)
    }
}

/// `at name (/abs/file.ts:3:9)` or `at /abs/file.ts:3:9` -> the file's location.
pub fn frame_location(frame: &str) -> Option<SourceLocation> {
    let at = frame.trim().strip_prefix("at ")?;
    let place = match (at.rfind('('), at.ends_with(')')) {
        (Some(open), true) => &at[open + 1..at.len() - 1],
        _ => at.rsplit(' ').next()?,
    };
    let mut parts = place.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    if !file.starts_with('/') {
        return None;
    }
    Some(SourceLocation {
        file: file.to_string(),
        line,
        col,
    })
}

/// How a test ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestOutcome {
    Passed,
    Failed(TestFailure),
    Skipped,
    Todo,
}

/// One thing that happened in a test run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestEvent {
    /// First: the files that will run, in the order their results are reported.
    Plan { files: Vec<TestFile> },
    /// The events up to the matching `FileEnd` belong to this file (an index into the plan).
    FileStart { file: usize },
    /// A test ended.
    Result {
        test: TestName,
        duration: Duration,
        outcome: TestOutcome,
    },
    /// Text the file wrote (console, process.stdout/stderr), where it wrote it.
    Output { stream: OutputStream, text: String },
    /// A failure outside any test: the file did not load, a describe body or an afterAll hook
    /// threw, an error nobody caught between tests, the file could never finish. `origin` says
    /// which. Counts as a failure.
    UncaughtError {
        origin: String,
        failure: TestFailure,
    },
    /// The file is done. `filtered`: tests `.only` or `-t` left out; `expect_calls` made;
    /// what its snapshot matchers found and wrote.
    FileEnd {
        file: usize,
        expect_calls: u64,
        filtered: u64,
        snapshots: SnapshotCounts,
    },
    /// `--bail`: the run stopped early, after this many failures.
    Bailed { failures: usize },
    /// Last: the totals of the run.
    Finished { totals: Totals, elapsed: Duration },
}

/// What a file's snapshot matchers did (js/test/snapshot.ts counts it), and their sum over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct SnapshotCounts {
    /// Snapshot matcher calls that reached the snapshot file.
    pub total: u64,
    pub passed: u64,
    /// Written for the first time.
    pub added: u64,
    /// Rewritten by `--update-snapshots` because they differed.
    pub updated: u64,
    pub failed: u64,
    /// In the file, but no test checks them any more.
    pub obsolete: u64,
    /// Obsolete ones `--update-snapshots` took out of the file.
    pub removed: u64,
}

impl SnapshotCounts {
    pub fn add(&mut self, other: &SnapshotCounts) {
        self.total += other.total;
        self.passed += other.passed;
        self.added += other.added;
        self.updated += other.updated;
        self.failed += other.failed;
        self.obsolete += other.obsolete;
        self.removed += other.removed;
    }
}

/// The counts of a run, added up from its events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub todo: u64,
    /// Failures outside tests (`UncaughtError`).
    pub errors: u64,
    /// Files that reported (started and ended).
    pub files: u64,
    pub expect_calls: u64,
    /// Tests left out by `.only` or `-t`.
    pub filtered: u64,
    pub snapshots: SnapshotCounts,
}

impl Totals {
    pub fn add(&mut self, event: &TestEvent) {
        match event {
            TestEvent::Result { outcome, .. } => match outcome {
                TestOutcome::Passed => self.passed += 1,
                TestOutcome::Failed(_) => self.failed += 1,
                TestOutcome::Skipped => self.skipped += 1,
                TestOutcome::Todo => self.todo += 1,
            },
            TestEvent::UncaughtError { .. } => self.errors += 1,
            TestEvent::FileEnd {
                expect_calls,
                filtered,
                snapshots,
                ..
            } => {
                self.files += 1;
                self.expect_calls += expect_calls;
                self.filtered += filtered;
                self.snapshots.add(snapshots);
            }
            _ => {}
        }
    }

    /// Tests reported: run, skipped or todo.
    pub fn tests(&self) -> u64 {
        self.passed + self.failed + self.skipped + self.todo
    }

    /// Failed tests and failures outside tests, as bun counts "fail".
    pub fn failures(&self) -> u64 {
        self.failed + self.errors
    }

    /// All passed and at least one test was found.
    pub fn succeeded(&self) -> bool {
        self.failures() == 0 && self.tests() > 0
    }
}

/// What a file's JS runner reports through the `test_event` op, one object per call, tagged
/// by `kind` (js/test/file_runner.ts writes them).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FileReport {
    /// A test is about to run (its beforeEach hooks first); `failing` for a `test.failing`,
    /// which an error nobody caught makes pass.
    Start {
        test: TestName,
        #[serde(default)]
        failing: bool,
    },
    Pass {
        test: TestName,
        duration_ms: f64,
    },
    Fail {
        test: TestName,
        duration_ms: f64,
        failure: TestFailure,
    },
    Skip {
        test: TestName,
    },
    Todo {
        test: TestName,
    },
    /// A failure outside any test; `where` names the place (`describe("x")`, `afterAll`, `loading`).
    Error {
        #[serde(rename = "where")]
        origin: String,
        failure: TestFailure,
    },
    /// The tests ran to their end.
    End {
        expect_calls: u64,
        filtered: u64,
        #[serde(default)]
        snapshots: SnapshotCounts,
    },
}

/// A report from js/test/file_runner.ts that does not read as one.
#[derive(Debug, thiserror::Error)]
#[error("not a test report: {0}")]
pub struct ReportError(#[from] serde_json::Error);

impl FileReport {
    /// Reads one report as the op received it.
    pub fn from_json_text(text: &str) -> Result<FileReport, ReportError> {
        Ok(serde_json::from_str(text)?)
    }
}

/// Where a host's `test_event` op sends its file's reports: the file runner puts one with each
/// host it starts (`HostState::put`).
pub struct FileReportSink(Box<dyn Fn(FileReport)>);

impl FileReportSink {
    pub fn new(report: impl Fn(FileReport) + 'static) -> FileReportSink {
        FileReportSink(Box::new(report))
    }

    pub fn report(&self, report: FileReport) {
        (self.0)(report)
    }
}

/// A duration given in milliseconds by JS (negative or not a number reads as zero; past
/// `duration::MAX_DURATION` as that).
pub fn millis(ms: f64) -> Duration {
    crate::duration::clamp_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_reports_as_the_file_runner_writes_them() {
        let fail = json!({
            "kind": "fail",
            "test": { "path": ["outer"], "name": "eq" },
            "durationMs": 1.5,
            "failure": { "name": "AssertionError", "message": "expect(received).toBe(expected)", "diff": "Expected: 2\nReceived: 1" }
        });
        assert_eq!(
            FileReport::from_json_text(&fail.to_string()).unwrap(),
            FileReport::Fail {
                test: TestName {
                    path: vec!["outer".into()],
                    name: "eq".into()
                },
                duration_ms: 1.5,
                failure: TestFailure {
                    diff: Some("Expected: 2\nReceived: 1".into()),
                    ..TestFailure::message("AssertionError", "expect(received).toBe(expected)")
                },
            }
        );
        let error = json!({ "kind": "error", "where": "afterAll", "failure": { "name": "Error", "message": "x" } });
        assert!(matches!(
            FileReport::from_json_text(&error.to_string()).unwrap(),
            FileReport::Error { origin, .. } if origin == "afterAll"
        ));
        let end = json!({ "kind": "end", "expectCalls": 3, "filtered": 1 });
        assert_eq!(
            FileReport::from_json_text(&end.to_string()).unwrap(),
            FileReport::End {
                expect_calls: 3,
                filtered: 1,
                snapshots: SnapshotCounts::default(),
            }
        );
        assert!(FileReport::from_json_text(r#"{ "kind": "nope" }"#).is_err());
        // A `test.failing` says so when it starts; any other test leaves `failing` out.
        let start = |text: &str| match FileReport::from_json_text(text).unwrap() {
            FileReport::Start { test, failing } => (test.name, failing),
            other => panic!("not a start: {other:?}"),
        };
        let failing = r#"{"kind":"start","test":{"path":[],"name":"f"},"failing":true}"#;
        assert_eq!(start(failing), ("f".to_string(), true));
        let plain = r#"{"kind":"start","test":{"path":[],"name":"p"}}"#;
        assert_eq!(start(plain), ("p".to_string(), false));
    }

    #[test]
    fn a_failure_is_placed_by_its_first_frame_in_a_file() {
        let failure = TestFailure {
            stack: Some("    at check (awf:test/expect:10:3)\n    at <anonymous> (/p/a.test.ts:3:47)\n    at /p/b.ts:1:2".into()),
            ..TestFailure::message("Error", "x")
        };
        assert_eq!(
            failure.source_location(),
            Some(SourceLocation {
                file: "/p/a.test.ts".into(),
                line: 3,
                col: 47
            })
        );
        assert_eq!(
            frame_location("at /p/b.ts:1:2").map(|l| (l.line, l.col)),
            Some((1, 2))
        );
        assert_eq!(frame_location("at f (native)"), None);
    }

    #[test]
    fn totals_count_errors_as_failures_and_need_a_test() {
        let mut totals = Totals::default();
        assert!(!totals.succeeded());
        totals.add(&TestEvent::Result {
            test: TestName {
                path: vec![],
                name: "t".into(),
            },
            duration: Duration::ZERO,
            outcome: TestOutcome::Skipped,
        });
        assert!(totals.succeeded());
        totals.add(&TestEvent::UncaughtError {
            origin: "loading".into(),
            failure: TestFailure::message("SyntaxError", "x"),
        });
        assert_eq!((totals.tests(), totals.failures()), (1, 1));
        assert!(!totals.succeeded());
    }
}
