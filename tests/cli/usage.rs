//! What turns used, as workflow code reads it (`outcome.usage`, `wf.usage()`), and as `awf runs`
//! shows it: real agent CLIs against the project's fake model on 127.0.0.1, whose every response
//! reports usage (tests/fixtures/agent-clis/usage.ts). codex reports tokens and no cost, so a
//! model in awf's price table is estimated at list prices and the fake's own model is unpriced;
//! claude reports its own cost.

use serde_json::{json, Value};

use crate::live::{run_fixture, Cli, FakeModel};
use crate::util::{assert_has, TempProject};

/// Each prompt of the script: answer, then say so; every response reports this usage.
fn script(prompts: usize) -> Value {
    let usage = json!({"input": 1000, "cached": 200, "output": 40, "reasoning": 8});
    let prompt = json!({"steps": [
        {"shell": "{wfa} result {turn} --ok 'true'"},
        {"text": "Done."}],
        "usage": usage});
    json!({ "prompts": vec![prompt; prompts] })
}

fn run(cli: Cli, first: Value, second: Value) -> (TempProject, Value) {
    run_with(cli, json!({"first": first, "second": second}), 2)
}

/// usage.ts run with `input`, the fake model scripted for `prompts` prompts.
fn run_with(cli: Cli, input: Value, prompts: usize) -> (TempProject, Value) {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let fake = FakeModel::start(&project, cli.api(), &script(prompts), false);
    let ran = run_fixture(&project, "usage.ts", cli, &fake, &input);
    ran.assert_success();
    let value = ran.json();
    (project, value)
}

/// `runtime` with another model.
fn with_model(cli: Cli, model: &str) -> Value {
    let mut runtime = cli.runtime();
    runtime["model"] = json!(model);
    runtime
}

fn close_to(value: &Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-9)
}

#[test]
fn codex_usage_is_estimated_at_list_prices_and_added_up_by_agent_stage_and_model() {
    let (project, value) = run(
        Cli::Codex,
        with_model(Cli::Codex, "gpt-5.1-codex"),
        Cli::Codex.runtime(),
    );
    // Two responses a turn: 2,000 in (400 cached), 80 out (16 reasoning). At gpt-5.1-codex's
    // list price: 1,600 x $1.25 + 400 x $0.125 + 80 x $10 per million.
    let estimate = (1600.0 * 1.25 + 400.0 * 0.125 + 80.0 * 10.0) / 1e6;
    let first = &value["first"]["usage"];
    assert_eq!(first["inputTokens"], 2000, "{value}");
    assert_eq!(first["cachedInputTokens"], 400, "{value}");
    assert_eq!(first["outputTokens"], 80, "{value}");
    assert_eq!(first["reasoningTokens"], 16, "{value}");
    assert_eq!(first["priced"], "estimated", "{value}");
    assert_eq!(first["model"], "gpt-5.1-codex", "{value}");
    assert_eq!(first["pricesOf"], "2026-12-01", "{value}");
    assert!(close_to(&first["costUsd"], estimate), "{value}");

    // The fake's own model is in no price table.
    let second = &value["second"]["usage"];
    assert_eq!(second["priced"], "unpriced", "{value}");
    assert_eq!(second["costUsd"], Value::Null, "{value}");
    assert_eq!(second["model"], "fake-model", "{value}");
    assert_eq!(second["inputTokens"], 2000, "{value}");

    let usage = &value["usage"];
    assert_eq!(usage["total"]["turns"], 2, "{usage}");
    assert_eq!(usage["total"]["inputTokens"], 4000, "{usage}");
    assert_eq!(usage["total"]["unpricedTurns"], 1, "{usage}");
    assert_eq!(usage["total"]["estimatedTurns"], 1, "{usage}");
    assert!(close_to(&usage["total"]["costUsd"], estimate), "{usage}");
    assert_eq!(usage["byAgent"]["a"]["inputTokens"], 2000, "{usage}");
    assert_eq!(usage["byAgent"]["b"]["unpricedTurns"], 1, "{usage}");
    assert_eq!(usage["byStage"]["review"]["turns"], 1, "{usage}");
    assert_eq!(usage["byStage"]["review"]["estimatedTurns"], 1, "{usage}");
    assert_eq!(usage["byStage"]["(no stage)"]["turns"], 1, "{usage}");
    assert_eq!(usage["byModel"]["gpt-5.1-codex"]["turns"], 1, "{usage}");
    assert_eq!(
        usage["byModel"]["fake-model"]["unpricedTurns"], 1,
        "{usage}"
    );
    assert_eq!(usage["pricesOf"], "2026-12-01", "{usage}");

    // The agent's total in output.json carries the estimate; `awf runs` shows the run's.
    let output: Value = serde_json::from_str(
        &std::fs::read_to_string(project.only_run_dir("usage").join("output.json")).unwrap(),
    )
    .unwrap();
    assert!(
        close_to(&output["usage"]["a"]["costUsd"], estimate),
        "{output}"
    );
    let runs = project.awf(&["runs"]).run();
    runs.assert_success();
    assert_has(&runs.stdout, "COST");
    assert_has(&runs.stdout, &format!("${estimate:.4}"));
}

#[test]
fn claude_reports_its_own_cost() {
    let (_project, value) = run(Cli::Claude, Cli::Claude.runtime(), Cli::Claude.runtime());
    let first = &value["first"]["usage"];
    assert_eq!(first["priced"], "reported", "{value}");
    assert!(first["costUsd"].as_f64().is_some(), "{value}");
    assert_eq!(first.get("pricesOf"), None, "{value}");
    assert_eq!(value["usage"]["total"]["unpricedTurns"], 0, "{value}");
}

/// A message turn (`agent.send`) reports what it used in its outcome, and `wf.usage()` adds it
/// to its agent's, its stage's and its model's totals.
#[test]
fn a_message_turns_usage_is_in_its_outcome_and_in_wf_usage() {
    let input = json!({
        "first": with_model(Cli::Codex, "gpt-5.1-codex"),
        "second": Cli::Codex.runtime(),
        "message": true,
    });
    let (_project, value) = run_with(Cli::Codex, input, 3);
    assert_eq!(value["woke"]["kind"], "ended", "{value}");
    let woke = &value["woke"]["usage"];
    // The fake model ends the message turn in one response (it owes no answer to send).
    assert_eq!(woke["inputTokens"], 1000, "{value}");
    assert_eq!(woke["outputTokens"], 40, "{value}");
    assert_eq!(woke["priced"], "estimated", "{value}");
    assert_eq!(woke["model"], "gpt-5.1-codex", "{value}");
    let usage = &value["usage"];
    assert_eq!(usage["total"]["turns"], 3, "{usage}");
    assert_eq!(usage["total"]["inputTokens"], 5000, "{usage}");
    assert_eq!(usage["byAgent"]["a"]["turns"], 2, "{usage}");
    assert_eq!(usage["byAgent"]["a"]["inputTokens"], 3000, "{usage}");
    assert_eq!(usage["byAgent"]["a"]["estimatedTurns"], 2, "{usage}");
    assert_eq!(usage["byStage"]["(no stage)"]["turns"], 2, "{usage}");
    assert_eq!(usage["byModel"]["gpt-5.1-codex"]["turns"], 2, "{usage}");
}
