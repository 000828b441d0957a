//! Agent worktrees (`workspace: { worktree }`, issue 26) against real git repositories: two
//! command agents editing one file in parallel, each on its own branch, the main checkout
//! untouched; the keep rules at the agent's close, the run's end and a failed run's; `kill -9` of
//! awf then a later awf sweeping the worktrees by their rule; the errors, each naming the path or
//! ref with a hint; and `awf test`'s scripted agents taking `workspace`.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{assert_has, awf_bin, git, wait_for_file, TempProject};

/// A project that is a git repository holding `file.txt`, the agent and the workflow, committed.
fn repo(agent: &str, workflow: &str) -> TempProject {
    let project = TempProject::new();
    project
        .file("src/file.txt", "one\n")
        .script("agent.sh", agent)
        .file("wf.ts", workflow);
    git(&project.path(), &["init", "--quiet", "-b", "main"]);
    git(&project.path(), &["add", "."]);
    git(&project.path(), &["commit", "--quiet", "-m", "first"]);
    project
}

/// An agent that says it started (`<key>.started`, beside its worktree), waits until `$OTHER`
/// has too, appends its key to file.txt, commits unless `$DIRTY` is set, and answers.
const EDITING_AGENT: &str = r#"#!/bin/sh
cat > /dev/null
marks="$(git rev-parse --show-toplevel)/.."
touch "$marks/$AWF_AGENT.started"
if [ -n "$OTHER" ]; then
  n=0; while [ ! -e "$marks/$OTHER.started" ] && [ $n -lt 500 ]; do sleep 0.02; n=$((n+1)); done
fi
echo "$AWF_AGENT" >> file.txt
pwd > "$marks/$AWF_AGENT.cwd"
if [ -z "$DIRTY" ]; then
  git add file.txt && git -c user.name=a -c user.email=a@a commit --quiet -m "$AWF_AGENT edits"
fi
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
done
WF_JSON
"#;

fn events(project: &TempProject, kind: &str) -> Vec<Value> {
    project.events_of("t", kind)
}

fn worktree_list(project: &TempProject) -> String {
    git(&project.path(), &["worktree", "list"])
}

#[test]
fn two_agents_edit_one_file_in_parallel_each_on_its_own_branch() {
    let project = repo(
        EDITING_AGENT,
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Two agents, one file." },
  async run(wf) {
    const open = (key, other) => wf.agents.open({ key, runtime: { command: ["../agent.sh"] }, cwd: "src", env: { OTHER: other }, workspace: { worktree: true } });
    const [a, b] = await Promise.all([open("a", "b"), open("b", "a")]);
    const turns = await Promise.all([a.run({ prompt: "Edit." }), b.run({ prompt: "Edit." })]);
    return turns.map((t) => t.outcome.value);
  },
});
"#,
    );
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json(),
        serde_json::json!(["done", "done"]),
        "{}",
        ran.stderr
    );
    let run_dir = project.only_run_dir("t");
    let run_id = run_dir.file_name().unwrap().to_str().unwrap().to_string();
    for key in ["a", "b"] {
        let branch = format!("awf/{run_id}/{key}");
        assert_eq!(
            git(&project.path(), &["log", "-1", "--format=%s", &branch]),
            format!("{key} edits")
        );
        let file = git(
            &project.path(),
            &["show", &format!("{branch}:src/file.txt")],
        );
        assert_eq!(file, format!("one\n{key}"));
        let cwd = std::fs::read_to_string(run_dir.join(format!("worktrees/{key}.cwd"))).unwrap();
        assert_eq!(
            PathBuf::from(cwd.trim()),
            run_dir.join(format!("worktrees/{key}/src"))
        );
    }
    assert_eq!(
        project.read("src/file.txt"),
        "one\n",
        "the main checkout is untouched"
    );
    assert_eq!(git(&project.path(), &["status", "--porcelain"]), "");
    assert_eq!(
        git(&project.path(), &["rev-parse", "--abbrev-ref", "HEAD"]),
        "main"
    );
    let opened = events(&project, "agent-workspace");
    assert_eq!(opened.len(), 2);
    let ended = events(&project, "worktree-ended");
    assert_eq!(ended.len(), 2, "{ended:?}");
    for end in &ended {
        assert_eq!(
            (end["kept"].as_bool(), end["dirty"].as_bool()),
            (Some(false), Some(false)),
            "{end}"
        );
        let branch = end["branch"].as_str().unwrap();
        assert_eq!(
            end["head"].as_str().unwrap(),
            git(&project.path(), &["rev-parse", branch])
        );
    }
    assert_eq!(
        worktree_list(&project).lines().count(),
        1,
        "clean worktrees of a run that completed go"
    );
}

#[test]
fn keep_rules_are_honoured_at_close_and_at_the_runs_end() {
    let project = repo(
        EDITING_AGENT,
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Keep rules." },
  async run(wf, input) {
    const open = (key, keep, env = {}) => wf.agents.open({ key, runtime: { command: ["./agent.sh"] }, env, workspace: { worktree: { keep } } });
    const always = await open("always", "always");
    const never = await open("never", "never", { DIRTY: "1" });
    const dirty = await open("dirty", "on-failure", { DIRTY: "1" });
    const clean = await open("clean", "on-failure");
    for (const agent of [always, never, dirty, clean]) await agent.run({ prompt: "Edit." });
    await never.close();
    if (input.argv[0] === "fail") throw new Error("the run fails");
    return "done";
  },
});
"#,
    );
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let run_dir = project.only_run_dir("t");
    let tree = |key: &str| run_dir.join("worktrees").join(key);
    assert!(tree("always").is_dir(), "always: kept");
    assert!(
        !tree("never").exists(),
        "never: removed at its close, dirty as it was"
    );
    assert!(
        tree("dirty").is_dir(),
        "on-failure: uncommitted work is kept"
    );
    assert!(
        !tree("clean").exists(),
        "on-failure: a clean tree of a completed run goes"
    );
    let ended = events(&project, "worktree-ended");
    let kept: Vec<(&str, bool, bool)> = ended
        .iter()
        .map(|e| {
            (
                e["agent"].as_str().unwrap(),
                e["kept"].as_bool().unwrap(),
                e["dirty"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kept,
        [
            ("never", false, true),
            ("always", true, false),
            ("clean", false, false),
            ("dirty", true, true)
        ]
    );
    let list = worktree_list(&project);
    assert!(
        list.contains("worktrees/always") && list.contains("worktrees/dirty"),
        "{list}"
    );
    assert!(
        !list.contains("worktrees/never") && !list.contains("worktrees/clean"),
        "{list}"
    );

    // A run that fails keeps its on-failure worktrees, clean or not, and says where they are.
    let failed = repo(EDITING_AGENT, &project.read("wf.ts"));
    let ran = failed.awf(&["run", "wf.ts", "--", "fail"]).run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let run_dir = failed.only_run_dir("t");
    assert!(
        run_dir.join("worktrees/clean").is_dir(),
        "on-failure keeps a failed run's clean tree"
    );
    let run_id = run_dir.file_name().unwrap().to_str().unwrap().to_string();
    assert_has(
        &ran.stderr,
        &format!("worktree kept: .awf/runs/t/{run_id}/worktrees/clean (branch awf/{run_id}/clean)"),
    );
}

#[test]
fn kill_9_of_awf_then_a_later_awf_sweeps_the_worktrees_by_their_rule() {
    let project = repo(
        "#!/bin/sh\ncat > /dev/null\necho $$ > \"../$AWF_AGENT.pid\"\nexec sleep 300\n",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Agents that never answer." },
  async run(wf) {
    const open = (key, keep) => wf.agents.open({ key, runtime: { command: ["./agent.sh"] }, workspace: { worktree: { keep } } });
    const never = await open("never", "never");
    const kept = await open("kept", "on-failure");
    await Promise.all([never.run({ prompt: "Wait." }), kept.run({ prompt: "Wait." })]);
  },
});
"#,
    );
    let mut awf = Command::new(awf_bin())
        .args(["run", "wf.ts", "--timeout", "120s"])
        .current_dir(project.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let runs = project.path().join(".awf/runs/t");
    wait_for_file(&runs, Duration::from_secs(20));
    let run_dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    wait_for_file(
        &run_dir.join("worktrees/never.pid"),
        Duration::from_secs(20),
    );
    wait_for_file(&run_dir.join("worktrees/kept.pid"), Duration::from_secs(20));
    // SAFETY: plain syscall on our own child.
    unsafe { libc::kill(awf.id() as i32, libc::SIGKILL) };
    awf.wait().unwrap();
    let list = worktree_list(&project);
    assert!(
        list.contains("worktrees/never") && list.contains("worktrees/kept"),
        "{list}"
    );
    // A later awf sweeps the dead run: never's worktree goes, on-failure's is kept (the run was
    // interrupted, which is a failure), and the ledger says so.
    project.awf(&["logs"]).run().assert_success();
    let list = worktree_list(&project);
    assert!(
        !list.contains("worktrees/never") && !run_dir.join("worktrees/never").exists(),
        "{list}"
    );
    assert!(
        list.contains("worktrees/kept") && run_dir.join("worktrees/kept").is_dir(),
        "{list}"
    );
    let ledger = |key: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(run_dir.join(format!("worktrees/{key}.json"))).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(ledger("never")["state"], "removed");
    assert_eq!(ledger("kept")["state"], "kept");
}

/// The workflow that opens one agent with `workspace` (a JSON text) and cwd `cwd`.
fn opening(workspace: &str, cwd: &str) -> String {
    format!(
        r#"export default defineWorkflow({{
  meta: {{ name: "t", description: "One agent in a worktree." }},
  async run(wf) {{
    await wf.agents.open({{ key: "a", runtime: {{ command: [`${{import.meta.dirname}}/agent.sh`] }}, cwd: "{cwd}", workspace: {workspace} }});
    return "opened";
  }},
}});
"#
    )
}

/// `awf run wf.ts` fails, saying `says` (and where the author's call is) with a hint.
fn refused(project: &TempProject, env: &[(&str, &str)], says: &str) {
    let mut command = project.awf(&["run", "wf.ts"]);
    for (k, v) in env {
        command.env(k, v);
    }
    let ran = command.run();
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert_has(&ran.stderr, says);
    assert_has(&ran.stderr, "wf.ts:4:");
    assert_has(&ran.stderr, "hint: ");
}

#[test]
fn a_non_git_cwd_a_dirty_checkout_an_unknown_ref_a_taken_branch_and_no_git_are_refused() {
    let plain = TempProject::new();
    plain
        .script("agent.sh", EDITING_AGENT)
        .file("wf.ts", &opening("{ worktree: true }", "."));
    refused(
        &plain,
        &[],
        &format!(
            "cwd {} is not inside a git repository",
            plain.path().display()
        ),
    );

    let project = repo(EDITING_AGENT, &opening("{ worktree: true }", "src"));
    project.file("src/file.txt", "changed\n");
    refused(&project, &[], "has uncommitted changes (1 paths)");
    assert_eq!(project.read("src/file.txt"), "changed\n");

    project.file(
        "wf.ts",
        &opening(r#"{ worktree: { from: "nope" } }"#, "src"),
    );
    refused(
        &project,
        &[],
        "workspace.worktree.from \"nope\" is not a commit in",
    );

    git(&project.path(), &["branch", "taken"]);
    project.file(
        "wf.ts",
        &opening(r#"{ worktree: { branch: "taken", from: "HEAD" } }"#, "src"),
    );
    refused(
        &project,
        &[],
        "workspace.worktree.branch \"taken\" already exists in",
    );

    project.file(
        "wf.ts",
        &opening(r#"{ worktree: { from: "HEAD" } }"#, "src"),
    );
    refused(
        &project,
        &[("PATH", "/nonexistent")],
        "workspace.worktree needs git, which is not installed",
    );

    // A named ref is a commit: the checkout's uncommitted change is not carried, and stays.
    project.awf(&["run", "wf.ts"]).run().assert_success();
    assert_eq!(project.read("src/file.txt"), "changed\n");
}

#[test]
fn scripted_agents_in_awf_test_take_workspace_and_the_test_reads_it() {
    let project = TempProject::new();
    project
        .file(
            "wf.ts",
            r#"export default defineWorkflow({
  meta: { name: "t", description: "A worktree agent." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: "codex", workspace: { worktree: { branch: "fix/a", keep: "always" } } });
    return (await a.run({ prompt: "Fix." })).outcome.value;
  },
});
"#,
        )
        .file(
            "wf.test.ts",
            r#"import { expect, test } from "bun:test";
import { answer, testWorkflow } from "agentswf/testing";
import wf from "./wf.ts";
test("workspace is recorded", async () => {
  const run = await testWorkflow(wf, {}, { agents: { a: answer("fixed") } });
  expect(run.value).toBe("fixed");
  expect(run.agentOf("a").workspace).toEqual({ worktree: { branch: "fix/a", keep: "always" } });
});
"#,
        );
    let ran = project.awf(&["test"]).run();
    assert_eq!(ran.code, Some(0), "{}{}", ran.stdout, ran.stderr);
    assert!(
        !project.path().join(".awf/runs/t").exists()
            || std::fs::read_dir(project.path().join(".awf/runs/t"))
                .unwrap()
                .all(|run| !run.unwrap().path().join("worktrees").exists())
    );
}
