//! Sandboxes as authors and tests see them (issue 26): `awf test`'s scripted agents take
//! `sandbox` (inline, or a `wf.sandboxes.open` reference) and `run.agentOf(key).sandbox` says
//! what each was granted (tests/fixtures/testing-sandbox); the fixture type-checks against
//! typings/agentswf.d.ts and agentswf-testing.d.ts (`sandbox`, `wf.sandboxes.open`,
//! `SandboxRef`, `run.agentOf(key).sandbox`). A scripted agent runs no process, so none of it
//! needs bubblewrap: the fixture also passes with nothing on PATH.

use crate::typings::tsc_with;
use crate::util::{assert_fixture_passes, awf_bin, workspace, AwfCommand, TempProject};

#[test]
fn scripted_agents_take_sandboxes_and_the_test_reads_what_each_was_granted() {
    assert_fixture_passes("tests/fixtures/testing-sandbox", 4);
}

#[test]
fn sandboxes_and_worktrees_under_test_need_no_bubblewrap() {
    let project = TempProject::new();
    let path = project.path().join("empty-path");
    std::fs::create_dir_all(&path).unwrap();
    let ran = AwfCommand::new(awf_bin())
        .args(&["test", "tests/fixtures/testing-sandbox"])
        .current_dir(&workspace())
        .env("PATH", &path)
        .run();
    ran.assert_success();
    let last = ran.stdout.trim_end().lines().last().unwrap_or_default();
    assert_eq!(last, "4 passed, 0 failed", "{}", ran.stdout);
}

#[test]
fn the_sandbox_fixture_type_checks() {
    let project = TempProject::new();
    let fixture = workspace().join("tests/fixtures/testing-sandbox/*.ts");
    let ran = tsc_with(
        &project,
        &[fixture.display().to_string()],
        serde_json::json!({}),
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
        (Some(0), "", ""),
        "tsc found errors"
    );
}
