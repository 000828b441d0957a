//! The proxy against real sockets: a TCP server on the host's loopback, clients on the Unix
//! sockets as the bridge would be.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::thread;

use super::*;

/// A server on 127.0.0.1 that answers each connection with what it read of its first line,
/// and tells the test each first line it got.
fn server() -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tell, heard) = mpsc::channel();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let tell = tell.clone();
            thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let mut rest = String::new();
                while reader.read_line(&mut rest).unwrap_or(0) > 2 {}
                let _ = tell.send(line.trim_end().to_string());
                let body = format!("echo {}", line.trim_end());
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    (port, heard)
}

fn grant(entries: &[String]) -> Grant {
    Grant::parse(entries).unwrap()
}

fn exchange(socket: &Path, request: &str) -> String {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn connect_to_a_granted_port_tunnels_bytes_and_another_port_is_refused_403() {
    let (port, heard) = server();
    let (other, other_heard) = server();
    let dir = tempfile::tempdir().unwrap();
    let proxy = Proxy::start(dir.path(), &grant(&[format!("127.0.0.1:{port}")]), &[]).unwrap();

    let mut tunnel = UnixStream::connect(proxy.socket()).unwrap();
    write!(
        tunnel,
        "CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    let mut reader = BufReader::new(tunnel.try_clone().unwrap());
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    assert_eq!(status, "HTTP/1.1 200 Connection established\r\n");
    let mut blank = String::new();
    reader.read_line(&mut blank).unwrap();
    tunnel
        .write_all(b"GET /through-the-tunnel HTTP/1.1\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    reader.read_to_string(&mut response).unwrap();
    assert!(
        response.ends_with("echo GET /through-the-tunnel HTTP/1.1"),
        "{response}"
    );
    assert_eq!(heard.recv().unwrap(), "GET /through-the-tunnel HTTP/1.1");

    let refused = exchange(
        &proxy.socket(),
        &format!("CONNECT 127.0.0.1:{other} HTTP/1.1\r\n\r\n"),
    );
    assert!(
        refused.starts_with("HTTP/1.1 403 Forbidden\r\n"),
        "{refused}"
    );
    assert!(
        refused.contains(&format!(
            "127.0.0.1:{other} is not in this sandbox's network grant"
        )),
        "{refused}"
    );
    assert!(
        refused.contains(&format!("\"127.0.0.1:{other}\"")),
        "{refused}"
    );
    assert!(
        other_heard.try_recv().is_err(),
        "the other server was reached"
    );
    assert_eq!(
        proxy.refused(),
        vec![format!("CONNECT 127.0.0.1:{other}: not granted")]
    );
}

#[test]
fn plain_http_is_sent_with_the_path_alone_and_refused_for_other_hosts() {
    let (port, heard) = server();
    let dir = tempfile::tempdir().unwrap();
    let proxy = Proxy::start(dir.path(), &grant(&[format!("localhost:{port}")]), &[]).unwrap();
    let response = exchange(
        &proxy.socket(),
        &format!("GET http://localhost:{port}/a?b=1 HTTP/1.1\r\nHost: localhost:{port}\r\nProxy-Connection: keep-alive\r\n\r\n"),
    );
    assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
    assert_eq!(heard.recv().unwrap(), "GET /a?b=1 HTTP/1.1");

    let refused = exchange(
        &proxy.socket(),
        "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
    );
    assert!(refused.starts_with("HTTP/1.1 403 Forbidden"), "{refused}");
    assert!(refused.contains("example.com:80 is not in"), "{refused}");
}

#[test]
fn a_request_the_proxy_cannot_read_is_answered_400() {
    let dir = tempfile::tempdir().unwrap();
    let proxy = Proxy::start(dir.path(), &Grant::default(), &[]).unwrap();
    let response = exchange(&proxy.socket(), "GET /relative HTTP/1.1\r\n\r\n");
    assert!(
        response.starts_with("HTTP/1.1 400 Bad Request"),
        "{response}"
    );
    assert!(
        response.contains("absolute http:// URL or CONNECT"),
        "{response}"
    );
    let response = exchange(&proxy.socket(), "CONNECT nowhere HTTP/1.1\r\n\r\n");
    assert!(response.contains("CONNECT needs host:port"), "{response}");
}

#[test]
fn a_loopback_model_url_is_forwarded_as_it_is_and_granted_through_the_proxy() {
    let (port, heard) = server();
    let dir = tempfile::tempdir().unwrap();
    let model = format!("http://127.0.0.1:{port}/v1");
    let proxy = Proxy::start(dir.path(), &Grant::default(), &[model]).unwrap();
    let forward = dir.path().join(format!("f{port}.sock"));
    let response = exchange(&forward, "POST /v1/responses HTTP/1.1\r\n\r\n");
    assert!(
        response.ends_with("echo POST /v1/responses HTTP/1.1"),
        "{response}"
    );
    assert_eq!(heard.recv().unwrap(), "POST /v1/responses HTTP/1.1");

    let inside = proxy.inside(Path::new("/ctl/wfa"));
    assert_eq!(
        inside.wrapper,
        vec![
            "/ctl/wfa".to_string(),
            "__bridge".into(),
            "--listen".into(),
            format!("127.0.0.1:3128={}", proxy.socket().display()),
            "--listen".into(),
            format!("127.0.0.1:{port}={}", forward.display()),
            "--".into(),
        ]
    );
    assert!(inside.env.contains(&(
        "HTTPS_PROXY".to_string(),
        "http://127.0.0.1:3128".to_string()
    )));
    assert!(inside
        .bwrap_args
        .starts_with(&["--unshare-net".to_string()]));
}

#[test]
fn dropping_the_proxy_removes_its_sockets_and_ends_open_connections() {
    let (port, _heard) = server();
    let dir = tempfile::tempdir().unwrap();
    let proxy = Proxy::start(dir.path(), &grant(&[format!("127.0.0.1:{port}")]), &[]).unwrap();
    let mut tunnel = UnixStream::connect(proxy.socket()).unwrap();
    write!(tunnel, "CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n").unwrap();
    let mut status = [0u8; 12];
    tunnel.read_exact(&mut status).unwrap();
    let socket = proxy.socket();
    drop(proxy);
    assert!(!socket.exists());
    let mut rest = Vec::new();
    tunnel
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let read = tunnel.read_to_end(&mut rest);
    assert!(read.is_ok(), "the open tunnel was not ended: {read:?}");
}
