//! A sandbox's network, end to end: the run's proxy (`awf_runtime::sandbox::network::Proxy`) on
//! the host, the built `wfa __bridge` inside `bwrap --unshare-net`, curl as the agent. What
//! reached the host is read from the servers' own logs, never from the box.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::thread;

use awf_runtime::sandbox::network::{Grant, Proxy};

use crate::util::{assert_has, wfa_bin};

/// An HTTP server on the host's 127.0.0.1 that logs each request line it gets.
pub struct Server {
    pub port: u16,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let written = log.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let log = written.clone();
                thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    let _ = reader.read_line(&mut line);
                    let mut header = String::new();
                    while reader.read_line(&mut header).unwrap_or(0) > 2 {
                        header.clear();
                    }
                    log.lock().unwrap().push(line.trim_end().to_string());
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
                    );
                });
            }
        });
        Server { port, log }
    }

    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

/// Runs `script` with sh in bubblewrap (no network of its own) under the bridge to `proxy`, as
/// a sandboxed agent is run; returns its stdout and stderr.
fn in_box(proxy: &Proxy, script: &str) -> String {
    in_box_status(proxy, script).1
}

/// As `in_box`, with the exit status first.
fn in_box_status(proxy: &Proxy, script: &str) -> (Option<i32>, String) {
    let inside = proxy.inside(&wfa_bin());
    let mut command = Command::new("bwrap");
    command
        .args([
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ])
        .args(&inside.bwrap_args)
        .arg("--")
        .args(&inside.wrapper)
        .args(["sh", "-c", script]);
    for (name, value) in &inside.env {
        command.env(name, value);
    }
    let output = command
        .output()
        .expect("bwrap runs (Debian package bubblewrap)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code(), text)
}

fn start(dir: &Path, grant: &[String]) -> Proxy {
    Proxy::start(dir, &Grant::parse(grant).unwrap(), &[]).unwrap()
}

#[test]
fn a_granted_loopback_port_is_reached_through_the_proxy_and_another_is_not() {
    let granted = Server::start();
    let other = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let proxy = start(dir.path(), &[format!("127.0.0.1:{}", granted.port)]);
    let (g, o) = (granted.port, other.port);
    let output = in_box(
        &proxy,
        &format!(
            "curl -sS -m 5 http://127.0.0.1:{g}/direct; echo \" direct=$?\"
             curl -sS -m 5 --noproxy '' -x \"$HTTP_PROXY\" http://127.0.0.1:{g}/proxied; echo \" proxied=$?\"
             curl -sS -m 5 --noproxy '' -x \"$HTTPS_PROXY\" -p http://127.0.0.1:{g}/tunneled; echo \" tunneled=$?\"
             curl -sS -m 5 --noproxy '' -x \"$HTTP_PROXY\" -o /dev/null -w 'other-proxied=%{{http_code}}' http://127.0.0.1:{o}/other; echo
             curl -sS -m 5 --noproxy '' -x \"$HTTPS_PROXY\" -p http://127.0.0.1:{o}/other-tunneled; echo \" other-tunneled=$?\"
             curl -sS -m 5 http://127.0.0.1:{o}/other-direct; echo \" other-direct=$?\""
        ),
    );
    assert_has(&output, "hello direct=0");
    assert_has(&output, "hello proxied=0");
    assert_has(&output, "hello tunneled=0");
    assert_has(&output, "other-proxied=403");
    // curl: 56 is the proxy's CONNECT refused; 7 is no route (nothing listens in the box).
    assert_has(&output, "other-tunneled=56");
    assert_has(&output, "other-direct=7");
    assert_eq!(
        granted.log(),
        vec![
            "GET /direct HTTP/1.1",
            "GET /proxied HTTP/1.1",
            "GET /tunneled HTTP/1.1"
        ],
        "{output}"
    );
    assert!(other.log().is_empty(), "{:?}\n{output}", other.log());
    assert_eq!(
        proxy.refused(),
        vec![
            format!("GET 127.0.0.1:{o}: not granted"),
            format!("CONNECT 127.0.0.1:{o}: not granted"),
        ]
    );
}

#[test]
fn without_a_grant_nothing_is_reached() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let proxy = start(dir.path(), &[]);
    let port = server.port;
    let output = in_box(
        &proxy,
        &format!(
            "curl -sS -m 5 http://127.0.0.1:{port}/direct; echo \" direct=$?\"
             curl -sS -m 5 --noproxy '' -x \"$HTTP_PROXY\" -o /dev/null -w 'proxied=%{{http_code}}' http://127.0.0.1:{port}/proxied; echo
             curl -sS -m 5 https://example.com/; echo \" outside=$?\""
        ),
    );
    assert_has(&output, "direct=7");
    assert_has(&output, "proxied=403");
    assert_has(&output, "outside=56");
    assert!(server.log().is_empty(), "{:?}\n{output}", server.log());
}

#[test]
fn the_bridge_ends_as_its_program_ended() {
    let dir = tempfile::tempdir().unwrap();
    let proxy = start(dir.path(), &[]);
    assert_eq!(in_box_status(&proxy, "exit 7").0, Some(7));
    let output = Command::new(wfa_bin())
        .args(["__bridge", "--listen", "127.0.0.1:1", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(125));
    assert_has(
        &String::from_utf8_lossy(&output.stderr),
        "write ADDRESS=SOCKET",
    );
}
