//! Agents in sandboxes (issue 26), end to end with bubblewrap: a command agent confined to its
//! cwd, credentials under $HOME masked, its answer through the launcher from inside, agents
//! sharing a sandbox, and a missing bwrap refused at open. What the agent did is read on the
//! host (files, records), never from the agent's word.

use std::fs;
use std::path::Path;

use serde_json::json;

use crate::util::{assert_has, TempProject};

/// The agent: writes its cwd, tries beside it and the user's ssh key, then answers.
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

/// A workflow opening agent `a` in `cwd` with `sandbox` (a JS expression), one turn.
fn workflow(cwd: &Path, sandbox: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "A sandboxed agent." }},
  async run(wf) {{
    const agent = await wf.agents.open({{ key: "a", runtime: {{ command: ["./agent.sh"] }}, cwd: {cwd:?}, sandbox: {sandbox} }});
    return (await agent.run({{ prompt: "Probe." }})).outcome.value;
  }},
}});
"#,
        cwd = cwd.display().to_string()
    )
}

/// `outside/work` (the agent's cwd, with `agent.sh`), `outside/beside`, and a home with a key,
/// all outside /tmp (which the box replaces by its own), so that what is denied is there to see.
fn layout(project: &TempProject) -> (std::path::PathBuf, std::path::PathBuf) {
    let outside = project.outside_temp();
    let work = outside.join("work");
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(outside.join("beside")).unwrap();
    let ssh = outside.join("home/.ssh");
    fs::create_dir_all(&ssh).unwrap();
    fs::write(ssh.join("id_ed25519"), "SECRET KEY").unwrap();
    let agent = work.join("agent.sh");
    fs::write(&agent, PROBING_AGENT).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&agent, fs::Permissions::from_mode(0o755)).unwrap();
    (outside.clone(), outside.join("home"))
}

#[test]
fn a_sandboxed_agent_writes_its_cwd_only_and_cannot_read_ssh_keys() {
    let project = TempProject::new();
    let (outside, home) = layout(&project);
    let work = outside.join("work");
    project.file("wf.ts", &workflow(&work, "{}"));
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    assert_eq!(ran.assert_success().json(), json!("done"));
    assert_eq!(
        fs::read_to_string(work.join("inside.txt")).unwrap(),
        "inside"
    );
    assert!(
        !outside.join("beside/out.txt").exists(),
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
    assert_eq!(opened["sandbox"]["provider"], "bwrap");
    assert_eq!(opened["sandbox"]["key"], "agent:a");
    assert_eq!(
        opened["sandbox"]["write"],
        json!([work.display().to_string()])
    );
    assert_eq!(opened["sandbox"]["network"], json!(false));
}

#[test]
fn an_agentswf_srt_sandbox_writes_nothing_unless_it_says() {
    // agentswf's `srt: {}` keeps agentswf's default: no write path, not even the cwd; the
    // agent still answers (through its launcher, which needs no write).
    let project = TempProject::new();
    let (outside, home) = layout(&project);
    let work = outside.join("work");
    project.script(
        "outside-agent.sh",
        "#!/bin/sh\ncat > /dev/null\nprintf inside > inside.txt 2>/dev/null\ncode=$?\n\"$AWF_WFA\" result \"$AWF_TURN\" <<WF_JSON\nwrote $code\nWF_JSON\n",
    );
    fs::copy(
        project.path().join("outside-agent.sh"),
        work.join("agent.sh"),
    )
    .unwrap();
    project.file("wf.ts", &workflow(&work, "{ srt: {} }"));
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    let answer = ran.assert_success().json();
    assert_ne!(answer, json!("wrote 0"), "it wrote its cwd");
    assert!(!work.join("inside.txt").exists(), "it wrote its cwd");
    let opened = &project.events_of("t", "agent-opened")[0];
    assert_eq!(opened["sandbox"]["provider"], "bwrap");
    assert_eq!(opened["sandbox"]["write"], json!([]));
    assert_eq!(opened["sandbox"]["spec"]["srt"], json!({}));
}

#[test]
fn the_same_agent_unsandboxed_can_do_all_three() {
    // The control: what the sandbox denied above is there to be done without it.
    let project = TempProject::new();
    let (outside, home) = layout(&project);
    let work = outside.join("work");
    project.file("wf.ts", &workflow(&work, "undefined"));
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    assert_eq!(ran.assert_success().json(), json!("done"));
    assert_eq!(
        fs::read_to_string(outside.join("beside/out.txt")).unwrap(),
        "beside"
    );
    assert_eq!(
        fs::read_to_string(work.join("ssh.txt")).unwrap(),
        "SECRET KEY"
    );
    assert!(project.events_of("t", "agent-opened")[0]
        .get("sandbox")
        .is_none());
}

#[test]
fn two_agents_share_one_sandbox_from_wf_sandboxes_open() {
    let project = TempProject::new();
    let (outside, home) = layout(&project);
    let work = outside.join("work");
    fs::write(
        work.join("agent.sh"),
        "#!/bin/sh\ncat > /dev/null\nprintf x > \"$AWF_AGENT.txt\"\nprintf y > ../beside/$AWF_AGENT.txt 2>/dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
    )
    .unwrap();
    project.file(
        "wf.ts",
        &format!(
            r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "Two agents, one sandbox." }},
  async run(wf) {{
    const box = await wf.sandboxes.open({{ key: "team", cwd: {cwd:?}, write: ["."] }});
    const a = await wf.agents.open({{ key: "a", runtime: {{ command: ["./agent.sh"] }}, cwd: {cwd:?}, sandbox: box }});
    const b = await wf.agents.open({{ key: "b", runtime: {{ command: ["./agent.sh"] }}, cwd: {cwd:?}, sandbox: box }});
    const answers = [(await a.run({{ prompt: "Go." }})).outcome.value, (await b.run({{ prompt: "Go." }})).outcome.value];
    return {{ box, answers }};
  }},
}});
"#,
            cwd = work.display().to_string()
        ),
    );
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    assert_eq!(
        ran.assert_success().json(),
        json!({"box": {"key": "team", "provider": "bwrap"}, "answers": ["ok", "ok"]})
    );
    for key in ["a", "b"] {
        assert_eq!(
            fs::read_to_string(work.join(format!("{key}.txt"))).unwrap(),
            "x"
        );
        assert!(!outside.join(format!("beside/{key}.txt")).exists());
    }
    let opened = project.events_of("t", "agent-opened");
    assert!(
        opened.iter().all(|e| e["sandbox"]["key"] == "team"),
        "{opened:?}"
    );
}

#[test]
fn without_bwrap_open_refuses_naming_what_to_install() {
    let project = TempProject::new();
    let (outside, home) = layout(&project);
    let work = outside.join("work");
    project.file("wf.ts", &workflow(&work, "{ write: [\".\"] }"));
    let ran = project
        .awf(&["run", "wf.ts"])
        .env("HOME", &home)
        .env("PATH", "/nonexistent")
        .run();
    assert_ne!(ran.code, Some(0), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "sandbox \"agent:a\": bubblewrap (bwrap) is not installed",
    );
    assert_has(&ran.stderr, "apt-get install bubblewrap");
    assert_has(&ran.stderr, "wf.ts:4:");
    assert!(
        !work.join("inside.txt").exists(),
        "the agent ran unconfined"
    );
}

#[test]
fn container_providers_and_unknown_options_are_refused_at_open() {
    let project = TempProject::new();
    let (outside, home) = layout(&project);
    let work = outside.join("work");
    project.file("wf.ts", &workflow(&work, "{ docker: { imag: \"x\" } }"));
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    assert_has(
        &ran.stderr,
        "docker: unknown option `imag`; did you mean `image`?",
    );
    project.file("wf.ts", &workflow(&work, "{ wirte: [\".\"] }"));
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    assert_has(&ran.stderr, "unknown option `wirte`; did you mean `write`?");
    project.file("wf.ts", &workflow(&work, "{ write: [\"nope\"] }"));
    let ran = project.awf(&["run", "wf.ts"]).env("HOME", &home).run();
    assert_has(&ran.stderr, "write path");
    assert_has(&ran.stderr, "does not exist");
}
