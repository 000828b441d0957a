//! awf short of a system resource: a check it cannot make for want of a file descriptor is a
//! `resource-error` the agent may retry, recorded as such, never a `forbidden` refusal.

use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::util::{assert_has, awf_bin, which, TempProject};

/// Holds every connection it accepts, answering none, until `stop` is set (and one more
/// connection wakes it).
fn hold_connections(listener: TcpListener, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            held.extend(stream.ok());
        }
    })
}

/// An agent that calls `ping` once `go` exists (awf then has one descriptor left), again once
/// `released` exists, then answers.
const AGENT: &str = "#!/bin/sh
cat > /dev/null
touch started
while [ ! -e go ]; do sleep 0.02; done
\"$AWF_WFA\" tool ping > first.out 2>&1; echo \"exit=$?\" >> first.out
touch first.done
while [ ! -e released ]; do sleep 0.02; done
\"$AWF_WFA\" tool ping > second.out 2>&1; echo \"exit=$?\" >> second.out
\"$AWF_WFA\" result \"$AWF_TURN\" <<'WF_JSON'
done
WF_JSON
";

/// The workflow fills awf's descriptor table to one below its limit with fetches the test's
/// server never answers (each holds one socket), so that the agent's connection takes the last
/// one and reading `/proc/<pid>/stat` to check its sender fails with EMFILE.
const WORKFLOW: &str = r#"import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

const limit = Number(/Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"))![1]);
// Descriptors open now (the listing's own not counted).
const open = () => readdirSync("/proc/self/fd").filter((fd) => Number(fd) < limit).length - 1;
const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};

export default defineWorkflow({
  meta: { name: "t", description: "An agent calls while awf has one descriptor left." },
  async run(wf) {
    const ping = tool({ description: "Answers pong.", handler: () => "pong" });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { ping } });
    const turn = a.run({ prompt: "Call ping twice." });
    await until(() => existsSync("started"));
    const hold = new AbortController();
    const held: Promise<unknown>[] = [];
    while (limit - open() > 1) {
      const before = open();
      held.push(fetch(`http://127.0.0.1:${process.env.HOLD_PORT}/`, { signal: hold.signal }).catch(() => "released"));
      await until(() => open() > before);
    }
    writeFileSync("go", "");
    await until(() => existsSync("first.done"));
    hold.abort();
    await Promise.all(held);
    writeFileSync("released", "");
    return (await turn).outcome;
  },
});
"#;

#[test]
fn a_sender_that_cannot_be_checked_for_want_of_descriptors_is_a_resource_error() {
    let project = TempProject::new();
    project.script("agent.sh", AGENT).file("wf.ts", WORKFLOW);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let stop = Arc::new(AtomicBool::new(false));
    let holder = hold_connections(listener, stop.clone());
    let prlimit = which("prlimit").expect(
        "prlimit is not on PATH; hint: apt-get install -y util-linux (it starts awf under a low open-file limit)",
    );
    // The hard limit too: awf raises its soft limit to the hard one at start.
    let ran = Command::new(prlimit)
        .arg("--nofile=128:128")
        .arg(awf_bin())
        .args(["run", "wf.ts", "--timeout", "120s"])
        .current_dir(project.path())
        .env("HOLD_PORT", port.to_string())
        .output()
        .unwrap();
    stop.store(true, Ordering::SeqCst);
    drop(TcpStream::connect(("127.0.0.1", port)));
    holder.join().unwrap();
    assert!(ran.status.success(), "{ran:?}");

    let first = project.read("first.out");
    assert_has(
        &first,
        "refused (resource-error): awf could not check that process ",
    );
    assert_has(&first, "(os error 24, EMFILE); nothing ran");
    assert_has(&first, "exit=2");
    let second = project.read("second.out");
    assert_has(&second, "pong");
    assert_has(&second, "exit=0");
    assert!(project.events_of("t", "channel-refused").is_empty());
    let failed = project.events_of("t", "channel-check-failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["errno"], 24);
    assert_eq!(project.events_of("t", "tool-called").len(), 1);
}
