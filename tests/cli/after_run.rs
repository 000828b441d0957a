//! What `awf run` says for after the run, checked by doing it: the `awf logs` command of its
//! summary and the `awf run --continue` command it prints for a run that did not complete work
//! typed in the same shell (the workflow file as given, `--cwd` as given, quoted for the
//! shell); `awf runs` shows a short run's time in milliseconds, not `0ms`.

use crate::util::{assert_has, bin_dir, AwfCommand, Ran, TempProject};

/// Opens an agent it never runs (so the run's summary is printed) and fails while FAIL is 1.
const WORKFLOW: &str = r#"export default defineWorkflow({
  meta: { name: "after", description: "Opens an agent, then fails or returns." },
  async run(wf) {
    await wf.agents.open({ key: "idle", runtime: { command: ["sh", "-c", "exit 0"] } });
    if (process.env.FAIL === "1") throw new Error("failing on purpose");
    return "done";
  },
});
"#;

/// `line` typed into sh in `project`'s folder, with awf on PATH.
fn typed(project: &TempProject, line: &str) -> Ran {
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    AwfCommand::new("sh")
        .args(&["-c", line])
        .env("PATH", path)
        .current_dir(&project.path())
        .run()
}

/// The part of `stderr` between `before` and `after` on the line that starts with `before`.
fn printed<'a>(stderr: &'a str, before: &str, after: &str) -> &'a str {
    let line = stderr
        .lines()
        .find_map(|line| line.strip_prefix(before))
        .unwrap_or_else(|| panic!("no line starting {before:?} in:\n{stderr}"));
    line.split(after).next().unwrap_or(line)
}

#[test]
fn the_commands_awf_run_prints_work_typed_in_the_same_shell() {
    let project = TempProject::new();
    project.file("flows/my wf.ts", WORKFLOW);
    std::fs::create_dir_all(project.path().join("work dir")).unwrap();
    let ran = project
        .awf(&["run", "flows/my wf.ts", "--cwd", "work dir"])
        .env("FAIL", "1")
        .run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);

    let records = printed(&ran.stderr, "awf: records in ", "; ");
    assert!(
        records.starts_with("work dir/.awf/runs/after/"),
        "shown from the shell's folder: {records}"
    );
    assert!(project.path().join(records).is_dir(), "{records}");
    let logs = printed(&ran.stderr, &format!("awf: records in {records}; `"), "`");
    assert!(logs.ends_with(" --cwd 'work dir'"), "{logs}");
    let shown = typed(&project, logs);
    shown.assert_success();
    assert_has(&shown.stdout, "failing on purpose");

    let go_on = printed(&ran.stderr, "awf: to go on: ", "\n");
    assert!(
        go_on.starts_with("awf run 'flows/my wf.ts' --continue "),
        "{go_on}"
    );
    let continued = typed(&project, go_on);
    continued.assert_success();
    assert_eq!(continued.json(), "done");
}

#[test]
fn awf_runs_shows_a_short_run_in_milliseconds() {
    let project = TempProject::new();
    project.file("wf.ts", WORKFLOW);
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let runs = project.awf(&["runs"]).run();
    runs.assert_success();
    let header = runs.stdout.lines().next().unwrap_or_default();
    let row = runs.stdout.lines().nth(1).unwrap_or_default();
    let took = &row[header.find("TOOK").expect("a TOOK column")..];
    let took = took.split_whitespace().next().unwrap_or_default();
    assert_ne!(took, "0ms", "{}", runs.stdout);
    // Under a second in milliseconds; a machine slow enough to take longer shows seconds.
    let digits = took.trim_end_matches("ms").trim_end_matches('s');
    assert!(
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()),
        "{}",
        runs.stdout
    );
}
