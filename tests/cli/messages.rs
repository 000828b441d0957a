//! Messages end to end with command agents: `wfa send` during a turn (text and JSON data) and
//! how it is taught, `wf.receive` in order with its `from` filter and its typed time-out, the
//! refusals (no `messages: true`, data that is not JSON, too large, `--json` without data),
//! `agent.send` waking an idle agent with a message turn that calls a tool and sends, owes no
//! answer (`result` and `waiting` refused `message-turn`) and queues behind a running turn; the
//! records and `awf logs`. Then codex and claude, live against the fake model, sending with
//! `wfa send` and woken by `agent.send`.

use serde_json::{json, Value};

use crate::live::{environment, installed, Cli, FakeModel};
use crate::util::{assert_has, assert_lacks, TempProject};

/// A workflow whose `run` body is `body`, with `note` (a tool that keeps its text in `notes`).
fn workflow(body: &str) -> String {
    format!(
        r#"const notes: string[] = [];
const note = tool({{
  description: "Keep a note.",
  input: Type.Object({{ text: Type.String() }}),
  handler: ({{ text }}) => {{ notes.push(text); return `noted ${{notes.length}}`; }},
}});
export default defineWorkflow({{
  meta: {{ name: "m", description: "Messages." }},
  async run(wf) {{
{body}
  }},
}});
"#
    )
}

/// An agent that answers its turn with `done` after running `before`, and in a message turn
/// runs `woken` (with `$w` its launcher).
fn agent(before: &str, woken: &str) -> String {
    format!(
        "#!/bin/sh\nw=\"$AWF_WFA\"\ncat > \"prompt-$AWF_TURN_NUMBER.txt\"\nif [ \"$AWF_MESSAGE\" = 1 ]; then\n{woken}\nexit 0\nfi\n{before}\n\"$w\" result \"$AWF_TURN\" <<'WF_JSON'\ndone\nWF_JSON\n"
    )
}

fn run(project: &TempProject) -> Value {
    let ran = project.awf(&["run", "wf.ts"]).run();
    ran.assert_success();
    ran.json()
}

#[test]
fn messages_queue_in_order_and_from_takes_one_agents_leaving_the_rest_queued() {
    let project = TempProject::new();
    project.script(
        "a.sh",
        &agent(
            "\"$w\" send 'a one' > sent.txt\n\"$w\" send --json <<'WF_JSON' >> sent.txt\n{\"n\": 2}\nWF_JSON",
            "",
        ),
    );
    project.script("b.sh", &agent("\"$w\" send 'b one'", ""));
    project.file(
        "wf.ts",
        &workflow(
            r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] }, messages: true });
    const b = await wf.agents.open({ key: "b", runtime: { command: ["./b.sh"] }, messages: true });
    await a.run({ prompt: "Send two." });
    await b.run({ prompt: "Send one." });
    const got = [await wf.receive({ from: "b" }), await wf.receive(), await wf.receive({ from: "a" })];
    return got.map(({ from, text, data, at }) => ({ from, text, data: data ?? null, at: typeof at }));"#,
        ),
    );
    assert_eq!(
        run(&project),
        json!([
            {"from": "b", "text": "b one", "data": null, "at": "string"},
            {"from": "a", "text": "a one", "data": null, "at": "string"},
            {"from": "a", "text": "", "data": {"n": 2}, "at": "string"},
        ])
    );
    assert_eq!(
        project.read("sent.txt"),
        "message 1 sent to the workflow\nmessage 2 sent to the workflow\n"
    );
    // How to send is taught to an agent that may.
    let prompt = project.read("prompt-1.txt");
    assert_has(&prompt, "/wfa send '<text>'");
    assert_has(&prompt, "/wfa send --json <<'WF_JSON'");
    let sent = project.events_of("m", "message-sent");
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[1]["data"], json!({"n": 2}));
    assert!(sent[0]["turn"].as_str().unwrap().starts_with("t1-"));
    let received: Vec<u64> = project
        .events_of("m", "message-received")
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(received, vec![3, 1, 2]);
    assert!(project.events_of("m", "messages-unreceived").is_empty());
}

#[test]
fn a_receive_that_times_out_rejects_with_its_code_naming_who_it_waited_for() {
    let project = TempProject::new();
    project.script("a.sh", &agent("", ""));
    project.file(
        "wf.ts",
        &workflow(
            r#"    await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] }, messages: true });
    try {
      await wf.receive({ from: "a", timeout: "300ms" });
      return "received";
    } catch (error: any) {
      return { name: error.name, code: error.code, message: error.message, from: error.from };
    }"#,
        ),
    );
    assert_eq!(
        run(&project),
        json!({
            "name": "AwfError",
            "code": "receive-timeout",
            "message": "wf.receive: no message from agent \"a\" came within 300ms",
            "from": "a",
        })
    );
}

#[test]
fn an_agent_opened_without_messages_is_refused_with_its_code_and_told_how_to_enable_it() {
    let project = TempProject::new();
    project.script(
        "a.sh",
        &agent("\"$w\" send 'hi' 2> err.txt; echo $? > code.txt", ""),
    );
    project.file(
        "wf.ts",
        &workflow(
            r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] } });
    const { outcome } = await a.run({ prompt: "Try to send." });
    let receive: unknown;
    try { await wf.receive({ from: "a" }); } catch (error: any) { receive = { code: error.code, message: error.message }; }
    return { outcome: outcome.kind, receive };"#,
        ),
    );
    let result = run(&project);
    assert_eq!(result["outcome"], "answered");
    assert_eq!(result["receive"]["code"], "messages-off");
    assert_eq!(project.read("code.txt"), "2\n");
    let stderr = project.read("err.txt");
    assert_has(
        &stderr,
        "wfa: send: refused (messages-off): agent \"a\" was opened without messages: true",
    );
    assert_has(
        &stderr,
        "hint: the workflow enables it with `messages: true`",
    );
    assert_lacks(&project.read("prompt-1.txt"), "wfa send");
    let refused = project.events_of("m", "message-refused");
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0]["code"], "messages-off");
}

#[test]
fn bad_messages_are_refused_clearly_and_nothing_is_queued() {
    let project = TempProject::new();
    let big = "x".repeat(70 * 1024);
    project.script(
        "a.sh",
        &agent(
            &format!(
                "\"$w\" send --json <<'WF_JSON' 2> notjson.txt\n{{nope\nWF_JSON\necho $? >> codes.txt\n\"$w\" send '{big}' 2> big.txt; echo $? >> codes.txt\n\"$w\" send --json < /dev/null 2> nojson.txt; echo $? >> codes.txt\n\"$w\" send '  ' 2> blank.txt; echo $? >> codes.txt"
            ),
            "",
        ),
    );
    project.file(
        "wf.ts",
        &workflow(
            r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] }, messages: true });
    await a.run({ prompt: "Send badly." });
    try { await wf.receive({ timeout: "100ms" }); return "a message came"; } catch (error: any) { return error.code; }"#,
        ),
    );
    assert_eq!(run(&project), json!("receive-timeout"));
    assert_eq!(project.read("codes.txt"), "2\n2\n3\n2\n");
    assert_has(
        &project.read("notjson.txt"),
        "wfa: send: refused (invalid-input): the message's data is not JSON: ",
    );
    assert_has(
        &project.read("big.txt"),
        "refused (request-too-large): the message is 71680 bytes (text, and data as JSON), over the limit of 65536",
    );
    assert_has(
        &project.read("nojson.txt"),
        "wfa: send: --json takes the data on standard input, and none came",
    );
    assert_has(
        &project.read("blank.txt"),
        "refused (invalid-input): the message is empty",
    );
    assert!(project.events_of("m", "message-sent").is_empty());
}

/// A workflow that wakes agent `a` with `agent.send` as its first operation, then receives
/// what it sent back.
const WAKE: &str = r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] }, messages: true, tools: { note } });
    const { outcome } = await a.send({ text: "Check src/b.ts", data: { file: "src/b.ts" } });
    const reply = await wf.receive({ from: "a", timeout: "5s" });
    return { outcome, reply: reply.text, notes };"#;

#[test]
fn agent_send_wakes_an_idle_agent_whose_message_turn_calls_a_tool_and_sends() {
    let project = TempProject::new();
    project.script(
        "a.sh",
        &agent(
            "",
            "printf '%s|%s' \"$AWF_MESSAGE_TEXT\" \"$AWF_MESSAGE_DATA\" > env.txt\n\"$w\" tool note --text \"about $AWF_MESSAGE_TEXT\" > tool.txt\n\"$w\" send \"looked at $AWF_MESSAGE_TEXT\"",
        ),
    );
    project.file("wf.ts", &workflow(WAKE));
    assert_eq!(
        run(&project),
        json!({
            // An executable reports no tokens: its message turn's usage is none, unpriced.
            "outcome": {"kind": "ended", "ended": true,
                "usage": {"inputTokens": 0, "cachedInputTokens": 0, "outputTokens": 0,
                    "reasoningTokens": 0, "costUsd": null, "priced": "unpriced", "model": null,
                    "execution": {"harness": "command", "placement": "headless"},
                    // An executable's process has no session id of its own.
                    "sessions": []}},
            "reply": "looked at Check src/b.ts",
            "notes": ["about Check src/b.ts"],
        })
    );
    assert_eq!(project.read("tool.txt"), "noted 1\n");
    assert_eq!(
        project.read("env.txt"),
        "Check src/b.ts|{\"file\":\"src/b.ts\"}"
    );
    // The prompt on stdin gives the message, says no answer is owed, and teaches the tools.
    let prompt = project.read("prompt-1.txt");
    assert_has(&prompt, "It is not a turn: you owe no answer");
    assert_has(&prompt, "\n\nCheck src/b.ts\n\n");
    assert_has(&prompt, "\"file\": \"src/b.ts\"");
    assert_has(&prompt, "/wfa tool note --text <text>");
    assert_lacks(&prompt, "/wfa result");
    // Records: the message turn, the call in it, the message sent and received.
    let started = project.events_of("m", "turn-started");
    assert_eq!(
        started[0]["message"],
        json!({"text": "Check src/b.ts", "data": {"file": "src/b.ts"}})
    );
    let settled = project.events_of("m", "turn-settled");
    assert_eq!(settled[0]["outcome"], "ended");
    assert_eq!(
        project.events_of("m", "tool-settled")[0]["outcome"],
        "result"
    );
    let logs = project.awf(&["logs"]).run();
    logs.assert_success();
    assert_has(
        &logs.stdout,
        "message turn 1 started: {\"text\":\"Check src/b.ts\",\"data\":{\"file\":\"src/b.ts\"}}",
    );
    assert_has(
        &logs.stdout,
        "✉ message 1 to the workflow: \"looked at Check src/b.ts\"",
    );
    assert_has(&logs.stdout, "a  message 1 received by the workflow");
    assert_has(&logs.stdout, "turn ended after");
}

#[test]
fn a_message_turn_owes_no_answer_so_result_and_waiting_are_refused_with_their_code() {
    let project = TempProject::new();
    project.script(
        "a.sh",
        &agent(
            "",
            "\"$w\" result \"$AWF_TURN\" <<'WF_JSON' 2> result.txt\nanswer\nWF_JSON\necho $? >> codes.txt\n\"$w\" waiting \"$AWF_TURN\" --reason 'thinking' 2> waiting.txt; echo $? >> codes.txt\n\"$w\" send 'no answer owed'",
        ),
    );
    project.file("wf.ts", &workflow(WAKE));
    let result = run(&project);
    assert_eq!(result["outcome"]["kind"], "ended");
    assert_eq!(result["outcome"]["ended"], true);
    assert_eq!(result["reply"], "no answer owed");
    assert_eq!(project.read("codes.txt"), "2\n2\n");
    assert_has(
        &project.read("result.txt"),
        "refused (message-turn): turn t1-",
    );
    assert_has(
        &project.read("result.txt"),
        "is a message turn: it owes no answer, so result is not taken",
    );
    assert_has(&project.read("waiting.txt"), "refused (message-turn)");
    assert!(project.events_of("m", "answer-submitted").is_empty());
}

#[test]
fn a_message_queues_behind_the_running_turn_and_ends_after_it() {
    let project = TempProject::new();
    project.script(
        "a.sh",
        &agent(
            "echo turn-start >> order.txt\nsleep 1\necho turn-end >> order.txt",
            "echo \"message $AWF_MESSAGE_TEXT\" >> order.txt",
        ),
    );
    project.file(
        "wf.ts",
        &workflow(
            r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] } });
    const order: string[] = [];
    const turn = a.run({ prompt: "Work." }).then(({ outcome }) => order.push(`turn ${outcome.kind}`));
    const sent = a.send("stop").then(({ outcome }) => order.push(`message ${outcome.kind}`));
    await Promise.all([turn, sent]);
    return order;"#,
        ),
    );
    assert_eq!(run(&project), json!(["turn answered", "message ended"]));
    assert_eq!(
        project.read("order.txt"),
        "turn-start\nturn-end\nmessage stop\n"
    );
    // An agent without messages: true is still woken, but not taught to send.
    assert_lacks(&project.read("prompt-2.txt"), "wfa send");
}

#[test]
fn a_run_that_ends_with_messages_never_received_says_so() {
    let project = TempProject::new();
    project.script("a.sh", &agent("\"$w\" send 'one'\n\"$w\" send 'two'", ""));
    project.file(
        "wf.ts",
        &workflow(
            r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] }, messages: true });
    await a.run({ prompt: "Send two." });
    return (await wf.receive()).text;"#,
        ),
    );
    assert_eq!(run(&project), json!("one"));
    let left = project.events_of("m", "messages-unreceived");
    assert_eq!(
        left[0]["messages"],
        json!([{"agent": "a", "seq": 2, "text": "two"}])
    );
    let output: Value = serde_json::from_str(
        &std::fs::read_to_string(project.only_run_dir("m").join("output.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(output["unreceivedMessages"], 1);
    let logs = project.awf(&["logs"]).run();
    assert_has(&logs.stdout, "1 message never received: 2 from a");
}

#[test]
fn agent_send_refuses_what_is_not_a_message() {
    let project = TempProject::new();
    project.script("a.sh", &agent("", ""));
    project.file(
        "wf.ts",
        &workflow(
            r#"    const a = await wf.agents.open({ key: "a", runtime: { command: ["./a.sh"] } });
    const errors: string[] = [];
    for (const message of [3, {}, { txt: "x" }, "x".repeat(70000)]) {
      try { await a.send(message as any); errors.push("sent"); } catch (error: any) { errors.push(`${error.code}: ${error.message}`); }
    }
    return errors;"#,
        ),
    );
    assert_eq!(
        run(&project),
        json!([
            "invalid-message: agent.send(message): a message is a string or { text, data }",
            "invalid-message: the message is empty: give it text, or data",
            "invalid-message: agent.send(message): unknown field `txt`; a message is a string or { text, data }",
            "invalid-message: the message is 70000 bytes (text, and data as JSON), over the limit of 65536",
        ])
    );
}

/// The model's steps: the turn sends text and data then answers; the message turn calls `add`
/// and sends. The marker is `wfa send`, which both prompts teach.
fn live_script() -> Value {
    json!({"marker": "wfa send", "prompts": [
        {"steps": [
            {"shell": "{wfa} send 'hello from the turn'"},
            {"shell": "{wfa} send --json <<'WF_JSON'\n{\"n\": 1}\nWF_JSON"},
            {"shell": "{wfa} result {turn} --ok 'true'"},
            {"text": "Done."}]},
        {"steps": [
            {"shell": "{wfa} tool add --x '2'"},
            {"shell": "{wfa} send 'recorded 2'"},
            {"text": "Recorded."}]}]})
}

fn messages_live(cli: Cli) {
    let project = TempProject::new();
    project.copy_fixture("agent-clis");
    let fake = FakeModel::start(&project, cli.api(), &live_script(), false);
    let state = crate::live::state_dir(&project);
    let home = project.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let input = json!({ "runtime": cli.runtime() }).to_string();
    let mut awf = project.awf(&["run", "messages.ts", "--timeout", "4m", "--", &input]);
    let path = format!(
        "{}:{}",
        installed(cli).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    awf.env("PATH", path)
        .env("HOME", &home)
        .bound(std::time::Duration::from_secs(300));
    for (name, value) in environment(cli, fake.port, &state) {
        awf.env(&name, value);
    }
    let ran = awf.run();
    ran.assert_success();
    let mut value = ran.json();
    // (What the turns used, `outcome.usage`, is tests/cli/usage.rs's.)
    for outcome in ["first", "woke"] {
        if let Some(fields) = value[outcome].as_object_mut() {
            fields.remove("usage");
        }
    }
    assert_eq!(
        value,
        json!({
            "first": {"kind": "answered", "answered": true, "value": {"ok": true}},
            "heard": [{"text": "hello from the turn"}, {"text": "", "data": {"n": 1}}],
            "woke": {"kind": "ended", "ended": true},
            "told": "recorded 2",
            "added": [2],
        }),
        "{}",
        ran.stderr
    );
    // The message turn resumed the turn's session: the model saw both prompts.
    let woken = fake.requests_for_prompt(1);
    assert!(!woken.is_empty(), "the message turn asked the model");
    let prompts = woken[0]["decision"]["prompts"].as_array().unwrap().clone();
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    assert_has(prompts[1].as_str().unwrap(), "you owe no answer");
    // Both prompts reached the model with the tools block: `add` taught at the launcher.
    let launcher = project.events_of("messages", "agent-opened")[0]["launcher"]
        .as_str()
        .expect("a launcher")
        .to_string();
    for prompt in &prompts {
        let prompt = prompt.as_str().unwrap();
        assert_has(prompt, "- add: Record one number.");
        assert_has(prompt, &format!("{launcher} tool add --x <integer>"));
    }
    let sessions: Vec<Value> = project
        .events_of("messages", "agent-session")
        .into_iter()
        .map(|e| e["session"].clone())
        .collect();
    assert!(
        sessions.len() >= 2 && sessions.iter().all(|s| *s == sessions[0]),
        "{sessions:?}"
    );
}

#[test]
fn codex_sends_with_wfa_send_and_is_woken_by_agent_send() {
    messages_live(Cli::Codex);
}

#[test]
fn claude_sends_with_wfa_send_and_is_woken_by_agent_send() {
    messages_live(Cli::Claude);
}
