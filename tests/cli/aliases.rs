//! Runtime aliases from the config files (`$XDG_CONFIG_HOME/awf/config.json` and
//! `./.awf/config.json`, the nearer winning): what `awf doctor` (and `--json`) lists and where each came from,
//! a workflow's `runtime: "<alias>"` and `runtime: { alias, effort }` running (the alias's CLI
//! mapped to an executable with `--runtime`), and a bad config file refused with its line.

use crate::util::{assert_has, TempProject};

const ANSWER: &str =
    "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n";

const WORKFLOW: &str = r#"export default defineWorkflow({
  meta: { name: "aliases", description: "Two agents opened by alias." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: "fast" });
    const b = await wf.agents.open({ key: "b", runtime: { alias: "fast", effort: "high" } });
    return [(await a.run({ prompt: "Say ok." })).outcome.kind, (await b.run({ prompt: "Say ok." })).outcome.kind];
  },
});
"#;

/// A project with a user config (under `xdg/`) and a project config.
fn project(user: &str, nearer: &str) -> TempProject {
    let project = TempProject::new();
    project
        .file("xdg/awf/config.json", user)
        .file(".awf/config.json", nearer)
        .file("wf.ts", WORKFLOW)
        .script("agent.sh", ANSWER);
    project
}

const USER: &str = r#"{ "runtimes": {
  "fast": { "runtime": "claude", "model": "haiku", "effort": "low" },
  "deep": { "runtime": "codex", "model": "gpt-5.1-codex" } } }"#;

#[test]
fn doctor_lists_the_aliases_the_nearer_file_winning() {
    let project = project(
        USER,
        r#"{ "runtimes": { "fast": { "runtime": "pi", "model": "m" } } }"#,
    );
    let doctor = project
        .awf(&["doctor"])
        .env("XDG_CONFIG_HOME", project.path().join("xdg"))
        .run();
    let nearer = project.path().join(".awf/config.json");
    let user = project.path().join("xdg/awf/config.json");
    assert_has(&doctor.stdout, "aliases:");
    assert_has(
        &doctor.stdout,
        &format!("  fast: pi, model m (from {})", nearer.display()),
    );
    assert_has(
        &doctor.stdout,
        &format!(
            "  deep: codex, model gpt-5.1-codex (from {})",
            user.display()
        ),
    );
}

/// `awf doctor --json` is `{ clis, aliases }`: each alias with its CLI, model, effort and file.
#[test]
fn doctor_json_lists_the_aliases_with_their_files() {
    let project = project(
        USER,
        r#"{ "runtimes": { "fast": { "runtime": "pi", "model": "m" } } }"#,
    );
    let doctor = project
        .awf(&["doctor", "--json"])
        .env("XDG_CONFIG_HOME", project.path().join("xdg"))
        .run();
    let report = doctor.json();
    let nearer = project.path().join(".awf/config.json");
    let user = project.path().join("xdg/awf/config.json");
    assert_eq!(
        report["aliases"],
        serde_json::json!([
            { "name": "deep", "runtime": "codex", "model": "gpt-5.1-codex", "effort": null,
              "from": user.display().to_string() },
            { "name": "fast", "runtime": "pi", "model": "m", "effort": null,
              "from": nearer.display().to_string() },
        ])
    );
    let clis: Vec<&str> = report["clis"]
        .as_array()
        .expect("clis is an array")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(clis, ["codex", "claude", "gemini", "pi", "opencode"]);
}

#[test]
fn an_alias_opens_its_cli_which_runtime_can_map_to_a_command() {
    let project = project(USER, "{}");
    let ran = project
        .awf(&["run", "wf.ts", "--runtime", "claude=./agent.sh"])
        .env("XDG_CONFIG_HOME", project.path().join("xdg"))
        .run();
    assert_eq!(
        ran.assert_success().json(),
        serde_json::json!(["answered", "answered"])
    );
}

#[test]
fn an_unknown_alias_is_refused_with_the_ones_there_are() {
    let project = project(
        r#"{ "runtimes": { "deep": { "runtime": "codex" } } }"#,
        "{}",
    );
    let ran = project
        .awf(&["run", "wf.ts", "--runtime", "claude=./agent.sh"])
        .env("XDG_CONFIG_HOME", project.path().join("xdg"))
        .run();
    assert_ne!(ran.code, Some(0), "{}", ran.stderr);
    assert_has(&ran.stderr, "unknown runtime \"fast\"");
}

#[test]
fn a_bad_config_file_is_refused_naming_the_file_and_line() {
    let project = project(
        "{}",
        "{\n  \"runtimes\": {\n    \"fast\": { \"model\": \"haiku\" }\n  }\n}\n",
    );
    let ran = project
        .awf(&["run", "wf.ts"])
        .env("XDG_CONFIG_HOME", project.path().join("xdg"))
        .run();
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    let file = project.path().join(".awf/config.json");
    assert_has(
        &ran.stderr,
        &format!(
            "runtime aliases: {}:3:5: alias `fast`: needs `runtime`",
            file.display()
        ),
    );
    assert_has(&ran.stderr, "hint: write { \"runtimes\": { \"fast\"");
}

/// A test of the workflow under `awf test`, reading the aliases `wf.ts` opens its agents by.
const ALIASES_TEST: &str = r#"import { expect, test } from "bun:test";
import { answer, testWorkflow } from "agentswf/testing";
import wf from "./wf.ts";

test("the project's aliases, not the user's, and the test's own winning", async () => {
  const run = await testWorkflow(wf, { argv: [] }, { agents: { "*": answer("ok") } });
  expect(run.value).toEqual(["answered", "answered"]);
  expect([run.agentOf("a").model, run.agentOf("a").effort]).toEqual(["m", "low"]);
  expect([run.agentOf("b").model, run.agentOf("b").effort]).toEqual(["m", "high"]);
  expect(run.agentOf("a").execution).toMatchObject({ harness: "pi", alias: "fast" });
  const own = await testWorkflow(wf, { argv: [] }, {
    runtimes: { fast: { runtime: "codex", model: "mine" } },
    agents: { "*": answer("ok") },
  });
  expect(own.agentOf("a").execution).toMatchObject({ harness: "codex", model: "mine" });
});
"#;

#[test]
fn a_test_reads_the_projects_aliases_but_never_the_users() {
    // The user's file defines `fast` as claude/haiku: a test must not see it.
    let project = project(
        USER,
        r#"{ "runtimes": { "fast": { "runtime": "pi", "model": "m", "effort": "low" } } }"#,
    );
    project.file("wf.test.ts", ALIASES_TEST);
    let ran = project
        .awf(&["test", "wf.test.ts"])
        .env("XDG_CONFIG_HOME", project.path().join("xdg"))
        .run();
    ran.assert_success();
    assert_has(&ran.stdout, "1 passed, 0 failed");

    // Without a project file the user's alias is still not read.
    let bare = TempProject::new();
    bare.file("xdg/awf/config.json", USER)
        .file("wf.ts", WORKFLOW)
        .file("wf.test.ts", ALIASES_TEST);
    let refused = bare
        .awf(&["test", "wf.test.ts"])
        .env("XDG_CONFIG_HOME", bare.path().join("xdg"))
        .run();
    assert_eq!(refused.code, Some(1), "{}", refused.stdout);
    assert_has(&refused.stdout, "agent \"a\": unknown runtime \"fast\"");

    // A bad project file fails the test at the call, naming the file and line.
    let bad = project_with_bad_file();
    let failed = bad.awf(&["test", "wf.test.ts"]).run();
    assert_eq!(failed.code, Some(1), "{}", failed.stdout);
    assert_has(
        &failed.stdout,
        &format!(
            "testWorkflow: {}:1:17: alias `fast`: needs `runtime`",
            bad.path().join(".awf/config.json").display()
        ),
    );
}

fn project_with_bad_file() -> TempProject {
    let project = TempProject::new();
    project
        .file(
            ".awf/config.json",
            r#"{ "runtimes": { "fast": { "model": "haiku" } } }"#,
        )
        .file("wf.ts", WORKFLOW)
        .file("wf.test.ts", ALIASES_TEST);
    project
}
