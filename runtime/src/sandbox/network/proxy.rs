//! The host side of a sandbox's network: a proxy awf runs per sandbox, on Unix sockets in a
//! folder bound into the box (so the grant is known by the socket), and what the box needs to
//! reach it (`Inside`: `wfa __bridge` listening on loopback ports, the proxy variables).
//!
//! - `p.sock` speaks HTTP: `CONNECT host:port` (tunnels: https, anything) and plain HTTP with an
//!   absolute URI (`GET http://host/path`). A granted host is connected to from the host; any
//!   other is answered `403 Forbidden` with the reason, logged, and kept (`refused()`).
//! - `f<port>.sock`, one per loopback port granted (`127.0.0.1:8080`) or named by the harness's
//!   model base URL (the tests' fake model): bytes forwarded as they are to that port on the
//!   host, so a client that skips the proxy for loopback (`NO_PROXY`) reaches it unchanged.
//!
//! Threads, not tasks: the proxy works whatever runtime (if any) the caller has. Dropping the
//! `Proxy` stops its listeners, shuts every open connection and removes the sockets.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread;
use std::time::Duration;

use super::rules::{normalize, Grant, HostPattern, Rule};

/// The port the proxy has inside the box (the box's loopback is its own), unless a forwarded
/// port takes it.
const INSIDE_PROXY_PORT: u16 = 3128;
/// The longest request head the proxy reads.
const HEAD_LIMIT: usize = 64 * 1024;
/// How long a client has to send its request head, and the proxy to connect out.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A sandbox's proxy, running until dropped.
#[derive(Debug)]
pub struct Proxy {
    dir: PathBuf,
    inside_port: u16,
    /// What the box may reach: the sandbox's grant and the model APIs of the agents in it
    /// (`admit` adds an agent's).
    grant: Arc<RwLock<Grant>>,
    /// Loopback ports forwarded as they are: (port, its socket).
    forwards: Mutex<Vec<(u16, PathBuf)>>,
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    stopped: AtomicBool,
    next: AtomicU64,
    /// Every connection still open, to shut at the end.
    open: Mutex<HashMap<u64, UnixStream>>,
    refused: Mutex<Vec<String>>,
}

/// What the box needs to reach the proxy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inside {
    /// bubblewrap's: no network of the host's; the proxy's folder visible.
    pub bwrap_args: Vec<String>,
    /// The proxy variables, in both cases, and `NO_PROXY` for loopback.
    pub env: Vec<(String, String)>,
    /// Put before the program: `wfa __bridge --listen 127.0.0.1:PORT=SOCKET ... --`.
    pub wrapper: Vec<String>,
}

impl Proxy {
    /// Starts the proxy in `dir` (created; it must be visible inside the box at the same path)
    /// for `grant` and the harness's model API (`model_urls`, base URLs as its config names
    /// them: `https://api.openai.com/v1`, `http://127.0.0.1:PORT`), which is always allowed.
    pub fn start(dir: &Path, grant: &Grant, model_urls: &[String]) -> io::Result<Proxy> {
        std::fs::create_dir_all(dir)?;
        let mut rules = grant.rules.clone();
        rules.extend(model_urls.iter().filter_map(|base| model_rule(base)));
        let taken: Vec<u16> = rules.iter().filter_map(Rule::loopback_port).collect();
        let mut inside_port = INSIDE_PROXY_PORT;
        while taken.contains(&inside_port) {
            inside_port += 1;
        }
        let shared = Arc::new(Shared::default());
        let grant = Arc::new(RwLock::new(Grant::default()));
        let listener = bind(&dir.join("p.sock"))?;
        listen(listener, None, grant.clone(), shared.clone())?;
        let proxy = Proxy {
            dir: dir.to_path_buf(),
            inside_port,
            grant,
            forwards: Mutex::default(),
            shared,
        };
        proxy.add(rules)?;
        Ok(proxy)
    }

    /// Lets the box reach the model API of one more agent in it (`model_urls` as for
    /// `start`); what is already allowed stays as it is.
    pub fn admit(&self, model_urls: &[String]) -> io::Result<()> {
        self.add(
            model_urls
                .iter()
                .filter_map(|base| model_rule(base))
                .collect(),
        )
    }

    /// Adds `rules` to the grant, with a forward socket for each loopback port new to it.
    fn add(&self, rules: Vec<Rule>) -> io::Result<()> {
        let mut forwards = self.forwards.lock().unwrap_or_else(|e| e.into_inner());
        for rule in rules {
            if let (Some(port), HostPattern::Exact(host)) = (rule.loopback_port(), &rule.host) {
                let known = forwards.iter().any(|(p, _)| *p == port);
                if !known && port != self.inside_port {
                    let socket = self.dir.join(format!("f{port}.sock"));
                    listen(
                        bind(&socket)?,
                        Some((host.clone(), port)),
                        self.grant.clone(),
                        self.shared.clone(),
                    )?;
                    forwards.push((port, socket));
                }
            }
            let mut grant = self.grant.write().unwrap_or_else(|e| e.into_inner());
            if !grant.rules.contains(&rule) {
                grant.rules.push(rule);
            }
        }
        Ok(())
    }

    /// The folder of the proxy's sockets.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The proxy's socket (HTTP CONNECT and plain HTTP).
    pub fn socket(&self) -> PathBuf {
        self.dir.join("p.sock")
    }

    /// What the box needs: bwrap's arguments, the environment, and the bridge before the
    /// program; `wfa` is the launcher as the box sees it.
    pub fn inside(&self, wfa: &Path) -> Inside {
        let dir = self.dir.display().to_string();
        let proxy = format!("http://127.0.0.1:{}", self.inside_port);
        let mut env = Vec::new();
        for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
            env.push((name.to_string(), proxy.clone()));
        }
        for name in ["NO_PROXY", "no_proxy"] {
            env.push((name.to_string(), "localhost,127.0.0.1,::1".to_string()));
        }
        let mut wrapper = vec![wfa.display().to_string(), "__bridge".into()];
        wrapper.push("--listen".into());
        wrapper.push(format!(
            "127.0.0.1:{}={}",
            self.inside_port,
            self.socket().display()
        ));
        let forwards = self.forwards.lock().unwrap_or_else(|e| e.into_inner());
        for (port, socket) in forwards.iter() {
            wrapper.push("--listen".into());
            wrapper.push(format!("127.0.0.1:{port}={}", socket.display()));
        }
        wrapper.push("--".into());
        Inside {
            bwrap_args: vec!["--unshare-net".into(), "--ro-bind".into(), dir.clone(), dir],
            env,
            wrapper,
        }
    }

    /// What was refused so far, one line each (`CONNECT example.com:443: not granted`).
    pub fn refused(&self) -> Vec<String> {
        self.shared
            .refused
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        let forwards = self.forwards.lock().unwrap_or_else(|e| e.into_inner());
        let sockets = std::iter::once(self.socket()).chain(forwards.iter().map(|f| f.1.clone()));
        for socket in sockets {
            // Wakes its accept loop, which sees `stopped` and ends.
            let _ = UnixStream::connect(&socket);
            let _ = std::fs::remove_file(&socket);
        }
        if let Ok(mut open) = self.shared.open.lock() {
            for (_, stream) in open.drain() {
                let _ = stream.shutdown(Shutdown::Both);
            }
        }
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The rule that lets the box reach a model base URL (`None` for one that is not a URL).
fn model_rule(base: &str) -> Option<Rule> {
    let url = url::Url::parse(base).ok()?;
    let host = normalize(url.host_str()?);
    let port = url.port_or_known_default()?;
    Some(Rule {
        host: HostPattern::Exact(host),
        port: Some(port),
    })
}

fn bind(socket: &Path) -> io::Result<UnixListener> {
    let _ = std::fs::remove_file(socket);
    UnixListener::bind(socket).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot listen on {}: {e}", socket.display()),
        )
    })
}

/// Serves `listener` on a thread of its own (see `accept`).
fn listen(
    listener: UnixListener,
    target: Option<(String, u16)>,
    grant: Arc<RwLock<Grant>>,
    shared: Arc<Shared>,
) -> io::Result<()> {
    thread::Builder::new()
        .name("awf-sandbox-proxy".into())
        .spawn(move || accept(listener, target, grant, shared))?;
    Ok(())
}

/// Serves one socket until the proxy stops: `target` is the host port a forward socket goes
/// to; `None` is the proxy's own socket.
fn accept(
    listener: UnixListener,
    target: Option<(String, u16)>,
    grant: Arc<RwLock<Grant>>,
    shared: Arc<Shared>,
) {
    for client in listener.incoming() {
        if shared.stopped.load(Ordering::SeqCst) {
            return;
        }
        let Ok(client) = client else { continue };
        let target = target.clone();
        let grant = grant.clone();
        let shared = shared.clone();
        let _ = thread::Builder::new()
            .name("awf-sandbox-proxy-conn".into())
            .spawn(move || {
                let id = shared.next.fetch_add(1, Ordering::SeqCst);
                if let (Ok(mut open), Ok(copy)) = (shared.open.lock(), client.try_clone()) {
                    open.insert(id, copy);
                }
                let _ = match target {
                    Some((host, port)) => forward(client, &host, port),
                    None => serve(client, &grant, &shared),
                };
                if let Ok(mut open) = shared.open.lock() {
                    open.remove(&id);
                }
            });
    }
}

/// A forward socket: the connection, as it is, to `host:port` on the host.
fn forward(client: UnixStream, host: &str, port: u16) -> io::Result<()> {
    let upstream = connect(host, port)?;
    pipe(BufReader::new(client.try_clone()?), client, upstream)
}

/// One request on the proxy's socket.
fn serve(client: UnixStream, grant: &RwLock<Grant>, shared: &Shared) -> io::Result<()> {
    client.set_read_timeout(Some(HEAD_TIMEOUT))?;
    let mut reader = BufReader::new(client.try_clone()?);
    let mut writer = client;
    let head = match read_head(&mut reader) {
        Ok(head) => head,
        Err(why) => return answer(&mut writer, 400, "Bad Request", &why),
    };
    let request = match Request::parse(&head) {
        Ok(request) => request,
        Err(why) => return answer(&mut writer, 400, "Bad Request", &why),
    };
    let allowed = grant
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .allows(&request.host, request.port);
    if !allowed {
        let why = format!(
            "awf sandbox: {}:{} is not in this sandbox's network grant; add it to the sandbox's network list (e.g. \"{}\"), or use network: true",
            request.host,
            request.port,
            suggested_entry(&request.host, request.port),
        );
        tracing::warn!(target: "awf::sandbox::network", "refused {} {}:{}", request.method, request.host, request.port);
        if let Ok(mut refused) = shared.refused.lock() {
            refused.push(format!(
                "{} {}:{}: not granted",
                request.method, request.host, request.port
            ));
        }
        return answer(&mut writer, 403, "Forbidden", &why);
    }
    let mut upstream = match connect(&request.host, request.port) {
        Ok(upstream) => upstream,
        Err(e) => {
            let why = format!(
                "awf sandbox: cannot connect to {}:{}: {e}",
                request.host, request.port
            );
            return answer(&mut writer, 502, "Bad Gateway", &why);
        }
    };
    writer.set_read_timeout(None)?;
    match &request.forwarded_head {
        None => writer.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?,
        Some(head) => upstream.write_all(head.as_bytes())?,
    }
    pipe(reader, writer, upstream)
}

/// The entry that would grant `host:port`.
fn suggested_entry(host: &str, port: u16) -> String {
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    if port == 80 || port == 443 {
        host
    } else {
        format!("{host}:{port}")
    }
}

fn connect(host: &str, port: u16) -> io::Result<TcpStream> {
    let host = normalize(host);
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{host} has no address"));
    for address in (host.as_str(), port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Copies both ways until both ends are done; `reader` is the client's read half (with what
/// it has buffered), `client` its write half.
fn pipe(
    mut reader: BufReader<UnixStream>,
    mut client: UnixStream,
    upstream: TcpStream,
) -> io::Result<()> {
    let mut up_write = upstream.try_clone()?;
    let outgoing = thread::Builder::new()
        .name("awf-sandbox-proxy-pipe".into())
        .spawn(move || {
            let _ = io::copy(&mut reader, &mut up_write);
            let _ = up_write.shutdown(Shutdown::Write);
        })?;
    let mut up_read = upstream;
    let _ = io::copy(&mut up_read, &mut client);
    let _ = client.shutdown(Shutdown::Write);
    let _ = outgoing.join();
    Ok(())
}

/// Answers the client and ends the connection.
fn answer(client: &mut UnixStream, status: u16, reason: &str, why: &str) -> io::Result<()> {
    tracing::debug!(target: "awf::sandbox::network", "{status} {why}");
    let body = format!("{why}\n");
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(response.as_bytes())?;
    let _ = client.shutdown(Shutdown::Both);
    Ok(())
}

/// The request head, up to the empty line, as text.
fn read_head(reader: &mut impl BufRead) -> Result<String, String> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let read = reader
            .take((HEAD_LIMIT + 1 - head.len()) as u64)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("reading the request: {e}"))?;
        if read == 0 {
            return Err("the request ended before its head did".into());
        }
        head.extend_from_slice(&line);
        if head.len() > HEAD_LIMIT {
            return Err(format!("the request head is over {HEAD_LIMIT} bytes"));
        }
        if line == b"\r\n" || line == b"\n" {
            return String::from_utf8(head).map_err(|_| "the request head is not UTF-8".into());
        }
    }
}

/// A request to the proxy: where it goes, and for plain HTTP, the head to send there.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    method: String,
    host: String,
    port: u16,
    /// `None` for CONNECT; for plain HTTP, the head with the path alone and the proxy's own
    /// headers removed.
    forwarded_head: Option<String>,
}

impl Request {
    fn parse(head: &str) -> Result<Request, String> {
        let mut lines = head.lines();
        let first = lines.next().unwrap_or_default();
        let mut words = first.split_whitespace();
        let (Some(method), Some(target), Some(version)) =
            (words.next(), words.next(), words.next())
        else {
            return Err(format!("cannot read the request line {first:?}"));
        };
        if method.eq_ignore_ascii_case("CONNECT") {
            let url = url::Url::parse(&format!("tunnel://{target}"))
                .map_err(|_| format!("CONNECT needs host:port, got {target:?}"))?;
            let (Some(host), Some(port)) = (url.host_str(), url.port()) else {
                return Err(format!("CONNECT needs host:port, got {target:?}"));
            };
            return Ok(Request {
                method: "CONNECT".into(),
                host: normalize(host),
                port,
                forwarded_head: None,
            });
        }
        let url = url::Url::parse(target)
            .ok()
            .filter(|u| u.scheme() == "http")
            .ok_or_else(|| {
                format!("a proxy request needs an absolute http:// URL or CONNECT, got {target:?}")
            })?;
        let host = url.host_str().ok_or("the URL has no host")?;
        let port = url.port_or_known_default().unwrap_or(80);
        let mut path = url.path().to_string();
        if let Some(query) = url.query() {
            path.push('?');
            path.push_str(query);
        }
        let mut forwarded = format!("{method} {path} {version}\r\n");
        let mut has_host = false;
        for line in lines.filter(|l| !l.is_empty()) {
            let name = line.split(':').next().unwrap_or_default().trim();
            let hop = [
                "proxy-connection",
                "proxy-authorization",
                "connection",
                "keep-alive",
            ];
            if hop.iter().any(|h| name.eq_ignore_ascii_case(h)) {
                continue;
            }
            has_host |= name.eq_ignore_ascii_case("host");
            forwarded.push_str(line);
            forwarded.push_str("\r\n");
        }
        if !has_host {
            let authority = &url[url::Position::BeforeHost..url::Position::AfterPort];
            forwarded.push_str(&format!("Host: {authority}\r\n"));
        }
        forwarded.push_str("Connection: close\r\n\r\n");
        Ok(Request {
            method: method.to_string(),
            host: normalize(host),
            port,
            forwarded_head: Some(forwarded),
        })
    }
}

#[cfg(test)]
#[path = "proxy_tests.rs"]
mod tests;
