//! The spec's rules about tools that need no composition feature, each with its test: `close`,
//! `compact`, `set`, `fork` and `send` on the calling agent throw, a reopen that changes an
//! input schema is refused, a reopen without tools keeps them, `timeout: false` runs past the
//! 30 s default inside a longer turn, `call.id` is unique across the turns and agents of a run,
//! and `awf logs --agent` filters two agents.

use serde_json::json;
use std::time::Duration;

use crate::util::{assert_has, assert_lacks, TempProject};

/// An agent that calls `wfa tool <tool>` once per turn, keeping stdout and stderr in
/// `<tool>.out`, then answers `done`.
fn calls_once(tool: &str) -> String {
    format!(
        "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool {tool} >> {tool}.out 2>&1; echo \"exit=$?\" >> {tool}.out\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n"
    )
}

#[test]
fn close_on_the_calling_agent_throws_in_its_handler() {
    let project = TempProject::new();
    project.script("agent.sh", &calls_once("shut")).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Close from a handler." },
  async run(wf) {
    const me: any = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools: {
      shut: tool({ description: "Closes its own agent.", handler: async () => { await me.close(); return "closed"; } }),
    } });
    return (await me.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), "answered");
    let out = project.read("shut.out");
    assert_has(&out, "failed (handler-failed): agent \"agent\" cannot close now: this code runs for its tool call");
    assert!(out.ends_with("exit=1\n"), "{out}");
}

/// `compact`, `set`, `fork` and `send` on the calling agent throw in its handler as `close` does
/// (and `run`, tools.rs), also after an `await`; the agent's turn goes on and is answered.
#[test]
fn compact_set_fork_and_send_on_the_calling_agent_throw_in_its_handler() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nfor t in compact set fork send; do \"$AWF_WFA\" tool $t > $t.out 2>&1; echo \"exit=$?\" >> $t.out; done\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Compact, set and fork from a handler." },
  async run(wf) {
    const me: any = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools: {
      compact: tool({ description: "Compacts its own agent.", handler: async () => { await me.compact({ prompt: "keep it short" }); return "compacted"; } }),
      set: tool({ description: "Changes its own agent's model.", handler: async () => { await Promise.resolve(); await me.set({ model: "another" }); return "set"; } }),
      fork: tool({ description: "Forks its own agent.", handler: async () => { await new Promise((r) => setTimeout(r, 0)); await me.fork({ key: "copy" }); return "forked"; } }),
      send: tool({ description: "Sends its own agent a message.", handler: async () => { await me.send("hello"); return "sent"; } }),
    } });
    return (await me.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), "answered");
    for (tool, operation) in [
        ("compact", "compact"),
        ("set", "set"),
        ("fork", "fork"),
        ("send", "be sent a message"),
    ] {
        let out = project.read(&format!("{tool}.out"));
        assert_has(&out, &format!("wfa: {tool}: failed (handler-failed): agent \"agent\" cannot {operation} now: this code runs for its tool call"));
        assert!(out.ends_with("exit=1\n"), "{out}");
    }
    assert!(project.events_of("t", "agent-forked").is_empty());
    assert!(project.events_of("t", "settings-changed").is_empty());
}

#[test]
fn a_reopen_that_changes_an_input_schema_is_refused_naming_the_tool() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Reopen with another schema." },
  async run(wf) {
    const open = (input: any) => wf.agents.open({ key: "a", runtime: { command: ["sh"] }, tools: { add: tool({ description: "Add.", input, handler: () => "x" }) } });
    await open(typed(Type.Object({ n: Type.Integer() })));
    try { await open(typed(Type.Object({ n: Type.String() }))); return "reopened"; }
    catch (e) { return (e as Error).message; }
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        "agent \"a\": tool \"add\" has a different input schema than when the agent opened; a reopen must keep each tool's description and input schema (handlers may change)"
    );
}

#[test]
fn a_reopen_without_tools_keeps_the_agents_tools_and_handlers() {
    let project = TempProject::new();
    project.script("agent.sh", &calls_once("ping")).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Reopen without tools." },
  async run(wf) {
    await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { ping: tool({ description: "Ping.", handler: () => "pong" }) } });
    const again = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    return (await again.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), "answered");
    assert_eq!(project.read("ping.out"), "pong\nexit=0\n");
}

/// The default budget is the spec's fixed 30 s, so showing a call outlive it takes just over
/// 30 s of real time: no shorter duration exercises the rule.
#[test]
fn timeout_false_lets_a_call_run_past_30_seconds_inside_a_longer_turn() {
    let project = TempProject::new();
    project.script("agent.sh", &calls_once("slow")).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "A long call." },
  async run(wf) {
    const agent = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools: {
      slow: tool({ description: "Slow.", timeout: false, handler: () => new Promise((r) => setTimeout(() => r("finished"), 30_500)) }),
    } });
    return (await agent.run({ prompt: "Go.", timeout: "45s" })).outcome.kind;
  },
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts"])
        .bound(Duration::from_secs(90))
        .run();
    assert_eq!(ran.assert_success().json(), "answered");
    assert_eq!(project.read("slow.out"), "finished\nexit=0\n");
}

#[test]
fn call_ids_are_unique_across_the_turns_and_agents_of_a_run() {
    let project = TempProject::new();
    project.script("agent.sh", &calls_once("who")).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Call ids." },
  async run(wf) {
    const ids: string[] = [];
    const who = () => ({ who: tool({ description: "Who.", handler: (_: unknown, call: any) => { ids.push(call.id); return call.agent; } }) });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: who() });
    const b = await wf.agents.open({ key: "b", runtime: { command: ["./agent.sh"] }, tools: who() });
    for (let i = 0; i < 2; i++) await Promise.all([a.run({ prompt: "Go." }), b.run({ prompt: "Go." })]);
    return { ids: ids.length, unique: new Set(ids).size };
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), json!({"ids": 4, "unique": 4}));
}

#[test]
fn awf_logs_agent_shows_only_that_agents_lines_of_a_two_agent_run() {
    let project = TempProject::new();
    project.script("agent.sh", &calls_once("who")).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Two agents." },
  async run(wf) {
    const who = () => ({ who: tool({ description: "Who.", handler: (_: unknown, call: any) => `from ${call.agent}` }) });
    const a = await wf.agents.open({ key: "alpha", runtime: { command: ["./agent.sh"] }, tools: who() });
    const b = await wf.agents.open({ key: "beta", runtime: { command: ["./agent.sh"] }, tools: who() });
    await Promise.all([a.run({ prompt: "Go." }), b.run({ prompt: "Go." })]);
    return "ok";
  },
});
"#,
    );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let all = project.awf(&["logs"]).run();
    assert_has(&all.assert_success().stdout, "from beta");
    let alpha = project.awf(&["logs", "--agent", "alpha"]).run();
    let text = &alpha.assert_success().stdout;
    assert_has(text, "from alpha");
    assert_lacks(text, "beta");
    let raw = project.awf(&["logs", "--json", "--agent", "alpha"]).run();
    let lines: Vec<serde_json::Value> = raw
        .assert_success()
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|l| l["agent"] == "alpha"), "{lines:?}");
    // --turn: that turn's events and its calls' only.
    let turn = lines
        .iter()
        .find_map(|l| {
            (l["event"] == "turn-started").then(|| l["turn"].as_str().unwrap().to_string())
        })
        .unwrap();
    let one = project.awf(&["logs", "--turn", &turn]).run();
    let text = &one.assert_success().stdout;
    assert_has(text, "from alpha");
    assert_lacks(text, "beta");
    assert!(text.lines().all(|l| l.contains(&turn)), "{text}");
    // An agent the run did not open is a mistake that names the run's agents.
    let wrong = project.awf(&["logs", "--agent", "gamma"]).run();
    assert_eq!(wrong.code, Some(2), "{}", wrong.stderr);
    assert_has(
        &wrong.stderr,
        "has no agent \"gamma\"; its agents: alpha, beta",
    );
    assert_has(
        &wrong.stderr,
        "hint: pass one of its agents' keys to --agent",
    );
}

#[test]
fn awf_logs_follow_shows_a_running_run_until_it_ends() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\ntouch started\nwhile [ ! -e go ]; do sleep 0.05; done\necho done | \"$AWF_WFA\" result \"$AWF_TURN\"\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Waits for go." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    return (await a.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
        );
    let mut run = std::process::Command::new(crate::util::awf_bin())
        .args(["run", "wf.ts", "--quiet"])
        .current_dir(project.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    crate::util::wait_for_file(
        &project.path().join("started"),
        std::time::Duration::from_secs(20),
    );
    let mut follow = std::process::Command::new(crate::util::awf_bin())
        .args(["logs", "--follow"])
        .current_dir(project.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(follow.stdout.take().unwrap()).lines();
    let mut text = String::new();
    // The follower has shown the running turn; only then may the run end.
    for line in lines.by_ref() {
        let line = line.unwrap();
        text.push_str(&line);
        text.push('\n');
        if line.contains(" started (") {
            break;
        }
    }
    assert_lacks(&text, "run ended");
    std::fs::write(project.path().join("go"), "").unwrap();
    assert!(run.wait().unwrap().success());
    for line in lines {
        text.push_str(&line.unwrap());
        text.push('\n');
    }
    assert!(follow.wait().unwrap().success());
    assert_has(&text, "answered");
    assert!(text.trim_end().ends_with("run ended completed"), "{text}");
}
