//! Agents and turns with the `command` runtime: shell scripts as agents, answering through the
//! launcher their prompt names. Outcomes, check-ins, deadlines, process groups, queueing and
//! concurrency, reopening and closing, cancellation by signal, and the environment agents get.

use std::time::Duration;

use serde_json::json;

use crate::util::{assert_has, process_running, wait_for_file, TempProject};

/// A workflow that opens one agent running `./agent.sh` and gives it one turn.
fn one_turn(extra: &str, turn: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "One turn." }},
  async run(wf) {{
    const agent = await wf.agents.open({{ key: "agent", runtime: {{ command: ["./agent.sh"] }}{extra} }});
    return (await agent.run({turn})).outcome;
  }},
}});
"#
    )
}

const ANSWER_TEXT: &str = "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nthe answer\nWF_JSON\n";

#[test]
fn a_text_turn_is_answered_through_the_launcher() {
    let project = TempProject::new();
    project
        .script("agent.sh", ANSWER_TEXT)
        .file("wf.ts", &one_turn("", r#"{ prompt: "Say it." }"#));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!({"kind": "answered", "answered": true, "value": "the answer",
            // An executable reports no tokens and names no model: nothing to price.
            "usage": {"inputTokens": 0, "cachedInputTokens": 0, "outputTokens": 0,
                "reasoningTokens": 0, "costUsd": null, "priced": "unpriced", "model": null,
                "execution": {"harness": "command", "placement": "headless"},
                // An executable's process has no session id of its own.
                "sessions": []}})
    );
    let started = &project.events_of("t", "turn-started")[0];
    let prompt = &crate::util::stable_ids(started["prompt"].as_str().unwrap());
    assert!(prompt.starts_with("Say it.\n\n"), "{prompt}");
    let launcher = project.events_of("t", "agent-opened")[0]["launcher"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        launcher.starts_with("/tmp/awf-") && launcher.ends_with("/wfa"),
        "{launcher}"
    );
    assert!(
        prompt.contains(&format!(
            "{launcher} result t1 <<'WF_JSON'\n<your answer>\nWF_JSON\n"
        )),
        "{prompt}"
    );
}

#[test]
fn a_typed_turn_is_taught_as_flags_and_converted_to_the_schema() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" --word 'it'\\''s' --count '3' --sure true\n",
        )
        .file(
            "wf.ts",
            &one_turn(
                "",
                r#"{ prompt: "Pick.", schema: typed(Type.Object({ word: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }), sure: Type.Boolean() })) }"#,
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json()["value"],
        json!({"word": "it's", "count": 3, "sure": true})
    );
    let prompt = project.events_of("t", "turn-started")[0]["prompt"]
        .as_str()
        .unwrap()
        .to_string();
    assert_has(&crate::util::stable_ids(&prompt), "result t1 --word <text, at least 1 character> --count <integer, at least 1> --sure <true or false>");
}

#[test]
fn a_nested_schema_is_taught_as_json_with_the_raw_schema() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\n{\"items\": [{\"line\": 2}]}\nWF_JSON\n",
        )
        .file(
            "wf.ts",
            &one_turn(
                "",
                r#"{ prompt: "List.", schema: Type.Object({ items: Type.Array(Type.Object({ line: Type.Integer() })) }) }"#,
            ),
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json()["value"],
        json!({"items": [{"line": 2}]})
    );
    let prompt = project.events_of("t", "turn-started")[0]["prompt"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(prompt.contains("<json>\nWF_JSON\n"), "{prompt}");
    assert!(prompt.contains(r#"{"type":"object","required":["items"],"properties":{"items":{"type":"array","items":{"type":"object","required":["line"],"properties":{"line":{"type":"integer"}}}}}}"#), "{prompt}");
}

#[test]
fn agents_get_their_variables_and_instructions_come_with_the_first_turn_only() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
prompt=$(cat)
printf '%s|%s|%s|%s|%s|%s\n' "$AWF_AGENT" "$AWF_TURN" "$AWF_TURN_NUMBER" "$AWF_SESSION" "$AWF_CHECK_IN" "$GREETING" >> vars.txt
case "$prompt" in "Be brief."*) echo first >> vars.txt ;; esac
test -x "$AWF_WFA" && case "$AWF_WFA" in /*) echo absolute >> vars.txt ;; esac
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
ok
WF_JSON
"#,
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Two turns." },
  async run(wf) {
    const a = await wf.agents.open({ key: "helper", runtime: { command: ["./agent.sh"] }, instructions: "Be brief.", env: { GREETING: "hi" } });
    await a.run({ prompt: "One." });
    await a.run({ prompt: "Two." });
    return "done";
  },
});
"#,
        );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let vars = crate::util::stable_ids(&project.read("vars.txt"));
    let lines: Vec<&str> = vars.lines().collect();
    assert_eq!(lines.len(), 5, "{vars}");
    let first: Vec<&str> = lines[0].split('|').collect();
    let second: Vec<&str> = lines[3].split('|').collect();
    assert_eq!(&first[..3], &["helper", "t1", "1"]);
    assert_eq!(&second[..3], &["helper", "t2", "2"]);
    assert_eq!(first[3], second[3], "AWF_SESSION is stable");
    assert!(!first[3].is_empty());
    assert_eq!((first[4], first[5]), ("0", "hi"));
    assert_eq!(
        (lines[1], lines[2], lines[4]),
        ("first", "absolute", "absolute")
    );
}

/// An agent does not inherit what would make a CLI think it runs inside another agent's session
/// (awf started from inside codex or claude), nor awf's own variables; the rest passes, and the
/// spec's `env` wins over everything.
#[test]
fn agents_inherit_the_environment_less_session_markers_and_awfs_own() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
cat > /dev/null
printf '%s|%s|%s|%s|%s|%s\n' "${CLAUDECODE-unset}" "${CODEX_THREAD_ID-unset}" "${AWF_PRIVATE-unset}" "${ANTHROPIC_BASE_URL-unset}" "${CODEX_HOME-unset}" "${OVERRIDDEN-unset}" > env.txt
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
ok
WF_JSON
"#,
        )
        .file(
            "wf.ts",
            &one_turn(r#", env: { OVERRIDDEN: "by the spec" }"#, r#"{ prompt: "Go." }"#),
        );
    project
        .awf(&["run", "wf.ts"])
        .env("CLAUDECODE", "1")
        .env("CODEX_THREAD_ID", "01a2-outer")
        .env("AWF_PRIVATE", "internal")
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
        .env("CODEX_HOME", "/opt/codex-home")
        .env("OVERRIDDEN", "by the user")
        .run()
        .assert_success();
    assert_eq!(
        project.read("env.txt").trim(),
        "unset|unset|unset|http://127.0.0.1:9|/opt/codex-home|by the spec"
    );
}

#[test]
fn a_silent_turn_gets_one_check_in() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
prompt=$(cat)
echo "check-in=$AWF_CHECK_IN" >> runs.txt
if [ "$AWF_CHECK_IN" = 1 ]; then
  case "$prompt" in *"without sending its answer"*"result $AWF_TURN"*) ;; *) exit 9 ;; esac
  "$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
late
WF_JSON
fi
"#,
        )
        .file("wf.ts", &one_turn("", r#"{ prompt: "Talk." }"#));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json()["value"], json!("late"));
    assert_eq!(project.read("runs.txt"), "check-in=0\ncheck-in=1\n");
    assert_eq!(project.events_of("t", "check-in").len(), 1);
}

#[test]
fn silent_twice_is_unanswered() {
    let project = TempProject::new();
    project
        .script("agent.sh", "#!/bin/sh\nexit 0\n")
        .file("wf.ts", &one_turn("", r#"{ prompt: "Talk." }"#));
    let outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(outcome["kind"], "unanswered");
    assert_eq!(outcome["answered"], false);
    assert_eq!(
        outcome["reason"],
        "the agent's process exited with code 0 without an accepted answer, and again after a check-in"
    );
}

#[test]
fn a_non_zero_exit_is_failed_with_the_code_and_stderr() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\necho 'no model configured' >&2\nexit 3\n",
        )
        .file("wf.ts", &one_turn("", r#"{ prompt: "Talk." }"#));
    let mut outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    // A failed turn has its usage too: an executable's is none, unpriced.
    assert_eq!(outcome["usage"]["priced"], "unpriced", "{outcome}");
    if let Some(fields) = outcome.as_object_mut() {
        fields.remove("usage");
    }
    assert_eq!(
        outcome,
        json!({"kind": "failed", "answered": false, "reason": "agent.sh exited with code 3: no model configured", "detail": "agent.sh exited with code 3: no model configured"})
    );
    let run = project.only_run_dir("t");
    assert_eq!(
        std::fs::read_to_string(run.join(format!(
            "turns/{}/1.stderr",
            project.events_of("t", "turn-started")[0]["turn"].as_str().unwrap()
        )))
        .unwrap(),
        "no model configured\n"
    );
}

#[test]
fn a_turn_past_its_deadline_times_out_and_its_whole_group_is_killed() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nsleep 300 &\necho $! > bg.pid\nsleep 300\n",
        )
        .file(
            "wf.ts",
            &one_turn("", r#"{ prompt: "Wait.", timeout: "1s" }"#),
        );
    let outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(outcome["kind"], "timed-out");
    let pid: i32 = project.read("bg.pid").trim().parse().unwrap();
    assert!(
        !process_running(pid),
        "the background sleep {pid} outlived its turn"
    );
}

/// `wfa waiting` is acknowledged (exit 0, and the deadline it does not move on stdout) and
/// recorded (events.jsonl, `awf logs`); its `--timeout` does not keep the turn open.
#[test]
fn wfa_waiting_is_acknowledged_and_recorded_and_never_moves_the_deadline() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" waiting \"$AWF_TURN\" --reason 'reading the diff' --timeout 10m > waiting.out 2>&1; echo \"exit=$?\" >> waiting.out\nexec sleep 300\n",
        )
        .file(
            "wf.ts",
            &one_turn("", r#"{ prompt: "Take your time.", timeout: "2s" }"#),
        );
    let outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(outcome["kind"], "timed-out", "{outcome}");
    let said = crate::util::stable_ids(&project.read("waiting.out"));
    assert!(
        said.starts_with("noted; turn t1 stays open until its deadline, ")
            && said.ends_with(
                ", which waiting does not move; answer with result before then\nexit=0\n"
            ),
        "{said}"
    );
    let turn = &project.events_of("t", "turn-started")[0]["turn"];
    let waiting = project.events_of("t", "waiting");
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(
        (
            &waiting[0]["agent"],
            &waiting[0]["turn"],
            &waiting[0]["reason"]
        ),
        (&json!("agent"), turn, &json!("reading the diff"))
    );
    let logs = project.awf(&["logs"]).run();
    assert_has(&logs.assert_success().stdout, "waiting: reading the diff");
}

#[test]
fn a_background_process_of_an_answered_turn_is_killed_too() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nsleep 300 &\necho $! > bg.pid\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file("wf.ts", &one_turn("", r#"{ prompt: "Go." }"#));
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let pid: i32 = project.read("bg.pid").trim().parse().unwrap();
    assert!(
        !process_running(pid),
        "the background sleep {pid} outlived its turn"
    );
}

#[test]
fn the_run_timeout_bounds_every_turn() {
    let project = TempProject::new();
    project
        .script("agent.sh", "#!/bin/sh\ncat > /dev/null\nsleep 300\n")
        .file(
            "wf.ts",
            &one_turn("", r#"{ prompt: "Wait.", timeout: "1h" }"#),
        );
    let ran = project.awf(&["run", "wf.ts", "--timeout", "1s"]).run();
    assert_eq!(ran.assert_success().json()["kind"], "timed-out");
}

#[test]
fn one_agent_runs_its_turns_one_at_a_time_in_call_order() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
prompt=$(cat)
n=$(printf '%s\n' "$prompt" | head -n 1)
echo "start $n" >> order.txt
sleep 0.2
echo "end $n" >> order.txt
"$AWF_WFA" result "$AWF_TURN" <<WF_JSON
$n
WF_JSON
"#,
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Queued." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    const turns = ["one", "two", "three"].map((p) => a.run({ prompt: p }));
    return (await Promise.all(turns)).map((t) => t.outcome.answered && t.outcome.value);
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), json!(["one", "two", "three"]));
    assert_eq!(
        project.read("order.txt"),
        "start one\nend one\nstart two\nend two\nstart three\nend three\n"
    );
}

#[test]
fn different_agents_run_at_once() {
    // Each agent waits until all ten have started: with turns run one after another, the first
    // would wait in vain and time out.
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            r#"#!/bin/sh
cat > /dev/null
touch "started-$AWF_AGENT"
while [ "$(ls started-* | wc -l)" -lt 10 ]; do sleep 0.02; done
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
together
WF_JSON
"#,
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "Ten at once." },
  async run(wf) {
    const agents = await Promise.all(Array.from({ length: 10 }, (_, i) => wf.agents.open({ key: `a${i}`, runtime: { command: ["./agent.sh"] } })));
    const outcomes = await Promise.all(agents.map((a) => a.run({ prompt: "Meet.", timeout: "20s" })));
    return outcomes.map((o) => o.outcome.kind);
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), json!(vec!["answered"; 10]));
}

#[test]
fn reopening_returns_the_same_agent_and_a_conflict_names_the_field() {
    let project = TempProject::new();
    project.script("agent.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Reopen." },
  async run(wf) {
    const spec = { key: "a", runtime: { command: ["./agent.sh"] }, instructions: "Be kind." };
    const first = await wf.agents.open(spec);
    const again = await wf.agents.open({ ...spec });
    let conflict = "";
    try { await wf.agents.open({ ...spec, instructions: "Be terse." }); } catch (e) { conflict = (e as Error).message; }
    return { same: first === again, conflict };
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    let value = ran.assert_success().json();
    assert_eq!(value["same"], true);
    assert_eq!(
        value["conflict"],
        "agent \"a\" is already open with a different instructions (\"Be kind.\" then, \"Be terse.\" now); open it with the same spec, or use another key"
    );
}

#[test]
fn a_closed_agent_refuses_later_turns() {
    let project = TempProject::new();
    project.script("agent.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Close." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    const before = a.run({ prompt: "Before." });
    await a.close();
    const answered = (await before).outcome.kind;
    try { await a.run({ prompt: "After." }); return { answered, after: "ran" }; }
    catch (e) { return { answered, after: (e as Error).message }; }
  },
});
"#,
    );
    let value = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(value["answered"], "answered");
    assert_eq!(
        value["after"],
        "agent \"a\" is closed; open another agent to give it turns"
    );
}

#[test]
fn programming_errors_reject_the_turn() {
    let project = TempProject::new();
    project.script("agent.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Mistakes." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    const tries = [{ prompt: "  " }, { prompt: "x", timeout: "soon" }, { prompt: "x", schema: { type: "strnig" } }];
    const messages = [];
    for (const t of tries) { try { await a.run(t as any); messages.push("ran"); } catch (e) { messages.push((e as Error).message); } }
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
    assert_eq!(messages[0], "agent.run({ prompt }): prompt is blank");
    assert!(
        messages[1].starts_with("agent.run({ timeout }): \"soon\" is not a duration"),
        "{}",
        messages[1]
    );
    assert!(
        messages[2].starts_with("agent.run({ schema }): invalid schema at /type"),
        "{}",
        messages[2]
    );
}

#[test]
fn mistakes_in_an_agent_spec_fail_the_open() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Bad specs." },
  async run(wf) {
    const specs = [
      { key: "a", runtime: { command: ["./missing.sh"] } },
      { key: "a b", runtime: { command: ["sh"] } },
      { key: "a", runtime: "codex" },
      { key: "a", runtime: { command: ["sh"] }, colour: "red" },
      { key: "a", runtime: { harness: "codex", effort: "ultra" } },
      { key: "a", runtime: { harness: "gpt" } },
      { key: "a", runtime: "gpt" },
    ];
    const messages = [];
    for (const s of specs) { try { await wf.agents.open(s as any); messages.push("opened"); } catch (e: any) { messages.push(e.hint ? `${e.message}\nhint: ${e.hint}` : e.message); } }
    return messages;
  },
});
"#,
    );
    let tmp = project.path().display().to_string();
    // No agent CLI on PATH, whatever this machine has installed.
    let messages: Vec<String> = project
        .awf(&["run", "wf.ts"])
        .env("PATH", "/usr/bin:/bin")
        .run()
        .assert_success()
        .json_strings()
        .iter()
        .map(|m| m.replace(&tmp, "[TMP]"))
        .collect();
    assert_eq!(
        messages[0],
        "agent \"a\": runtime.command: no file at [TMP]/missing.sh\nhint: a relative path is taken from the agent's cwd (the run's cwd unless the spec gives one); `${import.meta.dirname}/agent.sh` names a file beside the workflow"
    );
    assert_has(&messages[1], "is not a valid agent key");
    assert_eq!(
        messages[2],
        "agent \"a\": runtime: codex is not installed (no `codex` on PATH)\nhint: install the version awf is tested with: `npm install -g @openai/codex@0.171.0`; or run this workflow with `--runtime codex=<command>`"
    );
    assert_has(&messages[3], "unknown option `colour`");
    assert_eq!(
        messages[4],
        "agent \"a\": runtime.effort: \"ultra\" is not an effort level of codex (it has minimal, low, medium, high, xhigh)"
    );
    assert_has(&messages[5], "runtime.harness: unknown harness \"gpt\"; awf drives codex, claude, gemini, pi and opencode");
    assert_has(&messages[6], "unknown runtime \"gpt\"");
}

#[test]
fn a_runtime_name_can_be_mapped_to_a_command_for_one_run() {
    let project = TempProject::new();
    project.script("fake-codex.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Mapped." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: "codex" });
    return (await a.run({ prompt: "Hi." })).outcome.kind;
  },
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts", "--runtime", "codex=./fake-codex.sh"])
        .run();
    assert_eq!(ran.assert_success().json(), json!("answered"));
}

#[test]
fn ctrl_c_cancels_the_turns_kills_the_agents_and_writes_the_records() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nsleep 300 &\necho $! > bg.pid\nsleep 300\n",
        )
        .file("wf.ts", &one_turn("", r#"{ prompt: "Wait." }"#));
    let mut child = std::process::Command::new(crate::util::awf_bin())
        .args(["run", "wf.ts"])
        .current_dir(project.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_file(&project.path().join("bg.pid"), Duration::from_secs(20));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let pid: i32 = project.read("bg.pid").trim().parse().unwrap();
    assert!(
        !process_running(pid),
        "the agent's background sleep {pid} survived Ctrl-C"
    );
    let settled = &project.events_of("t", "turn-settled")[0];
    assert_eq!(settled["outcome"], "cancelled");
    let output: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(project.only_run_dir("t").join("output.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(output["outcome"], "cancelled");
}

#[test]
fn a_second_ctrl_c_exits_at_once_and_still_kills_the_agents() {
    // The agent notes SIGTERM and goes on, so the first Ctrl-C waits out the kill grace; the
    // second, sent once the agent has had its SIGTERM, must not wait.
    let project = TempProject::new();
    project
        .script("agent.sh", "#!/bin/sh\ntrap 'touch got-term' TERM\ncat > /dev/null\necho $$ > agent.pid\nwhile true; do sleep 0.05; done\n")
        .file("wf.ts", &one_turn("", r#"{ prompt: "Wait." }"#));
    let child = std::process::Command::new(crate::util::awf_bin())
        .args(["run", "wf.ts"])
        .current_dir(project.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_file(&project.path().join("agent.pid"), Duration::from_secs(20));
    let awf = child.id() as i32;
    unsafe {
        libc::kill(awf, libc::SIGINT);
    }
    wait_for_file(&project.path().join("got-term"), Duration::from_secs(20));
    unsafe {
        libc::kill(awf, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert_has(
        &String::from_utf8_lossy(&output.stderr),
        "stopped at once; the run's records may be incomplete",
    );
    let pid: i32 = project.read("agent.pid").trim().parse().unwrap();
    let start = std::time::Instant::now();
    while process_running(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the agent {pid} survived the second Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A workflow whose agent's one tool, `wait`, writes `called` and then waits on `call.signal`:
/// its abort listener writes `aborted` (the signal's reason: its name, a line, its message), and
/// settles the call when `settles` is true.
fn waits_on_its_signal(settles: bool) -> String {
    let settle = if settles {
        "reject(call.signal.reason);"
    } else {
        ""
    };
    format!(
        r#"import {{ writeFileSync }} from "node:fs";
export default defineWorkflow({{
  meta: {{ name: "t", description: "A call that waits on its signal." }},
  async run(wf) {{
    const wait = tool({{ description: "Waits.", timeout: false, handler: (_, call) => new Promise((_, reject) => {{
      call.signal.addEventListener("abort", () => {{ writeFileSync("aborted", `${{call.signal.reason.name}}\n${{call.signal.reason.message}}`); {settle} }});
      writeFileSync("called", "");
    }}) }});
    const agent = await wf.agents.open({{ key: "agent", runtime: {{ command: ["./agent.sh"] }}, tools: {{ wait }} }});
    return (await agent.run({{ prompt: "Wait." }})).outcome;
  }},
}});
"#
    )
}

/// Ctrl-C or SIGTERM while a handler waits on `call.signal`: the signal is aborted first and its
/// listener runs, awf exits within the short grace (not the 5 s a timed-out call gets), and the
/// call is recorded `cancelled` — stopped by its signal, or, when the handler ignores it, having
/// ignored it for the grace.
#[test]
fn ctrl_c_or_sigterm_in_a_tool_call_aborts_its_signal_first_and_exits_soon() {
    for (signal, code, settles) in [(libc::SIGINT, 130, true), (libc::SIGTERM, 143, false)] {
        let project = TempProject::new();
        project
            .script(
                "agent.sh",
                "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool wait\n",
            )
            .file("wf.ts", &waits_on_its_signal(settles));
        let mut child = std::process::Command::new(crate::util::awf_bin())
            .args(["run", "wf.ts"])
            .current_dir(project.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        wait_for_file(&project.path().join("called"), Duration::from_secs(20));
        let signalled = std::time::Instant::now();
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let status = child.wait().unwrap();
        let took = signalled.elapsed();
        assert_eq!(status.code(), Some(code), "signal {signal}");
        // 0.5 s of grace, and the agent's group killed; before, 4.5 s or more.
        assert!(
            took < Duration::from_secs(3),
            "signal {signal}: awf took {took:?} to exit"
        );
        assert!(
            project.path().join("aborted").exists(),
            "signal {signal}: the abort listener never ran"
        );
        assert_eq!(
            project.read("aborted"),
            "AbortError\nwait was still running when the run was cancelled"
        );
        let settled = &project.events_of("t", "tool-settled")[0];
        assert_eq!(settled["outcome"], "cancelled", "{settled}");
        let error = settled["error"].as_str().unwrap();
        let how = if settles {
            "wait was still running when the run was cancelled and was stopped (call.signal aborted)"
        } else {
            "wait was still running when the run was cancelled and ignored call.signal for 500ms more"
        };
        assert!(error.starts_with(how), "{error}");
        assert_eq!(
            project.events_of("t", "turn-settled")[0]["outcome"],
            "cancelled"
        );
        let output: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(project.only_run_dir("t").join("output.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(output["outcome"], "cancelled");
    }
}

/// An agent that exits while its tool call runs ends its turn: the call's signal is aborted and
/// the call is recorded `cancelled`, with how the turn ended as the reason, not `timed-out`.
#[test]
fn an_agent_that_exits_during_a_tool_call_cancels_it_with_the_turns_end() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool wait > /dev/null 2>&1 &\nwhile [ ! -e called ]; do sleep 0.02; done\nexit 3\n",
        )
        .file("wf.ts", &waits_on_its_signal(true));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json()["kind"], "failed");
    let reason = project.read("aborted");
    assert!(
        reason.starts_with("AbortError\nits turn ended (failed: "),
        "{reason}"
    );
    let settled = &project.events_of("t", "tool-settled")[0];
    assert_eq!(settled["outcome"], "cancelled", "{settled}");
    let error = settled["error"].as_str().unwrap();
    assert!(
        error.starts_with("wait was still running when its turn ended (failed: "),
        "{error}"
    );
    assert_has(error, "code 3");
}
