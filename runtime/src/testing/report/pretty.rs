//! The text of a run, as `bun test` prints it on a terminal: each file's name, a line per test
//! (`✓ describe > name [0.12ms]`, `✗` failed, `» ` skipped, `✎ ` todo), each failure above its
//! `✗` line with a code frame of the failing line, the message, the diff and the stack, errors
//! outside tests in a fenced block, then bun's closing counts and `N passed, N failed[, N
//! skipped]` alone on the last line. A test file's own output is written where it happened,
//! stdout to `out` and stderr to `err`. Colour only when asked (a terminal, no NO_COLOR).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{relative, user_frames, TestReporter};
use crate::testing::event::{
    OutputStream, SnapshotCounts, SourceLocation, TestEvent, TestFailure, TestFile, TestName,
    TestOutcome, Totals,
};

/// Lines of source shown above the failing one, as bun shows them.
const CODE_FRAME_LINES_BEFORE: u32 = 5;
const FENCE: &str = "-------------------------------";

/// How the text is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrettyOptions {
    /// ANSI colours.
    pub color: bool,
    /// Flush after every event (someone watches a terminal); else after every file.
    pub live: bool,
}

pub struct PrettyReporter {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    style: Style,
    live: bool,
    cwd: PathBuf,
    files: Vec<TestFile>,
    /// The last text written to `out` did not end its line.
    mid_line: bool,
}

impl PrettyReporter {
    /// Report lines and the files' stdout go to `out`, the files' stderr to `err`; paths under
    /// `cwd` are shown relative to it.
    pub fn new(
        out: Box<dyn Write>,
        err: Box<dyn Write>,
        options: PrettyOptions,
        cwd: &Path,
    ) -> PrettyReporter {
        PrettyReporter {
            out,
            err,
            style: Style {
                color: options.color,
            },
            live: options.live,
            cwd: cwd.to_path_buf(),
            files: Vec::new(),
            mid_line: false,
        }
    }

    /// Writes report lines; output is best effort (a closed pipe must not stop the tests).
    fn lines(&mut self, text: &str) {
        let newline = if self.mid_line { "\n" } else { "" };
        self.mid_line = false;
        let _ = writeln!(self.out, "{newline}{text}");
    }

    fn output(&mut self, stream: OutputStream, text: &str) {
        match stream {
            OutputStream::Stdout => {
                let _ = self.out.write_all(text.as_bytes());
                if !text.is_empty() {
                    self.mid_line = !text.ends_with('\n');
                }
            }
            OutputStream::Stderr => {
                let _ = self.out.flush();
                let _ = self.err.write_all(text.as_bytes());
                let _ = self.err.flush();
            }
        }
    }

    fn result(&mut self, test: &TestName, duration: Duration, outcome: &TestOutcome) {
        let name = test.full();
        let s = self.style;
        match outcome {
            TestOutcome::Passed => self.lines(&format!(
                "{} {name}{}",
                s.green("✓"),
                s.dim(&took(duration))
            )),
            TestOutcome::Failed(failure) => {
                let line = format!("{} {name}{}", s.red("✗"), s.dim(&took(duration)));
                if failure.is_timeout() {
                    self.lines(&format!(
                        "{line}\n  {}",
                        s.dim(&format!("^ {}", failure.message))
                    ));
                } else {
                    let block = self.failure_text(failure);
                    self.lines(&format!("{block}\n{line}"));
                }
            }
            TestOutcome::Skipped => self.lines(&format!("{} {}", s.yellow("»"), s.dim(&name))),
            TestOutcome::Todo => self.lines(&format!("{} {}", s.magenta("✎"), s.dim(&name))),
        }
    }

    fn uncaught(&mut self, origin: &str, failure: &TestFailure) {
        let block = self.failure_text(failure);
        self.lines(&format!(
            "\n# Unhandled error between tests ({origin})\n{FENCE}\n{block}\n{FENCE}"
        ));
    }

    /// Code frame, `error: message`, the diff between blank lines, the frames, the hint.
    fn failure_text(&self, failure: &TestFailure) -> String {
        let s = self.style;
        let mut lines = Vec::new();
        let location = failure.source_location();
        if let Some(frame) = location.as_ref().and_then(|at| code_frame(at, s)) {
            lines.push(frame);
        }
        let label = match failure.name.as_str() {
            "Error" | "AssertionError" | "AwfError" | "" => "error",
            name => name,
        };
        lines.push(format!("{}: {}", s.red(label), s.bold(&failure.message)));
        if let Some(diff) = &failure.diff {
            lines.push(String::new());
            lines.extend(diff.lines().map(|line| s.diff_line(line)));
            lines.push(String::new());
        }
        let mut frames = user_frames(failure, &self.cwd);
        if frames.is_empty() {
            if let Some(at) = &failure.location {
                frames.push(format!(
                    "at {}:{}:{}",
                    relative(&at.file, &self.cwd),
                    at.line,
                    at.col
                ));
            }
        }
        lines.extend(frames.iter().map(|frame| s.dim(&format!("      {frame}"))));
        if let Some(hint) = &failure.hint {
            lines.push(String::new());
            lines.push(format!("hint: {hint}"));
        }
        lines.join("\n")
    }

    fn closing(&mut self, totals: &Totals, elapsed: Duration) {
        let s = self.style;
        let mut lines = vec![String::new(), s.green(&format!(" {} pass", totals.passed))];
        if totals.skipped > 0 {
            lines.push(s.yellow(&format!(" {} skip", totals.skipped)));
        }
        if totals.todo > 0 {
            lines.push(s.magenta(&format!(" {} todo", totals.todo)));
        }
        let fail = format!(" {} fail", totals.failures());
        lines.push(if totals.failures() > 0 {
            s.red(&fail)
        } else {
            fail
        });
        if totals.errors > 0 {
            lines.push(s.red(&format!(
                " {} error{}",
                totals.errors,
                plural(totals.errors)
            )));
        }
        let snapshots = snapshot_line(&totals.snapshots);
        let counted_snapshots = match &snapshots {
            Some(line) => {
                lines.push(line.clone());
                String::new()
            }
            None if totals.snapshots.total > 0 => format!(" {} snapshots,", totals.snapshots.total),
            None => String::new(),
        };
        if totals.expect_calls > 0 {
            lines.push(format!(
                "{counted_snapshots} {} expect() calls",
                totals.expect_calls
            ));
        }
        let tests = totals.tests();
        lines.push(format!(
            "Ran {tests} test{} across {} file{}. {}",
            plural(tests),
            totals.files,
            plural(totals.files),
            s.dim(&format!("[{}]", elapsed_text(elapsed)))
        ));
        let skipped = totals.skipped + totals.todo;
        let skipped = if skipped > 0 {
            format!(", {skipped} skipped")
        } else {
            String::new()
        };
        lines.push(format!(
            "{} passed, {} failed{skipped}",
            totals.passed,
            totals.failures()
        ));
        self.lines(&lines.join("\n"));
    }
}

impl TestReporter for PrettyReporter {
    fn report(&mut self, event: &TestEvent) {
        match event {
            TestEvent::Plan { files } => self.files = files.clone(),
            TestEvent::FileStart { file } => {
                let shown = self
                    .files
                    .get(*file)
                    .map(|f| f.shown.clone())
                    .unwrap_or_default();
                let header = self.style.bold(&format!("{shown}:"));
                self.lines(&format!("\n{header}"));
            }
            TestEvent::Result {
                test,
                duration,
                outcome,
            } => self.result(test, *duration, outcome),
            TestEvent::Output { stream, text } => self.output(*stream, text),
            TestEvent::UncaughtError { origin, failure } => self.uncaught(origin, failure),
            TestEvent::FileEnd { .. } => {}
            TestEvent::Bailed { failures } => self.lines(&format!(
                "\nBailed out after {failures} failure{}",
                plural(*failures as u64)
            )),
            TestEvent::Finished { totals, elapsed } => self.closing(totals, *elapsed),
        }
        let file_done = matches!(
            event,
            TestEvent::FileEnd { .. } | TestEvent::Finished { .. }
        );
        if self.live || file_done {
            let _ = self.out.flush();
        }
    }
}

/// ` [0.12ms]` (always in ms, as bun prints a test's time), or nothing under 0.005 ms.
fn took(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms < 0.005 {
        String::new()
    } else {
        format!(" [{ms:.2}ms]")
    }
}

/// The whole run's time: `12.00ms`, or `3.04s` from a second on.
fn elapsed_text(elapsed: Duration) -> String {
    let ms = elapsed.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{ms:.2}ms")
    } else {
        format!("{:.2}s", ms / 1000.0)
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The failing line and up to five lines above it, numbered, and a caret under the column:
/// ```text
/// 2 | describe("outer", () => {
/// 3 |   test("eq", () => expect(1).toBe(2));
///                                  ^
/// ```
fn code_frame(at: &SourceLocation, s: Style) -> Option<String> {
    let source = std::fs::read_to_string(&at.file).ok()?;
    let lines: Vec<&str> = source.lines().collect();
    let failing = *lines.get(at.line.checked_sub(1)? as usize)?;
    let first = at.line.saturating_sub(CODE_FRAME_LINES_BEFORE).max(1);
    let width = at.line.to_string().len();
    let mut out: Vec<String> = (first..=at.line)
        .map(|n| {
            let gutter = s.dim(&format!("{n:>width$} |"));
            format!("{gutter} {}", lines[n as usize - 1])
                .trim_end()
                .to_string()
        })
        .collect();
    // Keep the line's tabs under the caret so it lines up on any terminal.
    let lead: String = failing
        .chars()
        .take(at.col.saturating_sub(1) as usize)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    out.push(format!("{}{lead}{}", " ".repeat(width + 3), s.red("^")));
    Some(out.join("\n"))
}

/// ANSI colour, or plain text.
#[derive(Clone, Copy)]
struct Style {
    color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
    fn red(self, text: &str) -> String {
        self.paint("31", text)
    }
    fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }
    fn magenta(self, text: &str) -> String {
        self.paint("35", text)
    }
    fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
    fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
    /// bun's diff colours: expected (`-`) green, received (`+`) red.
    fn diff_line(self, line: &str) -> String {
        if line.starts_with('-') {
            self.green(line)
        } else if line.starts_with('+') {
            self.red(line)
        } else {
            line.to_string()
        }
    }
}

/// bun's `snapshots: 1 passed, +2 added, 1 failed` line, when a snapshot was written or failed
/// (else bun folds the count into the `expect() calls` line); awf adds `updated`, `obsolete`
/// and `removed`, which bun does not count. bun marks `added` with a `+` only when it comes first.
fn snapshot_line(counts: &SnapshotCounts) -> Option<String> {
    let mut parts = Vec::new();
    if counts.passed > 0 {
        parts.push(format!("{} passed", counts.passed));
    }
    if counts.added > 0 {
        let plus = if parts.is_empty() { "+" } else { "" };
        parts.push(format!("{plus}{} added", counts.added));
    }
    if counts.updated > 0 {
        parts.push(format!("{} updated", counts.updated));
    }
    if counts.failed > 0 {
        parts.push(format!("{} failed", counts.failed));
    }
    if counts.obsolete > 0 {
        parts.push(format!(
            "{} obsolete (awf test -u removes them)",
            counts.obsolete
        ));
    }
    if counts.removed > 0 {
        parts.push(format!("{} obsolete removed", counts.removed));
    }
    let changed = counts.added + counts.updated + counts.failed + counts.obsolete + counts.removed;
    (changed > 0).then(|| format!("snapshots: {}", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A `Write` whose text the test can read afterwards.
    #[derive(Clone, Default)]
    struct Captured(Rc<RefCell<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        fn text(&self) -> String {
            String::from_utf8(self.0.borrow().clone()).unwrap()
        }
    }

    fn name(path: &[&str], name: &str) -> TestName {
        TestName {
            path: path.iter().map(|p| p.to_string()).collect(),
            name: name.into(),
        }
    }

    fn run(cwd: &Path, events: Vec<TestEvent>) -> (String, String) {
        let (out, err) = (Captured::default(), Captured::default());
        let mut reporter = PrettyReporter::new(
            Box::new(out.clone()),
            Box::new(err.clone()),
            PrettyOptions::default(),
            cwd,
        );
        for event in &events {
            reporter.report(event);
        }
        (out.text(), err.text())
    }

    #[test]
    fn prints_bun_s_text_for_synthetic_events() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let source = "import { test } from \"bun:test\";\ndescribe(\"outer\", () => {\n  test(\"eq\", () => expect(1).toBe(2));\n});\n";
        std::fs::write(cwd.join("a.test.ts"), source).unwrap();
        let file = cwd.join("a.test.ts").display().to_string();
        let failure = TestFailure {
            diff: Some("Expected: 2\nReceived: 1".into()),
            stack: Some(format!("at <anonymous> ({file}:3:36)")),
            ..TestFailure::message("AssertionError", "expect(received).toBe(expected)")
        };
        let ms = Duration::from_micros;
        let events = vec![
            TestEvent::Plan {
                files: vec![TestFile {
                    path: cwd.join("a.test.ts"),
                    shown: "a.test.ts".into(),
                }],
            },
            TestEvent::FileStart { file: 0 },
            TestEvent::Output {
                stream: OutputStream::Stdout,
                text: "partial".into(),
            },
            TestEvent::Result {
                test: name(&["outer"], "ok"),
                duration: ms(1250),
                outcome: TestOutcome::Passed,
            },
            TestEvent::Output {
                stream: OutputStream::Stderr,
                text: "warned\n".into(),
            },
            TestEvent::Result {
                test: name(&["outer"], "eq"),
                duration: ms(300),
                outcome: TestOutcome::Failed(failure),
            },
            TestEvent::Result {
                test: name(&[], "slow"),
                duration: Duration::from_millis(5001),
                outcome: TestOutcome::Failed(TestFailure::message(
                    "TimeoutError",
                    "this test timed out after 5000ms.",
                )),
            },
            TestEvent::Result {
                test: name(&[], "later"),
                duration: Duration::ZERO,
                outcome: TestOutcome::Skipped,
            },
            TestEvent::Result {
                test: name(&[], "someday"),
                duration: Duration::ZERO,
                outcome: TestOutcome::Todo,
            },
            TestEvent::UncaughtError {
                origin: "afterAll".into(),
                failure: TestFailure {
                    name: "TypeError".into(),
                    stack: Some(format!(
                        "at <anonymous> ({file}:1:1)\n    at run (awf:test/bun_test:1:1)"
                    )),
                    hint: Some("look here".into()),
                    ..TestFailure::message("TypeError", "x is not a function")
                },
            },
            TestEvent::FileEnd {
                file: 0,
                expect_calls: 2,
                filtered: 0,
                snapshots: Default::default(),
            },
            TestEvent::Finished {
                totals: Totals {
                    passed: 1,
                    failed: 2,
                    skipped: 1,
                    todo: 1,
                    errors: 1,
                    files: 1,
                    expect_calls: 2,
                    filtered: 0,
                    snapshots: Default::default(),
                },
                elapsed: Duration::from_millis(3040),
            },
        ];
        let (out, err) = run(cwd, events);
        let expected = r#"
a.test.ts:
partial
✓ outer > ok [1.25ms]
1 | import { test } from "bun:test";
2 | describe("outer", () => {
3 |   test("eq", () => expect(1).toBe(2));
                                       ^
error: expect(received).toBe(expected)

Expected: 2
Received: 1

      at <anonymous> (a.test.ts:3:36)
✗ outer > eq [0.30ms]
✗ slow [5001.00ms]
  ^ this test timed out after 5000ms.
» later
✎ someday

# Unhandled error between tests (afterAll)
-------------------------------
1 | import { test } from "bun:test";
    ^
TypeError: x is not a function
      at <anonymous> (a.test.ts:1:1)

hint: look here
-------------------------------

 1 pass
 1 skip
 1 todo
 3 fail
 1 error
 2 expect() calls
Ran 5 tests across 1 file. [3.04s]
1 passed, 3 failed, 2 skipped
"#;
        assert_eq!(out, expected);
        assert_eq!(err, "warned\n");
    }

    #[test]
    fn a_location_without_frames_is_shown_as_a_frame() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("b.test.ts");
        std::fs::write(&file, "let a = ;\n").unwrap();
        let failure = TestFailure {
            location: Some(SourceLocation {
                file: file.display().to_string(),
                line: 1,
                col: 9,
            }),
            ..TestFailure::message("SyntaxError", "unexpected token `;`")
        };
        let (out, _) = run(
            dir.path(),
            vec![TestEvent::UncaughtError {
                origin: "loading the file".into(),
                failure,
            }],
        );
        assert_eq!(
            out,
            "\n# Unhandled error between tests (loading the file)\n-------------------------------\n1 | let a = ;\n            ^\nSyntaxError: unexpected token `;`\n      at b.test.ts:1:9\n-------------------------------\n"
        );
    }

    #[test]
    fn bailing_and_times() {
        assert_eq!(took(Duration::from_nanos(10)), "");
        assert_eq!(elapsed_text(Duration::from_millis(12)), "12.00ms");
        let (out, _) = run(Path::new("/"), vec![TestEvent::Bailed { failures: 2 }]);
        assert_eq!(out, "\nBailed out after 2 failures\n");
    }
}
