//! The five agent CLIs as agents, each the real CLI from npm at the version awf pins, driven by
//! the project's fake model server on 127.0.0.1 (tests/fake-model) through a real workflow
//! (tests/fixtures/agent-clis/live.ts). For each: the model's `wfa tool` call reaches the
//! handler with its input, a refused call's code and message reach the model as the tool's
//! output, `wfa result` answers are accepted and typed (flags, then a JSON heredoc), the second
//! turn resumes the same native session (the fake sees the first turn's prompt), and the tokens
//! the fake reported are recorded per turn and summed for the agent. Then what only some show:
//! codex handing a slow call back after 10 s, a refused key (`blocked`), a lost session
//! (`failed`, with the CLI's reason), a codex whose own sandbox cannot run a command (`blocked`,
//! with codex's words and a hint), and `awf doctor`: each CLI, codex's model and its sandbox.

use serde_json::{json, Value};

use crate::live::{run_live, Cli, FakeModel};
use crate::util::{assert_has, AwfCommand, TempProject};

/// What the fake reports for every model request: OpenAI's convention (input includes cached,
/// output includes reasoning), which each API's part of the fake converts.
const PER_REQUEST: (u64, u64, u64, u64) = (1000, 200, 40, 8);

/// The model's steps for the two turns of live.ts.
fn two_turn_script() -> Value {
    let (input, cached, output, reasoning) = PER_REQUEST;
    let usage = json!({"input": input, "cached": cached, "output": output, "reasoning": reasoning});
    json!({"prompts": [
        {"steps": [
            {"shell": "{wfa} tool add --x '1'"},
            {"shell": "{wfa} tool add --x 'abc'"},
            {"shell": "{wfa} result {turn} --ok 'true'"},
            {"text": "Done."}],
         "usage": usage},
        {"steps": [
            {"shell": "{wfa} result {turn} <<'WF_JSON'\n{\"items\": [\"1\"]}\nWF_JSON"},
            {"text": "ok"}],
         "usage": usage}]})
}

fn project() -> TempProject {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    project
}

/// The usage `requests` model requests of the script add up to, as awf records it.
fn usage_of(cli: Cli, requests: u64) -> Value {
    let (input, cached, output, reasoning) = PER_REQUEST;
    // pi reports no reasoning tokens (its usage has no such field); claude counts thinking from
    // the thinking blocks it streams, and the fake sends none.
    let reasoning = if matches!(cli, Cli::Pi | Cli::Claude) {
        0
    } else {
        reasoning
    };
    json!({
        "inputTokens": input * requests,
        "cachedInputTokens": cached * requests,
        "outputTokens": output * requests,
        "reasoningTokens": reasoning * requests,
    })
}

/// A usage record without its cost (which only some CLIs reckon, at their own prices).
fn tokens(usage: &Value) -> Value {
    let mut tokens = usage.clone();
    if let Some(fields) = tokens.as_object_mut() {
        fields.remove("costUsd");
    }
    tokens
}

fn two_turns(cli: Cli) {
    let project = project();
    let fake = FakeModel::start(&project, cli.api(), &two_turn_script(), false);
    let ran = run_live(&project, cli, &fake, &json!({ "runtime": cli.runtime() }));
    ran.assert_success();
    let result = ran.json();

    // The call reached the handler with its input; both answers were accepted and typed.
    assert_eq!(result["added"], json!([1]), "{result}");
    // (What each turn used, `outcome.usage`, is tests/cli/usage.rs's.)
    let outcomes: Vec<Value> = result["outcomes"]
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
        json!([
            {"kind": "answered", "answered": true, "value": {"ok": true}},
            {"kind": "answered", "answered": true, "value": {"items": ["1"]}},
        ]),
        "{}",
        ran.stderr
    );

    // The tools block reached the model: the CLI's first request holds the turn's prompt with
    // the add tool taught at the agent's launcher. (The fake finds the launcher on the answer's
    // line too, so the calls above alone do not show it.)
    let launcher = project.events_of("live", "agent-opened")[0]["launcher"]
        .as_str()
        .expect("a launcher")
        .to_string();
    let first = fake
        .requests_for_prompt(0)
        .into_iter()
        .next()
        .expect("the first turn asked the model");
    let prompt = first["decision"]["prompts"][0]
        .as_str()
        .expect("the prompt")
        .to_string();
    for taught in [
        "You have tools the workflow runs for you.".to_string(),
        "- add: Record one number.".to_string(),
        format!("  {launcher} tool add --x <integer>"),
    ] {
        assert_has(&prompt, &taught);
    }

    // The refused call's code and message reached the model as the tool's output.
    let asked_after_refusal = fake
        .requests_for_prompt(0)
        .into_iter()
        .find(|r| r["decision"]["step_index"] == 2)
        .expect("the model was asked again after the refused call");
    let outputs = asked_after_refusal["decision"]["tool_outputs"].to_string();
    assert_has(&outputs, "Recorded; 1 so far.");
    assert_has(&outputs, "refused (invalid-input)");
    assert_has(&outputs, "value.x: expected integer");

    // The second turn resumed the first's session: its history holds the first prompt.
    let second = fake.requests_for_prompt(1);
    assert!(!second.is_empty(), "the second turn asked the model");
    let prompts = second[0]["decision"]["prompts"]
        .as_array()
        .expect("prompts")
        .clone();
    assert_eq!(
        prompts.len(),
        2,
        "both turns' prompts in the resumed history: {prompts:?}"
    );
    assert_has(
        prompts[0].as_str().unwrap(),
        "Record the number 1 with the add tool",
    );

    // One native session, recorded for each turn; tokens per turn and for the agent.
    let events = project.events("live");
    let sessions: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "agent-session")
        .collect();
    assert_eq!(
        sessions.len(),
        2,
        "each turn says its session: {sessions:?}"
    );
    assert_eq!(
        sessions[0]["session"], sessions[1]["session"],
        "the same session for both turns"
    );
    assert_eq!(sessions[0]["harness"], cli.name());
    let settled: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "turn-settled")
        .collect();
    assert_eq!(
        tokens(&settled[0]["usage"]),
        usage_of(cli, 4),
        "{}",
        settled[0]
    );
    assert_eq!(
        tokens(&settled[1]["usage"]),
        usage_of(cli, 2),
        "{}",
        settled[1]
    );
    let output: Value = serde_json::from_str(
        &std::fs::read_to_string(project.only_run_dir("live").join("output.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(tokens(&output["usage"]["a"]), usage_of(cli, 6), "{output}");
    assert_has(
        &ran.stderr,
        "2 turns (answered, answered); tools 1 ok, 1 refused, 0 failed; 6,000 in (1,200 cached)",
    );

    // What the agent did between its calls is in the records, shell commands among it.
    let commands: Vec<String> = events
        .iter()
        .filter(|e| e["event"] == "shell-finished")
        .map(|e| e["command"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        commands.iter().any(|c| c.ends_with("tool add --x 'abc'")),
        "{commands:?}"
    );
    let logs = project.awf(&["logs"]).run();
    logs.assert_success();
    assert_has(
        &crate::util::stable_ids(&logs.stdout),
        &format!("a t1  {} session ", cli.name()),
    );
    assert_has(&logs.stdout, "tool add --x 'abc'");
    assert_has(&logs.stdout, "→ add {\"x\":1}");
    assert_has(&logs.stdout, "turn answered after");
}

#[test]
fn codex_two_turns() {
    two_turns(Cli::Codex);
}

#[test]
fn claude_two_turns() {
    two_turns(Cli::Claude);
}

#[test]
fn gemini_two_turns() {
    two_turns(Cli::Gemini);
}

#[test]
fn pi_two_turns() {
    two_turns(Cli::Pi);
}

#[test]
fn opencode_two_turns() {
    two_turns(Cli::Opencode);
}

/// codex hands a shell command back after 10 s ("Process running with session ID N"); the model
/// calls again with the same input, which joins the running call and gets its answer.
#[test]
fn codex_hands_a_slow_call_back_and_the_same_call_again_joins_it() {
    let project = project();
    let script = json!({"prompts": [{"steps": [
        {"shell": "{wfa} tool slow"},
        {"same_again": true},
        {"shell": "{wfa} result {turn} --ok 'true'"},
        {"text": "Done."}]}]});
    let fake = FakeModel::start(&project, "responses", &script, false);
    let input = json!({"runtime": Cli::Codex.runtime(), "slow": true, "turns": 1});
    let ran = run_live(&project, Cli::Codex, &fake, &input);
    ran.assert_success();
    let result = ran.json();
    assert_eq!(result["slowCalls"], 1, "the handler ran once: {result}");
    assert_eq!(result["outcomes"][0]["kind"], "answered");
    let requests = fake.requests_for_prompt(0);
    let handed_back = requests
        .iter()
        .find(|r| r["decision"]["step_index"] == 1)
        .expect("asked after the first call");
    assert_has(
        &handed_back["decision"]["tool_outputs"].to_string(),
        "Process running with session ID",
    );
    let joined = requests
        .iter()
        .find(|r| r["decision"]["step_index"] == 2)
        .expect("asked after the second call");
    assert_has(&joined["decision"]["tool_outputs"].to_string(), "slow done");
    let events = project.events("live");
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "tool-called")
            .count(),
        1
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "tool-joined")
            .count(),
        1
    );
}

/// A CLI run that ends without an answer gets one check-in, a resumed run of the same session
/// whose prompt says the answer is missing.
fn check_in(cli: Cli) {
    let project = project();
    let script = json!({"prompts": [
        {"steps": [{"text": "I will answer later."}]},
        {"steps": [{"shell": "{wfa} result {turn} --ok 'true'"}, {"text": "Sent."}]}]});
    let fake = FakeModel::start(&project, cli.api(), &script, false);
    let ran = run_live(
        &project,
        cli,
        &fake,
        &json!({"runtime": cli.runtime(), "turns": 1}),
    );
    ran.assert_success();
    assert_eq!(
        ran.json()["outcomes"][0]["value"],
        json!({"ok": true}),
        "{}",
        ran.stderr
    );
    assert_eq!(project.events_of("live", "check-in").len(), 1);
    let checked_in = fake.requests_for_prompt(1);
    let prompts = checked_in[0]["decision"]["prompts"]
        .as_array()
        .expect("prompts")
        .clone();
    assert_eq!(
        prompts.len(),
        2,
        "the check-in resumed the turn's session: {prompts:?}"
    );
    assert_has(
        &crate::util::stable_ids(prompts[1].as_str().unwrap()),
        "You ended your turn t1 without sending its answer",
    );
}

#[test]
fn codex_is_checked_in_on_in_the_same_session() {
    check_in(Cli::Codex);
}

#[test]
fn claude_is_checked_in_on_in_the_same_session() {
    check_in(Cli::Claude);
}

/// A key the model server refuses makes the turn `blocked`, with the CLI's own words.
fn refused_key(cli: Cli) {
    let project = project();
    let fake = FakeModel::start(&project, cli.api(), &two_turn_script(), true);
    let input = json!({"runtime": cli.runtime(), "turns": 1});
    let ran = run_live(&project, cli, &fake, &input);
    ran.assert_success();
    let outcome = &ran.json()["outcomes"][0];
    assert_eq!(outcome["kind"], "blocked", "{outcome}");
    let detail = outcome["detail"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        detail.contains("api key") || detail.contains("401"),
        "{detail}"
    );
}

#[test]
fn codex_with_a_refused_key_is_blocked() {
    refused_key(Cli::Codex);
}

#[test]
fn claude_with_a_refused_key_is_blocked() {
    refused_key(Cli::Claude);
}

#[test]
fn pi_with_a_refused_key_is_blocked_though_pi_exits_0() {
    refused_key(Cli::Pi);
}

/// A session the CLI no longer knows (its store removed between the turns) fails the next turn
/// with the CLI's reason, once: no check-in loop.
fn lost_session(cli: Cli, store: &str, reason: &str) {
    let project = project();
    let fake = FakeModel::start(&project, cli.api(), &two_turn_script(), false);
    let forget = crate::live::state_dir(&project).join(store);
    let input = json!({"runtime": cli.runtime(), "forget": forget.display().to_string()});
    let ran = run_live(&project, cli, &fake, &input);
    ran.assert_success();
    let outcomes = &ran.json()["outcomes"];
    assert_eq!(outcomes[0]["kind"], "answered", "{outcomes}");
    assert_eq!(outcomes[1]["kind"], "failed", "{outcomes}");
    assert_has(outcomes[1]["detail"].as_str().unwrap_or_default(), reason);
    let check_ins = project.events_of("live", "check-in");
    assert!(
        check_ins.is_empty(),
        "a failure is not checked in on: {check_ins:?}"
    );
}

#[test]
fn codex_with_a_lost_session_fails_with_its_reason() {
    lost_session(Cli::Codex, "codex-home/sessions", "no rollout found");
}

#[test]
fn claude_with_a_lost_session_fails_with_its_reason() {
    lost_session(
        Cli::Claude,
        "claude/projects",
        "No conversation found with session ID",
    );
}

/// `awf doctor` reports each CLI: installed or not, the pinned version, readiness.
#[test]
fn doctor_reports_each_cli() {
    let codex = crate::live::installed(Cli::Codex);
    let project = TempProject::new();
    // Not under the temp dir: codex's sandbox would not work there (live::state_dir).
    let home = project.outside_temp();
    let ran = AwfCommand::new(crate::util::awf_bin())
        .args(&["doctor", "--json"])
        .env("PATH", format!("{}:/usr/bin:/bin", codex.display()))
        .env("HOME", &home)
        .env("OPENAI_API_KEY", "sk-test")
        .run();
    let report = ran.json();
    let clis: Vec<&str> = report["clis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(clis, ["codex", "claude", "gemini", "pi", "opencode"]);
    let codex = &report["clis"][0];
    assert_eq!(codex["installed"], true, "{codex}");
    assert_eq!(codex["isTestedVersion"], true, "{codex}");
    assert_eq!(codex["ready"], true, "{codex}");
    assert_eq!(codex["readiness"], "OPENAI_API_KEY is set");
    let gemini = &report["clis"][2];
    assert_eq!(gemini["installed"], false, "{gemini}");
    assert_eq!(
        gemini["install"],
        "npm install -g @google/gemini-cli@0.61.0"
    );
    assert_eq!(
        ran.code,
        Some(0),
        "every installed CLI is ready: {}",
        ran.stdout
    );

    let text = AwfCommand::new(crate::util::awf_bin())
        .args(&["doctor"])
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .run();
    assert_has(
        &text.stdout,
        "codex: not installed\n  install: npm install -g @openai/codex@0.171.0",
    );
    assert_has(&text.stdout, "claude: not installed");
}

/// When codex's own sandbox cannot run a command (here a bubblewrap that cannot make namespaces,
/// as in many containers), every command fails, `wfa` too: the turn ends `blocked` with codex's
/// words and a hint, at once, not `unanswered` after a check-in that would fail the same way.
#[test]
fn codex_whose_sandbox_cannot_run_commands_is_blocked_with_its_words() {
    let project = project();
    let fake = FakeModel::start(&project, "responses", &two_turn_script(), false);
    let bwrap = crate::live::broken_bubblewrap(&project);
    let input = json!({"runtime": Cli::Codex.runtime(), "turns": 1});
    let ran =
        crate::live::run_with_path(&project, "live.ts", Cli::Codex, &fake, &input, Some(&bwrap));
    ran.assert_success();
    let result = ran.json();
    assert_eq!(result["added"], json!([]), "no command ran: {result}");
    let outcome = &result["outcomes"][0];
    assert_eq!(outcome["kind"], "blocked", "{result}\n{}", ran.stderr);
    let detail = outcome["detail"].as_str().unwrap_or_default();
    assert_has(
        detail,
        "codex's sandbox could not run the agent's command `",
    );
    assert_has(detail, "`: bwrap: No permissions to create a new namespace");
    assert_has(
        detail,
        "; hint: codex runs every command of the agent (wfa too) in its own sandbox",
    );
    assert!(
        project.events_of("live", "check-in").is_empty(),
        "a blocked turn is not checked in on"
    );
    // awf stopped codex at the first refusal rather than let the model go through its script
    // (four requests): the model was asked once, or twice if codex was quicker than the stop.
    let asked = fake.requests_for_prompt(0).len();
    assert!(
        asked < 4,
        "codex went on after its sandbox refused: {asked} requests"
    );
}

/// With CODEX_HOME under the temp dir, codex makes no `codex-linux-sandbox` helper and, with a
/// bubblewrap that cannot run it otherwise, reports no item at all for the commands its sandbox
/// cannot start: awf reads its warning on stderr, runs codex's own check, and blocks the turn
/// from its start with the check's words (here a bubblewrap without namespaces; with Debian 12's
/// bubblewrap 0.8 the words are `bwrap: execvp codex-linux-sandbox: No such file or directory`).
#[test]
fn codex_whose_home_is_under_the_temp_dir_and_whose_sandbox_fails_is_blocked_from_the_start() {
    let project = project();
    let fake = FakeModel::start(&project, "responses", &two_turn_script(), false);
    let bwrap = crate::live::broken_bubblewrap(&project);
    // Under the temp dir, on purpose: the project is there.
    let state = project.path().join("state");
    let home = project.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let input = json!({"runtime": Cli::Codex.runtime(), "turns": 1}).to_string();
    let mut awf = project.awf(&["run", "live.ts", "--timeout", "4m", "--", &input]);
    let path = format!(
        "{}:{}:{}",
        bwrap.display(),
        crate::live::installed(Cli::Codex).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    awf.env("PATH", path)
        .env("HOME", &home)
        .bound(crate::live::LIVE_BOUND);
    for (name, value) in crate::live::environment(Cli::Codex, fake.port, &state) {
        awf.env(&name, value);
    }
    let ran = awf.run();
    ran.assert_success();
    let outcome = &ran.json()["outcomes"][0];
    assert_eq!(outcome["kind"], "blocked", "{outcome}\n{}", ran.stderr);
    let detail = outcome["detail"].as_str().unwrap_or_default();
    assert_has(
        detail,
        "codex's sandbox could not run the agent's commands (`codex sandbox -- true` failed): bwrap: No permissions to create a new namespace",
    );
    assert_has(detail, "set CODEX_HOME to a folder outside it");
    assert_eq!(ran.json()["added"], json!([]), "no command ran");
    assert!(
        project.events_of("live", "check-in").is_empty(),
        "a blocked turn is not checked in on"
    );
}

/// `awf doctor` in `project` with codex installed and `env` set: its JSON report of codex, its
/// exit code and its text.
fn doctor_on_codex(
    project: &TempProject,
    path_first: Option<&std::path::Path>,
    env: &[(&str, &str)],
) -> (Value, Option<i32>, String) {
    let codex = crate::live::installed(Cli::Codex);
    let mut path = format!("{}:/usr/bin:/bin", codex.display());
    if let Some(first) = path_first {
        path = format!("{}:{path}", first.display());
    }
    let run = |json: bool| {
        let mut doctor = AwfCommand::new(crate::util::awf_bin());
        doctor
            .arg("doctor")
            .env("PATH", &path)
            .current_dir(&project.path());
        if json {
            doctor.arg("--json");
        }
        for (name, value) in env {
            doctor.env(name, value);
        }
        doctor.run()
    };
    let json = run(true);
    let report = json.json()["clis"][0].clone();
    (report, json.code, run(false).stdout)
}

/// One of the checks `awf doctor --json` reports for a CLI.
fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no {name} check: {report}"))
}

/// `awf doctor` runs codex's own sandbox check and says whether codex can run a command here,
/// with codex's words and what to do when it cannot.
#[test]
fn doctor_runs_codexs_sandbox_check() {
    let project = TempProject::new();
    let home = project.outside_temp();
    let home = home.to_str().unwrap();
    let env = [("HOME", home), ("OPENAI_API_KEY", "sk-test")];
    let (report, code, text) = doctor_on_codex(&project, None, &env);
    let sandbox = check(&report, "sandbox");
    assert_eq!(sandbox["ok"], true, "{report}");
    assert_eq!(code, Some(0), "{text}");
    assert_has(&text, "  sandbox: works (`codex sandbox -- true` ran)\n");

    let bwrap = crate::live::broken_bubblewrap(&project);
    let (report, code, text) = doctor_on_codex(&project, Some(&bwrap), &env);
    let sandbox = check(&report, "sandbox");
    assert_eq!(sandbox["ok"], false, "{report}");
    assert_has(
        sandbox["said"].as_str().unwrap_or_default(),
        "refuses commands: `codex sandbox -- true` failed: bwrap: No permissions to create a new namespace",
    );
    assert_has(
        sandbox["hint"].as_str().unwrap_or_default(),
        "user namespaces",
    );
    assert_eq!(
        code,
        Some(1),
        "a sandbox that cannot run a command is a problem: {text}"
    );
    assert_has(&text, "  sandbox: warning: refuses commands: ");
    assert_has(
        &text,
        "\n    hint: codex runs every command of the agent (wfa too) in its own sandbox",
    );
}

/// `awf doctor` names the model codex will ask for, from its config.toml as codex reads it, and
/// warns when a model provider of one's own has none: codex would ask it for codex's default
/// OpenAI model, and the turn would come back unanswered.
#[test]
fn doctor_names_the_model_codex_will_ask_for() {
    let project = TempProject::new();
    let home = project.outside_temp();
    let codex_home = home.join("codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let provider = "model_provider = \"mine\"\n\n[model_providers.mine]\nname = \"mine\"\nbase_url = \"http://127.0.0.1:9/v1\"\nwire_api = \"responses\"\nenv_key = \"MY_KEY\"\n";
    std::fs::write(codex_home.join("config.toml"), provider).unwrap();
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("CODEX_HOME", codex_home.to_str().unwrap()),
    ];
    let (report, code, text) = doctor_on_codex(&project, None, &env);
    assert_eq!(
        report["ready"], true,
        "a provider is model access: {report}"
    );
    let model = check(&report, "model");
    assert_eq!(model["ok"], false, "{report}");
    assert_has(
        model["said"].as_str().unwrap_or_default(),
        "none set for provider mine",
    );
    assert_has(
        model["hint"].as_str().unwrap_or_default(),
        "add `model = \"<a model your server serves>\"` to ",
    );
    assert_eq!(code, Some(1), "{text}");
    assert_has(&text, "  model: warning: none set for provider mine (");

    std::fs::write(
        codex_home.join("config.toml"),
        format!("model = \"qwen3-coder\"\n{provider}"),
    )
    .unwrap();
    let (report, code, text) = doctor_on_codex(&project, None, &env);
    let model = check(&report, "model");
    assert_eq!(model["ok"], true, "{report}");
    assert_has(&text, "  model: qwen3-coder from provider mine (");
    assert_eq!(code, Some(0), "{text}");
}
