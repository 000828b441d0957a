//! `awf test` end to end: exit codes, discovery, `-t`, `--bail`, time-outs, load failures,
//! output of parallel files, the JUnit file, the text of failures (golden), and the bun
//! conformance comparison (tests/fixtures/bun-conformance) against a real bun from npm.
//!
//! Each test writes its test files into a temp folder and runs the built `awf` there (see
//! `util`). Durations in output become `[TIME]`.

use std::time::Duration;

use crate::util::{
    assert_has, assert_lacks, awf_bin, fixture, node_bin, npm_tool, AwfCommand, Ran, TempProject,
};

/// Longest any single `awf test` run may take here before the test fails.
const TEST_BOUND: Duration = Duration::from_secs(60);
/// Longest the bun conformance comparison may take (compare.mjs bounds each of its runs by 2
/// minutes itself).
const COMPARE_BOUND: Duration = Duration::from_secs(900);
/// The bun release the conformance fixtures were checked against (compare.mjs says the same).
const BUN_VERSION: &str = "1.4.5";

/// A temp folder holding `files` (name, text).
fn project(files: &[(&str, &str)]) -> TempProject {
    let project = TempProject::new();
    for (name, text) in files {
        project.file(name, text);
    }
    project
}

/// Runs `awf test ARGS` in the folder, bounded by `TEST_BOUND`.
fn awf_test(project: &TempProject, args: &[&str]) -> Ran {
    project.awf(&["test"]).args(args).bound(TEST_BOUND).run()
}

/// `awf_test`, which must exit `code`; the run comes back with its stdout `without_times`.
#[track_caller]
fn awf_test_exits(project: &TempProject, args: &[&str], code: i32) -> Ran {
    let mut ran = awf_test(project, args);
    assert_eq!(ran.code, Some(code), "awf test {args:?}: {ran:?}");
    ran.stdout = without_times(&ran.stdout);
    ran
}

/// ` [1.23ms]` and ` [4.56s]` -> ` [TIME]`; a test's line without one gets it too, since the
/// reporter leaves out a duration under 5 µs (as bun does), which an empty test may take.
fn without_times(text: &str) -> String {
    let mut lines: Vec<String> = durations_as_time(text)
        .split('\n')
        .map(str::to_string)
        .collect();
    for line in &mut lines {
        let a_test = line.starts_with("✓ ") || line.starts_with("✗ ");
        if a_test && !line.ends_with(" [TIME]") {
            line.push_str(" [TIME]");
        }
    }
    lines.join("\n")
}

fn durations_as_time(text: &str) -> String {
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
    let project = project(&[("math.test.ts", PASSING)]);
    let ran = awf_test_exits(&project, &[], 0);
    assert_has(
        &ran.stdout,
        "\nmath.test.ts:\n✓ math > adds [TIME]\n✓ math > multiplies [TIME]\n",
    );
    assert_has(
        &ran.stdout,
        "\n 2 pass\n 0 fail\n 2 expect() calls\nRan 2 tests across 1 file. [TIME]\n",
    );
    assert_eq!(last_line(&ran.stdout), "2 passed, 0 failed");
}

#[test]
fn files_see_nothing_of_each_other_one_after_the_other_or_side_by_side() {
    // A worker's files run one after the other in its one host, which puts back the globals and
    // built-in prototypes a file changed and gives the next file fresh modules: globals,
    // prototypes and module state start fresh in every file, whether the files run one after
    // the other on one thread (`--jobs 1`) or at once.
    let project = project(&[
        (
            "counter.ts",
            "export let count = 0;\nexport const bump = () => ++count;\n",
        ),
        (
            "a.test.ts",
            r#"import { expect, test } from "bun:test";
import { bump } from "./counter.ts";
test("a leaves things behind", () => {
  (globalThis as any).leftBehind = "from a";
  (Array.prototype as any).fromA = true;
  expect(bump()).toBe(1);
});
"#,
        ),
        (
            "b.test.ts",
            r#"import { expect, test } from "bun:test";
import { bump } from "./counter.ts";
test("b sees none of it", () => {
  expect((globalThis as any).leftBehind).toBeUndefined();
  expect(([] as any).fromA).toBeUndefined();
  expect(bump()).toBe(1);
  (globalThis as any).leftBehind = "from b";
});
"#,
        ),
        (
            "c.test.ts",
            r#"import { expect, test } from "bun:test";
test("c sees nothing either", () => {
  expect((globalThis as any).leftBehind).toBeUndefined();
  expect(([] as any).fromA).toBeUndefined();
});
"#,
        ),
    ]);
    for jobs in ["1", "2"] {
        let ran = awf_test_exits(&project, &["--jobs", jobs], 0);
        assert_has(&ran.stdout, "✓ a leaves things behind [TIME]");
        assert_has(&ran.stdout, "✓ b sees none of it [TIME]");
        assert_has(&ran.stdout, "✓ c sees nothing either [TIME]");
    }
}

#[test]
fn what_a_file_leaves_in_the_framework_and_the_host_is_gone_for_the_next_file() {
    // With --jobs 1 every file runs in the worker's one host, one after the other: what a file
    // changes in the test framework, the process object or the timers must not reach the next.
    let project = project(&[
        ("counter.ts", "export const value = () => \"real\";\n"),
        ("sub/.keep", ""),
        (
            "a.test.ts",
            r#"import { expect, jest, mock, setSystemTime, spyOn, test } from "bun:test";
test("a changes everything it can reach", () => {
  jest.useFakeTimers();
  setSystemTime(new Date("2001-01-01T00:00:00Z"));
  expect.extend({ toBeAnswer: (x: unknown) => ({ pass: x === 42, message: () => "no" }) });
  spyOn(Math, "floor").mockReturnValue(7);
  mock.module("./counter.ts", () => ({ value: () => "mocked" }));
  jest.setTimeout(1);
  process.env.LEFT_BY_A = "yes";
  process.chdir("sub");
  process.argv.push("--extra");
  console.count("seen");
  (globalThis as any).timerFired = false;
  expect(42).toBeAnswer();
});
"#,
        ),
        (
            "b.test.ts",
            r#"import { expect, jest, test } from "bun:test";
import { value } from "./counter.ts";
test("b starts clean", async () => {
  expect(jest.isFakeTimers()).toBe(false);
  expect(new Date().getFullYear()).toBeGreaterThan(2020);
  expect((expect as any).toBeAnswer).toBeUndefined();
  expect(Math.floor(2.5)).toBe(2);
  expect(value()).toBe("real");
  expect(process.env.LEFT_BY_A).toBeUndefined();
  expect(process.cwd()).not.toMatch(/sub$/);
  expect(process.argv).toHaveLength(2);
  expect((globalThis as any).timerFired).toBeUndefined();
  await new Promise((resolve) => setTimeout(resolve, 20));
  console.count("seen");
});
"#,
        ),
    ]);
    let ran = awf_test_exits(&project, &["--jobs", "1"], 0);
    assert_has(&ran.stdout, "✓ a changes everything it can reach [TIME]");
    assert_has(&ran.stdout, "✓ b starts clean [TIME]");
    assert_eq!(ran.stdout.matches("seen: 1").count(), 2, "{}", ran.stdout);
    assert_eq!(last_line(&ran.stdout), "2 passed, 0 failed");
}

#[test]
fn a_file_that_freezes_a_built_in_is_the_last_of_its_host() {
    // A prototype frozen cannot be thawed: the next file gets a host of its own.
    let project = project(&[
        (
            "a.test.ts",
            "import { test } from \"bun:test\";\ntest(\"freezes\", () => { (Array.prototype as any).mark = 1; Object.freeze(Array.prototype); });\n",
        ),
        (
            "b.test.ts",
            "import { expect, test } from \"bun:test\";\ntest(\"thawed\", () => { expect(Object.isFrozen(Array.prototype)).toBe(false); expect(([] as any).mark).toBeUndefined(); });\n",
        ),
    ]);
    let ran = awf_test_exits(&project, &["--jobs", "1"], 0);
    assert_eq!(last_line(&ran.stdout), "2 passed, 0 failed");
}

#[test]
fn each_file_has_its_own_argv_and_random_numbers() {
    let file = r#"import { test } from "bun:test";
test("says who it is", () => {
  console.log(JSON.stringify({ argv: process.argv, random: [Math.random(), Math.random()] }));
});
"#;
    let project = project(&[("a.test.ts", file), ("b.test.ts", file)]);
    let ran = awf_test_exits(&project, &["--jobs", "1"], 0);
    let seen: Vec<serde_json::Value> = ran
        .stdout
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).expect("JSON line"))
        .collect();
    assert_eq!(seen.len(), 2, "{}", ran.stdout);
    for (info, name) in seen.iter().zip(["a.test.ts", "b.test.ts"]) {
        let argv = info["argv"].as_array().unwrap();
        assert_eq!(argv.len(), 2, "{info}");
        assert!(argv[1].as_str().unwrap().ends_with(name), "{info}");
        for r in info["random"].as_array().unwrap() {
            let r = r.as_f64().unwrap();
            assert!((0.0..1.0).contains(&r), "{info}");
        }
    }
    assert_ne!(seen[0]["random"], seen[1]["random"]);
    assert_ne!(seen[0]["random"][0], seen[0]["random"][1]);
}

#[test]
fn a_failing_test_exits_1() {
    let project = project(&[(
        "a.spec.ts",
        "import { test, expect } from \"bun:test\";\ntest(\"ok\", () => {});\ntest(\"no\", () => expect(1).toBe(2));\ntest.skip(\"later\", () => {});\n",
    )]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_eq!(last_line(&ran.stdout), "1 passed, 1 failed, 1 skipped");
}

#[test]
fn no_test_files_exits_1_and_says_how_they_are_named() {
    let project = project(&[("helper.ts", "export const x = 1;\n")]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(
        &ran.stderr,
        "awf: no test files found under the current directory",
    );
    assert_has(
        &ran.stderr,
        "hint: test files are named *.test.ts or *.spec.ts",
    );
}

#[test]
fn a_file_without_tests_exits_1() {
    let project = project(&[("empty.test.ts", "import { test } from \"bun:test\";\n")]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(&ran.stderr, "awf: no tests found in 1 test file");
}

#[test]
fn usage_errors_exit_2() {
    let project = project(&[("math.test.ts", PASSING)]);
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
        let ran = awf_test_exits(&project, args, 2);
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn a_file_named_on_the_command_line_runs_whatever_its_name_and_folders_are_searched() {
    let project = project(&[
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
    let ran = awf_test_exits(&project, &["checks.ts", "sub"], 0);
    assert_has(&ran.stdout, "\nchecks.ts:\n");
    assert_has(
        &ran.stdout,
        "\nsub/deeper/b.test.mjs:\n✓ from awf:test [TIME]\n",
    );
    assert_eq!(last_line(&ran.stdout), "3 passed, 0 failed");
}

#[test]
fn name_pattern_runs_only_matching_tests() {
    let project = project(&[("math.test.ts", PASSING)]);
    let ran = awf_test_exits(&project, &["-t", "math mult"], 0);
    assert_has(&ran.stdout, "✓ math > multiplies");
    assert_lacks(&ran.stdout, "adds");
    assert_eq!(last_line(&ran.stdout), "1 passed, 0 failed");

    let ran = awf_test_exits(&project, &["-t", "nothing matches"], 1);
    assert_has(
        &ran.stderr,
        "awf: -t \"nothing matches\" matched none of the 2 tests in 1 file",
    );
}

#[test]
fn bail_stops_after_the_first_failure() {
    let failing = "import { test } from \"bun:test\";\ntest(\"first\", () => { throw new Error(\"one\"); });\ntest(\"second\", () => { throw new Error(\"two\"); });\n";
    let project = project(&[("a.test.ts", failing), ("b.test.ts", PASSING)]);
    let ran = awf_test_exits(&project, &["--bail", "--jobs", "1"], 1);
    assert_has(&ran.stdout, "✗ first [TIME]");
    assert_lacks(&ran.stdout, "second");
    assert_lacks(&ran.stdout, "b.test.ts");
    assert_has(&ran.stdout, "\nBailed out after 1 failure\n");
    assert_eq!(last_line(&ran.stdout), "0 passed, 1 failed");

    let ran = awf_test(&project, &["--bail=2", "--jobs", "1"]);
    assert_has(&ran.stdout, "✗ second");
    assert_has(&ran.stdout, "Bailed out after 2 failures");
}

#[test]
fn a_file_that_does_not_load_fails_and_the_others_still_run() {
    let project = project(&[
        ("broken.test.ts", "import { test } from \"bun:test\";\ntest(\"x\", () => {\n  let a = ;\n});\n"),
        ("imports.test.ts", "import { test } from \"bun:test\";\nimport { nope } from \"./missing.ts\";\ntest(\"x\", () => nope());\n"),
        ("math.test.ts", PASSING),
    ]);
    let ran = awf_test_exits(&project, &[], 1);
    let broken = "\nbroken.test.ts:\n\n# Unhandled error between tests (loading the file)\n-------------------------------\n1 | import { test } from \"bun:test\";\n2 | test(\"x\", () => {\n3 |   let a = ;\n              ^\nSyntaxError: Expression expected\n      at broken.test.ts:3:11\n-------------------------------\n";
    assert_has(&ran.stdout, broken);
    assert_has(
        &ran.stdout,
        "cannot resolve \"./missing.ts\" from imports.test.ts:2:22",
    );
    assert_has(&ran.stdout, "✓ math > adds");
    assert_eq!(last_line(&ran.stdout), "2 passed, 2 failed");
}

/// An imported name its module lacks is placed at the import, as `awf run` places it.
#[test]
fn an_imported_name_a_module_lacks_is_placed_with_a_suggestion() {
    let project = project(&[(
        "names.test.ts",
        "import { test, expct } from \"bun:test\";\ntest(\"x\", () => expct(1).toBe(1));\n",
    )]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(&ran.stdout, "names.test.ts:1:16");
    assert_has(&ran.stdout, "\"bun:test\" has no export named \"expct\"");
    assert_has(&ran.stdout, "did you mean \"expect\"?");
    assert_lacks(&ran.stdout, "Could not find export");
}

#[test]
fn a_hanging_test_times_out_and_its_leftovers_do_not_hold_the_run() {
    let project = project(&[(
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
    let ran = awf_test_exits(&project, &["--timeout", "300ms"], 1);
    assert!(
        ran.elapsed < Duration::from_secs(10),
        "took {:?}",
        ran.elapsed
    );
    assert_has(
        &ran.stdout,
        "✗ hangs [TIME]\n  ^ this test timed out after 300ms.\n✓ runs after [TIME]\n",
    );
    assert_has(
        &ran.stdout,
        "✗ own limit [TIME]\n  ^ this test timed out after 50ms.\n",
    );
    assert_lacks(&ran.stdout, "must never print");
    assert_eq!(last_line(&ran.stdout), "2 passed, 2 failed");
}

#[test]
fn a_test_that_can_never_finish_fails_naming_it() {
    let project = project(&[(
        "stuck.test.ts",
        "import { test } from \"bun:test\";\ntest(\"waits forever\", async () => { await new Promise(() => {}); }, 0);\ntest(\"never runs\", () => {});\n",
    )]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(&ran.stdout, "error: test \"waits forever\" can never finish: it awaits a promise that nothing will settle\n");
    assert_has(&ran.stdout, "✗ waits forever [TIME]");
    assert_lacks(&ran.stdout, "never runs");
}

#[test]
fn errors_nobody_caught_fail_the_running_test() {
    let project = project(&[(
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
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(&ran.stdout, "error: nobody handled me\n      at <anonymous> (uncaught.test.ts:4:22)\n✗ rejection [TIME]\n");
    assert_has(&ran.stdout, "error: thrown in a timer\n");
    assert_has(&ran.stdout, "✗ timer throws [TIME]\n✓ fine [TIME]\n");
    assert_eq!(last_line(&ran.stdout), "1 passed, 2 failed");
}

/// A throw in a microtask or nextTick callback once ended the file: the tests after it were
/// neither run nor counted ("Ran 1 test"). Each now fails the test that was running and every
/// later test runs, as in bun.
#[test]
fn a_throw_in_a_microtask_or_next_tick_fails_its_test_and_no_later_test_is_lost() {
    let project = project(&[(
        "microtask.test.ts",
        r#"import { test } from "bun:test";
test("a", () => { queueMicrotask(() => { throw new Error("from a microtask"); }); });
test("b", () => {});
test("c", async () => {
  process.nextTick(() => { throw new Error("from nextTick"); });
  await new Promise((resolve) => setTimeout(resolve, 5));
});
test("d", () => { queueMicrotask(() => { throw new Error("one"); }); });
test("e", () => {});
"#,
    )]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(
        &ran.stdout,
        "error: from a microtask
",
    );
    assert_has(
        &ran.stdout,
        "✗ a [TIME]
✓ b [TIME]
",
    );
    assert_has(
        &ran.stdout,
        "error: from nextTick
",
    );
    assert_has(
        &ran.stdout,
        "✗ c [TIME]
",
    );
    assert_has(
        &ran.stdout,
        "✗ d [TIME]
",
    );
    assert_has(
        &ran.stdout,
        "✓ e [TIME]
",
    );
    assert_has(&ran.stdout, "Ran 5 tests across 1 file.");
    assert_eq!(last_line(&ran.stdout), "2 passed, 3 failed");
}

/// A test that fakes timers still has its time limit (the runner keeps real timers), and a
/// `mock.module` factory that returns a promise (bun awaits it; awf does not) fails saying so
/// and what to do instead, while the file's other tests run.
#[test]
fn fake_timers_keep_time_limits_and_an_async_module_factory_says_what_to_do() {
    let project = project(&[
        ("dep.ts", "export const answer = 42;\n"),
        (
            "fakes.test.ts",
            r#"import { expect, jest, mock, test } from "bun:test";
test("hangs under fake timers", async () => {
  jest.useFakeTimers();
  await new Promise((resolve) => setTimeout(resolve, 10));
}, 50);
test("mocks a module", () => {
  mock.module("./dep.ts", async () => ({ answer: 1 }));
});
test("still runs", async () => {
  jest.useRealTimers();
  mock.module("./dep.ts", () => ({ answer: 1 }));
  expect((await import("./dep.ts")).answer).toBe(1);
});
"#,
        ),
    ]);
    let ran = awf_test_exits(&project, &[], 1);
    assert_has(
        &ran.stdout,
        "✗ hangs under fake timers [TIME]\n  ^ this test timed out after 50ms.\n",
    );
    assert_has(
        &ran.stdout,
        "TypeError: mock.module(\"./dep.ts\", factory): awf takes a factory that returns the exports object itself, not a promise\nhint: drop the async",
    );
    assert_has(
        &ran.stdout,
        "✗ mocks a module [TIME]\n✓ still runs [TIME]\n",
    );
}

/// Snapshots: written on the first run (`+N added`), matched on the next (folded into the
/// expect() line, as bun prints it), a change fails with its diff, `-u` rewrites it and drops
/// what no test checks any more, and in CI a missing snapshot fails instead of being written.
#[test]
fn snapshots_are_written_matched_updated_and_refused_in_ci() {
    let test_file = |value: &str, extra: bool| {
        format!(
            "import {{ expect, test }} from \"bun:test\";\ntest(\"a\", () => {{ expect({{ v: {value} }}).toMatchSnapshot(); }});\n{}",
            if extra { "test(\"b\", () => { expect(\"b\").toMatchSnapshot(); });\n" } else { "" }
        )
    };
    let project = project(&[("s.test.ts", &test_file("1", true))]);
    let run = |args: &[&str], ci: &str, code: i32| {
        let mut ran = project
            .awf(&["test"])
            .args(args)
            .env("CI", ci)
            .bound(TEST_BOUND)
            .run();
        assert_eq!(ran.code, Some(code), "awf test {args:?}: {ran:?}");
        ran.stdout = without_times(&ran.stdout);
        ran
    };
    let snap =
        || std::fs::read_to_string(project.path().join("__snapshots__/s.test.ts.snap")).unwrap();

    let first = run(&[], "false", 0);
    assert_has(&first.stdout, "snapshots: +2 added\n 2 expect() calls\n");
    assert_eq!(
        snap(),
        "// Bun Snapshot v1, https://bun.sh/docs/test/snapshots\n\nexports[`a 1`] = `\n{\n  \"v\": 1,\n}\n`;\n\nexports[`b 1`] = `\"b\"`;\n"
    );
    let again = run(&[], "false", 0);
    assert_has(&again.stdout, "\n 2 snapshots, 2 expect() calls\n");

    project.file("s.test.ts", &test_file("2", false));
    let changed = run(&[], "false", 1);
    assert_has(
        &changed.stdout,
        "error: expect(received).toMatchSnapshot(expected)\n",
    );
    assert_has(&changed.stdout, "-   \"v\": 1,\n+   \"v\": 2,\n");
    assert_has(
        &changed.stdout,
        "snapshots: 1 failed, 1 obsolete (awf test -u removes them)\n",
    );

    let updated = run(&["-u"], "true", 0);
    assert_has(
        &updated.stdout,
        "snapshots: 1 updated, 1 obsolete removed\n",
    );
    assert!(
        snap().contains("\"v\": 2") && !snap().contains("`b 1`"),
        "{}",
        snap()
    );

    project.file("s.test.ts", &test_file("2", true));
    let in_ci = run(&[], "true", 1);
    assert_has(
        &in_ci.stdout,
        "Snapshot creation is disabled in CI environments unless --update-snapshots is used",
    );
    assert!(!snap().contains("`b 1`"), "CI wrote a snapshot: {}", snap());
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
    let project = TempProject::new();
    for name in ["d", "a", "c", "b"] {
        project.file(&format!("{name}.test.ts"), &file(name));
    }
    let ran = awf_test_exits(&project, &["--jobs", "4"], 0);
    let (mut expected, mut warnings) = (String::new(), String::new());
    for name in ["a", "b", "c", "d"] {
        expected.push_str(&format!("\n{name}.test.ts:\n"));
        for i in 0..4 {
            expected.push_str(&format!("{name} says {i}\n✓ {name} {i} [TIME]\n"));
            warnings.push_str(&format!("{name} warns {i}\n"));
        }
    }
    assert!(ran.stdout.starts_with(&expected), "{}", ran.stdout);
    assert_eq!(ran.stderr, warnings);
}

#[test]
fn junit_report_is_written() {
    let project = project(&[(
        "a.test.ts",
        "import { describe, expect, test } from \"bun:test\";\ndescribe(\"outer\", () => {\n  test(\"ok\", () => {});\n  test(\"bad <one>\", () => expect(1).toBe(2));\n  test.todo(\"later\");\n});\n",
    )]);
    let ran = awf_test_exits(
        &project,
        &[
            "--reporter",
            "junit",
            "--reporter-outfile",
            "reports/junit.xml",
        ],
        1,
    );
    let xml = project.read("reports/junit.xml");
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"awf test\" tests=\"3\" assertions=\"1\" failures=\"1\" errors=\"0\" skipped=\"1\""), "{xml}");
    assert_has(&xml, "<testsuite name=\"outer\" file=\"a.test.ts\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\"");
    assert_has(
        &xml,
        "<testcase name=\"bad &lt;one&gt;\" classname=\"outer\"",
    );
    assert_has(&xml, "<failure type=\"AssertionError\" message=\"expect(received).toBe(expected)&#10;&#10;Expected: 2&#10;Received: 1&#10;\">");
    assert_has(&xml, "<skipped message=\"TODO\" />");
    // The text report is printed as well.
    assert_has(&ran.stdout, "✗ outer > bad <one>");
}

/// The whole text of failures: code frames, matcher diffs, frames, as bun prints them. An
/// error of the file's own class is placed where it was made, not in its constructor.
#[test]
fn failure_output_golden() {
    let project = project(&[(
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
    let ran = awf_test_exits(&project, &[], 1);
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
    assert_eq!(ran.stdout, expected);
}

/// Runs tests/fixtures/bun-conformance/compare.mjs: every test of the fixtures must have the
/// same outcome under `awf test` as under a real `bun test`. bun comes from npm, installed
/// once under target/test-tools/ and reused.
#[test]
fn bun_conformance() {
    // compare.mjs uses the bun already under DIR/node_modules/.bin, so npm_tool's install is it.
    let bun = npm_tool("bun", BUN_VERSION);
    let ran = AwfCommand::new(node_bin())
        .arg(fixture("bun-conformance/compare.mjs"))
        .arg("--install-bun")
        .arg(&bun)
        .arg("--awf")
        .arg(awf_bin())
        .env("BUN_VERSION", BUN_VERSION)
        .bound(COMPARE_BOUND)
        .run();
    assert_eq!(
        ran.code,
        Some(0),
        "awf and bun disagree (bun is {}):\n{}\n{}",
        bun.join("node_modules/.bin/bun").display(),
        ran.stdout,
        ran.stderr
    );
    assert_has(&ran.stdout, "compare: all outcomes agree");
}
