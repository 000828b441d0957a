//! The agent channel against a real run: bad answers through `wfa`, malformed requests straight
//! on the socket, a connection that sends nothing, many connections at once, and a launcher
//! removed with its run.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{awf_bin, wait_for_file, TempProject};

const TYPED_TURN: &str = r#"export default defineWorkflow({
  meta: { name: "t", description: "A typed turn." },
  async run(wf) {
    const a = await wf.agents.open({ key: "a", runtime: { command: ["./agent.sh"] } });
    const schema = typed(Type.Object({ word: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }) }));
    return (await a.run({ prompt: "Pick.", schema })).outcome;
  },
});
"#;

/// Runs `wfa` commands from inside a turn, each line `name|exit|stderr`, then answers right.
fn agent_trying(attempts: &[(&str, &str)]) -> String {
    let mut script = String::from("#!/bin/sh\ncat > /dev/null\nw=\"$AWF_WFA\"\n");
    for (name, command) in attempts {
        script.push_str(&format!(
            "err=$({command} 2>&1 >/dev/null); printf '%s|%s|%s\\n@@\\n' '{name}' \"$?\" \"$err\" >> tries.txt\n"
        ));
    }
    script.push_str("\"$w\" result \"$AWF_TURN\" --word fine --count 1\n");
    script
}

fn tries(project: &TempProject) -> Vec<(String, String, String)> {
    project
        .read("tries.txt")
        .split("\n@@\n")
        .filter(|t| !t.is_empty())
        .map(|t| {
            let mut parts = t.splitn(3, '|');
            (
                parts.next().unwrap().to_string(),
                parts.next().unwrap().to_string(),
                parts.next().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn bad_answers_are_refused_and_the_turn_stays_open() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            &agent_trying(&[
                (
                    "unknown flag",
                    "\"$w\" result \"$AWF_TURN\" --word a --count 1 --colour red",
                ),
                ("missing flag", "\"$w\" result \"$AWF_TURN\" --word a"),
                (
                    "wrong type",
                    "\"$w\" result \"$AWF_TURN\" --word a --count many",
                ),
                (
                    "malformed json",
                    "printf '{\"word\": ' | \"$w\" result \"$AWF_TURN\"",
                ),
                ("empty", "printf '\\n' | \"$w\" result \"$AWF_TURN\""),
                (
                    "too large",
                    "head -c 1100000 /dev/zero | tr '\\0' a | \"$w\" result \"$AWF_TURN\"",
                ),
                ("unknown turn", "\"$w\" result t99 --word a --count 1"),
                ("no turn id", "\"$w\" result"),
                ("unknown command", "\"$w\" frobnicate"),
            ]),
        )
        .file("wf.ts", TYPED_TURN);
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json()["value"],
        json!({"word": "fine", "count": 1})
    );
    let tries = tries(&project);
    let expect = |name: &str, exit: &str, needle: &str| {
        let (_, code, err) = tries
            .iter()
            .find(|t| t.0 == name)
            .unwrap_or_else(|| panic!("{name} was tried"));
        assert_eq!(code, exit, "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err:?} lacks {needle:?}");
    };
    expect(
        "unknown flag",
        "2",
        "--colour: unknown option (accepted: --word, --count)",
    );
    expect("missing flag", "2", "value.count: required, missing");
    expect(
        "wrong type",
        "2",
        "value.count: expected integer; got \"many\"",
    );
    expect("malformed json", "2", "not valid JSON");
    expect("empty", "2", "refused (invalid-result)");
    expect("too large", "2", "request-too-large");
    expect(
        "unknown turn",
        "2",
        "refused (unknown-turn): you have no turn t99",
    );
    expect("no turn id", "3", "missing the turn id");
    expect("unknown command", "3", "frobnicate: unknown command");
    let refused = project
        .events_of("t", "answer-submitted")
        .iter()
        .filter(|e| e["accepted"] == false)
        .count();
    assert_eq!(refused, 5, "refusals of the run itself are recorded");
}

#[test]
fn an_answer_after_the_accepted_one_is_refused_as_closed() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\n\"$AWF_WFA\" result \"$AWF_TURN\" --word one --count 1\n\"$AWF_WFA\" result \"$AWF_TURN\" --word two --count 2 2> second.txt\necho \"exit=$?\" >> second.txt\n",
        )
        .file("wf.ts", TYPED_TURN);
    let ran = project.awf(&["run", "wf.ts"]).run();
    assert_eq!(
        ran.assert_success().json()["value"],
        json!({"word": "one", "count": 1})
    );
    let second = project.read("second.txt");
    assert!(second.contains("refused (closed-turn)"), "{second}");
    assert!(second.ends_with("exit=2\n"), "{second}");
}

/// Sends raw bytes on a socket, half-closes, reads the one response line.
fn exchange(socket: &Path, bytes: &[u8]) -> Value {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // The server may answer an oversized request before reading all of it, and close.
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

/// A run whose agent relays a socket of its own to its agent socket (only the agent's processes
/// may use that: tests/fixtures/helpers/relay.js runs as one), writes the relay's path to
/// `socket.txt`, then waits for `go` to answer.
fn waiting_run(project: &TempProject) -> (std::process::Child, PathBuf) {
    let relay = crate::util::fixture("helpers/relay.js");
    project
        .script(
            "agent.sh",
            &format!("#!/bin/sh\ncat > /dev/null\nnode {} \"$(dirname \"$AWF_WFA\")/s.sock\" \"$PWD/relay.sock\" &\nwhile [ ! -e relay.sock.ready ]; do sleep 0.02; done\necho \"$PWD/relay.sock\" > socket.tmp && mv socket.tmp socket.txt\nwhile [ ! -e go ]; do sleep 0.02; done\n\"$AWF_WFA\" result \"$AWF_TURN\" --word fine --count 1\n", relay.display()),
        )
        .file("wf.ts", TYPED_TURN);
    let child = std::process::Command::new(awf_bin())
        .args(["run", "wf.ts", "--timeout", "60s"])
        .current_dir(project.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_file(&project.path().join("socket.txt"), Duration::from_secs(20));
    let socket = PathBuf::from(project.read("socket.txt").trim());
    (child, socket)
}

fn finish(project: &TempProject, mut child: std::process::Child) -> Value {
    std::fs::write(project.path().join("go"), "").unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(child.wait().unwrap().success());
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn malformed_requests_are_refused_with_their_code_and_the_server_goes_on() {
    let project = TempProject::new();
    let (child, socket) = waiting_run(&project);
    let code = |response: &Value| response["code"].as_str().unwrap_or("").to_string();
    assert_eq!(code(&exchange(&socket, b"not json\n")), "invalid-request");
    assert_eq!(
        code(&exchange(
            &socket,
            b"{\"version\":1,\"command\":\"dance\"}\n"
        )),
        "invalid-request"
    );
    assert_eq!(
        code(&exchange(
            &socket,
            b"{\"version\":9,\"command\":\"tools\"}\n"
        )),
        "unsupported-version"
    );
    assert_eq!(
        code(&exchange(
            &socket,
            b"{\"version\":1,\"command\":\"tools\",\"extra\":1}\n"
        )),
        "invalid-request"
    );
    // An oversized raw line is refused `request-too-large` by the server before it is read
    // whole; through the relay the early close resets the relay's side, so that case is
    // `channel::bad_answers_are_refused_and_the_turn_stays_open` ("too large", through wfa).
    // A connection that sends nothing does not hold up the next one.
    let silent = UnixStream::connect(&socket).unwrap();
    let listing = exchange(&socket, b"{\"version\":1,\"command\":\"tools\"}\n");
    assert_eq!(listing["kind"], "ok", "{listing}");
    drop(silent);
    let outcome = finish(&project, child);
    assert_eq!(outcome["value"], json!({"word": "fine", "count": 1}));
}

#[test]
fn thirty_connections_at_once_are_all_answered() {
    let project = TempProject::new();
    let (child, socket) = waiting_run(&project);
    let handles: Vec<_> = (0..30)
        .map(|i| {
            let socket = socket.clone();
            std::thread::spawn(move || {
                let request = if i % 2 == 0 {
                    b"{\"version\":1,\"command\":\"tools\"}\n".to_vec()
                } else {
                    b"{\"version\":1,\"command\":\"result\",\"turn\":\"t1\",\"args\":[\"--count\",\"0\"],\"stdin\":null}\n".to_vec()
                };
                exchange(&socket, &request)
            })
        })
        .collect();
    let responses: Vec<Value> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(responses.iter().filter(|r| r["kind"] == "ok").count(), 15);
    assert_eq!(
        responses
            .iter()
            .filter(|r| r["code"] == "invalid-result" || r["code"] == "unknown-turn")
            .count(),
        15
    );
    finish(&project, child);
}

#[test]
fn a_launcher_is_gone_with_its_run() {
    let project = TempProject::new();
    project
        .script(
            "agent.sh",
            "#!/bin/sh\ncat > /dev/null\nprintf %s \"$AWF_WFA\" > launcher.txt\n\"$AWF_WFA\" result \"$AWF_TURN\" --word fine --count 1\n",
        )
        .file("wf.ts", TYPED_TURN);
    project.awf(&["run", "wf.ts"]).run().assert_success();
    let launcher = project.read("launcher.txt");
    assert!(launcher.starts_with("/tmp/awf-"), "{launcher}");
    assert!(
        std::fs::symlink_metadata(&launcher).is_err(),
        "{launcher} is still there after its run ended"
    );
}
