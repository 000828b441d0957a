//! The run folder `awf run` leaves: `<cwd>/.awf/runs/<meta.name>/<run-id>/` with run.json,
//! events.jsonl and output.json written whole, and a `.gitignore` of `*` in `.awf/runs`.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::util::{filter, TempProject};

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The file's JSON as text with run ids, times and the project's path filtered.
fn filtered_json(path: &Path, project: &Path) -> String {
    let text = filter(&fs::read_to_string(path).unwrap(), project);
    let mask = |text: String, key: &str, with: &str| {
        let Some(at) = text.find(key) else {
            return text;
        };
        let from = at + key.len();
        let digits = text[from..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        format!("{}{with}{}", &text[..from], &text[from + digits..])
    };
    let text = mask(text, "\"pid\": ", "[PID]");
    mask(text, "\"start\": ", "[START]")
}

const LOGGING_WORKFLOW: &str = r#"export default defineWorkflow({
  meta: { name: "records", description: "Leaves records." },
  run(wf, input) {
    wf.log("working", { step: 1 });
    return { input };
  },
});
"#;

#[test]
fn a_completed_run_leaves_run_json_events_and_output() {
    let project = TempProject::new();
    project.file("wf.ts", LOGGING_WORKFLOW);
    project
        .awf(&["run", "wf.ts", "--timeout", "90s", "--", "w1"])
        .run()
        .assert_success();
    let root = project.path();
    assert_eq!(
        fs::read_to_string(root.join(".awf/runs/.gitignore")).unwrap(),
        "*\n"
    );
    let run_dir = project.only_run_dir("records");
    let mut names: Vec<String> = fs::read_dir(&run_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["attempts", "events.jsonl", "output.json", "run.json"],
        "no temp files left"
    );
    let run_id = run_dir.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(read_json(&run_dir.join("run.json"))["runId"], json!(run_id));
    assert_eq!(
        filtered_json(&run_dir.join("run.json"), &root),
        r#"{
  "version": 1,
  "runId": "[RUN_ID]",
  "workflow": "records",
  "file": "[TMP]/wf.ts",
  "cwd": "[TMP]",
  "argv": [
    "w1"
  ],
  "input": {
    "argv": [
      "w1"
    ]
  },
  "startedAt": "[TIME]"
}
"#
    );
    let attempt = read_json(&run_dir.join("attempts/1.json"));
    assert_eq!(attempt["flags"], json!({"timeoutMs": 90000}));
    assert_eq!(attempt["outcome"], json!("completed"));
    assert!(attempt["awf"]["pid"].is_number(), "{attempt}");
    assert_eq!(
        filtered_json(&run_dir.join("events.jsonl"), &root),
        r#"{"at":"[TIME]","event":"run-started","runId":"[RUN_ID]","workflow":"records","file":"[TMP]/wf.ts","cwd":"[TMP]","argv":["w1"],"attempt":1}
{"at":"[TIME]","event":"log","message":"working","fields":{"step":1}}
{"at":"[TIME]","event":"run-ended","outcome":"completed","attempt":1}
"#
    );
    let output = read_json(&run_dir.join("output.json"));
    assert_eq!(output["outcome"], json!("completed"));
    assert_eq!(output["value"], json!({"input": {"argv": ["w1"]}}));
    assert_eq!(output["records"], json!(run_dir.display().to_string()));
}

#[test]
fn a_failed_run_records_its_reason_and_error() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "fails", description: "Throws." },
  run() {
    throw new TypeError("no such thing");
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(1));
    let run_dir = project.only_run_dir("fails");
    let output = read_json(&run_dir.join("output.json"));
    assert_eq!(output["outcome"], json!("failed"));
    assert_eq!(output["reason"], json!("TypeError: no such thing"));
    assert_eq!(output["error"]["name"], json!("TypeError"));
    assert!(
        output["error"]["stack"]
            .as_str()
            .unwrap()
            .contains("/wf.ts:4:"),
        "{output}"
    );
    assert!(output.get("value").is_none(), "{output}");
    let events = fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    let last: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
    assert_eq!(
        (&last["event"], &last["outcome"], &last["reason"]),
        (
            &json!("run-ended"),
            &json!("failed"),
            &json!("TypeError: no such thing")
        )
    );
}

#[test]
fn every_run_gets_its_own_folder_and_the_gitignore_is_kept() {
    let project = TempProject::new();
    project
        .file("wf.ts", LOGGING_WORKFLOW)
        .file(".awf/runs/.gitignore", "*\n# kept as the user left it\n");
    for _ in 0..3 {
        project.awf(&["run", "wf.ts"]).run().assert_success();
    }
    let runs = fs::read_dir(project.path().join(".awf/runs/records"))
        .unwrap()
        .count();
    assert_eq!(runs, 3);
    assert_eq!(
        project.read(".awf/runs/.gitignore"),
        "*\n# kept as the user left it\n"
    );
}

#[test]
fn an_invalid_workflow_leaves_no_run_folder() {
    let project = TempProject::new();
    project.file("wf.ts", "export const notDefault = 1;\n");
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(2));
    assert!(!project.path().join(".awf").exists());
}

#[test]
fn a_cwd_where_records_cannot_be_written_fails_with_the_path() {
    let project = TempProject::new();
    project
        .file("wf.ts", LOGGING_WORKFLOW)
        .file(".awf/runs", "a file where the runs folder should be\n");
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(1));
    let stderr = filter(&ran.stderr, &project.path());
    assert!(
        stderr.starts_with("awf: run failed: cannot create the run folder under [TMP]/.awf/runs: "),
        "{stderr}"
    );
}

#[test]
fn past_the_events_cap_later_events_are_counted_even_small_ones() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "One large line, then small ones." },
  async run(wf) {
    wf.log("small");
    wf.log("x".repeat(5000));
    for (let i = 0; i < 10; i++) wf.log(`after ${i}`);
    return "still here";
  },
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts", "--json"])
        .env("AWF_MAX_EVENTS_BYTES", "4000")
        .run();
    let record = ran.assert_success().json();
    assert_eq!(record["value"], "still here");
    assert_eq!(record["eventsDropped"], 11, "{record}");
    let events = project.events("t");
    let logs: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "log")
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(logs, ["small"]);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    let capped = kinds.iter().position(|k| *k == "events-capped").unwrap();
    assert_eq!(&kinds[capped + 1..], ["run-ended"], "{kinds:?}");
}

/// Two stages; the second fails until a file `fixed` exists. Each attempt appends its number to
/// `attempts.log`.
const FAILING_STAGES: &str = r#"import { appendFileSync, existsSync } from "node:fs";

export default defineWorkflow({
  meta: { name: "t", description: "Fails in its second stage until fixed." },
  async run(wf) {
    appendFileSync("attempts.log", `${wf.attempt}\n`);
    await wf.stage("one", async () => {});
    await wf.stage("two", async () => {
      if (!existsSync("fixed")) throw new Error("not yet");
    });
    return wf.attempt;
  },
});
"#;

fn attempts_log(project: &TempProject) -> Vec<u32> {
    project
        .read("attempts.log")
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// `awf run wf.ts --continue r1`: its exit code and stderr.
fn continue_r1(project: &TempProject, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["run", "wf.ts", "--continue", "r1"];
    args.extend_from_slice(extra);
    let ran = project.awf(&args).run();
    (ran.code, ran.stderr.clone())
}

/// `awf runs`: its JSON, and the problems it names on stderr.
fn runs(project: &TempProject) -> (Vec<Value>, String) {
    let table = project.awf(&["runs"]).run();
    table.assert_success();
    let listed = project.awf(&["runs", "--json"]).run();
    (
        serde_json::from_str(&listed.stdout).unwrap(),
        table.stderr.clone(),
    )
}

#[test]
fn broken_records_are_named_with_what_to_do() {
    let project = TempProject::new();
    project.file("wf.ts", FAILING_STAGES);
    assert_eq!(
        project.awf(&["run", "wf.ts", "--id", "r1"]).run().code,
        Some(1)
    );
    assert_eq!(continue_r1(&project, &[]).0, Some(1));
    let dir = project.only_run_dir("t");
    let attempt_2 = dir.join("attempts/2.json");

    // An attempt record that holds no attempt number.
    fs::write(&attempt_2, "{}").unwrap();
    let (code, stderr) = continue_r1(&project, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "awf: --continue r1: {}: holds no attempt number, so not an attempt record (one has \"attempt\": 2)",
            attempt_2.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "hint: move it away (`mv {0} {0}.broken`) and continue again",
            attempt_2.display()
        )),
        "{stderr}"
    );
    let names: Vec<String> = fs::read_dir(dir.join("attempts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no attempt was started: {names:?}");
    let (listed, problems) = runs(&project);
    assert_eq!(listed[0]["status"], "unreadable", "{listed:?}");
    assert_eq!(listed[0]["runId"], "r1");
    assert!(listed[0]["problem"]
        .as_str()
        .unwrap()
        .contains("holds no attempt number"));
    assert!(problems.contains("awf: run r1 of t: "), "{problems}");
    assert!(problems.contains("hint: move it away"), "{problems}");

    // Moved away as the hint says: the next attempt is 3, not a second 2.
    fs::rename(&attempt_2, dir.join("attempts/2.json.broken")).unwrap();
    assert_eq!(continue_r1(&project, &[]).0, Some(1));
    assert_eq!(attempts_log(&project), [1, 2, 3]);
    assert_eq!(read_json(&dir.join("attempts/3.json"))["attempt"], 3);

    // A stage record that is not UTF-8.
    let stage_one = dir.join("stages/one.json");
    fs::write(&stage_one, [0xff, 0xfe, b'{']).unwrap();
    let (code, stderr) = continue_r1(&project, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: is not UTF-8 text, so not a record",
            stage_one.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("or add --fresh-stages to run every stage again"),
        "{stderr}"
    );
    let (listed, problems) = runs(&project);
    assert_eq!(listed[0]["status"], "failed", "{listed:?}");
    assert!(problems.contains("is not UTF-8 text"), "{problems}");
    // --fresh-stages reads no stage record, and runs stage one again.
    assert_eq!(continue_r1(&project, &["--fresh-stages"]).0, Some(1));
    assert_eq!(attempts_log(&project), [1, 2, 3, 4]);
    assert_eq!(read_json(&stage_one)["attempt"], 4);

    // `stages` replaced by a file.
    fs::remove_dir_all(dir.join("stages")).unwrap();
    fs::write(dir.join("stages"), "").unwrap();
    let (code, stderr) = continue_r1(&project, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: is a file, where awf keeps a folder of records",
            dir.join("stages").display()
        )),
        "{stderr}"
    );
    fs::remove_file(dir.join("stages")).unwrap();

    // A truncated run.json: the run is listed, not hidden, and cannot be continued.
    let run_json = fs::read_to_string(dir.join("run.json")).unwrap();
    fs::write(dir.join("run.json"), &run_json[..run_json.len() / 2]).unwrap();
    let (listed, problems) = runs(&project);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        (
            &listed[0]["workflow"],
            &listed[0]["runId"],
            &listed[0]["status"]
        ),
        (&json!("t"), &json!("r1"), &json!("unreadable"))
    );
    assert!(
        problems.contains("run.json: is not a whole JSON record"),
        "{problems}"
    );
    let (code, stderr) = continue_r1(&project, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("run.json: is not a whole JSON record"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: a run without a readable run.json cannot be continued"),
        "{stderr}"
    );
}

#[test]
fn a_deleted_attempt_record_does_not_make_its_number_free_again() {
    let project = TempProject::new();
    project.file("wf.ts", FAILING_STAGES);
    assert_eq!(
        project.awf(&["run", "wf.ts", "--id", "r1"]).run().code,
        Some(1)
    );
    let dir = project.only_run_dir("t");
    fs::remove_file(dir.join("attempts/1.json")).unwrap();
    fs::write(project.path().join("fixed"), "").unwrap();
    let ran = project.awf(&["run", "wf.ts", "--continue", "r1"]).run();
    assert_eq!(ran.assert_success().json(), 2);
    assert_eq!(attempts_log(&project), [1, 2]);
    assert!(!dir.join("attempts/1.json").exists());
}
