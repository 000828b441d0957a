//! Stages, stop and continue (docs/stages.md): a run that fails in a stage is continued as a new
//! attempt that reuses the stages it finished; run ids and `id(input)`; refusals of a continue;
//! `wf.stop`; a changed workflow; `awf runs`; and `kill -9` of awf mid-stage with an agent
//! mid-turn.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{assert_has, awf_bin, process_running, wait_for_file, TempProject};

const BOUND: Duration = Duration::from_secs(20);

/// Four stages; each appends its name to `ran.log` when its work runs. `test` fails until a
/// file `fixed` exists.
const FOUR_STAGES: &str = r#"import { appendFileSync, existsSync } from "node:fs";

const Plan = typed(Type.Object({ steps: Type.Array(Type.String()) }));

export default defineWorkflow({
  meta: { name: "four", description: "Four stages; the third fails until fixed." },
  async run(wf, input) {
    const note = (name) => appendFileSync("ran.log", `${name} ${wf.attempt}\n`);
    const plan = await wf.stage("plan", { result: Plan, summary: (p) => `${p.steps.length} steps` }, async () => {
      note("plan");
      return { steps: ["build", "test", "ship"] };
    });
    await wf.stage("build", async () => { note("build"); });
    const tested = await wf.stage("test", { result: typed(Type.Boolean()) }, async () => {
      note("test");
      if (!existsSync("fixed")) throw new Error("2 tests fail");
      return true;
    });
    await wf.stage("ship", async () => { note("ship"); });
    return { steps: plan.steps, tested, attempt: wf.attempt, input };
  },
});
"#;

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn runs_json(project: &TempProject) -> Vec<Value> {
    let ran = project.awf(&["runs", "--json"]).run();
    ran.assert_success();
    serde_json::from_str::<Vec<Value>>(&ran.stdout).unwrap()
}

/// Every JSON file under `dir` parses, and no temp file is left.
fn assert_whole_records(dir: &Path) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !name.ends_with(".tmp"),
            "a temp file is left: {}",
            path.display()
        );
        if path.is_dir() {
            assert_whole_records(&path);
        } else if name.ends_with(".json") {
            read_json(&path);
        }
    }
}

#[test]
fn a_four_stage_run_that_fails_is_continued_reusing_the_stages_it_finished() {
    let project = TempProject::new();
    project.file("wf.ts", FOUR_STAGES);
    let first = project.awf(&["run", "wf.ts", "--", "w1"]).run();
    assert_eq!(first.code, Some(1), "{}", first.stderr);
    assert_has(&first.stderr, "Error: 2 tests fail");
    let dir = project.only_run_dir("four");
    let id = dir.file_name().unwrap().to_str().unwrap().to_string();
    assert_has(
        &first.stderr,
        &format!("awf: to go on: awf run wf.ts --continue {id}"),
    );

    let listed = runs_json(&project);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["status"], "failed");
    assert_eq!(listed[0]["attempts"], 1);
    assert_eq!(
        (&listed[0]["stage"], &listed[0]["stageOutcome"]),
        (&json!("test"), &json!("failed"))
    );
    assert_eq!(
        listed[0]["continue"],
        json!(format!("awf run wf.ts --continue {id}"))
    );

    project.file("fixed", "");
    let second = project.awf(&["run", "wf.ts", "--continue"]).run();
    assert_eq!(
        second.assert_success().json(),
        json!({"steps": ["build", "test", "ship"], "tested": true, "attempt": 2, "input": {"argv": ["w1"]}})
    );
    assert_eq!(
        project.read("ran.log"),
        "plan 1\nbuild 1\ntest 1\ntest 2\nship 2\n"
    );

    let attempt1 = read_json(&dir.join("attempts/1.json"));
    assert_eq!(
        (&attempt1["outcome"], &attempt1["stage"]),
        (&json!("failed"), &json!("test"))
    );
    let attempt2 = read_json(&dir.join("attempts/2.json"));
    assert_eq!(attempt2["outcome"], "completed");
    let sources: Vec<(String, String)> = attempt2["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["stage"].as_str().unwrap().into(),
                s["source"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        sources,
        [
            ("plan", "reused"),
            ("build", "reused"),
            ("test", "ran"),
            ("ship", "ran")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert!(attempt2["sources"]["wf.ts"].as_str().unwrap().len() == 40);
    let plan = read_json(&dir.join("stages/plan.json"));
    assert_eq!(plan["attempt"], 1);
    assert_eq!(plan["summary"], "3 steps");
    assert_eq!(plan["value"], json!({"steps": ["build", "test", "ship"]}));
    assert_eq!(read_json(&dir.join("stages/test.json"))["attempt"], 2);
    let replaced = read_json(&dir.join("replaced/test.2.json"));
    assert_eq!(
        (&replaced["outcome"], &replaced["reason"]),
        (&json!("failed"), &json!("2 tests fail"))
    );
    assert_whole_records(&dir);

    let events = project.events("four");
    let reused: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "stage-reused")
        .collect();
    assert_eq!(reused.len(), 2);
    assert_eq!(
        (&reused[0]["attempt"], &reused[0]["fromAttempt"]),
        (&json!(2), &json!(1))
    );
    let started: Vec<u64> = events
        .iter()
        .filter(|e| e["event"] == "run-started")
        .map(|e| e["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(started, [1, 2]);

    let listed = runs_json(&project);
    assert_eq!(
        (&listed[0]["status"], &listed[0]["attempts"]),
        (&json!("completed"), &json!(2))
    );
    assert_eq!(listed[0]["continue"], Value::Null);
    let table = project.awf(&["runs"]).run();
    assert_has(
        &table.assert_success().stdout,
        &format!("four      {id}  completed  2         ship (succeeded)"),
    );
}

/// awf writes an attempt's ending into output.json (flushed) and then copies it into the
/// attempt's record without waiting for the disk; when the copy is lost (`kill -9` between the
/// two, or a power cut), the ending is read from output.json, and the continue writes it into
/// the attempt's record before its own output.json replaces the only other copy.
#[test]
fn an_ending_whose_copy_into_the_attempt_record_was_lost_is_read_from_output_json() {
    let project = TempProject::new();
    project.file("wf.ts", FOUR_STAGES);
    let first = project.awf(&["run", "wf.ts", "--", "w1"]).run();
    assert_eq!(first.code, Some(1), "{}", first.stderr);
    let dir = project.only_run_dir("four");
    let ended = read_json(&dir.join("attempts/1.json"));
    let mut as_started = ended.clone();
    for key in [
        "outcome",
        "reason",
        "stage",
        "stages",
        "endedAt",
        "durationMs",
    ] {
        as_started.as_object_mut().unwrap().remove(key);
    }
    fs::write(
        dir.join("attempts/1.json"),
        serde_json::to_string_pretty(&as_started).unwrap(),
    )
    .unwrap();

    let listed = runs_json(&project);
    assert_eq!(
        (&listed[0]["status"], &listed[0]["stage"]),
        (&json!("failed"), &json!("test")),
        "not `interrupted`: output.json says how attempt 1 ended"
    );
    project.file("fixed", "");
    project
        .awf(&["run", "wf.ts", "--continue"])
        .run()
        .assert_success();
    assert_eq!(read_json(&dir.join("attempts/1.json")), ended);
    assert_eq!(read_json(&dir.join("output.json"))["attempt"], 2);
    let listed = runs_json(&project);
    assert_eq!(
        (&listed[0]["status"], &listed[0]["attempts"]),
        (&json!("completed"), &json!(2))
    );
    assert_whole_records(&dir);
}

#[test]
fn a_continue_is_refused_what_it_cannot_honour() {
    let project = TempProject::new();
    project.file("wf.ts", FOUR_STAGES).file("other/keep", "");
    let first = project.awf(&["run", "wf.ts", "--id", "PROJ-1"]).run();
    assert_eq!(first.code, Some(1));
    let dir = project.path().join(".awf/runs/four/PROJ-1");
    assert!(dir.join("run.json").is_file());

    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["run", "wf.ts", "--continue", "PROJ-1", "--", "other"],
            "words after `--` are refused",
            "hint: drop the words",
        ),
        (
            &["run", "wf.ts", "--continue", "PROJ-2"],
            "workflow four has no run PROJ-2",
            "hint: `awf runs` lists",
        ),
        (
            &["run", "wf.ts", "--id", "PROJ-1"],
            "a run with id PROJ-1 already exists",
            "hint: continue it with `awf run wf.ts --continue PROJ-1`",
        ),
        (
            &[
                "run",
                "wf.ts",
                "--continue",
                "PROJ-1",
                "--from-stage",
                "deploy",
            ],
            "run PROJ-1 has no record of a stage deploy",
            "hint: its stages: build, plan, test",
        ),
        (
            &["run", "wf.ts", "--id", "../x"],
            "--id gave \"../x\", which cannot name a run",
            "hint: a run id is 1 to 128",
        ),
    ];
    for (args, error, hint) in cases {
        let ran = project.awf(args).run();
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert_has(&ran.stderr, error);
        assert_has(&ran.stderr, hint);
    }
    // Another --cwd: the run is not found there.
    let elsewhere = project
        .awf(&["run", "wf.ts", "--continue", "PROJ-1", "--cwd", "other"])
        .run();
    assert_eq!(elsewhere.code, Some(2));
    assert_has(&elsewhere.stderr, "workflow four has no run PROJ-1 under");
    assert_eq!(
        project.read("ran.log"),
        "plan 1\nbuild 1\ntest 1\n",
        "nothing ran"
    );

    project.file("fixed", "");
    project
        .awf(&["run", "wf.ts", "--continue", "PROJ-1"])
        .run()
        .assert_success();
    let done = project.awf(&["run", "wf.ts", "--continue", "PROJ-1"]).run();
    assert_eq!(done.code, Some(2));
    assert_has(
        &done.stderr,
        "the run completed; there is nothing to go on with",
    );
    assert_has(&done.stderr, "hint: to redo stages, add --from-stage STAGE (its stages: plan, build, test, ship) or --fresh-stages");

    // --from-stage redoes from there on, reusing what comes before.
    let redo = project
        .awf(&[
            "run",
            "wf.ts",
            "--continue",
            "PROJ-1",
            "--from-stage",
            "test",
        ])
        .run();
    assert_eq!(redo.assert_success().json()["attempt"], 3);
    assert_eq!(
        project.read("ran.log"),
        "plan 1\nbuild 1\ntest 1\ntest 2\nship 2\ntest 3\nship 3\n"
    );
    let fresh = project
        .awf(&["run", "wf.ts", "--continue", "PROJ-1", "--fresh-stages"])
        .run();
    fresh.assert_success();
    assert!(project
        .read("ran.log")
        .ends_with("ship 3\nplan 4\nbuild 4\ntest 4\nship 4\n"));
}

#[test]
fn the_workflow_can_name_its_run_and_a_moved_workflow_file_is_refused() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "ticket", description: "Named by its ticket." },
  prepare: ({ argv }) => ({ ticket: argv[0] }),
  id: (input) => input.ticket,
  run: (wf) => ({ runId: wf.runId, attempt: wf.attempt }),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts", "--", "PROJ-7"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!({"runId": "PROJ-7", "attempt": 1})
    );
    let again = project.awf(&["run", "wf.ts", "--", "PROJ-7"]).run();
    assert_eq!(again.code, Some(2));
    assert_has(&again.stderr, "a run with id PROJ-7 already exists");
    let named = project
        .awf(&["run", "wf.ts", "--id", "mine", "--", "PROJ-7"])
        .run();
    assert_eq!(named.assert_success().json()["runId"], "mine");
    let bad = project.awf(&["run", "wf.ts", "--", "a b"]).run();
    assert_eq!(bad.code, Some(2));
    assert_has(
        &bad.stderr,
        "the workflow's id(input) gave \"a b\", which cannot name a run",
    );

    fs::copy(project.path().join("wf.ts"), project.path().join("copy.ts")).unwrap();
    let other = project
        .awf(&[
            "run",
            "copy.ts",
            "--continue",
            "PROJ-7",
            "--from-stage",
            "x",
        ])
        .run();
    assert_eq!(other.code, Some(2));
    assert_has(&other.stderr, "the run was started with wf.ts, not copy.ts");
}

#[test]
fn stop_ends_the_attempt_stopped_with_its_stage_and_exit_3() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "stops", description: "Stops in its second stage." },
  async run(wf) {
    await wf.stage("look", async () => {});
    await wf.stage("decide", async () => {
      if (wf.attempt === 1) wf.stop("nothing to fix");
    });
    return "went on";
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    assert_has(&ran.stderr, "awf: the workflow stopped: nothing to fix");
    let dir = project.only_run_dir("stops");
    let attempt = read_json(&dir.join("attempts/1.json"));
    assert_eq!(
        (&attempt["outcome"], &attempt["stage"], &attempt["reason"]),
        (
            &json!("stopped"),
            &json!("decide"),
            &json!("nothing to fix")
        )
    );
    let stage = read_json(&dir.join("stages/decide.json"));
    assert_eq!(
        (&stage["outcome"], &stage["reason"]),
        (&json!("stopped"), &json!("nothing to fix"))
    );
    let output = read_json(&dir.join("output.json"));
    assert_eq!(
        (&output["outcome"], &output["stage"]),
        (&json!("stopped"), &json!("decide"))
    );
    assert_eq!(runs_json(&project)[0]["status"], "stopped");
    let went_on = project.awf(&["run", "wf.ts", "--continue"]).run();
    assert_eq!(went_on.assert_success().json(), json!("went on"));

    project.file(
        "caught.ts",
        r#"export default defineWorkflow({
  meta: { name: "caught", description: "Catches its stop." },
  async run(wf) {
    try { wf.stop("enough"); } catch {}
    return 1;
  },
});
"#,
    );
    let caught = project.awf(&["run", "caught.ts"]).run();
    assert_eq!(caught.code, Some(1));
    assert_has(
        &caught.stderr,
        "wf.stop(\"enough\") was called, but the workflow caught it and returned",
    );
}

#[test]
fn stage_rules_are_enforced_where_the_stage_is_written() {
    let project = TempProject::new();
    let cases = [
        ("await wf.stage(\"Plan\", async () => {});", "\"Plan\" is not a stage name"),
        ("await wf.stage(\"a\", async () => { await wf.stage(\"b\", async () => {}); });", "wf.stage(\"b\") began while stage \"a\" runs: stages do not nest"),
        ("await wf.stage(\"a\", async () => {}); await wf.stage(\"a\", async () => {});", "wf.stage(\"a\") ran twice in one attempt"),
        ("await wf.stage(\"a\", async () => 5);", "stage \"a\" returned a value but has no result schema"),
        ("await wf.stage(\"a\", { result: typed(Type.String()) }, async () => 5);", "stage \"a\" returned a value that does not match its result schema:\n  value: expected text; got 5"),
    ];
    for (n, (body, error)) in cases.iter().enumerate() {
        let file = format!("wf{n}.ts");
        project.file(
            &file,
            &format!("export default defineWorkflow({{\n  meta: {{ name: \"rules\", description: \"Breaks a rule.\" }},\n  async run(wf) {{\n    {body}\n  }},\n}});\n"),
        );
        let ran = project.awf(&["run", &file]).run();
        assert_eq!(ran.code, Some(1), "{body}: {}", ran.stderr);
        assert_has(&ran.stderr, error);
        assert_has(&ran.stderr, &format!("{file}:4:"));
    }
}

#[test]
fn a_changed_workflow_is_named_and_its_stages_rechecked_or_all_rerun() {
    let project = TempProject::new();
    project
        .file(
            "lib/shape.ts",
            "export const Shape = Type.Object({ n: Type.Number() });\n",
        )
        .file(
            "wf.ts",
            r#"import { appendFileSync, existsSync } from "node:fs";
import { Shape } from "./lib/shape.ts";

export default defineWorkflow({
  meta: { name: "changes", description: "Reuses a stage whose schema may change." },
  async run(wf) {
    const made = await wf.stage("make", { result: typed(Shape) }, async () => {
      appendFileSync("ran.log", `make ${wf.attempt}\n`);
      return existsSync("as-text") ? { n: "one" } : { n: 1 };
    });
    await wf.stage("check", async () => {
      if (!existsSync("ok")) throw new Error("not yet");
    });
    return made;
  },
});
"#,
        );
    assert_eq!(project.awf(&["run", "wf.ts"]).run().code, Some(1));
    project.file("ok", "");
    project.file(
        "lib/shape.ts",
        "export const Shape = Type.Object({ n: Type.Number() }); // same shape\n",
    );
    let same = project.awf(&["run", "wf.ts", "--continue"]).run();
    assert_eq!(same.assert_success().json(), json!({"n": 1}));
    assert_has(&same.stderr, "awf: since attempt 1, the workflow's files changed: lib/shape.ts; finished stages are still reused");
    assert_eq!(project.read("ran.log"), "make 1\n");

    // The schema changed: the recorded value no longer fits, so the stage runs again.
    project.file(
        "lib/shape.ts",
        "export const Shape = Type.Object({ n: Type.String() });\n",
    );
    project.file("as-text", "");
    let changed = project
        .awf(&["run", "wf.ts", "--continue", "--from-stage", "check"])
        .run();
    assert_eq!(changed.assert_success().json(), json!({"n": "one"}));
    assert_eq!(project.read("ran.log"), "make 1\nmake 3\n");
    let started = project.events_of("changes", "stage-started");
    let because = started
        .last()
        .map(|_| &started[started.len() - 2]["because"])
        .unwrap();
    assert_has(because.as_str().unwrap(), "the value attempt 1 recorded no longer fits the stage's result schema: value.n: expected text; got 1");
}

/// `meta.version` guards reuse: a stage recorded under another major version runs again, and
/// the continue says which stage and which versions; a minor change reuses it.
#[test]
fn a_stage_from_another_major_version_is_not_reused() {
    let project = TempProject::new();
    let workflow = |version: &str| {
        format!(
            r#"import {{ appendFileSync, existsSync }} from "node:fs";

export default defineWorkflow({{
  meta: {{ name: "versioned", description: "Two stages under a version.", version: "{version}" }},
  async run(wf) {{
    await wf.stage("make", async () => {{ appendFileSync("ran.log", `make ${{wf.attempt}}\n`); }});
    await wf.stage("check", async () => {{
      if (!existsSync("ok")) throw new Error("not yet");
    }});
    return "done";
  }},
}});
"#
        )
    };
    project.file("wf.ts", &workflow("1.2.0"));
    assert_eq!(project.awf(&["run", "wf.ts"]).run().code, Some(1));
    let dir = project.only_run_dir("versioned");
    assert_eq!(
        read_json(&dir.join("stages/make.json"))["workflowVersion"],
        "1.2.0"
    );
    assert_eq!(
        read_json(&dir.join("attempts/1.json"))["workflowVersion"],
        "1.2.0"
    );
    // A minor version: reused.
    project.file("wf.ts", &workflow("1.3.0"));
    assert_eq!(
        project.awf(&["run", "wf.ts", "--continue"]).run().code,
        Some(1)
    );
    assert_eq!(project.read("ran.log"), "make 1\n");
    // Another major version: runs again, and says why.
    project.file("wf.ts", &workflow("2.0.0"));
    project.file("ok", "");
    let ran = project.awf(&["run", "wf.ts", "--continue"]).run();
    ran.assert_success();
    assert_eq!(project.read("ran.log"), "make 1\nmake 3\n");
    assert_has(&ran.stderr, "stage make runs again: attempt 1 recorded it under meta.version 1.2.0, and the workflow is now 2.0.0");
}

/// An agent that writes its pid, then waits for `go` before answering.
const WAITING_AGENT: &str = "#!/bin/sh\ncat > /dev/null\necho $$ > agent.tmp; mv agent.tmp agent.pid\nwhile [ ! -e go ]; do sleep 0.02; done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n";

const AGENT_STAGES: &str = r#"import { appendFileSync } from "node:fs";

export default defineWorkflow({
  meta: { name: "crash", description: "An agent turn in its second stage." },
  async run(wf) {
    await wf.stage("first", async () => { appendFileSync("ran.log", `first ${wf.attempt}\n`); });
    const said = await wf.stage("second", { result: typed(Type.String()) }, async () => {
      appendFileSync("ran.log", `second ${wf.attempt}\n`);
      const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
      const { outcome } = await a.run({ prompt: "Go." });
      if (!outcome.answered) throw new Error(outcome.detail);
      return outcome.value;
    });
    return said;
  },
});
"#;

fn spawn_awf(project: &TempProject, args: &[&str]) -> std::process::Child {
    Command::new(awf_bin())
        .args(args)
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn pid_in(project: &TempProject, file: &str) -> i32 {
    wait_for_file(&project.path().join(file), BOUND);
    project.read(file).trim().parse().unwrap()
}

fn wait_gone(pid: i32, what: &str) {
    let start = std::time::Instant::now();
    while process_running(pid) {
        assert!(start.elapsed() < BOUND, "{what} (pid {pid}) still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn kill_9_mid_stage_leaves_an_interrupted_run_that_continues_from_its_stage() {
    let project = TempProject::new();
    project
        .script("agent.sh", WAITING_AGENT)
        .file("wf.ts", AGENT_STAGES);
    let mut awf = spawn_awf(&project, &["run", "wf.ts", "--timeout", "120s"]);
    let agent = pid_in(&project, "agent.pid");

    // While it runs, a continue is refused: the running awf is found by its pid.
    let refused = project.awf(&["run", "wf.ts", "--continue"]).run();
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert_has(
        &refused.stderr,
        &format!("the run is still running (awf pid {}, attempt 1)", awf.id()),
    );
    assert_eq!(runs_json(&project)[0]["status"], "running");
    assert_eq!(runs_json(&project)[0]["stageOutcome"], "running");

    // SAFETY: plain syscall on our own child.
    unsafe { libc::kill(awf.id() as i32, libc::SIGKILL) };
    awf.wait().unwrap();
    wait_gone(agent, "the agent, mid-turn when awf died");

    let dir: PathBuf = project.only_run_dir("crash");
    assert_whole_records(&dir);
    let listed = runs_json(&project);
    assert_eq!(listed[0]["status"], "interrupted");
    assert_eq!(
        (&listed[0]["stage"], &listed[0]["stageOutcome"]),
        (&json!("second"), &json!("interrupted"))
    );
    assert_eq!(
        read_json(&dir.join("stages/first.json"))["outcome"],
        "succeeded"
    );
    assert!(read_json(&dir.join("stages/second.json"))
        .get("outcome")
        .is_none());

    fs::remove_file(project.path().join("agent.pid")).unwrap();
    project.file("go", "");
    let second = project.awf(&["run", "wf.ts", "--continue"]).run();
    assert_eq!(second.assert_success().json(), json!("done"));
    assert_eq!(project.read("ran.log"), "first 1\nsecond 1\nsecond 2\n");
    let agent_again = pid_in(&project, "agent.pid");
    wait_gone(agent_again, "the second attempt's agent");
    assert_eq!(runs_json(&project)[0]["status"], "completed");
    let stage = read_json(&dir.join("stages/second.json"));
    assert_eq!(
        (&stage["outcome"], &stage["attempt"]),
        (&json!("succeeded"), &json!(2))
    );
    assert_eq!(stage["turns"].as_array().unwrap().len(), 1);
    let turns: Vec<(u64, String)> = project
        .events_of("crash", "turn-started")
        .iter()
        .map(|e| {
            (
                e["attempt"].as_u64().unwrap(),
                e["stage"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        turns,
        [(1, "second".to_string()), (2, "second".to_string())]
    );
    assert_whole_records(&dir);
}

#[test]
fn agentswf_testing_tests_a_continue_with_recorded_stages_and_from_stage() {
    let ran = crate::util::AwfCommand::new(awf_bin())
        .args(&["test", "tests/fixtures/testing-stages"])
        .current_dir(&crate::util::workspace())
        .run();
    ran.assert_success();
    assert!(
        ran.stdout.ends_with("5 passed, 0 failed\n"),
        "{}",
        ran.stdout
    );
}

/// Two turns of a real agent CLI in two stages; the second stage fails in attempt 1, before its
/// turn. The continue reuses the first stage and gives the second turn in the agent's native
/// session from attempt 1: the fake model sees the first prompt in its history.
const CONTINUED: &str = r#"export default defineWorkflow({
  meta: { name: "continued", description: "A real agent CLI across two attempts." },
  prepare: ({ argv }) => JSON.parse(argv[0]),
  async run(wf, input) {
    const add = tool({
      description: "Record one number.",
      input: typed(Type.Object({ x: Type.Integer() })),
      handler: ({ x }) => `Recorded ${x}.`,
    });
    const agent = await wf.agents.open({ key: "a", runtime: input.runtime, tools: { add }, ...(input.sandbox ? { sandbox: input.sandbox } : {}) });
    const first = await wf.stage("first", { result: typed(Type.Object({ ok: Type.Boolean() })) }, async () => {
      const { outcome } = await agent.run({
        prompt: "Record the number 1 with the add tool, then answer whether it worked.",
        schema: typed(Type.Object({ ok: Type.Boolean() })),
        timeout: "2m",
      });
      if (!outcome.answered) throw new Error(outcome.detail);
      return outcome.value;
    });
    const second = await wf.stage("second", { result: typed(Type.Object({ items: Type.Array(Type.String()) })) }, async () => {
      if (wf.attempt === 1) throw new Error("fails once");
      const { outcome } = await agent.run({
        prompt: "List what you recorded.",
        schema: typed(Type.Object({ items: Type.Array(Type.String()) })),
        timeout: "2m",
      });
      if (!outcome.answered) throw new Error(outcome.detail);
      return outcome.value;
    });
    return { first, second };
  },
});
"#;

fn run_continued(
    project: &TempProject,
    cli: crate::live::Cli,
    fake: &crate::live::FakeModel,
    args: &[&str],
) -> crate::util::Ran {
    let bin = crate::live::installed(cli);
    let state = crate::live::state_dir(project);
    let home = project.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let mut awf = project.awf(args);
    awf.bound(crate::live::LIVE_BOUND);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    awf.env("PATH", path).env("HOME", &home);
    for (name, value) in crate::live::environment(cli, fake.port, &state) {
        awf.env(&name, value);
    }
    awf.run()
}

/// `sandbox`: the agent's, when it is boxed (then its CLI home is its own, in the run folder).
fn resumes_its_session_in_a_continued_attempt(cli: crate::live::Cli, sandbox: Option<Value>) {
    let project = TempProject::new();
    project.file("continued.ts", CONTINUED);
    let script = json!({"prompts": [
        {"steps": [
            {"shell": "{wfa} tool add --x '1'"},
            {"shell": "{wfa} result {turn} --ok 'true'"},
            {"text": "Done."}]},
        {"steps": [
            {"shell": "{wfa} result {turn} <<'WF_JSON'\n{\"items\": [\"1\"]}\nWF_JSON"},
            {"text": "ok"}]}]});
    let fake = crate::live::FakeModel::start(&project, cli.api(), &script, false);
    let input = json!({ "runtime": cli.runtime(), "sandbox": sandbox }).to_string();
    let first = run_continued(
        &project,
        cli,
        &fake,
        &["run", "continued.ts", "--timeout", "4m", "--", &input],
    );
    assert_eq!(first.code, Some(1), "{}", first.stderr);
    assert_has(&first.stderr, "fails once");
    let second = run_continued(
        &project,
        cli,
        &fake,
        &["run", "continued.ts", "--timeout", "4m", "--continue"],
    );
    assert_eq!(
        second.assert_success().json(),
        json!({"first": {"ok": true}, "second": {"items": ["1"]}})
    );
    let asked = fake.requests_for_prompt(1);
    assert!(!asked.is_empty(), "the continued turn asked the model");
    let prompts = asked[0]["decision"]["prompts"]
        .as_array()
        .expect("prompts")
        .clone();
    assert_eq!(
        prompts.len(),
        2,
        "the first attempt's prompt is in the resumed history: {prompts:?}"
    );
    let resumed = project.events_of("continued", "agent-resumed");
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    assert_eq!(
        (&resumed[0]["attempt"], &resumed[0]["fromAttempt"]),
        (&json!(2), &json!(1))
    );
    let session = &project.events_of("continued", "agent-session")[0]["session"];
    assert_eq!(&resumed[0]["session"], session);
    if sandbox.is_some() {
        // Both attempts' agent used the one CLI home in the run folder, which kept the session.
        let homes: Vec<Value> = project
            .events_of("continued", "agent-opened")
            .iter()
            .map(|e| e["home"].clone())
            .collect();
        assert_eq!(homes.len(), 2, "{homes:?}");
        assert_eq!(homes[0], homes[1]);
        let home = PathBuf::from(homes[0].as_str().expect("a CLI home"));
        assert!(
            home.starts_with(project.path().join(".awf/runs/continued")),
            "{home:?}"
        );
    }
}

#[test]
fn codex_resumes_its_session_in_a_continued_attempt() {
    resumes_its_session_in_a_continued_attempt(crate::live::Cli::Codex, None);
}

#[test]
fn claude_resumes_its_session_in_a_continued_attempt() {
    resumes_its_session_in_a_continued_attempt(crate::live::Cli::Claude, None);
}

/// A sandboxed agent's own CLI home is kept across `--continue`: the continued turn resumes the
/// session the first attempt's CLI wrote there (issue 26).
#[test]
fn a_sandboxed_codex_resumes_its_session_from_its_own_home_in_a_continued_attempt() {
    resumes_its_session_in_a_continued_attempt(crate::live::Cli::Codex, Some(json!({})));
}

#[test]
fn awf_logs_reads_stages_as_sentences_with_their_summary() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "summed", description: "A stage with a summary, then one that stops." },
  async run(wf) {
    await wf.stage("plan", { result: typed(Type.Object({ n: Type.Number() })), summary: (p) => `${p.n} files` }, async () => ({ n: 3 }));
    await wf.stage("build", async () => { wf.stop("nothing to build"); });
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(3), "{}", ran.stderr);
    let logs = project.awf(&["logs"]).run();
    logs.assert_success();
    assert_has(&logs.stdout, "  stage plan started");
    assert_has(&logs.stdout, "  stage plan succeeded after ");
    assert_has(&logs.stdout, ": 3 files");
    assert_has(&logs.stdout, "  stage build stopped after ");
    assert_has(&logs.stdout, ": nothing to build");
}
