//! `agent.fork`, `agent.compact` and `agent.set` with command agents (any executable): a fork
//! is a new agent with a new `AWF_SESSION` and `AWF_FORKED_FROM` naming its parent's; it has
//! its parent's tools unless its spec gives its own (`tools: {}`: none), and a handler it calls
//! sees `call.agent` = the fork's key; the records and `awf logs` show the fork. Each refusal
//! (before the parent's first turn, a closed parent, a key already open, a runtime that cannot
//! compact or change settings) fails the run at the author's line, with a hint.

use crate::util::{assert_has, TempProject};

/// Reads its prompt, calls `note` when `CALL` is set, and answers with who it is.
const AGENT: &str = r#"#!/bin/sh
cat > /dev/null
if [ -n "$CALL" ]; then "$AWF_WFA" tool note --text "hello" > "note-$AWF_AGENT.txt" 2>&1; fi
"$AWF_WFA" result "$AWF_TURN" "$AWF_AGENT $AWF_SESSION ${AWF_FORKED_FROM:-none}"
"#;

const WORKFLOW: &str = r#"export default defineWorkflow({
  meta: { name: "forks", description: "Forks of a command agent." },
  async run(wf) {
    const calls: string[] = [];
    const note = tool({
      description: "Note who called.",
      input: typed(Type.Object({ text: Type.String() })),
      handler: ({ text }, call) => { calls.push(`${call.agent}: ${text}`); return "noted"; },
    });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { note }, env: { CALL: "1" } });
    const first = await a.run({ prompt: "Who are you?" });
    const b = await a.fork({ key: "b" });
    const none = await a.fork({ key: "c", tools: {} });
    const answers = [first.outcome, (await b.run({ prompt: "And you?" })).outcome, (await none.run({ prompt: "You?" })).outcome];
    return { answers: answers.map((o) => (o.answered ? o.value : o.kind)), calls, keys: [b.key, none.key] };
  },
});
"#;

fn project() -> TempProject {
    let project = TempProject::new();
    project.script("agent.sh", AGENT).file("wf.ts", WORKFLOW);
    project
}

#[test]
fn a_fork_has_a_new_session_that_names_its_parents() {
    let project = project();
    let value = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    let answers: Vec<String> = value["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let parent = answers[0].split(' ').nth(1).unwrap().to_string();
    assert!(
        answers[0].starts_with("a a-") && answers[0].ends_with(" none"),
        "{answers:?}"
    );
    let b: Vec<&str> = answers[1].split(' ').collect();
    assert_eq!(b[0], "b");
    assert_ne!(b[1], parent, "the fork has a session of its own");
    assert_eq!(b[2], parent, "AWF_FORKED_FROM is the parent's AWF_SESSION");
    assert!(answers[2].starts_with("c c-") && answers[2].ends_with(&parent));
    assert_eq!(value["keys"], serde_json::json!(["b", "c"]));

    let forks = project.events_of("forks", "agent-forked");
    assert_eq!(forks.len(), 2, "{forks:?}");
    assert_eq!(forks[0]["agent"], "b");
    assert_eq!(forks[0]["from"], "a");
    assert_eq!(forks[0]["harness"], "command");
    assert_eq!(forks[0]["fromSessionName"], parent.as_str());
    let opened = project.events_of("forks", "agent-opened");
    assert_eq!(opened[1]["runtime"]["forkedFrom"], parent.as_str());
    let logs = project.awf(&["logs"]).run();
    logs.assert_success();
    assert_has(
        &logs.stdout,
        &format!(
            "b  forked from a (command: AWF_SESSION {} from {parent})",
            b[1]
        ),
    );
}

#[test]
fn a_fork_has_its_parents_tools_unless_it_gives_its_own() {
    let project = project();
    let value = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    // The parent's handler, called by the fork, sees the fork's key.
    assert_eq!(value["calls"], serde_json::json!(["a: hello", "b: hello"]));
    assert_has(&project.read("note-b.txt"), "noted");
    // `tools: {}`: the fork has none.
    assert_has(
        &project.read("note-c.txt"),
        "you have no tool \"note\"; you have no tools",
    );
    let opened = project.events_of("forks", "agent-opened");
    assert_eq!(opened[1]["tools"], serde_json::json!(["note"]));
    assert!(opened[2].get("tools").is_none(), "{}", opened[2]);
}

/// A workflow that makes one mistake, uncaught, on line 7.
fn mistake(call: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "mistake", description: "One refused operation." }},
  async run(wf) {{
    const a = await wf.agents.open({{ key: "a", runtime: {{ command: ["./agent.sh"] }} }});
    const other = await wf.agents.open({{ key: "other", runtime: {{ command: ["./agent.sh"] }} }});
    if (!{before}) await a.run({{ prompt: "First." }});
    {call};
  }},
}});
"#,
        before = call.contains("before"),
    )
}

#[test]
fn each_refusal_names_the_call_and_says_what_to_do() {
    let cases = [
        (
            "/* before */ await a.fork({ key: \"b\" })",
            "wf.ts:7:",
            "agent \"a\" has had no turn yet, so there is no session to fork",
            "hint: give the agent its first turn",
        ),
        (
            "await a.close(); await a.fork({ key: \"b\" })",
            "wf.ts:7:",
            "agent \"a\" is closed; it cannot fork",
            "hint: fork or compact an agent before you close it",
        ),
        (
            "await a.fork({ key: \"other\" })",
            "wf.ts:7:",
            "an agent \"other\" is already open in this run",
            "hint: give the fork a key of its own",
        ),
        (
            "await a.compact({ prompt: \"keep the plan\" })",
            "wf.ts:7:",
            "agent \"a\" runs on command, which cannot compact: an executable has no context awf can compact",
            "hint: docs/workflow-api.md",
        ),
        (
            "await a.set({ model: \"m\" })",
            "wf.ts:7:",
            "agent \"a\" runs on command, which cannot change its settings",
            "hint: docs/workflow-api.md",
        ),
        (
            "await a.set({ harness: \"codex\" } as any)",
            "wf.ts:7:",
            "agent.set: `harness` cannot be changed (only model and effort)",
            "hint: agent.set takes { model?, effort? }",
        ),
        (
            "await a.fork({ key: \"no good\" })",
            "wf.ts:7:",
            "agent.fork({ key }): \"no good\" is not a valid agent key",
            "hint: give the fork a key of its own",
        ),
    ];
    for (call, at, message, hint) in cases {
        let project = TempProject::new();
        project
            .script("agent.sh", AGENT)
            .file("wf.ts", &mistake(call));
        let ran = project.awf(&["run", "wf.ts"]).run();
        assert_eq!(ran.code, Some(1), "{call}: {}", ran.stderr);
        assert_has(&ran.stderr, at);
        assert_has(&ran.stderr, message);
        assert_has(&ran.stderr, hint);
    }
}

#[test]
fn a_fork_queued_behind_the_first_turn_waits_for_it() {
    let project = TempProject::new();
    project.script("agent.sh", AGENT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "queued", description: "A fork asked before the first turn ends." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    const first = a.run({ prompt: "First." });
    const forked = a.fork({ key: "b" });
    const b = await forked;
    return [(await first).outcome.kind, (await b.run({ prompt: "Go." })).outcome.kind];
  },
});
"#,
    );
    let value = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(value, serde_json::json!(["answered", "answered"]));
    let events = project.events("queued");
    let settled = events
        .iter()
        .position(|e| e["event"] == "turn-settled")
        .unwrap();
    let forked = events
        .iter()
        .position(|e| e["event"] == "agent-forked")
        .unwrap();
    assert!(
        settled < forked,
        "the fork came after the turn queued before it"
    );
}
