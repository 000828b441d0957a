//! Host APIs end to end: each workflow under `tests/js/host/` is run with the built `awf` and its
//! result compared with the `<name>.expected.json` beside it; `fetch.ts` talks to an HTTP server
//! this file starts on 127.0.0.1 (no traffic leaves the machine); `orphans.ts` leaves children
//! running and the test checks none outlives the run; `compat.mjs` must print the same under awf
//! and under node.
//!
//! Finds `awf` through util.rs (`$AWF_BIN_DIR`, by default beside the test binary) and `node` on PATH.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Longest one workflow may run here before the test fails.
const RUN_BOUND: Duration = Duration::from_secs(60);
/// Longest a test server's handler keeps a slow answer waiting.
const SLOW_ANSWER: Duration = Duration::from_secs(3);

fn host_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("js/host")
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `program args` in a fresh temp folder (records land there), bounded by `RUN_BOUND`.
fn run(program: &Path, args: &[String], envs: &[(&str, &str)]) -> Ran {
    let cwd = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(cwd.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let err = thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > RUN_BOUND {
            let _ = child.kill();
            panic!(
                "{} {args:?} ran longer than {RUN_BOUND:?}",
                program.display()
            );
        }
        thread::sleep(Duration::from_millis(10));
    };
    Ran {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        elapsed: started.elapsed(),
    }
}

fn run_workflow(name: &str, words: &[String], envs: &[(&str, &str)]) -> (Value, Ran) {
    let file = host_dir().join(name);
    let mut args = vec!["run".to_string(), file.display().to_string()];
    if !words.is_empty() {
        args.push("--".into());
        args.extend(words.iter().cloned());
    }
    let ran = run(&crate::util::awf_bin(), &args, envs);
    assert_eq!(ran.code, 0, "awf run {name} failed:\n{}", ran.stderr);
    let value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("{name} printed no JSON ({e}):\n{}", ran.stdout));
    (value, ran)
}

/// The expected output; when there is none yet, the failure shows what the workflow gave.
fn expected(name: &str, got: &Value) -> Value {
    let path = host_dir().join(format!("{name}.expected.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; the workflow gave:\n{}",
            path.display(),
            serde_json::to_string_pretty(got).unwrap()
        )
    });
    serde_json::from_str(&text).unwrap()
}

/// Compares key by key, so a failure names the keys that differ.
fn assert_same(name: &str, got: &Value, want: &Value) {
    if got == want {
        return;
    }
    let mut differing = Vec::new();
    if let (Some(g), Some(w)) = (got.as_object(), want.as_object()) {
        for key in g.keys().chain(w.keys()) {
            if g.get(key) != w.get(key) && !differing.contains(key) {
                differing.push(key.clone());
            }
        }
    }
    let show = |v: &Value| {
        differing
            .iter()
            .map(|k| format!("  {k}: {}", v.get(k).unwrap_or(&Value::Null)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    panic!(
        "{name}: output differs at {differing:?}\ngot:\n{}\nwant:\n{}",
        show(got),
        show(want)
    );
}

fn check(name: &str, words: &[String], envs: &[(&str, &str)]) {
    let (got, _) = run_workflow(&format!("{name}.ts"), words, envs);
    assert_same(name, &got, &expected(name, &got));
}

#[test]
fn fs_promises_sync_and_callbacks() {
    check("fs", &[], &[]);
}

#[test]
fn path_util_events_buffer_os_process() {
    check("node_modules", &[], &[]);
}

#[test]
fn web_globals() {
    check("web", &[], &[]);
}

#[test]
fn child_processes() {
    check("child_process", &[], &[("HOST_API_TEST", "set")]);
}

#[test]
fn fetch_against_a_local_server() {
    let server = TestServer::start();
    // A port nobody listens on: bound, then let go.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let words = [server.port.to_string(), closed.to_string()];
    check("fetch", &words, &[]);
}

#[test]
fn no_child_outlives_its_run() {
    let (got, ran) = run_workflow("orphans.ts", &[], &[]);
    let pids: Vec<i32> = got["pids"]
        .as_array()
        .expect("orphans.ts returns { pids }")
        .iter()
        .map(|p| p.as_i64().unwrap() as i32)
        .collect();
    assert_eq!(pids.len(), 4, "{got}");
    // SIGTERM, and SIGKILL after the grace, happen before awf exits.
    assert!(
        ran.elapsed < Duration::from_secs(15),
        "took {:?}",
        ran.elapsed
    );
    let deadline = Instant::now() + Duration::from_secs(3);
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            // A zombie waiting for its reaper is gone for this purpose.
            .map(|stat| !stat.contains(") Z "))
            .unwrap_or(false)
    };
    while Instant::now() < deadline && pids.iter().any(|p| alive(*p)) {
        thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
    for pid in &left {
        // SAFETY: clean up after a failed test; these are the test's own processes.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert!(
        left.is_empty(),
        "still running after the run ended: {left:?}"
    );
}

#[test]
fn compat_file_prints_the_same_under_awf_and_node() {
    let file = host_dir().join("compat.mjs");
    let (awf_value, _) = run_workflow("compat.mjs", &[], &[]);
    let node = which("node").expect(
        "node is needed for the compatibility test: install Node.js 20 (apt-get install nodejs)",
    );
    let runner = host_dir().join("compat-node.mjs");
    let ran = run(
        &node,
        &[runner.display().to_string(), file.display().to_string()],
        &[],
    );
    assert_eq!(ran.code, 0, "node failed:\n{}", ran.stderr);
    let node_value: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_same("compat.mjs (awf vs node)", &awf_value, &node_value);
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(program))
        .find(|p| p.is_file())
}

/// An HTTP/1.1 server on 127.0.0.1 with the routes fetch.ts asks for; one request per
/// connection. Stops when dropped.
struct TestServer {
    port: u16,
    stop: Arc<AtomicBool>,
    accepting: Option<JoinHandle<()>>,
}

impl TestServer {
    fn start() -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let accepting = thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        thread::spawn(move || serve(stream));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        TestServer {
            port,
            stop,
            accepting: Some(accepting),
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.accepting.take() {
            let _ = thread.join();
        }
    }
}

struct HttpRequest {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn read_request(stream: &TcpStream) -> Option<HttpRequest> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(HttpRequest {
        method,
        path,
        headers,
        body,
    })
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn serve(mut stream: TcpStream) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    let path = request.path.split('?').next().unwrap_or("").to_string();
    match path.as_str() {
        "/json" => respond(
            &mut stream,
            "200 OK",
            &[("content-type", "application/json")],
            br#"{"hello":"world","n":[1,2]}"#,
        ),
        "/text" => respond(
            &mut stream,
            "200 OK",
            &[("content-type", "text/plain; charset=utf-8")],
            "plain text, é".as_bytes(),
        ),
        "/status/404" => respond(&mut stream, "404 Not Found", &[], b"status 404"),
        "/status/503" => respond(&mut stream, "503 Service Unavailable", &[], b"status 503"),
        "/echo" => {
            let echo = json!({
                "method": request.method,
                "path": request.path,
                "contentType": request.header("content-type"),
                "xTest": request.header("x-test"),
                "accept": request.header("accept"),
                "body": String::from_utf8_lossy(&request.body),
            });
            respond(
                &mut stream,
                "200 OK",
                &[("content-type", "application/json")],
                echo.to_string().as_bytes(),
            )
        }
        "/redirect" => respond(&mut stream, "302 Found", &[("location", "/json")], b""),
        "/loop" => respond(&mut stream, "302 Found", &[("location", "/loop")], b""),
        "/see-other" => respond(&mut stream, "303 See Other", &[("location", "/echo")], b""),
        "/chunks" => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n",
            );
            for chunk in ["one ", "two ", "three"] {
                let _ = write!(stream, "{:x}\r\n{chunk}\r\n", chunk.len());
                let _ = stream.flush();
                thread::sleep(Duration::from_millis(10));
            }
            let _ = stream.write_all(b"0\r\n\r\n");
        }
        "/slow" => {
            thread::sleep(SLOW_ANSWER);
            respond(&mut stream, "200 OK", &[], b"late");
        }
        "/slow-body" => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc");
            let _ = stream.flush();
            thread::sleep(SLOW_ANSWER);
            let _ = stream.write_all(b"defghij");
        }
        _ => respond(&mut stream, "404 Not Found", &[], b"no route"),
    }
}
