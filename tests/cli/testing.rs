//! `agentswf/testing` end to end: tests/fixtures/testing/panel.test.ts drives a workflow through
//! every kind of script, reply, list, pattern and mistake, each test asserting what testWorkflow
//! does; here `awf test` runs that file and every one of its tests must pass.

use crate::util::{awf_bin, workspace, AwfCommand, TempProject};

/// The number of tests in panel.test.ts: a test removed or skipped by mistake shows here.
const PANEL_TESTS: usize = 24;

#[test]
fn every_test_of_the_testing_module_passes() {
    let ran = AwfCommand::new(awf_bin())
        .args(&["test", "tests/fixtures/testing"])
        .current_dir(&workspace())
        .run();
    ran.assert_success();
    let last = ran.stdout.trim_end().lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("{PANEL_TESTS} passed, 0 failed"),
        "{}",
        ran.stdout
    );
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
