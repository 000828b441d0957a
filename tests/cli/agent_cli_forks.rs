//! Forks, compaction and settings with real agent CLIs (codex, pi and claude), each the pinned CLI against the fake model server (tests/fixtures/agent-clis/
//! fork.ts): the fork is a new native session whose history holds the parent's first prompt,
//! made without a model request; the compaction is the CLI's own, with the focus reaching the
//! model and the outcome `answered` (pi's summary, codex's opaque `""`); after `set` the next
//! turn resumes the same session with the new model (and effort); records and `awf logs` show
//! all three.

use serde_json::{json, Value};

use crate::live::{run_fixture, Cli, FakeModel};
use crate::util::{assert_has, TempProject};

const SUMMARY: &str = "Summary: the number is 7.";

fn script(usage: Value) -> Value {
    let answer = json!({"steps": [
        {"shell": "{wfa} result {turn} --ok 'true'"},
        {"text": "Done."}], "usage": usage});
    json!({"summary": SUMMARY, "prompts": [answer, answer, answer, answer]})
}

struct Ran {
    project: TempProject,
    fake: FakeModel,
    value: Value,
}

fn run(cli: Cli, usage: Value, set: Value) -> Ran {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let fake = FakeModel::start(&project, cli.api(), &script(usage), false);
    let ran = run_fixture(
        &project,
        "fork.ts",
        cli,
        &fake,
        &json!({ "runtime": cli.runtime(), "set": set }),
    );
    ran.assert_success();
    let value = ran.json();
    let answered = json!({"kind": "answered", "answered": true, "value": {"ok": true}});
    let outcomes: Vec<Value> = value["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|outcome| {
            let mut outcome = outcome.clone();
            if let Some(fields) = outcome.as_object_mut() {
                fields.remove("usage");
            }
            outcome
        })
        .collect();
    assert_eq!(
        Value::Array(outcomes),
        json!([answered, answered, answered]),
        "{}",
        ran.stderr
    );
    Ran {
        project,
        fake,
        value,
    }
}

/// The parent's and the fork's sessions differ, the fork's history holds the parent's first
/// prompt, and the records and logs say so.
fn assert_forked(ran: &Ran, cli: Cli) {
    let events = ran.project.events("fork");
    let forked: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "agent-forked")
        .collect();
    assert_eq!(forked.len(), 1, "{events:?}");
    let (parent, child) = (&forked[0]["session"], &forked[0]["forkSession"]);
    assert!(
        parent.is_string() && child.is_string() && parent != child,
        "{}",
        forked[0]
    );
    assert_eq!(forked[0]["harness"], cli.name());
    let sessions: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "agent-session" && e["agent"] == "b")
        .collect();
    assert_eq!(
        &sessions[0]["session"], child,
        "the fork's turn resumed the forked session"
    );
    let fork_turn = ran
        .fake
        .requests()
        .into_iter()
        .find(|r| {
            r["decision"]["prompts"]
                .to_string()
                .contains("You are the fork")
        })
        .expect("the fork asked the model");
    let prompts = fork_turn["decision"]["prompts"].to_string();
    assert_has(&prompts, "Remember the number 7");
    let logs = ran.project.awf(&["logs"]).run();
    logs.assert_success();
    assert_has(
        &logs.stdout,
        &format!(
            "b  forked from a ({} session {} → {})",
            cli.name(),
            parent.as_str().unwrap(),
            child.as_str().unwrap()
        ),
    );
}

/// The compaction reached the model with its focus and is recorded.
fn assert_compacted(ran: &Ran, summary: &str) {
    assert_eq!(
        ran.value["compacted"],
        json!({"kind": "answered", "answered": true, "value": summary})
    );
    let asked = ran
        .fake
        .requests()
        .into_iter()
        .filter(|r| r["decision"]["kind"] == "compaction")
        .count();
    assert!(asked >= 1, "the CLI asked the model for a summary");
    let compacted = ran.project.events_of("fork", "agent-compacted");
    assert_eq!(compacted[0]["focus"], "keep the number 7");
    assert_eq!(compacted[0]["outcome"], "answered");
    let focus_sent = ran.fake.requests().iter().any(|r| {
        r["decision"]["kind"] == "compaction" && r["body"].to_string().contains("keep the number 7")
    });
    assert!(focus_sent, "the focus reached the compaction request");
    let logs = ran.project.awf(&["logs"]).run();
    assert_has(&logs.stdout, "compaction answered after");
}

/// The model request of the last turn, the one after the compaction.
fn last_request_after_compaction(ran: &Ran) -> Value {
    ran.fake
        .requests()
        .into_iter()
        .rev()
        .find(|r| {
            r["decision"]["prompts"]
                .to_string()
                .contains("After the compaction")
        })
        .expect("the last turn asked the model")
}

/// The last turn's model request names the new model (`model`, as the CLI sends it; `set`, as
/// the workflow gave it).
fn assert_set(ran: &Ran, model: &str, set: &str) {
    let last = last_request_after_compaction(ran);
    assert_eq!(last["body"]["model"], model, "{}", last["body"]["model"]);
    let changed = ran.project.events_of("fork", "settings-changed");
    assert_eq!(changed[0]["model"], set);
    let events = ran.project.events("fork");
    // The session `a`'s runtime reported in the turn whose prompt holds `prompt`.
    let session_of_turn = |prompt: &str| -> Value {
        let started = events
            .iter()
            .find(|e| {
                e["event"] == "turn-started"
                    && e["agent"] == "a"
                    && e["prompt"].as_str().is_some_and(|p| p.contains(prompt))
            })
            .unwrap_or_else(|| panic!("a turn of a with {prompt:?}: {events:?}"));
        let session = events
            .iter()
            .find(|e| e["event"] == "agent-session" && e["turn"] == started["turn"])
            .unwrap_or_else(|| panic!("no session reported for {started}"));
        session["session"].clone()
    };
    let (before, after) = (
        session_of_turn("Remember the number 7"),
        session_of_turn("After the compaction"),
    );
    assert!(before.is_string(), "{before}");
    assert_eq!(before, after, "the same session after set");
}

#[test]
fn codex_forks_compacts_and_changes_settings() {
    let ran = run(
        Cli::Codex,
        json!({"input": 1000, "cached": 200, "output": 40, "reasoning": 8}),
        json!({"model": "fake-model-2", "effort": "low"}),
    );
    assert_forked(&ran, Cli::Codex);
    assert_compacted(&ran, "");
    assert_set(&ran, "fake-model-2", "fake-model-2");
    let last = last_request_after_compaction(&ran);
    assert_eq!(last["body"]["reasoning"]["effort"], "low");
    // `set` resolves with agentswf's outcome: the settings now, and the session they go on in.
    let settings = &ran.value["settings"];
    assert_eq!(settings["kind"], "answered", "{settings}");
    assert_eq!(settings["model"], "fake-model-2", "{settings}");
    assert_eq!(settings["effort"], "low", "{settings}");
    let session = ran
        .project
        .events_of("fork", "agent-session")
        .into_iter()
        .find(|e| e["agent"] == "a")
        .expect("agent a's session is recorded");
    assert_eq!(
        settings["usage"]["sessions"],
        json!([{ "harness": "codex", "id": session["session"] }])
    );
}

#[test]
fn pi_forks_compacts_and_changes_settings() {
    // pi compacts only what is older than its last ~20k tokens: the fake reports a long session.
    let ran = run(
        Cli::Pi,
        json!({"input": 50000, "cached": 0, "output": 30000, "reasoning": 0}),
        json!({"model": "fake/fake-model-2"}),
    );
    assert_forked(&ran, Cli::Pi);
    assert_compacted(&ran, SUMMARY);
    assert_set(&ran, "fake-model-2", "fake/fake-model-2");
}

/// claude forks, compacts (its compaction request carries tools, so the fake answers it from
/// the script; the summary is the synthetic row claude continues from) and changes settings.
#[test]
fn claude_forks_compacts_and_changes_settings() {
    let ran = run(
        Cli::Claude,
        json!({"input": 1000, "cached": 200, "output": 40, "reasoning": 0}),
        json!({"model": "fake-claude-2", "effort": "low"}),
    );
    assert_forked(&ran, Cli::Claude);
    let compacted = &ran.value["compacted"];
    assert_eq!(compacted["kind"], "answered", "{compacted}");
    assert_has(
        compacted["value"].as_str().unwrap_or_default(),
        "This session is being continued from a previous conversation",
    );
    let focus_sent = ran
        .fake
        .requests()
        .iter()
        .any(|r| r["body"].to_string().contains("keep the number 7"));
    assert!(focus_sent, "the focus reached the compaction request");
    assert_eq!(
        ran.project.events_of("fork", "agent-compacted")[0]["outcome"],
        "answered"
    );
    assert_set(&ran, "fake-claude-2", "fake-claude-2");
    let last = last_request_after_compaction(&ran);
    assert_eq!(last["body"]["output_config"]["effort"], "low");
}
