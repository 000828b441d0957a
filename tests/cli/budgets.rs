//! Budgets (issue 29): real agent CLIs against the project's fake model on 127.0.0.1, whose
//! every response reports usage (1,000 input tokens, 40 output: 1,040 a response). A hard
//! per-agent budget passed ends the turn `blocked` naming it, and the next turn is blocked
//! without a model request; a soft run budget warns and goes on; a dollar budget counts an
//! estimated cost; a stopped run continued with a higher budget goes on.

use serde_json::{json, Value};

use crate::live::{environment, installed, run_fixture, state_dir, Cli, FakeModel, LIVE_BOUND};
use crate::util::{assert_has, Ran, TempProject};

fn usage() -> Value {
    json!({"input": 1000, "cached": 200, "output": 40, "reasoning": 8})
}

/// Each prompt answered: the answer, then a last text.
fn answering(prompts: usize) -> Value {
    let prompt = json!({"steps": [
        {"shell": "{wfa} result {turn} --ok 'true'"},
        {"text": "Done."}],
        "usage": usage()});
    json!({ "prompts": vec![prompt; prompts] })
}

fn outcomes(value: &Value) -> Vec<Value> {
    value["outcomes"].as_array().cloned().unwrap_or_default()
}

/// A hard token budget on agent "a" that its first response passes: that turn ends blocked
/// naming the budget, the second is blocked at once, and the model saw no request of it.
fn a_hard_agent_budget_blocks(cli: Cli, first_prompt: Value) {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let script = json!({ "prompts": [first_prompt, answering(1)["prompts"][0]] });
    let fake = FakeModel::start(&project, cli.api(), &script, false);
    let ran = run_fixture(
        &project,
        "budget.ts",
        cli,
        &fake,
        &json!({"runtime": cli.runtime(), "budget": {"tokens": 500}, "turns": 2}),
    );
    ran.assert_success();
    let value = ran.json();
    let outcomes = outcomes(&value);
    assert_eq!(outcomes[0]["kind"], "blocked", "{value}");
    let detail = outcomes[0]["detail"].as_str().unwrap_or_default();
    assert_has(detail, "agent \"a\"'s hard budget of 500 tokens was passed");
    assert_has(detail, "tokens spent");
    assert_eq!(outcomes[1]["kind"], "blocked", "{value}");
    assert_has(
        outcomes[1]["detail"].as_str().unwrap_or_default(),
        "hard budget of 500 tokens was passed",
    );
    assert!(
        fake.requests_for_prompt(1).is_empty(),
        "the blocked turn made no model request: {:?}",
        fake.requests_for_prompt(1)
    );
    let passed = project.events_of("budget", "budget-passed");
    assert_eq!(passed.len(), 1, "{passed:?}");
    assert_eq!(passed[0]["agent"], "a");
    assert_eq!(passed[0]["hard"], true);
    // The second turn never started its CLI.
    assert_eq!(project.events_of("budget", "turn-started").len(), 1);
    assert_has(&ran.stderr, "  budget of agent a: ");
    assert_has(&ran.stderr, "tokens of 500 tokens (hard, passed)");
}

#[test]
fn codex_a_hard_agent_token_budget_blocks_the_turn_that_passes_it_and_the_next() {
    // codex reports usage when its turn completes: the turn ends without an answer, and is
    // blocked instead of checked in.
    a_hard_agent_budget_blocks(
        Cli::Codex,
        json!({"steps": [{"text": "Not yet."}], "usage": usage()}),
    );
}

#[test]
fn claude_a_hard_agent_token_budget_stops_the_turn_at_the_response_that_passes_it() {
    // claude reports each response as it streams: the first passes the budget and claude is
    // stopped before it answers.
    a_hard_agent_budget_blocks(
        Cli::Claude,
        json!({"steps": [
            {"shell": "sleep 1; echo first"},
            {"shell": "{wfa} result {turn} --ok 'true'"},
            {"text": "Done."}], "usage": usage()}),
    );
}

#[test]
fn a_soft_run_budget_warns_and_goes_on() {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let fake = FakeModel::start(&project, Cli::Codex.api(), &answering(2), false);
    let ran = run_fixture(
        &project,
        "budget.ts",
        Cli::Codex,
        &fake,
        &json!({"runtime": Cli::Codex.runtime(), "run": {"tokens": 1000}, "turns": 2}),
    );
    ran.assert_success();
    let value = ran.json();
    let kinds: Vec<Value> = outcomes(&value)
        .into_iter()
        .map(|o| o["kind"].clone())
        .collect();
    assert_eq!(kinds, [json!("answered"), json!("answered")], "{value}");
    let passed = project.events_of("budget", "budget-passed");
    assert_eq!(passed.len(), 1, "warned once: {passed:?}");
    assert_eq!(passed[0]["hard"], false);
    assert_eq!(passed[0].get("agent"), None, "the run's budget");
    assert_has(&ran.stderr, "the run's budget of 1,000 tokens was passed");
    // The closing summary, output.json and `awf runs` show the budget against its spend.
    assert_has(&ran.stderr, "  budget of run: ");
    assert_has(&ran.stderr, "tokens of 1,000 tokens (soft, passed)");
    let output: Value = serde_json::from_str(
        &std::fs::read_to_string(project.only_run_dir("budget").join("output.json")).unwrap(),
    )
    .unwrap();
    let budgets = output["budgets"].as_array().cloned().unwrap_or_default();
    assert_eq!(budgets.len(), 1, "{output}");
    assert_eq!(budgets[0]["of"], "run");
    assert_eq!(budgets[0]["budget"]["tokens"], 1000);
    assert_eq!(budgets[0]["hard"], false);
    assert_eq!(budgets[0]["passed"], true);
    let runs = project.awf(&["runs"]).run();
    runs.assert_success();
    assert_has(&runs.stdout, "  budget of run: ");
    assert_has(&runs.stdout, "tokens of 1,000 tokens (soft, passed)");
}

#[test]
fn a_dollar_budget_counts_the_estimated_cost() {
    // gpt-5.1-codex at list prices: 800 x $1.25 + 200 x $0.125 + 40 x $10 per million a
    // response, $0.001425; the first turn's two responses pass $0.002.
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let fake = FakeModel::start(&project, Cli::Codex.api(), &answering(2), false);
    let mut runtime = Cli::Codex.runtime();
    runtime["model"] = json!("gpt-5.1-codex");
    let ran = run_fixture(
        &project,
        "budget.ts",
        Cli::Codex,
        &fake,
        &json!({"runtime": runtime, "budget": {"usd": 0.002}, "turns": 2}),
    );
    ran.assert_success();
    let value = ran.json();
    let outcomes = outcomes(&value);
    // The answer came before codex said what the turn used: it stands.
    assert_eq!(outcomes[0]["kind"], "answered", "{value}");
    assert_eq!(outcomes[0]["usage"]["priced"], "estimated", "{value}");
    assert_eq!(outcomes[1]["kind"], "blocked", "{value}");
    assert_has(
        outcomes[1]["detail"].as_str().unwrap_or_default(),
        "hard budget of $0.0020 was passed: $0.0029 spent",
    );
    assert!(fake.requests_for_prompt(1).is_empty());
}

#[test]
fn a_run_stopped_by_its_budget_goes_on_when_continued_with_a_higher_one() {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let script = json!({"prompts": [
        {"steps": [{"text": "Not yet."}], "usage": usage()},
        answering(1)["prompts"][0]]});
    let fake = FakeModel::start(&project, Cli::Codex.api(), &script, false);
    let input =
        json!({"runtime": Cli::Codex.runtime(), "turns": 1, "throwIfBlocked": true}).to_string();
    let ran = live_awf(
        &project,
        Cli::Codex,
        &fake,
        &["run", "budget.ts", "--budget-tokens", "500", "--", &input],
    );
    assert_eq!(ran.code, Some(1), "{}{}", ran.stdout, ran.stderr);
    assert_has(
        &ran.stderr,
        "the run's hard budget of 500 tokens was passed",
    );
    let id = project
        .only_run_dir("budget")
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // The first attempt's 1,040 tokens count against the new figure too.
    let ran = live_awf(
        &project,
        Cli::Codex,
        &fake,
        &[
            "run",
            "budget.ts",
            "--continue",
            &id,
            "--budget-tokens",
            "100000",
        ],
    );
    ran.assert_success();
    assert_eq!(
        outcomes(&ran.json())[0]["kind"],
        "answered",
        "{}",
        ran.stdout
    );
}

/// `awf <args>` with `cli` pointed at `fake`, as the live tests run it.
fn live_awf(project: &TempProject, cli: Cli, fake: &FakeModel, args: &[&str]) -> Ran {
    let bin = installed(cli);
    let state = state_dir(project);
    let home = project.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut awf = project.awf(args);
    awf.bound(LIVE_BOUND);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    awf.env("PATH", path).env("HOME", &home);
    for (name, value) in environment(cli, fake.port, &state) {
        awf.env(&name, value);
    }
    awf.run()
}
