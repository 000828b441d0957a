//! What a sandboxed agent cannot do, and what the box grants a worktree agent (issue 26), end
//! to end with bubblewrap: from inside its box an agent cannot see another agent's control
//! folder (launcher and socket), cannot read another run's folder, and cannot rewrite its own
//! run's records even when its write grant holds the project root; an agent in a worktree with
//! an inline sandbox commits on its branch (the repository's objects, refs and logs are
//! granted), and `awf logs` says where it ran. Projects live outside /tmp (the box has its own),
//! and everything is checked on the host, never from the agent's word.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::util::{assert_has, git, TempProject};

fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The folders of the runs of workflow `t` under `project`.
fn runs(project: &Path) -> Vec<PathBuf> {
    let mut runs: Vec<PathBuf> = fs::read_dir(project.join(".awf/runs/t"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    runs.sort();
    runs
}

/// Says where its control folder (launcher and socket) is, then answers. Not sandboxed.
const PEER: &str = r#"#!/bin/sh
cat > /dev/null
dirname "$AWF_WFA" > peer-control.txt
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
peer
WF_JSON
"#;

/// From inside its box: looks for the peer's launcher, reads another run's folder, appends to
/// every events.jsonl it can reach, writes its cwd; then answers.
const BOXED: &str = r#"#!/bin/sh
cat > /dev/null
peer=$(cat peer-control.txt)
ls "$peer" > peer-ls.txt 2>&1
echo $? > peer-exit.txt
cat .awf/runs/t/20200101-000000-0000/secret.txt > other-run.txt 2>/dev/null
for f in .awf/runs/t/*/events.jsonl; do
  echo '{"event":"forged"}' >> "$f" 2>/dev/null
done
printf inside > inside.txt
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
boxed
WF_JSON
"#;

#[test]
fn a_boxed_agent_cannot_reach_a_peers_socket_read_another_run_or_rewrite_its_records() {
    let project = TempProject::new();
    let dir = project.outside_temp();
    executable(&dir.join("peer.sh"), PEER);
    executable(&dir.join("boxed.sh"), BOXED);
    let other = dir.join(".awf/runs/t/20200101-000000-0000");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("secret.txt"), "OTHER RUN SECRET").unwrap();
    fs::write(
        dir.join("wf.ts"),
        r#"export default defineWorkflow({
  meta: { name: "t", description: "A boxed agent beside a free one." },
  async run(wf) {
    const peer = await wf.agents.open({ key: "peer", runtime: { command: ["./peer.sh"] } });
    const boxed = await wf.agents.open({ key: "boxed", runtime: { command: ["./boxed.sh"] }, sandbox: { write: ["."] } });
    const first = (await peer.run({ prompt: "Say where." })).outcome.value;
    return [first, (await boxed.run({ prompt: "Probe." })).outcome.value];
  },
});
"#,
    )
    .unwrap();
    let ran = project.awf(&["run", "wf.ts"]).current_dir(&dir).run();
    assert_eq!(ran.assert_success().json(), json!(["peer", "boxed"]));
    // It could write its cwd (the project root, which holds the run's folder).
    assert_eq!(
        fs::read_to_string(dir.join("inside.txt")).unwrap(),
        "inside"
    );
    // The peer's control folder existed on the host, and was not there in the box.
    let peer_control = fs::read_to_string(dir.join("peer-control.txt")).unwrap();
    assert!(peer_control.trim().starts_with("/tmp/"), "{peer_control}");
    assert_ne!(
        fs::read_to_string(dir.join("peer-exit.txt"))
            .unwrap()
            .trim(),
        "0",
        "the box saw the peer's control folder: {}",
        fs::read_to_string(dir.join("peer-ls.txt")).unwrap()
    );
    // Another run's folder is masked; its files on the host are untouched.
    assert_eq!(fs::read_to_string(dir.join("other-run.txt")).unwrap(), "");
    assert_eq!(
        fs::read_dir(&other).unwrap().count(),
        1,
        "the other run's folder changed"
    );
    // This run's records are read-only in the box, though its write grant holds them.
    let this_run = runs(&dir)
        .into_iter()
        .find(|r| r != &other)
        .expect("this run's folder");
    let events = fs::read_to_string(this_run.join("events.jsonl")).unwrap();
    assert!(
        !events.contains("forged"),
        "the agent wrote its run's records"
    );
    assert_has(&events, r#""event":"run-ended""#);
}

/// Edits file.txt in its worktree and commits on its branch from inside its box.
const COMMITTING: &str = r#"#!/bin/sh
cat > /dev/null
echo "$AWF_AGENT" >> file.txt
git add file.txt && git -c user.name=a -c user.email=a@a commit --quiet -m "$AWF_AGENT edits"
"$AWF_WFA" result "$AWF_TURN" <<'WF_JSON'
done
WF_JSON
"#;

#[test]
fn a_sandboxed_worktree_agent_commits_on_its_branch_and_logs_say_where_it_ran() {
    let project = TempProject::new();
    let dir = project.outside_temp();
    fs::write(dir.join("file.txt"), "one\n").unwrap();
    executable(&dir.join("agent.sh"), COMMITTING);
    fs::write(
        dir.join("wf.ts"),
        r#"export default defineWorkflow({
  meta: { name: "t", description: "A boxed agent in a worktree." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, workspace: { worktree: true }, sandbox: {} });
    return (await a.run({ prompt: "Edit." })).outcome.value;
  },
});
"#,
    )
    .unwrap();
    git(&dir, &["init", "--quiet", "-b", "main"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "--quiet", "-m", "first"]);
    let ran = project.awf(&["run", "wf.ts"]).current_dir(&dir).run();
    assert_eq!(ran.assert_success().json(), json!("done"), "{}", ran.stderr);
    let run = runs(&dir).pop().unwrap();
    let id = run.file_name().unwrap().to_string_lossy().to_string();
    let branch = format!("awf/{id}/a");
    assert_eq!(git(&dir, &["log", "-1", "--format=%s", &branch]), "a edits");
    assert_eq!(
        git(&dir, &["show", &format!("{branch}:file.txt")]),
        "one\na"
    );
    // The main checkout is untouched, and the branch's worktree (clean at the end) removed.
    assert_eq!(fs::read_to_string(dir.join("file.txt")).unwrap(), "one\n");
    assert!(!run.join("worktrees/a").exists());
    let logs = project.awf(&["logs"]).current_dir(&dir).run();
    let worktree = run.join("worktrees/a").display().to_string();
    assert_has(
        &logs.stdout,
        &format!(
            "/agent.sh) in bwrap sandbox \"agent:a\": writes {worktree}, {git}/objects, {git}/refs, {git}/logs, {git}/worktrees/a; network: none",
            git = dir.join(".git").display()
        ),
    );
    assert_has(
        &logs.stdout,
        &format!("a  worktree {worktree} on branch {branch} (from "),
    );
    assert_has(
        &logs.stdout,
        &format!("a  worktree ended: branch {branch} at "),
    );
    assert_has(&logs.stdout, ", clean; removed (the branch stays)");
}
