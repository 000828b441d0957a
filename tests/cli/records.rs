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
