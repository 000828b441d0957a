//! A turn's `checkIn` and `label` with the command runtime: `checkIn: false` ends a silent turn
//! `unanswered` without a second run, `{ prompt }` is the first sentence the check-in's process
//! reads, `{ timeout }` bounds the check-in alone, the opener's `checkIn` is each turn's default,
//! a bad one is refused at the author's line; a turn's `label` is in its `turn-started` event.

use serde_json::json;

use crate::util::TempProject;

/// A workflow that opens `./agent.sh` (with `open`'s extra options) and gives it one turn.
fn one_turn(open: &str, turn: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "One turn." }},
  async run(wf) {{
    const agent = await wf.agents.open({{ key: "agent", runtime: {{ command: ["./agent.sh"] }}{open} }});
    return (await agent.run({turn})).outcome;
  }},
}});
"#
    )
}

/// Ends its first run silently; on a check-in writes the prompt it read, then answers.
const SILENT_THEN_ANSWERS: &str = r#"#!/bin/sh
prompt=$(cat)
echo "check-in=$AWF_CHECK_IN" >> runs.txt
if [ "$AWF_CHECK_IN" = 1 ]; then
  printf '%s' "$prompt" > check-in.txt
  "$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
late
WF_JSON
fi
"#;

#[test]
fn check_in_false_ends_a_silent_turn_unanswered_without_a_second_run() {
    let project = TempProject::new();
    project.script("agent.sh", SILENT_THEN_ANSWERS).file(
        "wf.ts",
        &one_turn("", r#"{ prompt: "Talk.", checkIn: false }"#),
    );
    let outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(outcome["kind"], "unanswered");
    assert!(
        outcome["detail"]
            .as_str()
            .unwrap()
            .contains("checkIn: false"),
        "{outcome}"
    );
    assert_eq!(project.read("runs.txt"), "check-in=0\n");
    assert!(project.events_of("t", "check-in").is_empty());
}

#[test]
fn the_authors_check_in_sentence_opens_the_check_in_prompt() {
    let project = TempProject::new();
    project.script("agent.sh", SILENT_THEN_ANSWERS).file(
        "wf.ts",
        &one_turn(
            "",
            r#"{ prompt: "Talk.", checkIn: { prompt: "You forgot the answer, send it." } }"#,
        ),
    );
    let outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(outcome["value"], json!("late"));
    let prompt = project.read("check-in.txt");
    assert!(
        prompt.starts_with("You forgot the answer, send it."),
        "{prompt}"
    );
    assert!(
        !prompt.contains("without sending its answer"),
        "awf's sentence is replaced: {prompt}"
    );
    assert!(
        prompt.contains("result "),
        "the check-in still says how to answer: {prompt}"
    );
}

#[test]
fn the_openers_check_in_is_the_default_and_a_turn_can_override_it() {
    let project = TempProject::new();
    project.script("agent.sh", SILENT_THEN_ANSWERS).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Two turns." },
  async run(wf) {
    const agent = await wf.agents.open({ key: "agent", runtime: { command: ["./agent.sh"] }, checkIn: false });
    const first = (await agent.run({ prompt: "One." })).outcome.kind;
    const second = (await agent.run({ prompt: "Two.", checkIn: { prompt: "Answer now." } })).outcome.kind;
    return [first, second];
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!(["unanswered", "answered"])
    );
    assert_eq!(
        project.read("runs.txt"),
        "check-in=0\ncheck-in=0\ncheck-in=1\n"
    );
}

#[test]
fn a_check_in_timeout_bounds_the_check_in_alone() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nif [ \"$AWF_CHECK_IN\" = 1 ]; then exec sleep 30; fi\n",
        )
        .file(
            "wf.ts",
            &one_turn(
                "",
                r#"{ prompt: "Talk.", timeout: "60s", checkIn: { timeout: "300ms" } }"#,
            ),
        );
    let started = std::time::Instant::now();
    let outcome = project.awf(&["run", "wf.ts"]).run().assert_success().json();
    assert_eq!(outcome["kind"], "timed-out");
    assert_eq!(
        outcome["detail"],
        "the check-in's timeout passed before an answer was accepted"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn a_bad_check_in_is_refused_saying_what_to_write() {
    let project = TempProject::new();
    project.script("agent.sh", SILENT_THEN_ANSWERS).file(
        "wf.ts",
        &one_turn("", r#"{ prompt: "Talk.", checkIn: { promt: "x" } }"#),
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    let stderr = ran.stderr.clone();
    assert_ne!(ran.code, Some(0));
    assert!(
        stderr.contains("agent.run({ checkIn }): checkIn has no option \"promt\"; its options are prompt and timeout"),
        "{stderr}"
    );
    assert!(
        stderr.contains("wf.ts:5:"),
        "at the author's line: {stderr}"
    );
}

#[test]
fn a_turns_label_is_recorded_with_its_start() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'\nok\nWF_JSON\n",
        )
        .file("wf.ts", &one_turn("", r#"{ prompt: "Talk.", label: "review src/" }"#));
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let started = project.events_of("t", "turn-started");
    assert_eq!(started[0]["label"], "review src/");
}
