//! `wfa` against a fake run: a Unix socket in a temp folder that records the request line it gets
//! and sends back a canned response. Each test checks the line wfa sent and wfa's stdout, stderr
//! and exit code.
//!
//! Finds `wfa` through util.rs (`$AWF_BIN_DIR`, by default beside the test binary).

use std::io::{self, Read, Write};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::assert_has;

/// `limits::MAX_PAYLOAD_BYTES`.
const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;
/// Longest any single wfa run may take here before the test fails.
const RUN_BOUND: Duration = Duration::from_secs(20);

fn wfa_path() -> PathBuf {
    crate::util::wfa_bin()
}

/// What standard input wfa gets.
enum Input {
    /// `/dev/null`: ends at once.
    Null,
    /// A pipe that gets these bytes, then closes (a heredoc).
    Text(Vec<u8>),
    /// A pipe nobody writes or closes while wfa runs, as a harness shell may hand down.
    IdlePipe,
}

/// What wfa did.
#[derive(Debug)]
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// One agent's socket in a temp folder, no server yet.
struct FakeRun {
    _dir: tempfile::TempDir,
    socket: PathBuf,
    listener: UnixListener,
}

impl FakeRun {
    fn new() -> FakeRun {
        let dir = tempfile::Builder::new()
            .prefix("awf-")
            .tempdir_in("/tmp")
            .unwrap();
        let socket = dir.path().join("s.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        FakeRun {
            _dir: dir,
            socket,
            listener,
        }
    }

    /// Serves one connection: reads the request to the client's half-close, then sends
    /// `response` as it is (nothing when empty) and closes. Gives back the request line.
    fn serve_once(&self, response: &str) -> JoinHandle<String> {
        let listener = self.listener.try_clone().unwrap();
        let response = response.to_owned();
        thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream.set_read_timeout(Some(RUN_BOUND)).unwrap();
            let mut request = String::new();
            stream.read_to_string(&mut request).unwrap();
            stream.write_all(response.as_bytes()).unwrap();
            request
        })
    }

    /// Serves one connection per response, in turn; gives back the request lines.
    fn serve_in_turn(&self, responses: &[String]) -> JoinHandle<Vec<String>> {
        let listener = self.listener.try_clone().unwrap();
        let responses = responses.to_vec();
        thread::spawn(move || {
            responses
                .iter()
                .map(|response| {
                    let (mut stream, _) = listener.accept().unwrap();
                    stream.set_read_timeout(Some(RUN_BOUND)).unwrap();
                    let mut request = String::new();
                    stream.read_to_string(&mut request).unwrap();
                    stream.write_all(response.as_bytes()).unwrap();
                    request
                })
                .collect()
        })
    }

    /// Runs wfa as the agent's launcher would, against this socket.
    fn wfa(&self, args: &[&str], input: Input) -> Ran {
        let mut command = Command::new(wfa_path());
        command.arg("--channel").arg(&self.socket).args(args);
        run(command, input)
    }

    /// Runs wfa against a single-connection server; gives back the request line it sent. Use once
    /// per `FakeRun`: a server wfa never reached is unblocked by a connection of our own.
    fn exchange(self, args: &[&str], input: Input, response: &str) -> (String, Ran) {
        let server = self.serve_once(response);
        let ran = self.wfa(args, input);
        // Unblock a server wfa never connected to, so the test fails rather than hangs.
        let _knock = std::os::unix::net::UnixStream::connect(&self.socket);
        (server.join().unwrap(), ran)
    }

    /// Whether anyone has connected since the last accept.
    fn was_called(&self) -> bool {
        self.listener.set_nonblocking(true).unwrap();
        let called = match self.listener.accept() {
            Ok(_) => true,
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => false,
            Err(error) => panic!("accept: {error}"),
        };
        self.listener.set_nonblocking(false).unwrap();
        called
    }
}

fn run(mut command: Command, input: Input) -> Ran {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command.stdin(match input {
        Input::Null => Stdio::null(),
        Input::Text(_) | Input::IdlePipe => Stdio::piped(),
    });
    let mut child = command.spawn().unwrap();
    let stdin = child.stdin.take();
    // Kept open until wfa ends when idle; written from a thread otherwise, since wfa may stop
    // reading (over the limit) and exit before taking it all.
    let _idle = match (input, stdin) {
        (Input::Text(bytes), Some(mut pipe)) => {
            thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
            None
        }
        (_, stdin) => stdin,
    };
    let code = wait_bounded(&mut child);
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    Ran {
        code,
        stdout,
        stderr,
    }
}

/// The child's exit code; kills it and fails the test after [`RUN_BOUND`]. Output here is small,
/// so the pipes cannot fill while wfa runs.
fn wait_bounded(child: &mut Child) -> i32 {
    let deadline = Instant::now() + RUN_BOUND;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().expect("wfa ended by a signal");
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("wfa still runs after {RUN_BOUND:?}");
        }
        thread::sleep(Duration::from_millis(1));
    }
}

fn line(value: Value) -> String {
    format!("{value}\n")
}

fn ok(stdout: &str) -> String {
    line(json!({"version": 1, "kind": "ok", "stdout": stdout}))
}

#[test]
fn a_tool_call_sends_its_flags_as_words_and_prints_the_result() {
    let fake = FakeRun::new();
    let args = ["tool", "add_finding", "--file", "src/a.ts", "--line", "41"];
    let (request, ran) = fake.exchange(&args, Input::Null, &ok("Recorded; 1 so far."));
    assert_eq!(
        request,
        "{\"version\":1,\"command\":\"tool\",\"name\":\"add_finding\",\
         \"args\":[\"--file\",\"src/a.ts\",\"--line\",\"41\"],\"stdin\":null}\n"
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
        (0, "Recorded; 1 so far.\n", "")
    );
}

#[test]
fn json_input_on_stdin_goes_with_the_call() {
    let fake = FakeRun::new();
    let input = "{\"id\": \"b2\", \"labels\": [\"ops\", \"cron\"]}\n";
    let stdin = Input::Text(input.as_bytes().to_vec());
    let (request, ran) = fake.exchange(&["tool", "label_item"], stdin, &ok(""));
    assert_eq!(
        serde_json::from_str::<Value>(&request).unwrap(),
        json!({"version": 1, "command": "tool", "name": "label_item", "args": [], "stdin": input})
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""));
}

#[test]
fn an_answer_on_stdin_goes_with_the_result() {
    let fake = FakeRun::new();
    let stdin = Input::Text(b"{\"verdict\": \"ok\"}".to_vec());
    let (request, ran) = fake.exchange(&["result", "t3"], stdin, &ok("answer accepted"));
    assert_eq!(
        serde_json::from_str::<Value>(&request).unwrap(),
        json!({"version": 1, "command": "result", "turn": "t3", "args": [],
               "stdin": "{\"verdict\": \"ok\"}"})
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (0, "answer accepted\n"));
}

#[test]
fn an_idle_inherited_stdin_is_not_waited_for_when_the_input_is_not_json() {
    let fake = FakeRun::new();
    let server = fake.serve_in_turn(&[ok("nothing"), ok("None.")]);
    let ran = fake.wfa(&["tool", "list_findings"], Input::IdlePipe);
    let requests = server.join().unwrap();
    let asked: Value = serde_json::from_str(&requests[0]).unwrap();
    assert_eq!(asked["command"], "expects");
    assert_eq!(asked["tool"], "list_findings");
    assert_eq!(
        serde_json::from_str::<Value>(&requests[1]).unwrap()["stdin"],
        Value::Null
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (0, "None.\n"));
}

#[test]
fn words_after_the_name_mean_stdin_is_not_read() {
    let fake = FakeRun::new();
    let stdin = Input::Text(b"{\"ignored\": true}".to_vec());
    let (request, _) = fake.exchange(&["result", "t3", "--verdict", "ok"], stdin, &ok(""));
    assert_eq!(
        request,
        line(json!({"version": 1, "command": "result", "turn": "t3",
                    "args": ["--verdict", "ok"], "stdin": null}))
    );
}

#[test]
fn tool_alone_asks_for_the_listing() {
    let fake = FakeRun::new();
    let listing = "You have 2 tools.\n- add_finding\n- list_findings\n";
    let (request, ran) = fake.exchange(&["tool"], Input::Null, &ok(listing));
    assert_eq!(request, "{\"version\":1,\"command\":\"tools\"}\n");
    assert_eq!((ran.code, ran.stdout.as_str()), (0, listing));
}

#[test]
fn waiting_sends_its_reason_and_timeout() {
    let fake = FakeRun::new();
    let args = [
        "waiting",
        "t3",
        "--reason",
        "the tests still run",
        "--timeout",
        "2m",
    ];
    let (request, ran) = fake.exchange(&args, Input::Null, &ok("granted until 12:04:00"));
    assert_eq!(
        request,
        line(json!({"version": 1, "command": "waiting", "turn": "t3",
                    "reason": "the tests still run", "timeout": "2m"}))
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str()),
        (0, "granted until 12:04:00\n")
    );
}

#[test]
fn a_refusal_exits_2_with_its_code_details_and_hint() {
    let fake = FakeRun::new();
    let response = line(json!({
        "version": 1, "kind": "refused", "code": "invalid-input",
        "message": "the input does not fit the tool's schema",
        "details": ["/line: must be >= 1, got 0", "/problem: required, missing"],
        "hint": "call again with the input fixed; `wfa tool` alone lists each tool's flags",
    }));
    let args = ["tool", "add_finding", "--file", "src/a.ts", "--line", "0"];
    let (_, ran) = fake.exchange(&args, Input::Null, &response);
    assert_eq!(ran.code, 2);
    assert_eq!(ran.stdout, "");
    assert_eq!(
        ran.stderr,
        "wfa: add_finding: refused (invalid-input): the input does not fit the tool's schema
  /line: must be >= 1, got 0
  /problem: required, missing

hint: call again with the input fixed; `wfa tool` alone lists each tool's flags
"
    );
}

#[test]
fn a_refused_answer_names_the_turn() {
    let fake = FakeRun::new();
    let response = line(json!({
        "version": 1, "kind": "refused", "code": "closed-turn",
        "message": "turn t3 is over: its answer was accepted", "details": [], "hint": null,
    }));
    let (_, ran) = fake.exchange(&["result", "t3", "--verdict", "ok"], Input::Null, &response);
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        "wfa: t3: refused (closed-turn): turn t3 is over: its answer was accepted\n"
    );
}

#[test]
fn a_failure_exits_1_with_its_code_and_hint() {
    let fake = FakeRun::new();
    let response = line(json!({
        "version": 1, "kind": "failed", "code": "may-have-run",
        "message": "add_finding timed out after 30s and did not stop",
        "hint": "check with list_findings before calling again",
    }));
    let (_, ran) = fake.exchange(
        &["tool", "add_finding", "--line", "3"],
        Input::Null,
        &response,
    );
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr,
        "wfa: add_finding: failed (may-have-run): add_finding timed out after 30s and did not stop

hint: check with list_findings before calling again
"
    );
}

#[test]
fn a_missing_socket_is_unreachable() {
    let fake = FakeRun::new();
    std::fs::remove_file(&fake.socket).unwrap();
    let ran = fake.wfa(&["tool"], Input::Null);
    assert_eq!(ran.code, 4);
    let expected = format!(
        "wfa: cannot reach the workflow run at {}: no socket at that path\n\nhint: the run this \
         launcher belongs to is over: a launcher works only while its run runs. To go on, start \
         a new run (`awf run FILE`",
        fake.socket.display()
    );
    assert!(ran.stderr.starts_with(&expected), "{}", ran.stderr);
}

#[test]
fn a_socket_nobody_listens_on_is_unreachable() {
    let fake = FakeRun::new();
    let socket = fake.socket.clone();
    drop(fake.listener);
    let mut command = Command::new(wfa_path());
    command.arg("--channel").arg(&socket).arg("tool");
    let ran = run(command, Input::Null);
    assert_eq!(ran.code, 4);
    assert_has(&ran.stderr, ": nothing listens on the socket\n");
}

#[test]
fn a_run_that_closes_without_answering_is_unreachable() {
    let fake = FakeRun::new();
    let (_, ran) = fake.exchange(&["tool", "add_finding"], Input::Null, "");
    assert_eq!(ran.code, 4);
    assert!(
        ran.stderr.contains(
            "the run closed the connection without a response; the request was sent, so it may \
             have been carried out\n"
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_malformed_response_is_unreachable() {
    for (response, why) in [
        ("hello\n", "malformed response: not JSON: "),
        (
            "{\"version\":2,\"kind\":\"ok\",\"stdout\":\"\"}\n",
            "malformed response: protocol version 2 is not supported",
        ),
        (
            "{\"version\":1,\"kind\":\"ok\",\"stdout\":\"\",\"extra\":1}\n",
            "malformed response: unknown field `extra`",
        ),
    ] {
        let (_, ran) = FakeRun::new().exchange(&["tool"], Input::Null, response);
        assert_eq!(ran.code, 4, "{response}");
        assert!(ran.stderr.contains(why), "{}", ran.stderr);
    }
}

#[test]
fn usage_errors_exit_3_and_send_nothing() {
    let fake = FakeRun::new();
    let too_long = "r".repeat(2049);
    for args in [
        vec!["frob"],
        vec!["result"],
        vec!["tool", "--file", "a"],
        vec!["waiting", "t3"],
        vec!["waiting", "t3", "--reason", too_long.as_str()],
    ] {
        let ran = fake.wfa(&args, Input::Null);
        assert_eq!(ran.code, 3, "{args:?}");
        assert!(ran.stderr.starts_with("wfa: "), "{}", ran.stderr);
        assert!(ran.stderr.contains("\nusage: wfa tool"), "{}", ran.stderr);
        assert!(!fake.was_called(), "{args:?}");
    }
}

#[test]
fn stdin_over_the_payload_limit_is_refused_without_sending() {
    let fake = FakeRun::new();
    let input = Input::Text(vec![b' '; MAX_PAYLOAD_BYTES + 1]);
    let ran = fake.wfa(&["tool", "label_item"], input);
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        format!(
            "wfa: label_item: refused (request-too-large): standard input is over the limit of \
             {MAX_PAYLOAD_BYTES} bytes\n"
        )
    );
    assert!(!fake.was_called());
}

#[test]
fn without_a_launcher_there_is_no_run_to_reach() {
    let mut command = Command::new(wfa_path());
    command
        .args(["tool", "list_findings"])
        .env_remove("AWF_WFA");
    let ran = run(command, Input::Null);
    assert_eq!(ran.code, 4);
    assert!(
        ran.stderr.starts_with(
            "wfa: no workflow run to reach: wfa must be run through an agent's launcher\n"
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn help_lists_usage_exit_codes_and_codes() {
    let mut command = Command::new(wfa_path());
    command.arg("--help");
    let ran = run(command, Input::Null);
    assert_eq!(ran.code, 0);
    for needle in [
        "usage: wfa tool",
        "exit codes:\n  0  done",
        "  busy ",
        "  may-have-run ",
    ] {
        assert!(ran.stdout.contains(needle), "{needle}: {}", ran.stdout);
    }
}

/// `wfa result <turn> --help` asks the run how to answer that turn, and sends no answer the run
/// could judge or record; `wfa result --help` and `wfa tool --help` print wfa's help without
/// reaching the run.
#[test]
fn result_turn_help_asks_how_to_answer_and_sends_no_answer() {
    let fake = FakeRun::new();
    let taught = "When your answer is ready, send it with this command:\n";
    let (request, ran) = fake.exchange(&["result", "t3", "--help"], Input::Null, &ok(taught));
    assert_eq!(
        serde_json::from_str::<Value>(&request).unwrap(),
        json!({"version": 1, "command": "result-help", "turn": "t3"})
    );
    assert_eq!(
        (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
        (0, taught, "")
    );
    let fake = FakeRun::new();
    for args in [["result", "--help"], ["tool", "--help"], ["result", "-h"]] {
        let ran = fake.wfa(&args, Input::Null);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        assert_has(&ran.stdout, "usage: wfa tool");
        assert_has(&ran.stdout, "wfa result <turn> --help");
        assert!(!fake.was_called(), "{args:?}");
    }
}
