//! The run's TCP listener, for agents that cannot see their socket (a remote machine, a container
//! without the socket mounted in): off unless `awf run --channel tcp[:HOST:PORT]` turns it on
//! (default 127.0.0.1, a port the system picks). One listener per run; TLS 1.3 with the run's own
//! certificate (`tls.rs`), which launchers pin. The TLS server name a client asks for routes the
//! connection to an agent (its folder's name, from its launcher file); from there the connection
//! is served as one on the agent's socket (`server.rs`): the same handler, codes, records and
//! limits, and the agent's secret is required, since nothing else is known of the sender. A
//! connection that fails its handshake, names no agent of the run, or presents no right secret
//! is refused and recorded (`channel-refused`, with the sender's address).

use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;

use super::refusal::Code;
use super::server::{refuse, serve_connection, Caller, Endpoint};
use super::tls::{CertificateError, RunCertificate};
use super::wire::{Response, TcpRoute};
use crate::limits::REQUEST_READ_TIMEOUT;
use crate::records::{Event, RunDir};

/// The most TLS handshakes under way at once; past it a connection is closed at once, so that
/// connections that never finish theirs cannot take awf's descriptors.
const MAX_HANDSHAKES: usize = 64;

/// Where this process's runs listen for TCP agents, when `awf run --channel tcp` asked for it.
static LISTEN_ON: OnceLock<Listen> = OnceLock::new();

/// Where a run listens for TCP agents, and the address they dial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listen {
    pub bind: SocketAddr,
    /// `awf run --channel-address`: what the launchers dial when it is not the bound address
    /// (a name on the agents' network; `0.0.0.0` binds every interface but is no address to
    /// dial).
    pub advertise: Option<Advertised>,
}

/// `--channel-address`, checked: a host (a name, an IPv4 address or a bracketed IPv6 one) and
/// its port, when it gives one (else the bound port is dialled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advertised {
    host: String,
    port: Option<u16>,
}

/// Turns the TCP transport on for this process's run. Set once, before the run opens its first
/// agent (`awf run` runs one workflow per process).
pub fn listen_on(listen: Listen) {
    let _ = LISTEN_ON.set(listen);
}

/// Where the run listens for TCP agents, if it does.
pub fn configured() -> Option<Listen> {
    LISTEN_ON.get().cloned()
}

/// What a launcher dials: the advertised host (with its port, else the bound one), else the
/// bound address.
fn dialled(bound: SocketAddr, advertise: Option<&Advertised>) -> String {
    match advertise {
        None => bound.to_string(),
        Some(Advertised { host, port }) => format!("{host}:{}", port.unwrap_or(bound.port())),
    }
}

/// `awf run --channel-address`'s value, checked: a host (a name or an address), with a port or
/// not; whether it resolves is the agents' business (it may be a name only they know).
pub fn check_advertised(text: &str) -> Result<Advertised, String> {
    let text = text.trim();
    // `host:7000` or `[::1]:7000`; a bare IPv6 literal's colons are no port.
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') || host.ends_with(']') => match port.parse() {
            Ok(port) => (host, Some(port)),
            Err(_) => (text, None),
        },
        _ => (text, None),
    };
    let bracketed = host.starts_with('[') && host.ends_with(']');
    if host.contains(':') && !bracketed {
        return Err(format!(
            "`{text}`: write an IPv6 address in brackets, `[{host}]` or `[{host}]:PORT`"
        ));
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.is_empty()
        || !bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'))
    {
        return Err(format!(
            "`{text}` is not a HOST or HOST:PORT agents can dial"
        ));
    }
    Ok(Advertised {
        host: host.to_string(),
        port,
    })
}

/// `awf run --channel`'s value: `socket` (the default: no TCP listener), `tcp` (127.0.0.1, a port
/// the system picks) or `tcp:HOST:PORT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelChoice {
    /// Where to listen for TCP agents; none for `socket`.
    pub tcp: Option<SocketAddr>,
}

impl std::str::FromStr for ChannelChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<ChannelChoice, String> {
        let address = match text {
            "socket" => return Ok(ChannelChoice { tcp: None }),
            "tcp" => "127.0.0.1:0",
            _ => text.strip_prefix("tcp:").ok_or_else(|| {
                format!("`{text}` is not a channel: expected `socket`, `tcp` or `tcp:HOST:PORT`")
            })?,
        };
        let resolved = address
            .to_socket_addrs()
            .map_err(|e| format!("cannot read `{address}` as HOST:PORT: {e}"))?
            .next()
            .ok_or_else(|| format!("`{address}` names no address"))?;
        Ok(ChannelChoice {
            tcp: Some(resolved),
        })
    }
}

type Routes = Mutex<HashMap<String, Weak<Endpoint>>>;

/// The run's TCP listener; stops listening when dropped, and its certificate is gone with it.
#[derive(Debug)]
pub struct TcpChannel {
    address: SocketAddr,
    /// What the launchers dial (`dialled`).
    dial: String,
    pin: String,
    routes: Arc<Routes>,
    accept: JoinHandle<()>,
}

/// Why the run could not listen on TCP.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    #[error("cannot listen on {address}: {error}")]
    Bind {
        address: SocketAddr,
        error: io::Error,
    },
    #[error(transparent)]
    Certificate(#[from] CertificateError),
}

impl TcpChannel {
    /// Binds `listen.bind` and serves it, recording refusals in `records`; launchers dial what
    /// `listen` advertises. Needs a tokio runtime.
    pub fn bind(listen: &Listen, records: Arc<RunDir>) -> Result<TcpChannel, ListenError> {
        let address = listen.bind;
        let certificate = RunCertificate::generate()?;
        let bind = |error| ListenError::Bind { address, error };
        let listener = std::net::TcpListener::bind(address).map_err(bind)?;
        listener.set_nonblocking(true).map_err(bind)?;
        let bound = listener.local_addr().map_err(bind)?;
        let listener = TcpListener::from_std(listener).map_err(bind)?;
        let routes = Arc::new(Routes::default());
        let acceptor = TlsAcceptor::from(certificate.config);
        let accept = tokio::spawn(accept_loop(listener, acceptor, routes.clone(), records));
        Ok(TcpChannel {
            address: bound,
            dial: dialled(bound, listen.advertise.as_ref()),
            pin: certificate.pin,
            routes,
            accept,
        })
    }

    /// The address the listener is bound to.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// What the launcher of the agent whose folder is `dir` carries to reach it: the TLS server
    /// name is the folder's name.
    pub fn route(&self, dir: &Path) -> TcpRoute {
        TcpRoute {
            address: self.dial.clone(),
            name: route_name(dir),
            pin: self.pin.clone(),
        }
    }

    /// Routes connections for the agent whose folder is `dir` to `endpoint`, until the
    /// registration is dropped.
    pub(super) fn register(&self, dir: &Path, endpoint: Arc<Endpoint>) -> TcpRegistration {
        let name = route_name(dir);
        lock(&self.routes).insert(name.clone(), Arc::downgrade(&endpoint));
        TcpRegistration {
            routes: Arc::downgrade(&self.routes),
            name,
        }
    }
}

impl Drop for TcpChannel {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// An agent's route on the listener; removed when dropped (the agent closed).
pub struct TcpRegistration {
    routes: Weak<Routes>,
    name: String,
}

impl Drop for TcpRegistration {
    fn drop(&mut self) {
        if let Some(routes) = self.routes.upgrade() {
            lock(&routes).remove(&self.name);
        }
    }
}

/// An agent folder's name: a random word of `[a-z2-9]`, which is a valid DNS name for TLS.
fn route_name(dir: &Path) -> String {
    dir.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn lock(routes: &Routes) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Endpoint>>> {
    routes.lock().unwrap_or_else(|e| e.into_inner())
}

async fn accept_loop(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    routes: Arc<Routes>,
    records: Arc<RunDir>,
) {
    let handshakes = Arc::new(Semaphore::new(MAX_HANDSHAKES));
    loop {
        let (stream, from) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait a moment rather than spin.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = handshakes.clone().try_acquire_owned() else {
            continue;
        };
        let (acceptor, routes, records) = (acceptor.clone(), routes.clone(), records.clone());
        tokio::spawn(async move {
            let handshake = tokio::time::timeout(REQUEST_READ_TIMEOUT, acceptor.accept(stream));
            let tls = match handshake.await {
                Ok(Ok(tls)) => tls,
                Ok(Err(error)) => {
                    let why = format!("a TLS handshake that failed: {error}");
                    return record_refusal(&records, None, from, why);
                }
                Err(_) => {
                    let why = format!(
                        "a TLS handshake not finished within {} s",
                        REQUEST_READ_TIMEOUT.as_secs()
                    );
                    return record_refusal(&records, None, from, why);
                }
            };
            let name = tls.get_ref().1.server_name().map(str::to_owned);
            let endpoint = name
                .as_ref()
                .and_then(|name| lock(&routes).get(name).and_then(Weak::upgrade));
            match endpoint {
                Some(endpoint) => {
                    drop(permit);
                    serve_connection(tls, Caller::Network(from), endpoint).await;
                }
                None => {
                    let why = match &name {
                        Some(name) => format!("a launcher for \"{name}\", no agent of this run"),
                        None => "a TLS client that named no agent".to_owned(),
                    };
                    record_refusal(&records, None, from, why);
                    refuse(tls, no_such_agent()).await;
                }
            }
        });
    }
}

/// Records a connection refused before it reached an agent.
fn record_refusal(records: &RunDir, agent: Option<String>, from: SocketAddr, why: String) {
    let event = Event::ChannelRefused {
        agent,
        pid: None,
        uid: None,
        address: Some(from.to_string()),
        why,
    };
    if let Err(e) = records.append(&event) {
        tracing::warn!("cannot append to the run's events: {e}");
    }
}

fn no_such_agent() -> Response {
    Response::Refused {
        code: Code::Forbidden,
        message: "this launcher belongs to no agent of this run: its agent was closed, or it was \
                  made for another run"
            .to_owned(),
        details: Vec::new(),
        hint: Some(
            "use the launcher named in your current prompt ($AWF_WFA); a launcher works only \
             while its agent is open"
                .to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launchers_dial_the_advertised_address_with_the_bound_port_when_it_has_none() {
        let bound: SocketAddr = "0.0.0.0:7100".parse().unwrap();
        let dial = |given: Option<&str>| {
            dialled(
                bound,
                given.map(|text| check_advertised(text).unwrap()).as_ref(),
            )
        };
        assert_eq!(dial(None), "0.0.0.0:7100");
        assert_eq!(dial(Some("awf.lan")), "awf.lan:7100");
        assert_eq!(dial(Some("awf.lan:443")), "awf.lan:443");
        assert_eq!(dial(Some("10.0.0.5")), "10.0.0.5:7100");
        assert_eq!(dial(Some("[fd00::5]")), "[fd00::5]:7100");
        assert_eq!(dial(Some("[fd00::5]:9")), "[fd00::5]:9");
        assert!(check_advertised("").is_err());
        assert!(check_advertised("a b").is_err());
        assert!(check_advertised("host/x:1").is_err());
        assert_eq!(
            check_advertised("fd00::5"),
            Err(
                "`fd00::5`: write an IPv6 address in brackets, `[fd00::5]` or `[fd00::5]:PORT`"
                    .into()
            )
        );
    }

    #[test]
    fn the_channel_option_reads_socket_tcp_and_an_address() {
        let tcp = |text: &str| text.parse::<ChannelChoice>().map(|choice| choice.tcp);
        assert_eq!(tcp("socket"), Ok(None));
        assert_eq!(tcp("tcp"), Ok(Some("127.0.0.1:0".parse().unwrap())));
        assert_eq!(
            tcp("tcp:127.0.0.1:4100"),
            Ok(Some("127.0.0.1:4100".parse().unwrap()))
        );
        assert_eq!(
            tcp("tcp:[::1]:4100"),
            Ok(Some("[::1]:4100".parse().unwrap()))
        );
        assert!(tcp("udp").unwrap_err().contains("expected `socket`, `tcp`"));
        assert!(tcp("tcp:nowhere")
            .unwrap_err()
            .starts_with("cannot read `nowhere` as HOST:PORT"));
    }
}
