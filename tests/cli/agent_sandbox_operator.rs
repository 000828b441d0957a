//! `awf run --agent-sandbox FILE.json` (issue 26): the operator's sandbox holds every agent of
//! the run. A command agent the workflow opens unsandboxed writes its cwd and nothing beside it
//! (checked on the host); the file's paths start at its folder; the attempt and agent-opened
//! record the file and `awf logs` names it; `--continue` keeps the sandbox even when the file is
//! gone; a workflow that opens its own sandbox is refused naming the file and the author's
//! line; a bad file is refused at its line and column before the run starts.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::util::{assert_has, assert_lacks, TempProject};

/// Writes its cwd, tries beside it and the user's ssh key, then answers.
const PROBING_AGENT: &str = r#"#!/bin/sh
cat > /dev/null
printf inside > inside.txt
printf beside > ../beside/out.txt 2>/dev/null
printf '%s' "$?" > beside-exit.txt
cat "$HOME/.ssh/id_ed25519" > ssh.txt 2>/dev/null
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
done
WF_JSON
"#;

/// A workflow opening agent `a` in `cwd` with `options` added to its spec (JS), one turn;
/// `before` runs first (JS statements).
fn workflow(cwd: &Path, before: &str, options: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "An agent under the operator's sandbox." }},
  async run(wf) {{
    {before}
    const agent = await wf.agents.open({{ key: "a", runtime: {{ command: ["./agent.sh"] }}, cwd: {cwd:?}{options} }});
    return (await agent.run({{ prompt: "Probe." }})).outcome.value;
  }},
}});
"#,
        cwd = cwd.display().to_string()
    )
}

/// Outside /tmp (the box's /tmp is its own): `ops/box.json`'s folder, `ops/work` (the agent's
/// cwd, with `agent.sh`), `ops/beside`, and a home with an ssh key. The ops folder.
fn layout(project: &TempProject, sandbox: &str) -> (PathBuf, PathBuf) {
    let ops = project.outside_temp().join("ops");
    let work = ops.join("work");
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(ops.join("beside")).unwrap();
    let ssh = ops.join("home/.ssh");
    fs::create_dir_all(&ssh).unwrap();
    fs::write(ssh.join("id_ed25519"), "SECRET KEY").unwrap();
    let agent = work.join("agent.sh");
    fs::write(&agent, PROBING_AGENT).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&agent, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(ops.join("box.json"), sandbox).unwrap();
    (ops.clone(), ops.join("home"))
}

#[test]
fn every_agent_runs_in_the_operators_sandbox_and_a_continue_keeps_it() {
    let project = TempProject::new();
    // "work" is relative to the file's folder, not to the run's cwd (the project).
    let (ops, home) = layout(&project, "{\n  \"write\": [\"work\"]\n}\n");
    let work = ops.join("work");
    let file = ops.join("box.json");
    project.file("wf.ts", &workflow(&work, "", ""));
    let ran = project
        .awf(&["run", "wf.ts", "--agent-sandbox"])
        .arg(&file)
        .env("HOME", &home)
        .run();
    assert_eq!(ran.assert_success().json(), json!("done"));
    assert_eq!(
        fs::read_to_string(work.join("inside.txt")).unwrap(),
        "inside"
    );
    assert!(
        !ops.join("beside/out.txt").exists(),
        "it wrote beside its cwd"
    );
    assert_ne!(
        fs::read_to_string(work.join("beside-exit.txt")).unwrap(),
        "0"
    );
    assert_eq!(
        fs::read_to_string(work.join("ssh.txt")).unwrap(),
        "",
        "it read the key"
    );
    let opened = &project.events_of("t", "agent-opened")[0];
    assert_eq!(opened["sandbox"]["key"], "operator");
    assert_eq!(opened["sandbox"]["provider"], "bwrap");
    assert_eq!(opened["sandbox"]["from"], json!(file.display().to_string()));
    assert_eq!(
        opened["sandbox"]["write"],
        json!([work.display().to_string()])
    );
    let run_dir = project.only_run_dir("t");
    let attempt: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(run_dir.join("attempts/1.json")).unwrap())
            .unwrap();
    assert_eq!(
        attempt["flags"]["agentSandbox"],
        json!({ "file": file.display().to_string(), "spec": { "write": ["work"] } })
    );
    let logs = project.awf(&["logs"]).run();
    assert_has(
        &logs.assert_success().stdout,
        &format!(
            "agent.sh) in bwrap sandbox \"operator\" from --agent-sandbox {}: writes {}; network: none",
            file.display(),
            work.display()
        ),
    );

    // The file is gone and the flag not given again: the continued attempt keeps the sandbox
    // its run was started with.
    fs::remove_file(&file).unwrap();
    fs::remove_file(work.join("inside.txt")).unwrap();
    let again = project
        .awf(&["run", "wf.ts", "--continue", "--fresh-stages"])
        .env("HOME", &home)
        .run();
    assert_eq!(again.assert_success().json(), json!("done"));
    assert_eq!(
        fs::read_to_string(work.join("inside.txt")).unwrap(),
        "inside"
    );
    assert!(
        !ops.join("beside/out.txt").exists(),
        "unconfined after --continue"
    );
    let reopened = &project.events_of("t", "agent-opened")[1];
    assert_eq!(reopened["attempt"], 2);
    assert_eq!(
        reopened["sandbox"]["from"],
        json!(file.display().to_string())
    );
    let second: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(run_dir.join("attempts/2.json")).unwrap())
            .unwrap();
    assert_eq!(
        second["flags"]["agentSandbox"],
        attempt["flags"]["agentSandbox"]
    );
}

#[test]
fn a_workflow_that_opens_its_own_sandbox_is_refused_naming_the_file_and_its_line() {
    let project = TempProject::new();
    let (ops, home) = layout(&project, "{}");
    let work = ops.join("work");
    let file = ops.join("box.json");
    for (before, options, line) in [
        ("", ", sandbox: { write: [\".\"] }", "wf.ts:5:"),
        (
            "await wf.sandboxes.open({ key: \"team\" });",
            "",
            "wf.ts:4:",
        ),
    ] {
        project.file("wf.ts", &workflow(&work, before, options));
        let ran = project
            .awf(&["run", "wf.ts", "--agent-sandbox"])
            .arg(&file)
            .env("HOME", &home)
            .run();
        assert_eq!(ran.code, Some(1), "{}", ran.stderr);
        assert_has(
            &ran.stderr,
            &format!(
                "this run puts every agent in the operator's sandbox (awf run --agent-sandbox {}), so the workflow may not open its own",
                file.display()
            ),
        );
        assert_has(&ran.stderr, line);
        assert_has(&ran.stderr, "hint: run it without --agent-sandbox");
        assert!(!work.join("inside.txt").exists(), "the agent ran");
    }
}

#[test]
fn a_bad_file_is_refused_at_its_line_and_column_before_the_run_starts() {
    let project = TempProject::new();
    let (ops, home) = layout(&project, "");
    let work = ops.join("work");
    let file = ops.join("box.json");
    project.file("wf.ts", &workflow(&work, "", ""));
    let shown = file.display().to_string();
    for (text, said, hint) in [
        (
            "{\n  \"write\": [\"work\"],\n  \"wirte\": []\n}\n",
            format!("awf: --agent-sandbox {shown}:3:3: sandbox: unknown option `wirte`; did you mean `write`?"),
            "an --agent-sandbox file holds one JSON object",
        ),
        (
            "{\n  \"write\": [\"work\",]\n}\n",
            format!("awf: --agent-sandbox {shown}:2:"),
            "an --agent-sandbox file holds one JSON object",
        ),
        (
            "{ \"write\": [\"missing\"] }",
            format!(
                "awf: --agent-sandbox {shown}:1:13: write path {} does not exist",
                ops.join("missing").display()
            ),
            "relative paths start at the file's folder",
        ),
        (
            "{ \"cwd\": \"work\" }",
            format!("awf: --agent-sandbox {shown}:1:3: `cwd` has no place in an --agent-sandbox file"),
            "hint: remove \"cwd\" from the file",
        ),
    ] {
        fs::write(&file, text).unwrap();
        let ran = project
            .awf(&["run", "wf.ts", "--agent-sandbox"])
            .arg(&file)
            .env("HOME", &home)
            .run();
        assert_eq!(ran.code, Some(2), "{}", ran.stderr);
        assert_has(&ran.stderr, &said);
        assert_has(&ran.stderr, hint);
        assert_lacks(&ran.stderr, "run failed");
        assert!(!project.path().join(".awf/runs/t").exists(), "a run started");
    }
    let ran = project
        .awf(&["run", "wf.ts", "--agent-sandbox", "nowhere.json"])
        .env("HOME", &home)
        .run();
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "awf: --agent-sandbox nowhere.json: cannot read it: ",
    );
}
