//! What agentswf's authors write, run by awf (issue 27): every options object refuses a key awf
//! does not read, with "did you mean", and agentswf's spellings of a turn's time limit
//! (`timeoutMs`, `deadline`) bound the turn as `timeout` does.

use std::time::Duration;

use crate::util::{assert_has, TempProject};

/// An agent that answers "the answer" to every turn.
const ANSWER_TEXT: &str = "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nthe answer\nWF_JSON\n";

/// An agent whose turns never end by themselves.
const HANG: &str = "#!/bin/sh\ncat > /dev/null\nexec sleep 60\n";

#[test]
fn every_options_object_refuses_an_unknown_key_with_a_suggestion() {
    let project = TempProject::new();
    project.script("agent.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Misspelt options." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    await a.run({ prompt: "First." });
    const tries: [string, () => unknown][] = [
      ["run", () => a.run({ prompt: "x", timout: "1s" } as any)],
      ["fork", () => a.fork({ key: "b", instructons: "x" } as any)],
      ["compact", () => a.compact({ prompt: "x", focus: "y" } as any)],
      ["set", () => a.set({ modle: "m" } as any)],
      ["send", () => a.send("hi", { timeOut: "1s" } as any)],
      ["receive", () => wf.receive({ form: "a" } as any)],
      ["parallel", () => wf.parallel([1], async () => 1, { concurency: 2 } as any)],
      ["stage", () => wf.stage("s", { result: typed({ type: "string" }), sumary: () => "" } as any, async () => "v")],
      ["tool", () => tool({ description: "d", handler: () => 1, inputs: {} } as any)],
      ["defineWorkflow", () => defineWorkflow({ meta: { name: "n", description: "d" }, run() {}, prepar: () => ({}) } as any)],
      ["meta", () => defineWorkflow({ meta: { name: "n", description: "d", whenToUs: "x" }, run() {} } as any)],
      ["nudge", () => a.run({ prompt: "x", nudge: false } as any)],
      ["open", () => wf.agents.open({ key: "c", runtime: { command: ["./agent.sh"] }, lables: {} } as any)],
    ];
    const messages: string[] = [];
    for (const [name, call] of tries) {
      try { await call(); messages.push(`${name}: accepted`); }
      catch (e) { messages.push(`${name}: ${(e as any).code}: ${(e as Error).message}\nhint: ${(e as any).hint}`); }
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
    let expected = [
        "run: unknown-option: agent \"a\": run(spec): unknown option `timout`\nhint: did you mean `timeout`?",
        "fork: unknown-option: agent \"a\": fork(spec): unknown option `instructons`\nhint: did you mean `instructions`?",
        "compact: unknown-option: agent \"a\": compact(spec): unknown option `focus`\nhint: it takes prompt, timeout",
        "set: unknown-option: agent.set(spec): unknown option `modle`\nhint: did you mean `model`? it takes model, effort",
        "send: unknown-option: agent \"a\": send(message, options?): unknown option `timeOut`\nhint: did you mean `timeout`?",
        "receive: unknown-option: wf.receive(options?): unknown option `form`\nhint: did you mean `from`?",
        "parallel: unknown-option: wf.parallel(items, fn, options?): unknown option `concurency`\nhint: did you mean `concurrency`?",
        "stage: unknown-option: wf.stage(\"s\", options, work): unknown option `sumary`\nhint: did you mean `summary`?",
        "tool: unknown-option: tool(spec): unknown option `inputs`\nhint: did you mean `input`?",
        "defineWorkflow: unknown-option: defineWorkflow(spec): unknown option `prepar`\nhint: did you mean `prepare`?",
        "meta: unknown-option: defineWorkflow(spec): meta: unknown option `whenToUs`\nhint: did you mean `whenToUse`?",
        "nudge: unknown-option: agent \"a\": run(spec): unknown option `nudge`\nhint: awf does not take agentswf's `nudge`",
        "open: unknown-option: wf.agents.open(spec): unknown option `lables`\nhint: did you mean `labels`? it takes key, runtime, instructions, cwd, env, tools, messages, workspace, sandbox, labels",
    ];
    assert_eq!(messages.len(), expected.len(), "{messages:#?}");
    for (message, start) in messages.iter().zip(expected) {
        assert!(
            message.starts_with(start),
            "{message}\n  should start with\n{start}"
        );
    }
}

#[test]
fn an_unknown_option_fails_the_run_at_the_authors_line() {
    let project = TempProject::new();
    project.script("agent.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "A misspelt turn option." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    await a.run({ prompt: "x", shcema: typed({ type: "string" }) } as any);
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "wf.ts:5:13: agent \"a\": run(spec): unknown option `shcema`",
    );
    assert_has(
        &ran.stderr,
        "hint: did you mean `schema`? it takes prompt, schema, timeout,",
    );
}

#[test]
fn an_unknown_open_option_fails_the_run_at_the_authors_line() {
    let project = TempProject::new();
    project.script("agent.sh", ANSWER_TEXT).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "A misspelt open option." },
  async run(wf) {
    await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, instructons: "Be brief." } as any);
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "wf.ts:4:21: wf.agents.open(spec): unknown option `instructons`",
    );
    assert_has(
        &ran.stderr,
        "hint: did you mean `instructions`? it takes key, runtime, instructions,",
    );
}

#[test]
fn a_hanging_turn_with_timeout_ms_ends_timed_out_after_it() {
    let project = TempProject::new();
    project.script("agent.sh", HANG).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "agentswf's timeoutMs and deadline." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    let started = Date.now();
    const byMs = (await a.run({ prompt: "Hang.", timeoutMs: 100 })).outcome;
    const msTook = Date.now() - started;
    started = Date.now();
    const byDeadline = (await a.run({ prompt: "Hang.", deadline: { unixMilliseconds: Date.now() + 150 } })).outcome;
    const deadlineTook = Date.now() - started;
    const refused: string[] = [];
    for (const spec of [{ timeout: "1s", timeoutMs: 100 }, { deadline: Date.now() - 1 }, { timeoutMs: "100" }]) {
      try { await a.run({ prompt: "x", ...spec } as any); refused.push("ran"); } catch (e) { refused.push((e as Error).message); }
    }
    return { byMs: byMs.kind, msTook, byDeadline: byDeadline.kind, deadlineTook, refused };
  },
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts"])
        .bound(Duration::from_secs(20))
        .run();
    ran.assert_success();
    let value = ran.json();
    assert_eq!(value["byMs"], "timed-out", "{value}");
    assert_eq!(value["byDeadline"], "timed-out", "{value}");
    let ms_took = value["msTook"].as_u64().unwrap();
    assert!(
        (100..2000).contains(&ms_took),
        "timeoutMs: 100 took {ms_took} ms"
    );
    let deadline_took = value["deadlineTook"].as_u64().unwrap();
    assert!(
        (100..2000).contains(&deadline_took),
        "a deadline 150 ms ahead took {deadline_took} ms"
    );
    let refused: Vec<&str> = value["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(refused[0], "agent \"a\": run(spec): give one of timeout and timeoutMs, not both; they all bound the turn");
    assert_has(refused[1], "agent \"a\": run({ deadline }): the deadline ");
    assert_has(refused[1], " has passed; give the turn a later one");
    assert_eq!(
        refused[2],
        "agent \"a\": run({ timeoutMs }): timeoutMs must be a number of milliseconds, e.g. 60000"
    );
}
