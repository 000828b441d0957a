//! `awf test` end to end: exit codes, discovery, `-t`, `--bail`, time-outs, load failures,
//! output of parallel files, the JUnit file, the text of failures (golden), and the bun
//! conformance comparison (tests/fixtures/bun-conformance) against a real bun from npm.
//!
//! Each test writes its test files into a temp folder and runs the built `awf` there, found in
//! `$AWF_BIN_DIR` (default `<workspace>/target/release`). Durations in output become `[TIME]`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest any single `awf test` run may take here before the test fails.
const RUN_BOUND: Duration = Duration::from_secs(60);
/// The bun release the conformance fixtures were checked against (compare.mjs says the same).
const BUN_VERSION: &str = "1.4.5";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn awf_path() -> PathBuf {
    let dir = std::env::var_os("AWF_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/release"));
    let awf = dir.join("awf");
    assert!(
        awf.is_file(),
        "{}: no awf binary; build it (cargo build --release) or set AWF_BIN_DIR",
        awf.display()
    );
    awf
}

/// A temp folder of test files.
struct Project {
    dir: tempfile::TempDir,
}

/// What one `awf test` did.
#[derive(Debug)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Project {
    fn new(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Project { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `awf test ARGS` in the folder, bounded by `RUN_BOUND`.
    fn awf_test(&self, args: &[&str]) -> Ran {
        let started = Instant::now();
        let mut child = Command::new(awf_path())
            .arg("test")
            .args(args)
            .current_dir(self.path())
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || {
            let mut text = String::new();
            stdout.read_to_string(&mut text).unwrap();
            text
        });
        let err = std::thread::spawn(move || {
            let mut text = String::new();
            stderr.read_to_string(&mut text).unwrap();
            text
        });
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > RUN_BOUND {
                child.kill().unwrap();
                panic!("awf test {args:?} ran longer than {RUN_BOUND:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        Ran {
            code: status.code().unwrap_or(-1),
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
            elapsed: started.elapsed(),
        }
    }
}

/// ` [1.23ms]` and ` [4.56s]` -> ` [TIME]`.
fn without_times(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" [") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let digits = after
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(after.len());
        let unit = ["ms]", "s]"]
            .into_iter()
            .find(|unit| digits > 0 && after[digits..].starts_with(unit));
        match unit {
            Some(unit) => {
                out.push_str(" [TIME]");
                rest = &after[digits + unit.len()..];
            }
            None => {
                out.push_str(" [");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn last_line(text: &str) -> &str {
    text.trim_end().lines().last().unwrap_or_default()
}

const PASSING: &str = r#"import { describe, expect, test } from "bun:test";
describe("math", () => {
  test("adds", () => expect(1 + 1).toBe(2));
  test("multiplies", () => expect(2 * 3).toBe(6));
});
"#;

#[test]
fn all_passing_exits_0_with_a_line_per_test() {
    let project = Project::new(&[("math.test.ts", PASSING)]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let out = without_times(&ran.stdout);
    assert!(
        out.contains("\nmath.test.ts:\n✓ math > adds [TIME]\n✓ math > multiplies [TIME]\n"),
        "{out}"
    );
    assert!(
        out.contains("\n 2 pass\n 0 fail\n 2 expect() calls\nRan 2 tests across 1 file. [TIME]\n"),
        "{out}"
    );
    assert_eq!(last_line(&out), "2 passed, 0 failed");
}

#[test]
fn a_failing_test_exits_1() {
    let project = Project::new(&[(
        "a.spec.ts",
        "import { test, expect } from \"bun:test\";\ntest(\"ok\", () => {});\ntest(\"no\", () => expect(1).toBe(2));\ntest.skip(\"later\", () => {});\n",
    )]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert_eq!(last_line(&ran.stdout), "1 passed, 1 failed, 1 skipped");
}

#[test]
fn no_test_files_exits_1_and_says_how_they_are_named() {
    let project = Project::new(&[("helper.ts", "export const x = 1;\n")]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr
            .contains("awf: no test files found under the current directory"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("hint: test files are named *.test.ts or *.spec.ts"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_file_without_tests_exits_1() {
    let project = Project::new(&[("empty.test.ts", "import { test } from \"bun:test\";\n")]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr.contains("awf: no tests found in 1 test file"),
        "{}",
        ran.stderr
    );
}

#[test]
fn usage_errors_exit_2() {
    let project = Project::new(&[("math.test.ts", PASSING)]);
    for (args, says) in [
        (
            &["missing/dir"][..],
            "awf: missing/dir: No such file or directory",
        ),
        (
            &["-t", "("][..],
            "awf: -t \"(\" is not a regular expression",
        ),
        (&["--timeout", "soon"][..], "awf: --timeout: "),
        (&["--reporter", "junit"][..], "--reporter-outfile"),
        (&["--no-such-flag"][..], "unexpected argument"),
    ] {
        let ran = project.awf_test(args);
        assert_eq!(ran.code, 2, "{args:?}: {ran:?}");
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn a_file_named_on_the_command_line_runs_whatever_its_name_and_folders_are_searched() {
    let project = Project::new(&[
        ("checks.ts", PASSING),
        (
            "sub/deeper/b.test.mjs",
            "import { test } from \"awf:test\";\ntest(\"from awf:test\", () => {});\n",
        ),
        (
            "node_modules/pkg/x.test.ts",
            "throw new Error(\"must not run\");\n",
        ),
        (
            "other.test.ts",
            "throw new Error(\"must not run either\");\n",
        ),
    ]);
    let ran = project.awf_test(&["checks.ts", "sub"]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let out = without_times(&ran.stdout);
    assert!(out.contains("\nchecks.ts:\n"), "{out}");
    assert!(
        out.contains("\nsub/deeper/b.test.mjs:\n✓ from awf:test [TIME]\n"),
        "{out}"
    );
    assert_eq!(last_line(&out), "3 passed, 0 failed");
}

#[test]
fn name_pattern_runs_only_matching_tests() {
    let project = Project::new(&[("math.test.ts", PASSING)]);
    let ran = project.awf_test(&["-t", "math mult"]);
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.stdout.contains("✓ math > multiplies"), "{}", ran.stdout);
    assert!(!ran.stdout.contains("adds"), "{}", ran.stdout);
    assert_eq!(last_line(&ran.stdout), "1 passed, 0 failed");

    let ran = project.awf_test(&["-t", "nothing matches"]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.stderr
            .contains("awf: -t \"nothing matches\" matched none of the 2 tests in 1 file"),
        "{}",
        ran.stderr
    );
}

#[test]
fn bail_stops_after_the_first_failure() {
    let failing = "import { test } from \"bun:test\";\ntest(\"first\", () => { throw new Error(\"one\"); });\ntest(\"second\", () => { throw new Error(\"two\"); });\n";
    let project = Project::new(&[("a.test.ts", failing), ("b.test.ts", PASSING)]);
    let ran = project.awf_test(&["--bail", "--jobs", "1"]);
    assert_eq!(ran.code, 1, "{ran:?}");
    let out = without_times(&ran.stdout);
    assert!(out.contains("✗ first [TIME]"), "{out}");
    assert!(!out.contains("second"), "{out}");
    assert!(!out.contains("b.test.ts"), "{out}");
    assert!(out.contains("\nBailed out after 1 failure\n"), "{out}");
    assert_eq!(last_line(&out), "0 passed, 1 failed");

    let ran = project.awf_test(&["--bail=2", "--jobs", "1"]);
    assert!(ran.stdout.contains("✗ second"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("Bailed out after 2 failures"),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_file_that_does_not_load_fails_and_the_others_still_run() {
    let project = Project::new(&[
        ("broken.test.ts", "import { test } from \"bun:test\";\ntest(\"x\", () => {\n  let a = ;\n});\n"),
        ("imports.test.ts", "import { test } from \"bun:test\";\nimport { nope } from \"./missing.ts\";\ntest(\"x\", () => nope());\n"),
        ("math.test.ts", PASSING),
    ]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    let out = without_times(&ran.stdout);
    let broken = "\nbroken.test.ts:\n\n# Unhandled error between tests (loading the file)\n-------------------------------\n1 | import { test } from \"bun:test\";\n2 | test(\"x\", () => {\n3 |   let a = ;\n              ^\nSyntaxError: Expression expected\n      at broken.test.ts:3:11\n-------------------------------\n";
    assert!(out.contains(broken), "{out}");
    assert!(
        out.contains("cannot resolve \"./missing.ts\" from imports.test.ts:2:22"),
        "{out}"
    );
    assert!(out.contains("✓ math > adds"), "{out}");
    assert_eq!(last_line(&out), "2 passed, 2 failed");
}

#[test]
fn a_hanging_test_times_out_and_its_leftovers_do_not_hold_the_run() {
    let project = Project::new(&[(
        "hang.test.ts",
        r#"import { test, expect } from "bun:test";
test("hangs", async () => {
  setInterval(() => {}, 5);
  await new Promise(() => {});
});
test("runs after", () => expect(1).toBe(1));
test("leaves a long timer", () => {
  setTimeout(() => console.log("must never print"), 60_000);
});
test("own limit", async () => {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}, 50);
"#,
    )]);
    let ran = project.awf_test(&["--timeout", "300ms"]);
    assert_eq!(ran.code, 1, "{ran:?}");
    assert!(
        ran.elapsed < Duration::from_secs(10),
        "took {:?}",
        ran.elapsed
    );
    let out = without_times(&ran.stdout);
    assert!(
        out.contains("✗ hangs [TIME]\n  ^ this test timed out after 300ms.\n✓ runs after [TIME]\n"),
        "{out}"
    );
    assert!(
        out.contains("✗ own limit [TIME]\n  ^ this test timed out after 50ms.\n"),
        "{out}"
    );
    assert!(!out.contains("must never print"), "{out}");
    assert_eq!(last_line(&out), "2 passed, 2 failed");
}

#[test]
fn a_test_that_can_never_finish_fails_naming_it() {
    let project = Project::new(&[(
        "stuck.test.ts",
        "import { test } from \"bun:test\";\ntest(\"waits forever\", async () => { await new Promise(() => {}); }, 0);\ntest(\"never runs\", () => {});\n",
    )]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    let out = without_times(&ran.stdout);
    assert!(out.contains("error: test \"waits forever\" can never finish: it awaits a promise that nothing will settle\n"), "{out}");
    assert!(out.contains("✗ waits forever [TIME]"), "{out}");
    assert!(!out.contains("never runs"), "{out}");
}

#[test]
fn errors_nobody_caught_fail_the_running_test() {
    let project = Project::new(&[(
        "uncaught.test.ts",
        r#"import { test } from "bun:test";
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
test("rejection", async () => {
  Promise.reject(new Error("nobody handled me"));
  await tick();
});
test("timer throws", async () => {
  setTimeout(() => { throw new Error("thrown in a timer"); }, 1);
  await tick();
});
test("fine", () => {});
"#,
    )]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    let out = without_times(&ran.stdout);
    assert!(out.contains("error: nobody handled me\n      at <anonymous> (uncaught.test.ts:4:22)\n✗ rejection [TIME]\n"), "{out}");
    assert!(out.contains("error: thrown in a timer\n"), "{out}");
    assert!(
        out.contains("✗ timer throws [TIME]\n✓ fine [TIME]\n"),
        "{out}"
    );
    assert_eq!(last_line(&out), "1 passed, 2 failed");
}

#[test]
fn parallel_files_print_whole_blocks_in_path_order() {
    let file = |name: &str| {
        format!(
            r#"import {{ test }} from "bun:test";
const tick = () => new Promise((resolve) => setTimeout(resolve, 15));
for (let i = 0; i < 4; i++) {{
  test("{name} " + i, async () => {{
    console.log("{name} says " + i);
    console.error("{name} warns " + i);
    await tick();
  }});
}}
"#
        )
    };
    let names = ["d", "a", "c", "b"];
    let texts: Vec<String> = names.iter().map(|n| file(n)).collect();
    let files: Vec<(String, &str)> = names
        .iter()
        .zip(&texts)
        .map(|(n, t)| (format!("{n}.test.ts"), t.as_str()))
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let project = Project::new(&files);
    let ran = project.awf_test(&["--jobs", "4"]);
    assert_eq!(ran.code, 0, "{ran:?}");
    let out = without_times(&ran.stdout);
    let mut expected = String::new();
    for name in ["a", "b", "c", "d"] {
        expected.push_str(&format!("\n{name}.test.ts:\n"));
        for i in 0..4 {
            expected.push_str(&format!("{name} says {i}\n✓ {name} {i} [TIME]\n"));
        }
    }
    assert!(out.starts_with(&expected), "{out}");
    let mut warnings = String::new();
    for name in ["a", "b", "c", "d"] {
        for i in 0..4 {
            warnings.push_str(&format!("{name} warns {i}\n"));
        }
    }
    assert_eq!(ran.stderr, warnings);
}

#[test]
fn junit_report_is_written() {
    let project = Project::new(&[(
        "a.test.ts",
        "import { describe, expect, test } from \"bun:test\";\ndescribe(\"outer\", () => {\n  test(\"ok\", () => {});\n  test(\"bad <one>\", () => expect(1).toBe(2));\n  test.todo(\"later\");\n});\n",
    )]);
    let ran = project.awf_test(&[
        "--reporter",
        "junit",
        "--reporter-outfile",
        "reports/junit.xml",
    ]);
    assert_eq!(ran.code, 1, "{ran:?}");
    let xml = std::fs::read_to_string(project.path().join("reports/junit.xml")).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"awf test\" tests=\"3\" assertions=\"1\" failures=\"1\" errors=\"0\" skipped=\"1\""), "{xml}");
    assert!(xml.contains("<testsuite name=\"outer\" file=\"a.test.ts\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""), "{xml}");
    assert!(
        xml.contains("<testcase name=\"bad &lt;one&gt;\" classname=\"outer\""),
        "{xml}"
    );
    assert!(xml.contains("<failure type=\"AssertionError\" message=\"expect(received).toBe(expected)&#10;&#10;Expected: 2&#10;Received: 1&#10;\">"), "{xml}");
    assert!(xml.contains("<skipped message=\"TODO\" />"), "{xml}");
    // The text report is printed as well.
    assert!(ran.stdout.contains("✗ outer > bad <one>"), "{}", ran.stdout);
}

/// The whole text of failures: code frames, matcher diffs, frames, as bun prints them. An
/// error of the file's own class is placed where it was made, not in its constructor.
#[test]
fn failure_output_golden() {
    let project = Project::new(&[(
        "fail.test.ts",
        r#"import { describe, expect, test } from "bun:test";

describe("shapes", () => {
  test("objects differ", () => {
    expect({ name: "awf", tags: ["a", "b"], size: 2 }).toEqual({ name: "awf", tags: ["a", "c"], size: 2 });
  });
  test("numbers differ", () => {
    expect(1 + 1).toBe(3);
  });
});

class ParseError extends Error {
  override name = "ParseError";
}

test("throws its own error", () => {
  throw new ParseError("line 3: unexpected token");
});

test("strings differ", () => {
  expect("hello world").toEqual("hello there");
});
"#,
    )]);
    let ran = project.awf_test(&[]);
    assert_eq!(ran.code, 1, "{ran:?}");
    let expected = r#"
fail.test.ts:
1 | import { describe, expect, test } from "bun:test";
2 |
3 | describe("shapes", () => {
4 |   test("objects differ", () => {
5 |     expect({ name: "awf", tags: ["a", "b"], size: 2 }).toEqual({ name: "awf", tags: ["a", "c"], size: 2 });
                                                           ^
error: expect(received).toEqual(expected)

  {
    "name": "awf",
    "size": 2,
    "tags": [
      "a",
-     "c",
+     "b",
    ],
  }

- Expected  - 1
+ Received  + 1

      at <anonymous> (fail.test.ts:5:56)
✗ shapes > objects differ [TIME]
3 | describe("shapes", () => {
4 |   test("objects differ", () => {
5 |     expect({ name: "awf", tags: ["a", "b"], size: 2 }).toEqual({ name: "awf", tags: ["a", "c"], size: 2 });
6 |   });
7 |   test("numbers differ", () => {
8 |     expect(1 + 1).toBe(3);
                      ^
error: expect(received).toBe(expected)

Expected: 3
Received: 2

      at <anonymous> (fail.test.ts:8:19)
✗ shapes > numbers differ [TIME]
12 | class ParseError extends Error {
13 |   override name = "ParseError";
14 | }
15 |
16 | test("throws its own error", () => {
17 |   throw new ParseError("line 3: unexpected token");
                 ^
ParseError: line 3: unexpected token
      at <anonymous> (fail.test.ts:17:13)
✗ throws its own error [TIME]
16 | test("throws its own error", () => {
17 |   throw new ParseError("line 3: unexpected token");
18 | });
19 |
20 | test("strings differ", () => {
21 |   expect("hello world").toEqual("hello there");
                             ^
error: expect(received).toEqual(expected)

Expected: "hello there"
Received: "hello world"

      at <anonymous> (fail.test.ts:21:25)
✗ strings differ [TIME]

 0 pass
 4 fail
 3 expect() calls
Ran 4 tests across 1 file. [TIME]
0 passed, 4 failed
"#;
    assert_eq!(without_times(&ran.stdout), expected);
}

/// Runs tests/fixtures/bun-conformance/compare.mjs: every test of the fixtures must have the
/// same outcome under `awf test` as under a real `bun test`. bun comes from npm, installed
/// once under target/test-tools/ and reused.
#[test]
fn bun_conformance() {
    for (tool, install) in [
        (
            "node",
            "install Node.js 18 or newer (e.g. `apt-get install nodejs npm`)",
        ),
        ("npm", "install npm (e.g. `apt-get install npm`)"),
    ] {
        let found = Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            found,
            "the bun conformance test needs `{tool}` to install bun from npm and compare runs; {install}, then run the tests again"
        );
    }
    let tools = workspace()
        .join("target/test-tools")
        .join(format!("bun-{BUN_VERSION}"));
    std::fs::create_dir_all(&tools).unwrap();
    let fixtures = workspace().join("tests/fixtures/bun-conformance");
    let output = Command::new("node")
        .arg(fixtures.join("compare.mjs"))
        .arg("--install-bun")
        .arg(&tools)
        .arg("--awf")
        .arg(awf_path())
        .env("BUN_VERSION", BUN_VERSION)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "awf and bun disagree (or bun could not be installed into {}; `npm install --prefix {} bun@{BUN_VERSION}` does it by hand):\n{stdout}\n{stderr}",
        tools.display(),
        tools.display()
    );
    assert!(stdout.contains("compare: all outcomes agree"), "{stdout}");
}
