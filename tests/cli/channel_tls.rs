//! Authority that travels (issue 28): the agent's secret and the TCP transport, against real
//! runs. Over TCP (`awf run --channel tcp`), an agent calls tools and answers through a copy of
//! its launcher that has no socket beside it; a wrong secret, a wrong or missing certificate pin
//! and a launcher kept past its run (replayed against a new run on the same port) are refused,
//! and the run records what it refused. On the Unix socket, a process outside the agent's tree
//! in a pid namespace of its own (as a container's is) is accepted with the agent's secret and
//! refused without it, and a process beside awf is refused even with it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::{assert_has, awf_bin, wait_for_file, TempProject};

const BOUND: Duration = Duration::from_secs(60);

/// One agent with a tool that says who it ran for; the agent is `agent.sh`.
const ONE_AGENT: &str = r#"export default defineWorkflow({
  meta: { name: "t", description: "One agent with a tool." },
  async run(wf) {
    const echo = tool({ description: "Echo.", input: typed(Type.Object({ text: Type.String() })), handler: ({ text }, call) => `echo ${text} for ${call.agent}` });
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] }, tools: { echo } });
    return (await a.run({ prompt: "Go." })).outcome.value;
  },
});
"#;

/// An agent that copies its launcher (the link and the launcher file, not the socket) to
/// `copy/`, writes its folder to `dir.txt`, waits for `go`, then answers: through the copy when
/// its launcher goes over TCP (the copy has no socket beside it), else through its launcher.
const HELD_AGENT: &str = "#!/bin/sh\ncat > /dev/null\nd=$(dirname \"$AWF_WFA\")\nmkdir -p copy\ncp -P \"$d/wfa\" \"$d/launcher.json\" copy/\necho \"$d\" > dir.tmp && mv dir.tmp dir.txt\nwhile [ ! -e go ]; do sleep 0.02; done\nw=\"$AWF_WFA\"\nif grep -q '\"tcp\"' copy/launcher.json; then w=./copy/wfa; fi\n\"$w\" result \"$AWF_TURN\" <<'WF_JSON'\nanswered\nWF_JSON\n";

/// `channel`: `--channel`'s value, and any flags after it.
fn start_awf(project: &TempProject, channel: &str) -> Child {
    let mut words = channel.split(' ');
    Command::new(awf_bin())
        .args(["run", "wf.ts", "--timeout", "120s", "--channel"])
        .args(words.by_ref())
        .current_dir(project.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts a run whose agent holds its turn; its agent folder.
fn held_run(project: &TempProject, channel: &str) -> (Child, PathBuf) {
    project
        .script("agent.sh", HELD_AGENT)
        .file("wf.ts", ONE_AGENT);
    let child = start_awf(project, channel);
    wait_for_file(&project.path().join("dir.txt"), BOUND);
    (child, PathBuf::from(project.read("dir.txt").trim()))
}

/// Lets the agent answer; the run's result.
fn finish(project: &TempProject, child: Child) -> Value {
    std::fs::write(project.path().join("go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn launch_file(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("launcher.json")).unwrap()).unwrap()
}

/// A copy of the launcher in `copy/` (a link to wfa and a launcher file), at `name`, with its
/// launcher file changed by `change`.
fn forged(project: &TempProject, name: &str, change: impl FnOnce(&mut Value)) -> PathBuf {
    let folder = project.path().join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let wfa = std::fs::read_link(project.path().join("copy/wfa")).unwrap();
    std::os::unix::fs::symlink(wfa, folder.join("wfa")).unwrap();
    let mut file = launch_file(&project.path().join("copy"));
    change(&mut file);
    std::fs::write(folder.join("launcher.json"), file.to_string()).unwrap();
    folder.join("wfa")
}

fn call(launcher: &Path, text: &str) -> Output {
    Command::new(launcher)
        .args(["tool", "echo", "--text", text])
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_agent_over_tcp_calls_tools_and_answers_and_a_forged_launcher_is_refused() {
    let project = TempProject::new();
    let (child, dir) = held_run(&project, "tcp");
    let file = launch_file(&dir);
    let route = &file["tcp"];
    assert!(
        route["address"].as_str().unwrap().starts_with("127.0.0.1:"),
        "{file}"
    );
    assert_eq!(route["name"], dir.file_name().unwrap().to_str().unwrap());
    assert_eq!(route["pin"].as_str().unwrap().len(), 64);
    assert_eq!(file["secret"].as_str().unwrap().len(), 64);

    // The copy has no socket beside it: TCP is its only way to the run. A process outside the
    // agent's tree (this test) with the agent's secret is the agent over TCP.
    let copy = project.path().join("copy/wfa");
    assert!(!project.path().join("copy/s.sock").exists());
    let out = call(&copy, "over tcp");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "echo over tcp for a\n",
        "{}",
        stderr(&out)
    );

    let wrong_secret = forged(&project, "wrong-secret", |f| {
        f["secret"] = "0".repeat(64).into();
    });
    let out = call(&wrong_secret, "x");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_has(&stderr(&out), "refused (forbidden)");
    assert_has(&stderr(&out), "with a wrong secret");

    let wrong_pin = forged(&project, "wrong-pin", |f| {
        f["tcp"]["pin"] = "0".repeat(64).into();
    });
    let out = call(&wrong_pin, "x");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_has(&stderr(&out), "is not the run's this launcher pins");

    let no_pin = forged(&project, "no-pin", |f| {
        f["tcp"].as_object_mut().unwrap().remove("pin");
    });
    let out = call(&no_pin, "x");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_has(
        &stderr(&out),
        "launcher.json is not valid: missing field `pin`",
    );

    assert_eq!(finish(&project, child), "answered");
    let called = project.events_of("t", "tool-called");
    assert_eq!(called.len(), 1, "{called:?}");
    let refused = project.events_of("t", "channel-refused");
    let wrong = refused
        .iter()
        .find(|e| e["why"].as_str().unwrap().ends_with("with a wrong secret"))
        .unwrap_or_else(|| panic!("{refused:?}"));
    assert_eq!(wrong["agent"], "a");
    assert!(wrong["address"].as_str().unwrap().starts_with("127.0.0.1:"));
    // The pin was refused by wfa: the run saw a handshake fail.
    assert!(
        refused.iter().any(|e| e["why"]
            .as_str()
            .unwrap()
            .starts_with("a TLS handshake that failed")),
        "{refused:?}"
    );
    // The secret is in no record.
    let events = std::fs::read_to_string(project.only_run_dir("t").join("events.jsonl")).unwrap();
    assert!(!events.contains(file["secret"].as_str().unwrap()));
}

/// `--channel-address`: launchers dial the address the operator names (a name here, the
/// listener bound at an IP), with the bound port; without a TCP listener it is refused.
#[test]
fn launchers_dial_the_advertised_channel_address() {
    let project = TempProject::new();
    let (child, dir) = held_run(&project, "tcp:127.0.0.1:0 --channel-address localhost");
    let file = launch_file(&dir);
    let address = file["tcp"]["address"].as_str().unwrap();
    let port: u16 = address
        .strip_prefix("localhost:")
        .unwrap_or_else(|| panic!("{file}"))
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    let out = call(&project.path().join("copy/wfa"), "by name");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "echo by name for a\n",
        "{}",
        stderr(&out)
    );
    assert_eq!(finish(&project, child), "answered");

    let none = TempProject::new();
    none.file("wf.ts", ONE_AGENT);
    let ran = none
        .awf(&["run", "wf.ts", "--channel-address", "localhost"])
        .run();
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "--channel-address is where agents dial the run's TCP listener, and this run has none",
    );
    assert_has(&ran.stderr, "hint: add --channel tcp:HOST:PORT");
    let bad = none
        .awf(&[
            "run",
            "wf.ts",
            "--channel",
            "tcp",
            "--channel-address",
            "a b",
        ])
        .run();
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert_has(
        &bad.stderr,
        "`a b` is not a HOST or HOST:PORT agents can dial",
    );
}

#[test]
fn a_launcher_kept_past_its_run_is_refused_by_the_next_run_on_its_port() {
    let first = TempProject::new();
    let (child, dir) = held_run(&first, "tcp");
    let old = launch_file(&dir);
    assert_eq!(finish(&first, child), "answered");
    let stale = first.path().join("copy/wfa");
    // Nothing listens after the run.
    let out = call(&stale, "x");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_has(&stderr(&out), "cannot reach the workflow run at 127.0.0.1:");

    // A new run on the same port shows another certificate: the old launcher stops at the pin.
    let address = old["tcp"]["address"].as_str().unwrap().to_owned();
    let second = TempProject::new();
    let (child, dir) = held_run(&second, &format!("tcp:{address}"));
    let new = launch_file(&dir);
    assert_eq!(new["tcp"]["address"], address);
    assert_ne!(new["tcp"]["pin"], old["tcp"]["pin"]);
    let out = call(&stale, "x");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_has(&stderr(&out), "is not the run's this launcher pins");
    // Even pinning the new certificate, the old agent and its secret are not this run's.
    let replay = first.path().join("replay");
    std::fs::create_dir_all(&replay).unwrap();
    std::os::unix::fs::symlink(std::fs::read_link(&stale).unwrap(), replay.join("wfa")).unwrap();
    let mut file = old.clone();
    file["tcp"]["pin"] = new["tcp"]["pin"].clone();
    std::fs::write(replay.join("launcher.json"), file.to_string()).unwrap();
    let out = call(&replay.join("wfa"), "x");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_has(
        &stderr(&out),
        "this launcher belongs to no agent of this run",
    );
    assert_eq!(finish(&second, child), "answered");
    assert!(second.events_of("t", "tool-called").is_empty());
    let refused = second.events_of("t", "channel-refused");
    assert!(
        refused.iter().any(|e| e["why"]
            == format!(
                "a launcher for \"{}\", no agent of this run",
                old["tcp"]["name"].as_str().unwrap()
            )),
        "{refused:?}"
    );
}

/// Runs `program args` in a pid namespace of its own (bubblewrap, as a container's processes
/// are), seeing the same files.
fn in_own_pid_namespace(program: &Path, args: &[&str]) -> Output {
    Command::new("bwrap")
        .args([
            "--dev-bind",
            "/",
            "/",
            "--unshare-pid",
            "--die-with-parent",
            "--",
        ])
        .arg(program)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn on_the_socket_the_secret_speaks_for_a_contained_process_and_only_for_one() {
    let project = TempProject::new();
    let (child, dir) = held_run(&project, "socket");
    assert!(launch_file(&dir).get("tcp").is_none());
    let launcher = dir.join("wfa");
    let socket = dir.join("s.sock");

    // Outside the agent's tree, in a pid namespace of its own, with the secret: accepted.
    let out = in_own_pid_namespace(&launcher, &["tool", "echo", "--text", "contained"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "echo contained for a\n",
        "{}",
        stderr(&out)
    );
    // The same process without the secret (the socket named directly): refused.
    let wfa = std::fs::read_link(&launcher).unwrap();
    let socket_arg = socket.to_str().unwrap();
    let out = in_own_pid_namespace(
        &wfa,
        &["--channel", socket_arg, "tool", "echo", "--text", "x"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_has(&stderr(&out), "refused (forbidden)");
    // Beside awf (this test process, as another agent would be), even with the secret: refused.
    let out = call(&launcher, "beside");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_has(
        &stderr(&out),
        "the agent's secret speaks only for a process in a container",
    );

    assert_eq!(finish(&project, child), "answered");
    assert_eq!(project.events_of("t", "tool-called").len(), 1);
    let refused = project.events_of("t", "channel-refused");
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused
        .iter()
        .all(|e| e["agent"] == "a" && e["pid"].is_number()));
}
