//! Skills (`agents.open({ skills })`, issue 27 item 5): for claude, codex and pi, the real CLI
//! from npm against the fake model server, a skill given by path and one from a git repository
//! at a tag reach the CLI (their names and descriptions are in the request the fake logged),
//! a skill of the user's own CLI folder does not (the agent reads its own home), and
//! agent-opened records each skill's name, source and digest. Then the refusals at open, each at
//! the author's line with a hint (a relative path, a missing folder, no SKILL.md, bad front
//! matter, an unknown ref, a repository git cannot fetch, an executable agent), and `awf test`'s
//! scripted agents taking skills, which the test reads from `run.agentOf(key).skills`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::live::{environment, installed, state_dir, Cli, FakeModel, LIVE_BOUND};
use crate::util::{assert_has, assert_lacks, git, AwfCommand, TempProject};

/// A skill folder `dir` named `name` whose description is `description`.
fn skill(dir: &Path, name: &str, description: &str) {
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n\nFollow the checklist.\n"),
    )
    .unwrap();
    fs::write(dir.join("scripts/check.sh"), "echo checked\n").unwrap();
}

/// A git repository at `dir` whose `skills/tests` is tagged `v1` with description `v1`, then
/// changed on main (so a skill fetched at `v1` shows which commit it came from).
fn skill_repository(dir: &Path, v1: &str) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet", "-b", "main"]);
    skill(&dir.join("skills/tests"), "write-tests", v1);
    git(dir, &["add", "."]);
    git(dir, &["commit", "--quiet", "-m", "v1"]);
    git(dir, &["tag", "v1"]);
    skill(
        &dir.join("skills/tests"),
        "write-tests",
        "Unreleased wording",
    );
    git(dir, &["commit", "--quiet", "-am", "later"]);
}

const WORKFLOW: &str = r#"export default defineWorkflow({
  meta: { name: "skills", description: "One agent with skills, one turn." },
  prepare: ({ argv }) => JSON.parse(argv[0]),
  async run(wf, input) {
    const agent = await wf.agents.open({ key: "a", runtime: input.runtime, skills: input.skills });
    return (await agent.run({ prompt: "Say which skills you have.", timeout: "2m" })).outcome;
  },
});
"#;

/// One turn: the model answers with `wfa result`.
fn script() -> Value {
    json!({"prompts": [{"steps": [
        {"shell": "{wfa} result {turn} <<'WF_JSON'\ndone\nWF_JSON"},
        {"text": "done"}]}]})
}

/// The folder the run works in: outside the temp dir, since the agent's CLI home is under the
/// run's folder and codex will not work with a CODEX_HOME under it (live.rs, `state_dir`).
fn workdir(project: &TempProject) -> PathBuf {
    let dir = project.outside_temp().join("work");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("wf.ts"), WORKFLOW).unwrap();
    dir
}

/// The folder the user's own CLI reads skills from, in the test's CLI state (`environment`).
fn users_skills(cli: Cli, state: &Path) -> PathBuf {
    match cli {
        Cli::Codex => state.join("codex-home/skills"),
        Cli::Claude => state.join("claude/skills"),
        Cli::Pi => state.join("pi/skills"),
        Cli::Gemini => state.join("gemini/.gemini/skills"),
        Cli::Opencode => state.join("oc/config/opencode/skills"),
    }
}

fn skills_reach(cli: Cli) {
    let project = TempProject::new();
    let work = workdir(&project);
    let review = work.join("skills/review");
    skill(&review, "review", "Zebra-falcon review checklist");
    let repo = work.join("skill-repo");
    skill_repository(&repo, "Tests written the heron-quartz way");
    let fake = FakeModel::start(&project, cli.api(), &script(), false);
    let state = state_dir(&project);
    let env = environment(cli, fake.port, &state);
    skill(
        &users_skills(cli, &state).join("users-own"),
        "users-own",
        "Walrus-lantern skill of the user",
    );

    let home = project.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let input = json!({
        "runtime": cli.runtime(),
        "skills": [
            { "path": review.display().to_string() },
            { "repo": repo.display().to_string(), "skill": "skills/tests", "ref": "v1" },
        ],
    });
    let mut awf = AwfCommand::new(crate::util::awf_bin());
    awf.args(&["run", "wf.ts", "--timeout", "4m", "--"])
        .arg(input.to_string())
        .current_dir(&work)
        .bound(LIVE_BOUND)
        .env(
            "PATH",
            format!(
                "{}:{}",
                installed(cli).display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", project.path().join("cache"));
    for (name, value) in &env {
        awf.env(name, value);
    }
    let ran = awf.run();
    ran.assert_success();
    assert_eq!(ran.json()["kind"], "answered", "{}", ran.stdout);

    // The CLI listed both skills to its model, the tagged commit's wording, not the user's own.
    let requests = serde_json::to_string(&fake.requests()).unwrap();
    assert_has(&requests, "Zebra-falcon review checklist");
    assert_has(&requests, "Tests written the heron-quartz way");
    assert_lacks(&requests, "Unreleased wording");
    assert_lacks(&requests, "Walrus-lantern");

    // agent-opened records each skill with its digest; the copies are in the agent's home.
    let runs = work.join(".awf/runs/skills");
    let run = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let events = fs::read_to_string(run.join("events.jsonl")).unwrap();
    let opened: Value = events
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|e| e["event"] == "agent-opened")
        .unwrap();
    let skills = opened["skills"]
        .as_array()
        .expect("agent-opened has skills");
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["review", "write-tests"], "{opened}");
    assert_eq!(skills[0]["source"], review.display().to_string());
    assert_eq!(
        skills[1]["source"],
        format!("{}#skills/tests@v1", repo.display())
    );
    for skill in skills {
        let digest = skill["digest"].as_str().unwrap();
        assert!(
            digest.starts_with("sha256:") && digest.len() == 71,
            "{skill}"
        );
    }
    let agent_home = PathBuf::from(opened["home"].as_str().expect("a CLI home"));
    // Each CLI's skills folder in its home (harness/home.rs, `skills_dir`).
    let skills = agent_home.join(match cli {
        Cli::Gemini => ".gemini/skills",
        Cli::Opencode => "config/opencode/skills",
        _ => "skills",
    });
    assert!(skills.join("review/scripts/check.sh").is_file());
    assert!(!skills.join("users-own").exists());
}

#[test]
fn skills_reach_gemini_and_not_the_users_own() {
    skills_reach(Cli::Gemini);
}

#[test]
fn skills_reach_opencode_and_not_the_users_own() {
    skills_reach(Cli::Opencode);
}

#[test]
fn skills_reach_claude_and_not_the_users_own() {
    skills_reach(Cli::Claude);
}

#[test]
fn skills_reach_codex_and_not_the_users_own() {
    skills_reach(Cli::Codex);
}

#[test]
fn skills_reach_pi_and_not_the_users_own() {
    skills_reach(Cli::Pi);
}

/// `awf run wf.ts` of a workflow opening a pi agent with `skills` (a JS text) fails at open,
/// saying `says` at the author's line, with a hint saying `hint`.
fn refused(project: &TempProject, skills: &str, says: &str, hint: &str) {
    refused_with(project, "\"pi\"", skills, says, hint);
}

fn refused_with(project: &TempProject, runtime: &str, skills: &str, says: &str, hint: &str) {
    project.file(
        "wf.ts",
        &format!(
            r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "Skills refused." }},
  async run(wf) {{
    await wf.agents.open({{ key: "a", runtime: {runtime}, skills: {skills} }});
    return "opened";
  }},
}});
"#
        ),
    );
    let path = format!(
        "{}:{}",
        installed(Cli::Pi).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = project.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let ran = project
        .awf(&["run", "wf.ts"])
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", project.path().join("cache"))
        .run();
    assert_eq!(ran.code, Some(1), "{}{}", ran.stdout, ran.stderr);
    assert_has(&ran.stderr, says);
    assert_has(&ran.stderr, "wf.ts:4:");
    assert_has(&ran.stderr, &format!("hint: {hint}"));
}

#[test]
fn skills_are_refused_at_open_with_where_and_what_to_do() {
    let project = TempProject::new();
    let root = project.path();
    refused(
        &project,
        r#"[{ path: "skills/review" }]"#,
        "skills[0]: \"skills/review\" is relative; write an absolute path",
        "write each skill as { path:",
    );
    refused(
        &project,
        r#"[{ path: import.meta.dirname + "/nowhere" }]"#,
        &format!("there is no folder {}/nowhere", root.display()),
        "a skill is a folder holding SKILL.md",
    );
    fs::create_dir_all(root.join("empty")).unwrap();
    refused(
        &project,
        r#"[{ path: import.meta.dirname + "/empty" }]"#,
        &format!("cannot read {}/empty/SKILL.md", root.display()),
        "a skill is a folder holding SKILL.md",
    );
    project.file("bad/SKILL.md", "---\nname: bad\n---\n");
    refused(
        &project,
        r#"[{ path: import.meta.dirname + "/bad" }]"#,
        &format!(
            "{}/bad/SKILL.md: the front matter has no `description:`",
            root.display()
        ),
        "SKILL.md starts with front matter",
    );
    skill_repository(&root.join("repo"), "v1 wording");
    refused(
        &project,
        r#"[{ repo: import.meta.dirname + "/repo", skill: "skills/tests", ref: "v9" }]"#,
        "has no branch, tag or commit \"v9\"",
        "check the repository address and the ref",
    );
    refused(
        &project,
        r#"[{ repo: import.meta.dirname + "/no-repo", skill: "s" }]"#,
        "git could not fetch it",
        "check the repository address and the ref",
    );
    refused_with(
        &project,
        r#"{ command: ["/bin/true"] }"#,
        r#"[{ repo: import.meta.dirname + "/repo", skill: "skills/tests" }]"#,
        "skills need a runtime that reads skills (codex, claude, pi, gemini, opencode); command has none",
        "open the agent with an agent CLI",
    );
}

#[test]
fn scripted_agents_in_awf_test_take_skills_and_the_test_reads_them() {
    let project = TempProject::new();
    skill(&project.path().join("skills/review"), "review", "Reviews");
    project
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "An agent with a skill." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: "codex", skills: [{ path: `${import.meta.dirname}/skills/review` }] });
    await a.run({ prompt: "Look." });
    const fork = await a.fork({ key: "b" });
    // agentswf's spelling: the path as a URL.
    const c = await wf.agents.open({ key: "c", runtime: "pi", skills: [{ path: new URL("./skills/review", import.meta.url) }] });
    await c.run({ prompt: "Look too." });
    return (await fork.run({ prompt: "Review." })).outcome.value;
  },
});
"#,
        )
        .file(
            "wf.test.ts",
            r#"import { expect, test } from "bun:test";
import { answer, testWorkflow } from "agentswf/testing";
import wf from "./wf.ts";
test("skills are recorded", async () => {
  const run = await testWorkflow(wf, {}, { agents: { a: answer("looked"), b: answer("reviewed"), c: answer("looked") } });
  expect(run.value).toBe("reviewed");
  expect(run.agentOf("a").skills).toEqual(["review"]);
  const [skill] = run.agentOf("a").skillCopies;
  expect(skill.name).toBe("review");
  expect(skill.source).toBe(`${import.meta.dirname}/skills/review`);
  expect(skill.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(run.agentOf("b").skillCopies).toEqual(run.agentOf("a").skillCopies);
  expect(run.agentOf("c").skillCopies.map((s) => [s.name, s.digest])).toEqual([["review", skill.digest]]);
});
"#,
        );
    let ran = project.awf(&["test"]).run();
    assert_eq!(ran.code, Some(0), "{}{}", ran.stdout, ran.stderr);
}
