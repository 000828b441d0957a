//! `awf run` as a user drives it: the result on stdout, `--json`, `--cwd`, `--timeout`, the words
//! after `--` through `prepare`, `wf.log` on stderr, and the exit code of each ending.

use std::time::Duration;

use serde_json::json;

use crate::util::{assert_text, workspace, AwfCommand, TempProject};

#[test]
fn hello_prints_its_result_and_logs_on_stderr() {
    let project = TempProject::new();
    let hello = workspace().join("examples/hello/hello.ts");
    let ran = project
        .awf(&["run"])
        .arg(&hello)
        .args(&["--", "you", "there"])
        .run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 0
--- stdout
{
  "message": "Hello, you there!",
  "words": 2
}
--- stderr
greeting name="you there"
"#,
    );
}

#[test]
fn without_prepare_the_input_is_argv() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "echo", description: "Gives back its input." },
  run: (wf, input) => input,
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts", "--", "a", "b c"]).run();
    assert_eq!(ran.assert_success().json(), json!({"argv": ["a", "b c"]}));
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(ran.assert_success().json(), json!({"argv": []}));
}

#[test]
fn prepare_gets_argv_and_cwd_and_its_value_is_the_input() {
    let project = TempProject::new();
    project.file("work/.keep", "").file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "prep", description: "Shows what prepare got." },
  prepare: async ({ argv, cwd }) => ({ dir: argv[0] ?? ".", cwd }),
  run: (wf, input) => ({ input, wfCwd: wf.cwd, processCwd: process.cwd() }),
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts", "--cwd", "work", "--", "src"])
        .run();
    let work = project.path().join("work").display().to_string();
    assert_eq!(
        ran.assert_success().json(),
        json!({"input": {"dir": "src", "cwd": work}, "wfCwd": work, "processCwd": work})
    );
}

#[test]
fn the_workflow_file_is_found_from_where_awf_starts_not_from_cwd() {
    let project = TempProject::new();
    project.file("elsewhere/.keep", "").file(
        "flows/wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "where", description: "Returns its cwd." },
  run: (wf) => wf.cwd,
});
"#,
    );
    let ran = project
        .awf(&["run", "flows/wf.ts", "--cwd", "elsewhere"])
        .run();
    assert_eq!(
        ran.assert_success().json(),
        json!(project.path().join("elsewhere").display().to_string())
    );
    assert!(project.path().join("elsewhere/.awf/runs/where").is_dir());
    assert!(!project.path().join(".awf").exists());
}

#[test]
fn json_prints_the_whole_output_record() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "recorded", description: "Returns a list." },
  run: () => [1, "two", { three: null }],
});
"#,
    );
    let ran = project.awf(&["run", "--json", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 0
--- stdout
{
  "version": 1,
  "runId": "[RUN_ID]",
  "attempt": 1,
  "workflow": {
    "name": "recorded",
    "file": "[TMP]/wf.ts"
  },
  "cwd": "[TMP]",
  "outcome": "completed",
  "startedAt": "[TIME]",
  "endedAt": "[TIME]",
  "durationMs": [MS],
  "records": "[TMP]/.awf/runs/recorded/[RUN_ID]",
  "value": [
    1,
    "two",
    {
      "three": null
    }
  ]
}
--- stderr
"#,
    );
    let run_dir = project.only_run_dir("recorded");
    let on_disk = std::fs::read_to_string(run_dir.join("output.json")).unwrap();
    assert_eq!(on_disk, ran.stdout, "--json prints output.json as written");
}

#[test]
fn wf_log_writes_message_and_fields_to_stderr_only() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "logger", description: "Logs." },
  run(wf) {
    wf.log("plain");
    wf.log("with fields", { n: 2, word: "x", phrase: "two words", list: [1, 2], nothing: null });
    return "done";
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        r#"exit: 0
--- stdout
"done"
--- stderr
plain
with fields n=2 word=x phrase="two words" list=[1,2] nothing=null
"#,
    );
}

#[test]
fn wf_log_refuses_what_it_cannot_record() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "badlog", description: "Logs badly." },
  run(wf) {
    const errors: string[] = [];
    for (const call of [() => wf.log(42 as any), () => wf.log("x", [1] as any), () => wf.log("x", { when: new Date(0) } as any)]) {
      try { call(); } catch (error) { errors.push(String(error)); }
    }
    return errors;
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        json!([
            "TypeError: wf.log(message, fields?): message must be a string",
            "TypeError: wf.log(message, fields?): fields must be an object",
            "TypeError: wf.log(message, fields?): fields must be JSON: value.when is a Date, which is not JSON",
        ])
    );
}

#[test]
fn an_undefined_result_prints_nothing() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({ meta: { name: "quiet", description: "Returns nothing." }, run() {} });
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        "exit: 0\n--- stdout\n--- stderr\n",
    );
}

#[test]
fn process_exit_ends_the_run_with_its_code() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "exits", description: "Exits from a timer." },
  async run() {
    setTimeout(() => process.exit(7), 1);
    await new Promise(() => {});
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_text(
        &ran.snapshot(&project.path()),
        "exit: 7
--- stdout
--- stderr
awf: the workflow called process.exit(7)
awf: records in .awf/runs/exits/[RUN_ID]
awf: to go on: awf run wf.ts --continue [RUN_ID]
",
    );
    let output = project.read(&format!(
        "{}/output.json",
        project
            .only_run_dir("exits")
            .strip_prefix(project.path())
            .unwrap()
            .display()
    ));
    let output: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(
        (&output["outcome"], &output["exitCode"]),
        (&json!("exited"), &json!(7))
    );
}

#[test]
fn a_run_past_its_deadline_and_grace_times_out_with_exit_1() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "slow", description: "Waits too long." },
  run: () => new Promise((resolve) => setTimeout(resolve, 60_000)),
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts", "--timeout", "200ms"])
        .bound(Duration::from_secs(20))
        .run();
    assert_text(
        &ran.snapshot(&project.path()),
        "exit: 1
--- stdout
--- stderr
awf: run timed out: the run's deadline passed before run() returned

hint: give the run more time with `awf run --timeout 1h`, or shorten what it waits for
awf: records in .awf/runs/slow/[RUN_ID]
awf: to go on: awf run wf.ts --continue [RUN_ID]
",
    );
    // The deadline, then 5 s for run() to return what it has, then the end.
    assert!(
        ran.elapsed >= Duration::from_secs(5) && ran.elapsed < Duration::from_secs(10),
        "{:?}",
        ran.elapsed
    );
}

#[test]
fn run_may_finish_within_the_grace_after_its_deadline() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "late", description: "Returns just after its deadline." },
  run: () => new Promise((resolve) => setTimeout(() => resolve("late but kept"), 300)),
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts", "--timeout", "100ms"]).run();
    assert_eq!(ran.assert_success().json(), json!("late but kept"));
}

#[test]
fn a_closed_stdout_does_not_fail_the_run() {
    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "chatty", description: "Prints a lot." },
  run: () => Array.from({ length: 20000 }, (_, i) => i),
});
"#,
    );
    let awf = crate::util::awf_bin();
    let script = format!(
        "'{}' run wf.ts | head -c 10 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        awf.display()
    );
    let ran = AwfCommand::new("bash")
        .args(&["-c", &script])
        .current_dir(&project.path())
        .run();
    assert_eq!(ran.stdout.trim(), "0", "{}", ran.stderr);
}

#[test]
fn sigterm_cancels_the_run_with_128_plus_the_signal() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    let project = TempProject::new();
    project.file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "cancelled", description: "Waits to be stopped." },
  async run() {
    console.error("ready");
    await new Promise((resolve) => setTimeout(resolve, 60_000));
  },
});
"#,
    );
    let mut child = Command::new(crate::util::awf_bin())
        .args(["run", "wf.ts"])
        .current_dir(project.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    // A watchdog: if the run does not end in time, the child is killed and the reads below end.
    let (ended, watch) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if watch.recv_timeout(crate::util::RUN_BOUND).is_err() {
            // SAFETY: plain syscall; the child is not reaped until the test's wait() returns.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert_eq!(first, "ready\n", "the workflow started");
    // SAFETY: plain syscall to our own child.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let _ = ended.send(());
    watchdog.join().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{rest}");
    assert_eq!(
        crate::util::filter(&rest, &project.path()),
        "awf: run cancelled\nawf: records in .awf/runs/cancelled/[RUN_ID]\nawf: to go on: awf run wf.ts --continue [RUN_ID]\n"
    );
    let output =
        std::fs::read_to_string(project.only_run_dir("cancelled").join("output.json")).unwrap();
    let output: serde_json::Value = serde_json::from_str(&output).unwrap();
    assert_eq!(output["outcome"], json!("cancelled"));
}
