//! wf.parallel, wf.race and wf.select end to end: `awf test` runs
//! tests/fixtures/composition/compose.test.ts (scripted agents; every test must pass), and
//! `awf run` races and fans out command agents, whose cancelled turns stop their processes, are
//! recorded `cancelled` with what cancelled them, and show so in `awf logs`.

use crate::util::{assert_fixture_passes, assert_has, TempProject};

/// The number of tests in compose.test.ts: a test removed or skipped by mistake shows here.
const COMPOSE_TESTS: usize = 17;

#[test]
fn every_test_of_the_composition_fixture_passes() {
    assert_fixture_passes("tests/fixtures/composition", COMPOSE_TESTS);
}

/// Answers `$1` at once.
const ANSWERS: &str =
    "#!/bin/sh\ncat > /dev/null\necho \"$1\" | \"$AWF_WFA\" result \"$AWF_TURN\"\n";
/// Never answers; leaves `<name>.started` and, if its process is stopped by a signal, nothing
/// else (`<name>.finished` only if it ran to its end).
const HANGS: &str =
    "#!/bin/sh\ncat > /dev/null\ntouch \"$1.started\"\nsleep 30\ntouch \"$1.finished\"\n";

#[test]
fn a_race_of_command_agents_cancels_the_loser_and_stops_its_process() {
    let project = TempProject::new();
    project
        .script("answers.sh", ANSWERS)
        .script("hangs.sh", HANGS)
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "A race." },
  async run(wf) {
    const quick = await wf.agents.open({ key: "quick", runtime: { command: ["./answers.sh", "won"] } });
    const slow = await wf.agents.open({ key: "slow", runtime: { command: ["./hangs.sh", "slow"] } });
    const value = await wf.race({
      slow: async () => {
        await Promise.resolve();
        return (await slow.run({ prompt: "Take long." })).outcome.kind;
      },
      quick: async () => {
        while (!require_started()) await new Promise((r) => setTimeout(r, 20));
        return (await quick.run({ prompt: "Be quick." })).outcome.value;
      },
    });
    const again = await quick.run({ prompt: "Again." });
    return [value, again.outcome.kind];
  },
});
import { existsSync } from "node:fs";
function require_started() { return existsSync("slow.started"); }
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        serde_json::json!(["won", "answered"])
    );
    let settled = project.events_of("t", "turn-settled");
    let slow = settled
        .iter()
        .find(|e| e["agent"] == "slow")
        .expect("the slow turn settled");
    assert_eq!(slow["outcome"], "cancelled", "{slow}");
    let detail = slow["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("cancelled by wf.race at wf.ts:")
            && detail.ends_with(": branch \"quick\" settled first"),
        "{detail}"
    );
    assert!(
        !project.path().join("slow.finished").exists(),
        "the losing agent's process ran to its end"
    );
    let logs = project.awf(&["logs", "--agent", "slow"]).run();
    assert_has(
        &logs.assert_success().stdout,
        "cancelled by wf.race at wf.ts:",
    );
}

#[test]
fn a_parallel_that_throws_cancels_its_command_agents_turns_and_rejects_with_the_error() {
    let project = TempProject::new();
    project.script("hangs.sh", HANGS).file(
        "wf.ts",
        r#"import { existsSync } from "node:fs";
export default defineWorkflow({
  meta: { name: "t", description: "A fan-out that fails." },
  async run(wf) {
    try {
      await wf.parallel(["a", "b", "boom"], async (key) => {
        if (key === "boom") {
          while (!existsSync("a.started") || !existsSync("b.started")) await new Promise((r) => setTimeout(r, 20));
          throw new Error("the third item failed");
        }
        const agent = await wf.agents.open({ key, runtime: { command: ["./hangs.sh", key] } });
        return agent.run({ prompt: "Take long." });
      }, { label: "fan" });
      return "resolved";
    } catch (error) {
      return (error as Error).message;
    }
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), "the third item failed");
    let settled = project.events_of("t", "turn-settled");
    assert_eq!(settled.len(), 2, "{settled:?}");
    for turn in &settled {
        assert_eq!(turn["outcome"], "cancelled", "{turn}");
        let detail = turn["detail"].as_str().unwrap_or_default();
        assert!(
            detail.starts_with("cancelled by wf.parallel \"fan\" at wf.ts:")
                && detail.ends_with(": item 2 threw: the third item failed"),
            "{detail}"
        );
    }
    for key in ["a", "b"] {
        assert!(!project.path().join(format!("{key}.finished")).exists());
    }
}

#[test]
fn a_losing_branchs_tool_call_is_recorded_cancelled_with_what_cancelled_its_turn() {
    let project = TempProject::new();
    project
        .script("answers.sh", ANSWERS)
        .script(
            "holds.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" tool hold > hold.out 2>&1\n",
        )
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "A race whose loser is in a tool call." },
  async run(wf) {
    let holding = false;
    const hold = tool({ description: "Holds until aborted.", timeout: false, handler: (_, call) => {
      holding = true;
      return new Promise((resolve) => call.signal.addEventListener("abort", () => resolve("aborted")));
    } });
    const quick = await wf.agents.open({ key: "quick", runtime: { command: ["./answers.sh", "won"] } });
    const slow = await wf.agents.open({ key: "slow", runtime: { command: ["./holds.sh"] }, tools: { hold } });
    const won = await wf.race({
      slow: async () => (await slow.run({ prompt: "Hold." })).outcome.kind,
      quick: async () => {
        while (!holding) await new Promise((r) => setTimeout(r, 20));
        return (await quick.run({ prompt: "Be quick." })).outcome.value;
      },
    });
    await slow.close(); // once its cancelled turn has ended
    return won;
  },
});
"#,
        );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), "won");
    let settled = project.events_of("t", "tool-settled");
    assert_eq!(settled.len(), 1, "{settled:?}");
    assert_eq!(settled[0]["outcome"], "cancelled", "{}", settled[0]);
    let error = settled[0]["error"].as_str().unwrap_or_default();
    assert!(
        error
            .starts_with("hold was still running when its turn was cancelled by wf.race at wf.ts:"),
        "{error}"
    );
}
