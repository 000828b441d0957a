//! `present(value, ending)` and `report(value, ending)` (docs/workflow-api.md): the text `awf
//! run` prints for a completed attempt (`--json` prints the record instead), report.md on every
//! ending (completed, failed, stopped, timed out, Ctrl-C) with its path printed, and a throw or a
//! bad value in either reported with the author's line, never changing the ending or exit code.

use std::fs;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{assert_has, assert_lacks, awf_bin, wait_for_file, TempProject};

/// Ends by its first word: completes, fails, stops, or hangs (for the deadline and Ctrl-C).
const HOOKED: &str = r##"import { writeFileSync } from "node:fs";

export default defineWorkflow({
  meta: { name: "hooked", description: "Ends as told; presents and reports." },
  async run(wf, input) {
    const how = input.argv[0] ?? "complete";
    if (how === "fail") throw new Error("it broke");
    if (how === "stop") await wf.stage("check", async () => wf.stop("nothing to do"));
    if (how === "hang") {
      writeFileSync("started", "");
      await new Promise((resolve) => setTimeout(resolve, 60_000));
    }
    return { count: 3 };
  },
  present(value, ending) {
    return `counted ${value.count} (${ending.kind}, run ${ending.runId}, attempt ${ending.attempt})`;
  },
  report(value, ending) {
    return [
      "# hooked",
      `kind: ${ending.kind}`,
      `value: ${JSON.stringify(value)}`,
      `reason: ${ending.reason ?? "-"}`,
      `stage: ${ending.stage ?? "-"}`,
      `error: ${ending.error?.message ?? "-"}`,
      "",
    ].join("\n");
  },
});
"##;

fn project() -> TempProject {
    let project = TempProject::new();
    project.file("wf.ts", HOOKED);
    project
}

fn report_of(project: &TempProject) -> String {
    let dir = project.only_run_dir("hooked");
    fs::read_to_string(dir.join("report.md")).expect("report.md is written")
}

fn output_of(project: &TempProject) -> Value {
    let dir = project.only_run_dir("hooked");
    serde_json::from_str(&fs::read_to_string(dir.join("output.json")).unwrap()).unwrap()
}

#[test]
fn a_completed_run_prints_present_and_writes_its_report() {
    let project = project();
    let ran = project.awf(&["run", "wf.ts", "--id", "r1"]).run();
    ran.assert_success();
    assert_eq!(ran.stdout, "counted 3 (completed, run r1, attempt 1)\n");
    assert_has(&ran.stderr, "awf: report in .awf/runs/hooked/r1/report.md");
    let report = report_of(&project);
    assert_has(&report, "kind: completed\nvalue: {\"count\":3}\nreason: -");
    let output = output_of(&project);
    assert_eq!(
        output["report"].as_str().unwrap(),
        project
            .path()
            .join(".awf/runs/hooked/r1/report.md")
            .display()
            .to_string()
    );
}

#[test]
fn json_prints_the_record_not_present() {
    let project = project();
    let ran = project.awf(&["run", "wf.ts", "--json"]).run();
    ran.assert_success();
    let record: Value = serde_json::from_str(&ran.stdout).expect("--json prints the record");
    assert_eq!(record["outcome"], "completed");
    assert_eq!(record["value"]["count"], 3);
    assert_lacks(&ran.stdout, "counted 3");
}

#[test]
fn failed_and_stopped_runs_write_a_report_and_keep_their_exit_codes() {
    let project = project();
    let ran = project.awf(&["run", "wf.ts", "--", "fail"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_eq!(ran.stdout, "", "present is for a completed attempt only");
    assert_has(&ran.stderr, "awf: run failed: Error: it broke");
    assert_has(&ran.stderr, "/report.md");
    let report = report_of(&project);
    assert_has(
        &report,
        "kind: failed\nvalue: undefined\nreason: Error: it broke",
    );
    assert_has(&report, "error: it broke");

    let project = self::project();
    let ran = project.awf(&["run", "wf.ts", "--", "stop"]).run();
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    let report = report_of(&project);
    assert_has(
        &report,
        "kind: stopped\nvalue: undefined\nreason: nothing to do\nstage: check",
    );
}

#[test]
fn a_timed_out_run_writes_its_report() {
    let project = project();
    let ran = project
        .awf(&["run", "wf.ts", "--timeout", "1s", "--", "hang"])
        .bound(Duration::from_secs(30))
        .run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_has(&ran.stderr, "awf: run timed out");
    assert_has(&report_of(&project), "kind: timed-out");
}

#[test]
fn ctrl_c_writes_the_report_of_a_cancelled_run() {
    let project = project();
    let mut awf = Command::new(awf_bin())
        .args(["run", "wf.ts", "--", "hang"])
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_file(&project.path().join("started"), Duration::from_secs(20));
    unsafe { libc::kill(awf.id() as i32, libc::SIGINT) };
    let status = awf.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_has(&report_of(&project), "kind: cancelled");
}

#[test]
fn a_throw_in_present_or_report_is_reported_and_changes_nothing() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "hooked", description: "Hooks that go wrong." },
  async run(wf, input) {
    return input.argv[0] === "fail" ? Promise.reject(new Error("it broke")) : { ok: true };
  },
  present(value, ending) {
    throw new Error("present broke");
  },
  report(value, ending) {
    return 42;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // The result is printed as JSON instead of present's text.
    assert_has(&ran.stdout, "\"ok\": true");
    assert_has(
        &ran.stderr,
        "awf: present(value, ending) threw: present broke\n    at present (wf.ts:7:15)",
    );
    assert_has(&ran.stderr, "hint: present gives the text awf run prints");
    assert_has(
        &ran.stderr,
        "awf: report(value, ending) returned number, not a string",
    );
    let dir = project.only_run_dir("hooked");
    assert!(!dir.join("report.md").exists());
    let output: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("output.json")).unwrap()).unwrap();
    assert_eq!(output["outcome"], "completed");
    assert_eq!(output["closingErrors"].as_array().unwrap().len(), 2);

    let ran = project.awf(&["run", "wf.ts", "--", "fail"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_has(&ran.stderr, "awf: run failed: Error: it broke");
    assert_lacks(&ran.stderr, "present(value, ending)");
}

#[test]
fn a_report_that_never_settles_is_stopped_and_reported() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "hooked", description: "A report that never settles." },
  async run() { return 1; },
  report() { return new Promise(() => {}); },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "report(value, ending) awaits a promise that nothing will settle",
    );
}
