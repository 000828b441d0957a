//! `agentswf/testing` end to end: tests/fixtures/testing/panel.test.ts drives a workflow through
//! every kind of script, reply, list, pattern and mistake, each test asserting what testWorkflow
//! does; here `awf test` runs that file and every one of its tests must pass.

use crate::util::{assert_fixture_passes, awf_bin, workspace, AwfCommand, TempProject};

/// The number of tests in panel.test.ts: a test removed or skipped by mistake shows here.
const PANEL_TESTS: usize = 26;

#[test]
fn every_test_of_the_testing_module_passes() {
    assert_fixture_passes("tests/fixtures/testing", PANEL_TESTS);
}

#[test]
fn a_tested_run_keeps_its_log_out_of_the_test_output() {
    let ran = AwfCommand::new(awf_bin())
        .args(&["test", "examples/hello"])
        .current_dir(&workspace())
        .run();
    ran.assert_success();
    assert!(
        !ran.stdout.contains("greeting") && !ran.stderr.contains("greeting"),
        "wf.log printed in a test:\n{}\n{}",
        ran.stdout,
        ran.stderr
    );
}

/// The author globals load `agentswf` on first use; an import before or after must give the
/// same functions, not a second copy of the module.
#[test]
fn the_author_globals_and_an_import_are_one_module_whichever_comes_first() {
    let project = TempProject::new();
    project
        .file(
            "global_first.test.ts",
            r#"import { expect, test } from "bun:test";
test("global first", async () => {
  const global = Type;
  const imported = await import("agentswf");
  expect(imported.Type).toBe(global);
  expect(imported.defineWorkflow).toBe(defineWorkflow);
});
"#,
        )
        .file(
            "import_first.test.ts",
            r#"import { expect, test } from "bun:test";
import { tool as imported, typed as importedTyped } from "agentswf";
test("import first", () => {
  expect(tool).toBe(imported);
  expect(typed).toBe(importedTyped);
});
"#,
        );
    let ran = project.awf(&["test"]).run();
    ran.assert_success();
    assert!(
        ran.stdout.ends_with("2 passed, 0 failed\n"),
        "{}",
        ran.stdout
    );
}

/// A failure found while a script plays a turn is shown at the test's `testWorkflow` call, with
/// its code frame, not at awf's own code.
#[test]
fn a_script_failure_points_at_the_testworkflow_call() {
    let project = TempProject::new();
    project
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "one", description: "One agent, one turn." },
  async run(wf) {
    const agent = await wf.agents.open({ key: "a", runtime: { command: ["true"] } });
    return (await agent.run({ prompt: "hi" })).outcome;
  },
});
"#,
        )
        .file(
            "wf.test.ts",
            r#"import { test } from "bun:test";
import { testWorkflow } from "agentswf/testing";
import wf from "./wf.ts";
test("unscripted", async () => {
  await testWorkflow(wf, {});
});
"#,
        );
    let ran = project.awf(&["test"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("5 |   await testWorkflow(wf, {});\n")
            && ran
                .stdout
                .contains("TestWorkflowError: agent \"a\" has no script")
            && ran.stdout.contains("at <anonymous> (wf.test.ts:5:"),
        "{}",
        ran.stdout
    );
}

/// Fake timers reach the workflow under test: a run that waits 20 minutes with `setTimeout`
/// finishes as soon as the test advances the clock, and its `Date` moved by as much.
#[test]
fn fake_timers_let_a_twenty_minute_wait_in_a_workflow_pass_at_once() {
    let project = TempProject::new();
    project
        .file(
            "slow.ts",
            r#"export default defineWorkflow({
  meta: { name: "slow", description: "Waits 20 minutes, then says how long it waited." },
  async run() {
    const started = Date.now();
    await new Promise<void>((resolve) => setTimeout(resolve, 20 * 60_000));
    return { waitedMs: Date.now() - started };
  },
});
"#,
        )
        .file(
            "slow.test.ts",
            r#"import { expect, jest, test } from "bun:test";
import { testWorkflow } from "agentswf/testing";
import slow from "./slow.ts";

test("twenty minutes pass at once", async () => {
  jest.useFakeTimers();
  const pending = testWorkflow(slow, {}, {});
  for (let step = 0; step < 1000 && jest.getTimerCount() === 0; step++) await null;
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(20 * 60_000);
  expect((await pending).value).toEqual({ waitedMs: 20 * 60_000 });
  jest.useRealTimers();
}, 2000);
"#,
        );
    let ran = project.awf(&["test"]).run();
    ran.assert_success();
    assert!(
        ran.stdout.ends_with("1 passed, 0 failed\n"),
        "{}",
        ran.stdout
    );
}

/// The number of tests in tests/fixtures/testing-messages/messages.test.ts.
const MESSAGES_TESTS: usize = 5;

#[test]
fn every_test_of_the_scripted_messages_passes() {
    assert_fixture_passes("tests/fixtures/testing-messages", MESSAGES_TESTS);
}

/// Forks, compactions and settings under `awf test`: tests/fixtures/testing-forks.
#[test]
fn forks_compactions_and_settings_can_be_scripted() {
    assert_fixture_passes("tests/fixtures/testing-forks", 10);
}

/// A sibling's failure cancelling scripted turns whose answers are on their way (issue 27 item
/// 14): tests/fixtures/testing-cancel, 30 rounds across the race.
#[test]
fn an_answer_racing_a_cancel_never_fails_the_test() {
    assert_fixture_passes("tests/fixtures/testing-cancel", 1);
}

/// run.agents / agentOf (labels too) and each turn's label, stage, model, effort and check-in,
/// with `checkIn` on turns and on open; wf.agents.stop of a scripted agent:
/// tests/fixtures/testing-turns.
#[test]
fn the_test_api_shows_agents_and_turns_with_labels_and_check_ins() {
    assert_fixture_passes("tests/fixtures/testing-turns", 5);
}

/// testWorkflow's `runtimes` option (aliases in a test) and the replies awf has a state for:
/// `reply.needsLogin` (blocked), `reply.waiting` (recorded, then a check-in), and
/// `reply.interrupted`, refused with the reason; and agentswf's forms (plain definitions,
/// `execution`, `placement`, compact's outcome), and `turn.spend` against a budget:
/// tests/fixtures/testing-runtimes.
#[test]
fn a_test_defines_runtime_aliases_and_scripts_logins_and_waiting() {
    assert_fixture_passes("tests/fixtures/testing-runtimes", 21);
}
