//! `wf.agents.stop(key, reason?)` (issue 27 item 6) against a real agent process: its running
//! turn and its queued one end `cancelled` with the reason, the process group of the running
//! turn is killed (a grandchild too), the key cannot be opened again, and a second stop, or one
//! of a key never opened, resolves `false`. Recorded, and shown by `awf logs`.

use std::time::Duration;

use crate::util::{assert_has, process_running, TempProject};

/// An agent whose turn leaves a grandchild behind, writes its pid, and never ends by itself.
const HANG_WITH_CHILD: &str =
    "#!/bin/sh\ncat > /dev/null\nsleep 60 &\necho $! > grandchild.pid\nwait\n";

#[test]
fn stop_cancels_the_running_and_queued_turns_kills_the_group_and_refuses_a_reopen() {
    let project = TempProject::new();
    project.script("agent.sh", HANG_WITH_CHILD).file(
        "wf.ts",
        r#"export default defineWorkflow({
  meta: { name: "t", description: "Stops an agent mid-turn." },
  async run(wf) {
    const spec = { key: "a", runtime: { command: ["./agent.sh"] } };
    const a = await wf.agents.open(spec);
    const running = a.run({ prompt: "Work." });
    const queued = a.run({ prompt: "Then this." });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const stopped = await wf.agents.stop("a", "the reviewer found enough");
    const outcomes = [(await running).outcome, (await queued).outcome].map((o) => [o.kind, (o as any).detail]);
    const again = await wf.agents.stop("a");
    const never = await wf.agents.stop("nobody");
    let reopen = "reopened";
    try { await wf.agents.open(spec); } catch (e) { reopen = `${(e as Error).message}\nhint: ${(e as any).hint}`; }
    let later = "ran";
    try { await a.run({ prompt: "More." }); } catch (e) { later = (e as any).code; }
    return { stopped, outcomes, again, never, reopen, later };
  },
});
"#,
    );
    let ran = project
        .awf(&["run", "wf.ts"])
        .bound(Duration::from_secs(30))
        .run();
    ran.assert_success();
    let value = ran.json();
    assert_eq!(value["stopped"], true, "{value}");
    assert_eq!(
        value["outcomes"],
        serde_json::json!([
            ["cancelled", "wf.agents.stop: the reviewer found enough"],
            [
                "cancelled",
                "wf.agents.stop: the reviewer found enough (before the turn began)"
            ]
        ]),
        "{value}"
    );
    assert_eq!(value["again"], false, "{value}");
    assert_eq!(value["never"], false, "{value}");
    assert_eq!(
        value["reopen"],
        "agent \"a\" was stopped by wf.agents.stop (the reviewer found enough); its key cannot be opened again in this run\nhint: open a new agent under another key, e.g. \"<key>-2\"",
        "{value}"
    );
    assert_eq!(value["later"], "agent-closed", "{value}");

    let pid: i32 = project.read("grandchild.pid").trim().parse().unwrap();
    // Killed with its group at the stop; it may still be a zombie until whoever inherited it
    // reaps it, which process_running does not count, and that may take a moment.
    let start = std::time::Instant::now();
    while process_running(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the turn's grandchild {pid} outlived the stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let stopped = project.events_of("t", "agent-stopped");
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert_eq!(stopped[0]["reason"], "the reviewer found enough");
    let logs = project.awf(&["logs"]).run();
    assert_has(
        &logs.stdout,
        "a  stopped by wf.agents.stop: the reviewer found enough",
    );
}
