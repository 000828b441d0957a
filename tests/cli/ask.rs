//! `wf.ask` end to end: a running `awf run` answered by `awf answer` (a choice, a typed value as
//! JSON and on stdin, text), a value the question does not take refused with its reasons while
//! the run keeps waiting, a timeout (`ask-timeout` at the author's line), two open questions
//! (`--question KEY`, `awf runs`), `kill -9` while waiting then an answer given while no awf runs,
//! taken by `--continue`, an ask inside a finished stage not asked again, and the scripted form
//! under `awf test` (tests/fixtures/ask).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{assert_has, awf_bin, process_running, workspace, AwfCommand, TempProject};

const BOUND: Duration = Duration::from_secs(30);

/// A workflow file whose `run` body is `body`.
fn workflow(name: &str, body: &str) -> String {
    format!(
        "export default defineWorkflow({{\n  meta: {{ name: \"{name}\", description: \"Asks.\" }},\n  async run(wf) {{\n{body}\n  }},\n}});\n"
    )
}

fn spawn_run(project: &TempProject, args: &[&str]) -> Child {
    Command::new(awf_bin())
        .args(args)
        .current_dir(project.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The output of a spawned run, once it ends (within BOUND).
fn finish(mut child: Child) -> (Option<i32>, String, String) {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            return (
                status.code(),
                String::from_utf8_lossy(&output.stdout).into_owned(),
                String::from_utf8_lossy(&output.stderr).into_owned(),
            );
        }
        if start.elapsed() > BOUND {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "the run still runs after {BOUND:?}; stderr:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The events of the one run of workflow `name` (none yet when its folder is not there).
fn events(project: &TempProject, name: &str) -> Vec<Value> {
    let runs = project.path().join(".awf/runs").join(name);
    let Ok(mut dirs) = std::fs::read_dir(&runs) else {
        return Vec::new();
    };
    let Some(Ok(dir)) = dirs.next() else {
        return Vec::new();
    };
    std::fs::read_to_string(dir.path().join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

fn of_kind(events: &[Value], kind: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["event"] == kind)
        .cloned()
        .collect()
}

/// Waits until run `name` has recorded `count` questions.
fn wait_asked(project: &TempProject, name: &str, count: usize) {
    let start = Instant::now();
    while of_kind(&events(project, name), "asked").len() < count {
        assert!(
            start.elapsed() < BOUND,
            "no {count} questions asked: {:?}",
            events(project, name)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn answer(project: &TempProject, args: &[&str]) -> crate::util::Ran {
    let mut all = vec!["answer"];
    all.extend_from_slice(args);
    project.awf(&all).run()
}

#[test]
fn awf_answer_answers_a_choice_a_typed_value_and_text_and_refuses_what_a_question_does_not_take() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &workflow(
            "a",
            r#"    const Approval = typed(Type.Object({ approved: Type.Boolean(), note: Type.Optional(Type.String()) }));
    const ship = await wf.ask("Ship release 1.2 to production?", { choices: ["yes", "no"] });
    const plan = await wf.ask("Approve this plan?", { schema: Approval, context: "1. build\n2. ship", key: "plan" });
    const notes = await wf.ask("Anything the release notes must say?");
    return { ship, plan, notes };"#,
        ),
    );
    let run = spawn_run(&project, &["run", "wf.ts", "--id", "r1"]);
    wait_asked(&project, "a", 1);

    let refused = answer(&project, &["r1", "maybe"]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert_has(&refused.stderr, "awf: run r1: that is not an answer to \"Ship release 1.2 to production?\" (key ship-release-1-2-to-production):\n  \"maybe\" is not one of the choices: \"yes\", \"no\"");
    assert_has(
        &refused.stderr,
        "hint: it takes one of \"yes\", \"no\"; the run is still waiting for an answer",
    );
    let took = answer(&project, &["r1", "yes"]);
    assert_eq!(took.code, Some(0), "{}", took.stderr);
    assert_has(&took.stdout, "answered ship-release-1-2-to-production (\"Ship release 1.2 to production?\") with \"yes\": run r1 took it");

    wait_asked(&project, "a", 2);
    let refused = answer(&project, &["r1", "--json", r#"{"approved": "yes"}"#]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert_has(
        &refused.stderr,
        "(key plan):\n  value.approved: expected true or false",
    );
    let took = project
        .awf(&["answer", "r1"])
        .stdin(b"{\"approved\": true, \"note\": \"fine\"}\n")
        .run();
    assert_eq!(took.code, Some(0), "{}", took.stderr);

    wait_asked(&project, "a", 3);
    let took = answer(
        &project,
        &[
            "r1",
            "--question",
            "anything-the-release-notes-must-say",
            "Mention the {new} flag.",
        ],
    );
    assert_eq!(took.code, Some(0), "{}", took.stderr);

    let (code, stdout, stderr) = finish(run);
    assert_eq!(code, Some(0), "{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        result,
        json!({ "ship": "yes", "plan": { "approved": true, "note": "fine" }, "notes": "Mention the {new} flag." })
    );

    let events = events(&project, "a");
    let asked = of_kind(&events, "asked");
    assert_eq!(asked[0]["choices"], json!(["yes", "no"]));
    assert_eq!(asked[0]["from"].as_str().unwrap(), "wf.ts:5:27");
    assert_eq!(asked[1]["context"], json!("1. build\n2. ship"));
    assert_eq!(asked[1]["schema"]["required"], json!(["approved"]));
    let answered: Vec<(Value, Value, Value)> = of_kind(&events, "answered")
        .iter()
        .map(|e| (e["key"].clone(), e["value"].clone(), e["how"].clone()))
        .collect();
    assert_eq!(
        answered,
        [
            (
                json!("ship-release-1-2-to-production"),
                json!("yes"),
                json!("awf answer")
            ),
            (
                json!("plan"),
                json!({ "approved": true, "note": "fine" }),
                json!("awf answer")
            ),
            (
                json!("anything-the-release-notes-must-say"),
                json!("Mention the {new} flag."),
                json!("awf answer")
            ),
        ]
    );
    let dir = project.path().join(".awf/runs/a/r1");
    assert!(
        std::fs::read_dir(dir.join("answers"))
            .unwrap()
            .next()
            .is_none(),
        "the mailbox is empty"
    );

    let none = answer(&project, &["r1", "yes"]);
    assert_eq!(none.code, Some(2), "{}", none.stderr);
    assert_has(&none.stderr, "awf: run r1 has no open question");
    let logs = project.awf(&["logs", "r1"]).run();
    assert_has(&logs.stdout, "? asked plan: Approve this plan?");
    assert_has(
        &logs.stdout,
        "answered plan by awf answer: {\"approved\":true,\"note\":\"fine\"}",
    );
}

#[test]
fn a_question_past_its_timeout_rejects_with_ask_timeout_at_the_authors_line() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &workflow(
            "t",
            r#"    let caught = "";
    try {
      await wf.ask("Quick?", { timeout: "300ms", choices: ["a"] });
    } catch (error) {
      caught = (error as { code: string }).code;
    }
    wf.log(`caught ${caught}`);
    return await wf.ask("Last chance?", { timeout: 200 });"#,
        ),
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_has(&ran.stderr, "caught ask-timeout");
    assert_has(
        &ran.stderr,
        "wf.ask: no answer to \"Last chance?\" (key last-chance) came within 200ms",
    );
    assert_has(
        &ran.stderr,
        "awf: run failed: wf.ts:11:21: wf.ask: no answer",
    );
    assert_has(&ran.stderr, "hint: answer sooner with `awf answer");
    let timed_out: Vec<(Value, Value)> = of_kind(&events(&project, "t"), "ask-timed-out")
        .iter()
        .map(|e| (e["key"].clone(), e["timeoutMs"].clone()))
        .collect();
    assert_eq!(
        timed_out,
        [
            (json!("quick"), json!(300)),
            (json!("last-chance"), json!(200))
        ]
    );
}

#[test]
fn two_open_questions_are_listed_by_awf_runs_and_answered_by_key() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &workflow(
            "two",
            r#"    return await Promise.all([wf.ask("First?", { key: "first" }), wf.ask("Second?", { key: "second" })]);"#,
        ),
    );
    let run = spawn_run(&project, &["run", "wf.ts", "--id", "r2"]);
    wait_asked(&project, "two", 2);

    let runs = project.awf(&["runs"]).run();
    assert_eq!(runs.code, Some(0), "{}", runs.stderr);
    assert_has(
        &runs.stdout,
        "run r2 waits for a person: first \"First?\": awf answer r2 --question first VALUE",
    );
    assert_has(
        &runs.stdout,
        "run r2 waits for a person: second \"Second?\": awf answer r2 --question second VALUE",
    );
    let listed = project.awf(&["runs", "--json"]).run().json();
    assert_eq!(listed[0]["questions"][1]["key"], "second");
    assert_eq!(listed[0]["questions"][1]["question"], "Second?");

    let unknown = answer(&project, &["r2", "--question", "third", "x"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert_has(
        &unknown.stderr,
        "awf: run r2 has no open question \"third\"",
    );
    assert_has(
        &unknown.stderr,
        "hint: its open questions: first (\"First?\"), second (\"Second?\")",
    );
    assert_eq!(
        answer(&project, &["r2", "--question", "second", "B"]).code,
        Some(0)
    );
    // The oldest question still open is the first.
    assert_eq!(answer(&project, &["r2", "A"]).code, Some(0));
    let (code, stdout, stderr) = finish(run);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap(),
        json!(["A", "B"])
    );
}

#[test]
fn an_answer_given_after_kill_9_is_taken_by_the_continue() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &workflow(
            "k",
            r#"    await wf.stage("build", async () => {
      (await import("node:fs")).appendFileSync("built.log", `attempt ${wf.attempt}\n`);
    });
    return await wf.ask("Ship?", { choices: ["yes", "no"] });"#,
        ),
    );
    let mut run = spawn_run(&project, &["run", "wf.ts", "--id", "k9"]);
    wait_asked(&project, "k", 1);
    // SAFETY: plain syscall on our own child.
    unsafe { libc::kill(run.id() as i32, libc::SIGKILL) };
    run.wait().unwrap();
    let pid = run.id() as i32;
    while process_running(pid) {
        std::thread::sleep(Duration::from_millis(10));
    }

    let runs = project.awf(&["runs"]).run();
    assert_has(
        &runs.stdout,
        "run k9 waits for a person: ship \"Ship?\": awf answer k9 --question ship VALUE",
    );
    let given = answer(&project, &["k9", "no"]);
    assert_eq!(given.code, Some(0), "{}", given.stderr);
    assert_has(&given.stdout, "answered ship (\"Ship?\") with \"no\": run k9 is not running; `awf run wf.ts --continue k9` asks the question again and takes this answer");
    let twice = answer(&project, &["k9", "yes"]);
    assert_eq!(twice.code, Some(2), "{}", twice.stderr);
    assert_has(
        &twice.stderr,
        "question ship has an answer already, which the run has not taken yet",
    );

    let continued = project.awf(&["run", "wf.ts", "--continue", "k9"]).run();
    assert_eq!(continued.assert_success().json(), json!("no"));
    assert_eq!(project.read("built.log"), "attempt 1\n");
    let events = events(&project, "k");
    let asked: Vec<Value> = of_kind(&events, "asked")
        .iter()
        .map(|e| e["attempt"].clone())
        .collect();
    assert_eq!(asked, [json!(1), json!(2)]);
    let answered = of_kind(&events, "answered");
    assert_eq!(answered.len(), 1);
    assert_eq!(
        (&answered[0]["attempt"], &answered[0]["how"]),
        (&json!(2), &json!("awf answer"))
    );
    assert!(answered[0]["givenAt"].is_string());
}

#[test]
fn a_question_inside_a_finished_stage_is_not_asked_again() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        &workflow(
            "s",
            r#"    const approved = await wf.stage("approve", { result: typed(Type.String()) }, () => wf.ask("Approve?", { choices: ["yes", "no"] }));
    await wf.stage("ship", async () => {
      if (wf.attempt === 1) throw new Error("the registry is down");
    });
    return approved;"#,
        ),
    );
    let run = spawn_run(&project, &["run", "wf.ts", "--id", "s1"]);
    wait_asked(&project, "s", 1);
    assert_eq!(answer(&project, &["s1", "yes"]).code, Some(0));
    let (code, _, stderr) = finish(run);
    assert_eq!(code, Some(1), "{stderr}");
    assert_has(&stderr, "the registry is down");

    let continued = AwfCommand::new(awf_bin())
        .args(&["run", "wf.ts", "--continue", "s1"])
        .current_dir(&project.path())
        .run();
    assert_eq!(continued.assert_success().json(), json!("yes"));
    let events = events(&project, "s");
    assert_eq!(of_kind(&events, "asked").len(), 1, "asked once: {events:?}");
    assert_eq!(of_kind(&events, "asked")[0]["stage"], "approve");
}

#[test]
fn scripted_answers_answer_questions_under_awf_test() {
    let ran = AwfCommand::new(awf_bin())
        .args(&["test", "tests/fixtures/ask"])
        .current_dir(&workspace())
        .run();
    ran.assert_success();
    assert!(
        ran.stdout.ends_with("4 passed, 0 failed\n"),
        "{}",
        ran.stdout
    );
}
