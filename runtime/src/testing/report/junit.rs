//! JUnit XML of a run, in the shape `bun test --reporter=junit` writes: `<testsuites>`, one
//! `<testsuite>` per file with a nested `<testsuite>` per describe, a `<testcase>` per test
//! holding `<failure>`, `<skipped />` or `<skipped message="TODO" />`. A failure outside any
//! test is a `<testcase>` named for where it happened, holding an `<error>`. Times in seconds.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{user_frames, TestReporter};
use crate::testing::event::{TestEvent, TestFailure, TestFile, TestName, TestOutcome, Totals};

/// Collects the run, then `xml()` gives the document.
pub struct JunitReporter {
    cwd: PathBuf,
    files: Vec<TestFile>,
    /// One suite per file that reported, in order.
    suites: Vec<Suite>,
    totals: Totals,
    elapsed: Duration,
}

#[derive(Default)]
struct Suite {
    name: String,
    children: Vec<Node>,
}

enum Node {
    Suite(Suite),
    Case(Case),
}

struct Case {
    name: String,
    classname: String,
    time: Duration,
    verdict: Verdict,
}

enum Verdict {
    Passed,
    Failed(TestFailure),
    /// A failure outside any test.
    Error(TestFailure),
    Skipped,
    Todo,
}

#[derive(Default)]
struct Counts {
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
    time: Duration,
}

impl JunitReporter {
    /// Paths under `cwd` are written relative to it.
    pub fn new(cwd: &Path) -> JunitReporter {
        JunitReporter {
            cwd: cwd.to_path_buf(),
            files: Vec::new(),
            suites: Vec::new(),
            totals: Totals::default(),
            elapsed: Duration::ZERO,
        }
    }

    /// The report, once the run has finished.
    pub fn xml(&self) -> String {
        let mut all = Counts::default();
        for suite in &self.suites {
            all.add(&suite.counts());
        }
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            "<testsuites name=\"awf test\" tests=\"{}\" assertions=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
            all.tests,
            self.totals.expect_calls,
            all.failures,
            all.errors,
            all.skipped,
            seconds(self.elapsed)
        );
        for suite in &self.suites {
            self.write_suite(&mut out, suite, &suite.name, 1);
        }
        out.push_str("</testsuites>\n");
        out
    }

    fn write_suite(&self, out: &mut String, suite: &Suite, file: &str, depth: usize) {
        let pad = "  ".repeat(depth);
        let counts = suite.counts();
        let _ = writeln!(
            out,
            "{pad}<testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
            escape(&suite.name),
            escape(file),
            counts.tests,
            counts.failures,
            counts.errors,
            counts.skipped,
            seconds(counts.time)
        );
        for child in &suite.children {
            match child {
                Node::Suite(inner) => self.write_suite(out, inner, file, depth + 1),
                Node::Case(case) => self.write_case(out, case, file, depth + 1),
            }
        }
        let _ = writeln!(out, "{pad}</testsuite>");
    }

    fn write_case(&self, out: &mut String, case: &Case, file: &str, depth: usize) {
        let pad = "  ".repeat(depth);
        let open = format!(
            "{pad}<testcase name=\"{}\" classname=\"{}\" time=\"{}\" file=\"{}\"",
            escape(&case.name),
            escape(&case.classname),
            seconds(case.time),
            escape(file)
        );
        let inner = match &case.verdict {
            Verdict::Passed => {
                let _ = writeln!(out, "{open} />");
                return;
            }
            Verdict::Skipped => "<skipped />".to_string(),
            Verdict::Todo => "<skipped message=\"TODO\" />".to_string(),
            Verdict::Failed(failure) if failure.is_timeout() => format!(
                "<failure type=\"TimeoutError\" message=\"{}\" />",
                escape(&failure.message)
            ),
            Verdict::Failed(failure) => self.failure_element("failure", failure),
            Verdict::Error(failure) => self.failure_element("error", failure),
        };
        let _ = writeln!(out, "{open}>\n{pad}  {inner}\n{pad}</testcase>");
    }

    /// `message`: the headline and diff; text: `Name: message`, the diff, the frames.
    fn failure_element(&self, tag: &str, failure: &TestFailure) -> String {
        let name = if failure.name.is_empty() {
            "Error"
        } else {
            &failure.name
        };
        let mut message = failure.message.clone();
        if let Some(diff) = &failure.diff {
            let _ = write!(message, "\n\n{diff}\n");
        }
        let mut text = format!("{name}: {message}");
        for frame in user_frames(failure, &self.cwd) {
            let _ = write!(text, "\n      {frame}");
        }
        format!(
            "<{tag} type=\"{}\" message=\"{}\">{}\n</{tag}>",
            escape(name),
            escape(&message),
            escape(&text)
        )
    }

    fn current_suite(&mut self) -> Option<&mut Suite> {
        self.suites.last_mut()
    }

    fn add_test(&mut self, test: &TestName, time: Duration, verdict: Verdict) {
        let Some(mut suite) = self.current_suite() else {
            return;
        };
        for name in &test.path {
            suite = suite.child(name);
        }
        let classname = test
            .path
            .iter()
            .rev()
            .cloned()
            .collect::<Vec<_>>()
            .join(" > ");
        suite.children.push(Node::Case(Case {
            name: test.name.clone(),
            classname,
            time,
            verdict,
        }));
    }
}

impl TestReporter for JunitReporter {
    fn report(&mut self, event: &TestEvent) {
        match event {
            TestEvent::Plan { files } => self.files = files.clone(),
            TestEvent::FileStart { file } => {
                let name = self
                    .files
                    .get(*file)
                    .map(|f| f.shown.clone())
                    .unwrap_or_default();
                self.suites.push(Suite {
                    name,
                    children: Vec::new(),
                });
            }
            TestEvent::Result {
                test,
                duration,
                outcome,
            } => {
                let verdict = match outcome {
                    TestOutcome::Passed => Verdict::Passed,
                    TestOutcome::Failed(failure) => Verdict::Failed(failure.clone()),
                    TestOutcome::Skipped => Verdict::Skipped,
                    TestOutcome::Todo => Verdict::Todo,
                };
                self.add_test(test, *duration, verdict);
            }
            TestEvent::UncaughtError { origin, failure } => {
                let test = TestName {
                    path: Vec::new(),
                    name: format!("({origin})"),
                };
                self.add_test(&test, Duration::ZERO, Verdict::Error(failure.clone()));
            }
            TestEvent::Finished { totals, elapsed } => {
                self.totals = *totals;
                self.elapsed = *elapsed;
            }
            TestEvent::Output { .. } | TestEvent::FileEnd { .. } | TestEvent::Bailed { .. } => {}
        }
    }
}

impl Suite {
    /// The describe `name` among the children: the last child when it is that describe (a
    /// describe's tests arrive together), else a new one.
    fn child(&mut self, name: &str) -> &mut Suite {
        let reuse = matches!(self.children.last(), Some(Node::Suite(s)) if s.name == name);
        if !reuse {
            self.children.push(Node::Suite(Suite {
                name: name.to_string(),
                children: Vec::new(),
            }));
        }
        match self.children.last_mut() {
            Some(Node::Suite(suite)) => suite,
            _ => unreachable!("the last child was just made a suite"),
        }
    }

    fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for child in &self.children {
            match child {
                Node::Suite(suite) => counts.add(&suite.counts()),
                Node::Case(case) => {
                    counts.tests += 1;
                    counts.time += case.time;
                    match case.verdict {
                        Verdict::Passed => {}
                        Verdict::Failed(_) => counts.failures += 1,
                        Verdict::Error(_) => counts.errors += 1,
                        Verdict::Skipped | Verdict::Todo => counts.skipped += 1,
                    }
                }
            }
        }
        counts
    }
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.tests += other.tests;
        self.failures += other.failures;
        self.errors += other.errors;
        self.skipped += other.skipped;
        self.time += other.time;
    }
}

fn seconds(duration: Duration) -> String {
    format!("{:.6}", duration.as_secs_f64())
}

/// Text for an XML attribute or element: markup characters escaped, line breaks kept as
/// `&#10;`, characters XML 1.0 cannot hold dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(path: &[&str], name: &str) -> TestName {
        TestName {
            path: path.iter().map(|p| p.to_string()).collect(),
            name: name.into(),
        }
    }

    fn result(test: TestName, millis: u64, outcome: TestOutcome) -> TestEvent {
        TestEvent::Result {
            test,
            duration: Duration::from_millis(millis),
            outcome,
        }
    }

    #[test]
    fn writes_bun_s_shape_with_nested_describes() {
        let mut junit = JunitReporter::new(Path::new("/p"));
        let failure = TestFailure {
            diff: Some("Expected: 2\nReceived: 1".into()),
            stack: Some("at <anonymous> (/p/a.test.ts:3:9)".into()),
            ..TestFailure::message("AssertionError", "expect(received).toBe(expected)")
        };
        let events = vec![
            TestEvent::Plan {
                files: vec![TestFile {
                    path: "/p/a.test.ts".into(),
                    shown: "a.test.ts".into(),
                }],
            },
            TestEvent::FileStart { file: 0 },
            result(name(&["a", "b"], "deep"), 2, TestOutcome::Failed(failure)),
            result(name(&["a"], "x < y & \"z\""), 1, TestOutcome::Passed),
            result(name(&[], "later"), 0, TestOutcome::Skipped),
            result(name(&[], "someday"), 0, TestOutcome::Todo),
            result(
                name(&[], "slow"),
                5,
                TestOutcome::Failed(TestFailure::message(
                    "TimeoutError",
                    "this test timed out after 5ms.",
                )),
            ),
            TestEvent::UncaughtError {
                origin: "afterAll".into(),
                failure: TestFailure::message("Error", "boom"),
            },
            TestEvent::FileEnd {
                file: 0,
                expect_calls: 1,
                filtered: 0,
                snapshots: Default::default(),
            },
            TestEvent::Finished {
                totals: Totals {
                    expect_calls: 1,
                    ..Totals::default()
                },
                elapsed: Duration::from_millis(20),
            },
        ];
        for event in &events {
            junit.report(event);
        }
        let expected = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="awf test" tests="6" assertions="1" failures="2" errors="1" skipped="2" time="0.020000">
  <testsuite name="a.test.ts" file="a.test.ts" tests="6" failures="2" errors="1" skipped="2" time="0.008000">
    <testsuite name="a" file="a.test.ts" tests="2" failures="1" errors="0" skipped="0" time="0.003000">
      <testsuite name="b" file="a.test.ts" tests="1" failures="1" errors="0" skipped="0" time="0.002000">
        <testcase name="deep" classname="b &gt; a" time="0.002000" file="a.test.ts">
          <failure type="AssertionError" message="expect(received).toBe(expected)&#10;&#10;Expected: 2&#10;Received: 1&#10;">AssertionError: expect(received).toBe(expected)&#10;&#10;Expected: 2&#10;Received: 1&#10;&#10;      at &lt;anonymous&gt; (a.test.ts:3:9)
</failure>
        </testcase>
      </testsuite>
      <testcase name="x &lt; y &amp; &quot;z&quot;" classname="a" time="0.001000" file="a.test.ts" />
    </testsuite>
    <testcase name="later" classname="" time="0.000000" file="a.test.ts">
      <skipped />
    </testcase>
    <testcase name="someday" classname="" time="0.000000" file="a.test.ts">
      <skipped message="TODO" />
    </testcase>
    <testcase name="slow" classname="" time="0.005000" file="a.test.ts">
      <failure type="TimeoutError" message="this test timed out after 5ms." />
    </testcase>
    <testcase name="(afterAll)" classname="" time="0.000000" file="a.test.ts">
      <error type="Error" message="boom">Error: boom
</error>
    </testcase>
  </testsuite>
</testsuites>
"#;
        assert_eq!(junit.xml(), expected);
    }

    #[test]
    fn escapes_what_xml_cannot_hold() {
        assert_eq!(escape("a\u{1}b\tc'"), "ab&#9;c&apos;");
    }
}
