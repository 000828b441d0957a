//! Workflow tools end to end: the spec's example and its own tests, the teaching block, every
//! refusal and failure, time budgets with abort and grace, joining a running call, what a
//! handler cannot do, the checks at open, and the records `awf logs` shows.

use serde_json::json;

use crate::util::{assert_has, workspace, TempProject};

/// A workflow whose one agent (`./agent.sh`) holds `tools` and answers a text turn.
fn with_tools(tools: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "Tools." }},
  async run(wf) {{
    const seen: unknown[] = [];
    const agent = await wf.agents.open({{ key: "agent", runtime: {{ command: ["./agent.sh"] }}, tools: {{ {tools} }} }});
    const {{ outcome }} = await agent.run({{ prompt: "Use your tools." }});
    return {{ outcome: outcome.kind, seen }};
  }},
}});
"#
    )
}

/// An agent that runs each command, appending `name|exit|stdout|stderr` records to calls.txt.
fn agent_calling(calls: &[(&str, &str)]) -> String {
    let mut script = String::from("#!/bin/sh\ncat > /dev/null\nw=\"$AWF_WFA\"\n");
    for (name, command) in calls {
        script.push_str(&format!(
            "out=$({command} 2>err.tmp); code=$?; printf '%s|%s|%s|%s\\n@@\\n' '{name}' \"$code\" \"$out\" \"$(cat err.tmp)\" >> calls.txt\n"
        ));
    }
    script.push_str("\"$w\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n");
    script
}

/// Put before a workflow: `released(file)` creates `file` (the call has started: the agent may
/// go on) and resolves once the agent has created `release`, so a call runs exactly as long as
/// the agent needs it to, whatever the machine's speed.
const RELEASED: &str = "import { existsSync, writeFileSync } from \"node:fs\";\nconst released = async (file: string) => { writeFileSync(file, \"\"); while (!existsSync(\"release\")) await new Promise((r) => setTimeout(r, 20)); };\n";

struct Call {
    exit: String,
    stdout: String,
    stderr: String,
}

fn calls(project: &TempProject) -> std::collections::HashMap<String, Call> {
    project
        .read("calls.txt")
        .split("\n@@\n")
        .filter(|c| !c.is_empty())
        .map(|c| {
            let mut parts = c.splitn(4, '|');
            let name = parts.next().unwrap().to_string();
            let call = Call {
                exit: parts.next().unwrap().to_string(),
                stdout: parts.next().unwrap().to_string(),
                stderr: parts.next().unwrap_or("").to_string(),
            };
            (name, call)
        })
        .collect()
}

#[test]
fn the_spec_example_runs_with_a_command_agent_in_place_of_codex() {
    let example = workspace().join("examples/dead-code");
    let project = TempProject::new();
    for file in ["tools.ts", "reviewer.sh", "src/report.ts"] {
        project.file(file, &std::fs::read_to_string(example.join(file)).unwrap());
    }
    project.script("reviewer.sh", &project.read("reviewer.sh"));
    let ran = project
        .awf(&["run", "tools.ts", "--runtime", "codex=./reviewer.sh"])
        .run();
    assert_eq!(
        ran.assert_success().json(),
        json!({
            "findings": [
                {"file": "src/report.ts", "line": 3, "problem": "formatDate is never called"},
                {"file": "src/report.ts", "line": 11, "problem": "unusedHelper is never called"},
            ],
            "ended": "answered",
        })
    );
    let prompt = project.events_of("dead-code", "turn-started")[0]["prompt"]
        .as_str()
        .unwrap()
        .to_string();
    let launcher = project.events_of("dead-code", "agent-opened")[0]["launcher"]
        .as_str()
        .unwrap()
        .to_string();
    let block = "You have tools the workflow runs for you. Call one with:\n\n/…/wfa tool <name> --<option> '<value>' ...\n\nPut every value in single quotes; a ' inside a value is written '\\''.\n\n- add_finding: Record one finding as soon as you are sure of it.\n  /…/wfa tool add_finding --file <text, at least 1 character> --line <integer, at least 1> --problem <text, at least 1 character>\n- list_findings: The findings recorded so far, one per line.\n  /…/wfa tool list_findings\n";
    assert!(
        prompt.ends_with(&block.replace("/…/wfa", &launcher)),
        "the spec's block, after how to answer:\n{prompt}"
    );
}

/// The spec's example's own tests (examples/dead-code/tools.test.ts) pass under `awf test`, both
/// of them.
#[test]
fn the_spec_examples_own_tests_pass_under_awf_test() {
    crate::util::assert_fixture_passes("examples/dead-code", 2);
}

#[test]
fn results_reach_the_agent_as_text_json_or_nothing() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_calling(&[
                ("text", "\"$w\" tool text"),
                ("json", "\"$w\" tool json"),
                ("nothing", "\"$w\" tool nothing"),
            ]),
        )
        .file(
            "wf.ts",
            &with_tools(
                r#"text: tool({ description: "Text.", handler: () => "plain words" }),
      json: tool({ description: "JSON.", handler: () => ({ a: [1, "b"] }) }),
      nothing: tool({ description: "Nothing.", handler: () => {} }),"#,
            ),
        );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let calls = calls(&project);
    assert_eq!(
        (calls["text"].exit.as_str(), calls["text"].stdout.as_str()),
        ("0", "plain words")
    );
    assert_eq!(calls["json"].stdout, "{\"a\":[1,\"b\"]}");
    assert_eq!(
        (
            calls["nothing"].exit.as_str(),
            calls["nothing"].stdout.as_str()
        ),
        ("0", "")
    );
}

#[test]
fn input_that_does_not_fit_is_refused_before_the_handler_runs() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_calling(&[
                ("bad line", "\"$w\" tool add --file a.ts --line 0"),
                ("unknown flag", "\"$w\" tool add --file a.ts --line 1 --colour red"),
                ("good", "\"$w\" tool add --file 'it'\\''s.ts' --line 2"),
                ("unknown tool", "\"$w\" tool remove --file a.ts"),
                ("bad json", "printf '{\"labels\": 3}' | \"$w\" tool label"),
                ("json", "printf '{\"labels\": [\"ops\"]}' | \"$w\" tool label"),
                ("input to none", "\"$w\" tool count --x 1"),
            ]),
        )
        .file(
            "wf.ts",
            &with_tools(
                r#"add: tool({ description: "Add.", input: typed(Type.Object({ file: Type.String({ minLength: 1 }), line: Type.Integer({ minimum: 1 }) })), handler: (i) => { seen.push(i); return "added"; } }),
      label: tool({ description: "Label.", input: typed(Type.Object({ labels: Type.Array(Type.String()) })), handler: (i) => { seen.push(i); return "labelled"; } }),
      count: tool({ description: "Count.", handler: () => String(seen.length) }),"#,
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json()["seen"],
        json!([{"file": "it's.ts", "line": 2}, {"labels": ["ops"]}]),
        "the handler saw only the inputs that fit"
    );
    let calls = calls(&project);
    let refused = |name: &str, code: &str, line: &str| {
        let call = &calls[name];
        assert_eq!(call.exit, "2", "{name}: {}", call.stderr);
        assert!(
            call.stderr.contains(&format!("refused ({code})")),
            "{name}: {}",
            call.stderr
        );
        assert!(
            call.stderr.contains(line),
            "{name}: {:?} lacks {line:?}",
            call.stderr
        );
    };
    refused(
        "bad line",
        "invalid-input",
        "  value.line: expected integer ≥ 1; got 0",
    );
    refused(
        "unknown flag",
        "invalid-input",
        "--colour: unknown option (accepted: --file, --line)",
    );
    refused(
        "unknown tool",
        "unknown-tool",
        "you have no tool \"remove\"; your tools: add, label, count",
    );
    refused(
        "bad json",
        "invalid-input",
        "value.labels: expected array; got 3",
    );
    refused(
        "input to none",
        "invalid-input",
        "count takes no input; call it by its name alone",
    );
    assert_eq!(project.events_of("t", "tool-refused").len(), 5);
}

#[test]
fn a_throw_or_a_bad_result_fails_the_call_not_the_run() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_calling(&[
                ("throws", "\"$w\" tool throws"),
                ("date", "\"$w\" tool date"),
                ("instance", "\"$w\" tool instance"),
                ("cycle", "\"$w\" tool cycle"),
                ("large", "\"$w\" tool large"),
                ("fine", "\"$w\" tool fine"),
            ]),
        )
        .file(
            "wf.ts",
            &with_tools(
                r#"throws: tool({ description: "Throws.", handler: () => { throw new Error("src/a.ts:3 is already recorded"); } }),
      date: tool({ description: "A Date.", handler: () => new Date(0) as any }),
      instance: tool({ description: "An instance.", handler: () => new (class Finding { x = 1; })() as any }),
      cycle: tool({ description: "A cycle.", handler: () => { const a: any = {}; a.self = a; return a; } }),
      large: tool({ description: "Too big.", handler: () => "x".repeat(65 * 1024) }),
      fine: tool({ description: "Fine.", handler: () => "still works" }),"#,
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json()["outcome"], "answered");
    let calls = calls(&project);
    let failed = |name: &str, code: &str, message: &str| {
        let call = &calls[name];
        assert_eq!(call.exit, "1", "{name}: {}", call.stderr);
        assert!(
            call.stderr
                .starts_with(&format!("wfa: {name}: failed ({code}): {message}")),
            "{name}: {}",
            call.stderr
        );
    };
    failed("throws", "handler-failed", "src/a.ts:3 is already recorded");
    failed(
        "date",
        "result-not-json",
        "date returned a value that is not JSON: value is a Date",
    );
    failed(
        "instance",
        "result-not-json",
        "instance returned a value that is not JSON: value is an instance of class Finding",
    );
    failed(
        "cycle",
        "result-not-json",
        "cycle returned a value that is not JSON: value.self is a cycle back to value",
    );
    failed(
        "large",
        "result-too-large",
        "large returned 66562 bytes as JSON, over the limit of 65536",
    );
    assert_eq!(
        (calls["fine"].exit.as_str(), calls["fine"].stdout.as_str()),
        ("0", "still works")
    );
}

#[test]
fn a_call_past_its_budget_aborts_its_signal_and_one_that_ignores_it_may_have_run() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_calling(&[("polite", "\"$w\" tool polite"), ("stubborn", "\"$w\" tool stubborn")]),
        )
        .file(
            "wf.ts",
            &with_tools(
                r#"polite: tool({ description: "Stops when told.", timeout: "300ms", handler: (_, call) => new Promise((resolve) => call.signal.addEventListener("abort", () => { seen.push(`aborted ${call.id}`); resolve("stopped"); })) }),
      stubborn: tool({ description: "Never stops.", timeout: "200ms", handler: () => new Promise((resolve) => setTimeout(resolve, 6000)) }),"#,
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    let seen = ran.assert_success().json()["seen"].to_string();
    assert_eq!(crate::util::stable_ids(&seen), r#"["aborted t1-c1"]"#);
    let calls = calls(&project);
    assert_eq!(calls["polite"].exit, "1");
    assert!(
        calls["polite"].stderr.starts_with("wfa: polite: failed (timed-out): polite took longer than its 300ms and was stopped (call.signal aborted)"),
        "{}",
        calls["polite"].stderr
    );
    assert_eq!(calls["stubborn"].exit, "1");
    assert!(
        calls["stubborn"].stderr.starts_with("wfa: stubborn: failed (may-have-run): stubborn took longer than its 200ms and ignored call.signal for 5s more: it may have run, or may still finish"),
        "{}",
        calls["stubborn"].stderr
    );
    assert_has(
        &ran.stderr,
        "awf: agent \"agent\": tool stubborn took longer",
    );
}

#[test]
fn the_turns_deadline_bounds_a_call_without_a_budget() {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_calling(&[("endless", "\"$w\" tool endless")]))
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Bounded by the turn." },
  async run(wf) {
    const aborted: string[] = [];
    const agent = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools: {
      endless: tool({ description: "Waits for its signal.", timeout: false, handler: (_, call) => new Promise((resolve) => call.signal.addEventListener("abort", () => { aborted.push(call.agent); resolve("x"); })) }),
    } });
    const { outcome } = await agent.run({ prompt: "Go.", timeout: "1s" });
    return { outcome: outcome.kind, aborted };
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!({"outcome": "timed-out", "aborted": ["agent"]})
    );
}

#[test]
fn the_same_call_again_joins_the_running_one_and_a_later_call_runs_again() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
cat > /dev/null
w="$AWF_WFA"
"$w" tool slow --n 1 > first.txt & first=$!
while [ ! -e started-1 ] && kill -0 $first 2> /dev/null; do sleep 0.02; done
"$w" tool slow --n 2 > other.txt 2> other.err; echo "other=$?" >> other.err
"$w" tool slow --n 1 > joined.txt & joined=$!
until grep -qs '"tool-joined"' .awf/runs/t/*/events.jsonl || ! kill -0 $joined 2> /dev/null; do sleep 0.02; done
touch release
wait
"$w" tool slow --n 1 > later.txt
"$w" result "$AWF_TURN" <<'WF_JSON'
done
WF_JSON
"#,
        )
        .file(
            "wf.ts",
            &format!(
                "{RELEASED}{}",
                with_tools(
                    r#"slow: tool({ description: "Slow.", input: typed(Type.Object({ n: Type.Integer() })), handler: async ({ n }) => { seen.push(n); await released(`started-${seen.length}`); return `run ${seen.length}`; } }),"#,
                )
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json()["seen"],
        json!([1, 1]),
        "the joined call did not run the handler again"
    );
    assert_eq!(project.read("first.txt"), "run 1\n");
    assert_eq!(project.read("joined.txt"), "run 1\n");
    assert_eq!(project.read("later.txt"), "run 2\n");
    let other = project.read("other.err");
    assert_has(&other, "refused (busy): slow is still running");
    assert_eq!(project.events_of("t", "tool-joined").len(), 1);
}

#[test]
fn while_a_call_runs_the_agent_cannot_answer_or_wait() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
cat > /dev/null
w="$AWF_WFA"
"$w" tool slow > /dev/null & call=$!
while [ ! -e started ] && kill -0 $call 2> /dev/null; do sleep 0.02; done
"$w" result "$AWF_TURN" <<'WF_JSON' 2> result.err
too early
WF_JSON
echo "result=$?" >> result.err
"$w" waiting "$AWF_TURN" --reason 'still reading' 2> waiting.err; echo "waiting=$?" >> waiting.err
touch release
wait
"$w" result "$AWF_TURN" <<'WF_JSON'
in time
WF_JSON
"#,
        )
        .file(
            "wf.ts",
            &format!(
                "{RELEASED}{}",
                r#"export default defineWorkflow({
  meta: { name: "t", description: "Busy." },
  async run(wf) {
    const agent = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools: {
      slow: tool({ description: "Slow.", handler: async () => { await released("started"); return "ok"; } }),
    } });
    return (await agent.run({ prompt: "Go." })).outcome;
  },
});
"#
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json()["value"], "in time");
    for file in ["result.err", "waiting.err"] {
        let text = project.read(file);
        assert!(
            text.contains("refused (busy): slow is still running"),
            "{file}: {text}"
        );
        assert!(text.ends_with("=2\n"), "{file}: {text}");
    }
}

#[test]
fn a_call_after_the_answer_is_accepted_is_not_in_turn() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n\"$AWF_WFA\" tool ping 2> late.err; echo \"exit=$?\" >> late.err\n",
        )
        .file("wf.ts", &with_tools(r#"ping: tool({ description: "Ping.", handler: () => { seen.push("ping"); return "pong"; } }),"#));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json()["seen"], json!([]));
    let late = crate::util::stable_ids(&project.read("late.err"));
    assert_has(&late, "refused (not-in-turn): turn t1 is answered");
    assert!(late.ends_with("exit=2\n"), "{late}");
}

#[test]
fn a_handler_cannot_give_work_to_its_own_agent_but_can_run_another() {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_calling(&[("own", "\"$w\" tool own"), ("other", "\"$w\" tool other")]))
        .script("helper.sh", "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nhelped\nWF_JSON\n")
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Handlers and agents." },
  async run(wf) {
    const helper = await wf.agents.open({ key: "helper", runtime: { command: ["./helper.sh"] } });
    const me: any = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools: {
      own: tool({ description: "Runs its own agent.", handler: async () => { await me.run({ prompt: "Again." }); return "ran"; } }),
      other: tool({ description: "Runs another agent.", handler: async () => { const { outcome } = await helper.run({ prompt: "Help." }); return outcome.answered ? outcome.value : outcome.reason; } }),
    } });
    return (await me.run({ prompt: "Go." })).outcome.kind;
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), "answered");
    let calls = calls(&project);
    assert_eq!(calls["own"].exit, "1");
    assert!(
        calls["own"].stderr.starts_with("wfa: own: failed (handler-failed): agent \"agent\" cannot run now: this code runs for its tool call"),
        "{}",
        calls["own"].stderr
    );
    assert_eq!(
        (calls["other"].exit.as_str(), calls["other"].stdout.as_str()),
        ("0", "helped")
    );
}

#[test]
fn handlers_get_a_unique_call_id_and_the_callers_key() {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_calling(&[("a", "\"$w\" tool who"), ("b", "\"$w\" tool who")]))
        .file("wf.ts", &with_tools(r#"who: tool({ description: "Who calls.", handler: (_, call) => `${call.agent} ${call.id} ${call.signal.aborted}` }),"#));
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let calls = calls(&project);
    assert_eq!(
        crate::util::stable_ids(&calls["a"].stdout),
        "agent t1-c1 false"
    );
    assert_eq!(
        crate::util::stable_ids(&calls["b"].stdout),
        "agent t1-c2 false"
    );
}

#[test]
fn mistakes_in_tools_fail_the_open_naming_the_tool() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Bad tools." },
  async run(wf) {
    const h = () => "x";
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`t${i}`, tool({ description: "x", handler: h })]));
    const tries: Record<string, unknown>[] = [
      many,
      { "Add-Finding": tool({ description: "x", handler: h }) },
      { add: tool({ description: "  ", handler: h }) },
      { add: tool({ description: "x", input: typed(Type.String()), handler: h }) },
      { add: tool({ description: "x", timeout: "later", handler: h }) },
      { add: { description: "x", handler: h } },
    ];
    const messages = [];
    for (const tools of tries) {
      try { await wf.agents.open({ key: "a", runtime: { command: ["sh"] }, tools }); messages.push("opened"); }
      catch (e) { messages.push((e as Error).message); }
    }
    return messages;
  },
});
"#,
    );
    let messages = project
        .awf(&["run", "wf.ts"])
        .run()
        .assert_success()
        .json_strings();
    assert_eq!(
        messages[0],
        "agent \"a\": 17 tools given; an agent holds at most 16"
    );
    assert_eq!(messages[1], "agent \"a\": tool \"Add-Finding\": a tool name is lowercase letters, digits and _ (e.g. add_finding)");
    assert_eq!(messages[2], "agent \"a\": tool \"add\": description is missing; say what the tool is for and when to call it");
    assert_eq!(messages[3], "agent \"a\": tool \"add\": input must be an object schema, e.g. typed(Type.Object({ ... }))");
    assert!(
        messages[4].starts_with("agent \"a\": tool \"add\": timeout: \"later\" is not a duration"),
        "{}",
        messages[4]
    );
    assert_eq!(
        messages[5],
        "agent \"a\": tool \"add\" must be made with tool({ description, input?, handler })"
    );
}

#[test]
fn a_reopen_with_the_same_tools_replaces_the_handlers() {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_calling(&[("ping", "\"$w\" tool ping")]))
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Reopen." },
  async run(wf) {
    const spec = (answer: string) => ({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { ping: tool({ description: "Ping.", handler: () => answer }) } });
    await wf.agents.open(spec("old"));
    const agent = await wf.agents.open(spec("new"));
    let conflict = "";
    try { await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { ping: tool({ description: "Pong.", handler: () => "x" }) } }); }
    catch (e) { conflict = (e as Error).message; }
    await agent.run({ prompt: "Go." });
    return conflict;
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        "agent \"a\": tool \"ping\" has a different description than when the agent opened; a reopen must keep each tool's description and input schema (handlers may change)"
    );
    assert_eq!(calls(&project)["ping"].stdout, "new");
}

#[test]
fn wfa_tool_alone_lists_tools_limits_harness_limits_and_codes() {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_calling(&[("list", "\"$w\" tool")]))
        .file(
            "wf.ts",
            &with_tools(r#"add: tool({ description: "Add one.", input: typed(Type.Object({ n: Type.Integer({ minimum: 1 }) })), timeout: "2m", handler: () => "x" }),"#),
        );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let listing = &calls(&project)["list"];
    assert_eq!(listing.exit, "0");
    for needle in [
        "- add: Add one.",
        "wfa tool add --n <integer, at least 1>",
        "add: each call may take 2m",
        "at most 16 tools per agent",
        "a result of at most 64 KiB as JSON",
        "codex: 10 s",
        "invalid-input",
        "not-in-turn",
        "may-have-run",
    ] {
        assert!(
            listing.stdout.contains(needle),
            "the listing lacks {needle:?}:\n{}",
            listing.stdout
        );
    }
}

/// `wfa tool <name> --help` says how to call that one tool instead of refusing `--help`.
#[test]
fn wfa_tool_name_help_shows_how_to_call_it() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_calling(&[
                ("help", "\"$w\" tool add --help"),
                ("other", "\"$w\" tool nope --help"),
            ]),
        )
        .file(
            "wf.ts",
            &with_tools(r#"add: tool({ description: "Add one.", input: typed(Type.Object({ n: Type.Integer({ minimum: 1 }) })), handler: () => "x" }),"#),
        );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let calls = calls(&project);
    let help = &calls["help"];
    assert_eq!(help.exit, "0", "{}", help.stderr);
    assert_has(&help.stdout, "- add: Add one.");
    assert_has(&help.stdout, "wfa tool add --n <integer, at least 1>");
    assert_has(&help.stdout, "Put every value in single quotes");
    assert_has(&help.stdout, "Each call may take 30s");
    let other = &calls["other"];
    assert_eq!(other.exit, "2");
    assert_has(
        &other.stderr,
        "refused (unknown-tool): you have no tool \"nope\"; your tools: add",
    );
    assert!(
        project.events_of("t", "tool-called").is_empty(),
        "--help runs no handler"
    );
}

#[test]
fn calls_are_recorded_and_awf_logs_shows_them_by_tool_and_agent() {
    let project = TempProject::new();
    project
        .script("agent.sh", &agent_calling(&[("a", "\"$w\" tool add --n 2"), ("b", "\"$w\" tool add --n 0"), ("c", "\"$w\" tool ping")]))
        .script("other.sh", "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool ping > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n")
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Two agents with tools." },
  async run(wf) {
    const tools = {
      add: tool({ description: "Add.", input: typed(Type.Object({ n: Type.Integer({ minimum: 1 }) })), handler: ({ n }) => ({ total: n }) }),
      ping: tool({ description: "Ping.", handler: () => "pong" }),
    };
    const agent = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, tools });
    const other = await wf.agents.open({ key: "other", runtime: { command: ["./other.sh"] }, tools });
    await agent.run({ prompt: "Use your tools." });
    await other.run({ prompt: "Use your tools." });
    return "ok";
  },
});
"#,
        );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let called = project.events_of("t", "tool-called");
    assert_eq!(called.len(), 3);
    assert_eq!(called[0]["input"], json!({"n": 2}));
    assert_eq!(called[2]["agent"], "other");
    let settled = project.events_of("t", "tool-settled");
    assert_eq!(settled[0]["result"], json!({"total": 2}));
    assert_eq!(settled[0]["outcome"], "result");
    let ran = project.awf(&["logs", "--tool", "add"]).run();
    let lines: Vec<String> = ran
        .assert_success()
        .stdout
        .lines()
        .map(|l| crate::util::stable_ids(&without_millis(&l[14..])))
        .collect();
    assert_eq!(
        lines,
        vec![
            "agent t1-c1  → add {\"n\":2}".to_string(),
            "agent t1-c1  ← add {\"total\":2} (Nms)".to_string(),
            "agent t1-c2  ✗ add refused (invalid-input): the input does not fit the tool's schema [value.n: expected integer ≥ 1; got 0]".to_string(),
        ]
    );
    // `--agent` keeps exactly the lines of that agent: the other agent's are left out.
    let json_lines = |args: &[&str]| -> Vec<serde_json::Value> {
        let ran = project.awf(args).run();
        ran.assert_success()
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let all = json_lines(&["logs", "--json"]);
    assert!(all.iter().any(|l| l["agent"] == "other"), "{all:?}");
    let agents = json_lines(&["logs", "--json", "--agent", "agent"]);
    let expected: Vec<serde_json::Value> = all
        .iter()
        .filter(|l| l["agent"] == "agent")
        .cloned()
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(agents, expected);
}

/// `(12ms)` becomes `(Nms)`: durations vary.
fn without_millis(line: &str) -> String {
    match line.rfind(" (") {
        Some(at)
            if line.ends_with("ms)")
                && line[at + 2..line.len() - 3]
                    .bytes()
                    .all(|b| b.is_ascii_digit()) =>
        {
            format!("{} (Nms)", &line[..at])
        }
        _ => line.to_string(),
    }
}

/// Refusals carry the turn they were made in and a call id of their own, so `awf logs --turn`
/// finds them; a second `wfa result` is refused and recorded; asking for help (`wfa tool
/// --help`, `wfa tool <name> --help`, `wfa result <turn> --help`) is neither a call nor an
/// answer: nothing is refused or recorded.
#[test]
fn refusals_carry_their_turn_and_call_and_help_is_never_a_refused_answer() {
    let project = TempProject::new();
    let mut script = agent_calling(&[
        ("unknown", "\"$w\" tool nope"),
        ("bad", "\"$w\" tool add --n 0"),
        ("help", "\"$w\" tool --help"),
        ("tool help", "\"$w\" tool add --help"),
        ("unknown help", "\"$w\" tool nope --help"),
        ("turn help", "\"$w\" result \"$AWF_TURN\" --help"),
        ("good", "\"$w\" tool add --n 2"),
    ]);
    script.push_str("\"$w\" result \"$AWF_TURN\" <<'WF_JSON' 2> second.err\nagain\nWF_JSON\necho \"exit=$?\" >> second.err\n");
    project.script("agent.sh", &script).file(
        "wf.ts",
        &with_tools(r#"add: tool({ description: "Add.", input: typed(Type.Object({ n: Type.Integer({ minimum: 1 }) })), handler: ({ n }) => ({ total: n }) }),"#),
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json()["outcome"], "answered");
    let turn = project.events_of("t", "turn-started")[0]["turn"]
        .as_str()
        .unwrap()
        .to_string();
    let calls = calls(&project);
    for name in ["help", "tool help", "turn help"] {
        assert_eq!(calls[name].exit, "0", "{name}: {}", calls[name].stderr);
    }
    assert_has(&calls["help"].stdout, "usage: wfa tool");
    assert_has(
        &calls["tool help"].stdout,
        "wfa tool add --n <integer, at least 1>",
    );
    assert_has(&calls["turn help"].stdout, "When your answer is ready");
    assert_has(
        &calls["turn help"].stdout,
        &format!("wfa result {turn} <<'WF_JSON'"),
    );
    assert_eq!(calls["unknown help"].exit, "2");
    assert_has(&calls["unknown help"].stderr, "refused (unknown-tool)");
    // The two refused calls, and nothing for the help asked: each with its turn and own id.
    let refused: Vec<(String, String, String)> = project
        .events_of("t", "tool-refused")
        .iter()
        .map(|e| {
            let text = |name: &str| e[name].as_str().unwrap_or("").to_string();
            (text("turn"), text("call"), text("code"))
        })
        .collect();
    assert_eq!(
        refused,
        vec![
            (
                turn.clone(),
                format!("{turn}-c1"),
                "unknown-tool".to_string()
            ),
            (
                turn.clone(),
                format!("{turn}-c2"),
                "invalid-input".to_string()
            ),
        ]
    );
    assert_eq!(
        project.events_of("t", "tool-called")[0]["call"],
        format!("{turn}-c3")
    );
    // One accepted answer and one refused: the second; `result --help` is no answer.
    let second = project.read("second.err");
    assert_has(&second, "refused (closed-turn): turn");
    assert!(second.ends_with("exit=2\n"), "{second}");
    let answers: Vec<(bool, String)> = project
        .events_of("t", "answer-submitted")
        .iter()
        .map(|e| {
            (
                e["accepted"] == true,
                e["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        answers,
        vec![(true, String::new()), (false, "closed-turn".to_string())]
    );
    // `awf logs --turn` finds the refusals with the rest of the turn.
    let logs = project.awf(&["logs", "--turn", &turn]).run();
    let lines = crate::util::stable_ids(&logs.assert_success().stdout);
    assert_has(
        &lines,
        "agent t1-c1  ✗ nope refused (unknown-tool): you have no tool \"nope\"",
    );
    assert_has(&lines, "agent t1-c2  ✗ add refused (invalid-input)");
    assert_has(&lines, "agent t1-c3  → add {\"n\":2}");
    assert_has(
        &lines,
        "agent t1  answer refused (closed-turn): turn t1 is already answered",
    );
}
