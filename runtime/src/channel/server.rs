//! One Unix socket per agent, and the serving of one connection, whichever transport it came by
//! (the socket, or the run's TCP listener: `tcp.rs`): one request line in, one response line
//! out, per connection.
//!
//! The socket says which agent a request is for, and the kernel says who sent it
//! (`SO_PEERCRED`); over TCP the TLS server name says which agent, and the address is all that is
//! known of the sender. Once the request line is read, the agent's `ChannelHandler` judges the
//! [`Caller`] and the secret the line presents, before anything of the request is looked at: a
//! sender that is not the agent's own is refused `forbidden`. Each connection is served on its
//! own task: a slow tool call never holds up another request, and a connection that sends
//! nothing is dropped after a bounded wait. One agent cannot starve the run: its [`Endpoint`]
//! serves at most `MAX_CONNECTIONS_PER_AGENT` connections at once and buffers at most
//! `MAX_BUFFERED_BYTES_PER_AGENT` of unfinished requests across them, over both transports; past
//! either, a connection is refused `busy` at once.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use super::refusal::Code;
use super::tcp::{TcpChannel, TcpRegistration};
use super::wire::{Request, Response};
use crate::limits::{
    MAX_BUFFERED_BYTES_PER_AGENT, MAX_CONNECTIONS_PER_AGENT, MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES,
    REQUEST_READ_TIMEOUT,
};

pub type HandlerFuture = Pin<Box<dyn Future<Output = Response> + Send>>;

/// The process at the other end of a connection, as the kernel reports it (`SO_PEERCRED`):
/// its pid at `connect()` (in awf's pid namespace) and its user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    pub pid: Option<i32>,
    pub uid: u32,
}

/// Who is at the other end of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// A process on this machine, on the agent's socket.
    Process(Peer),
    /// A connection to the run's TCP listener, from this address.
    Network(SocketAddr),
}

/// What an agent does with the connections and requests that arrive for it.
pub trait ChannelHandler: Send + Sync + 'static {
    /// Whether `caller`, presenting `secret` (the request line's, if any), may speak for the
    /// agent; the refusal it gets if not.
    fn authorize(&self, caller: &Caller, secret: Option<&str>) -> Result<(), Response>;
    fn handle(&self, request: Request) -> HandlerFuture;
}

/// One agent's end of the channel, whichever transport a connection comes by: its handler, and
/// what its connections hold between them.
pub struct Endpoint {
    handler: Arc<dyn ChannelHandler>,
    connections: Semaphore,
    buffered: AtomicUsize,
}

impl Endpoint {
    pub fn new(handler: Arc<dyn ChannelHandler>) -> Arc<Endpoint> {
        Arc::new(Endpoint {
            handler,
            connections: Semaphore::new(MAX_CONNECTIONS_PER_AGENT),
            buffered: AtomicUsize::new(0),
        })
    }
}

/// A listening socket (and the agent's route on the run's TCP listener, if it has one); stops
/// listening, removes the socket and the route when dropped.
pub struct AgentSocket {
    path: PathBuf,
    endpoint: Arc<Endpoint>,
    accept: JoinHandle<()>,
    tcp: Option<TcpRegistration>,
}

impl std::fmt::Debug for AgentSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSocket")
            .field("path", &self.path)
            .field("tcp", &self.tcp.is_some())
            .finish()
    }
}

impl AgentSocket {
    /// Binds `<dir>/s.sock` (`wire::SOCKET_NAME`, mode 0600) and serves it. Needs a tokio runtime.
    pub fn serve(dir: &Path, handler: Arc<dyn ChannelHandler>) -> io::Result<AgentSocket> {
        let path = dir.join(super::wire::SOCKET_NAME);
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let endpoint = Endpoint::new(handler);
        let accept = tokio::spawn(accept_loop(listener, endpoint.clone()));
        Ok(AgentSocket {
            path,
            endpoint,
            accept,
            tcp: None,
        })
    }

    /// Also serves the agent whose folder is `dir` on the run's TCP listener (under the route its
    /// launcher file gives), with the same handler and limits.
    pub fn serve_over(&mut self, tcp: &TcpChannel, dir: &Path) {
        self.tcp = Some(tcp.register(dir, self.endpoint.clone()));
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for AgentSocket {
    fn drop(&mut self) {
        self.accept.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

async fn accept_loop(listener: UnixListener, endpoint: Arc<Endpoint>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let caller = Caller::Process(peer_of(&stream));
                tokio::spawn(serve_connection(stream, caller, endpoint.clone()));
            }
            // Out of file descriptors and the like: wait a moment rather than spin.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
}

fn peer_of(stream: &UnixStream) -> Peer {
    match stream.peer_cred() {
        Ok(cred) => Peer {
            pid: cred.pid(),
            uid: cred.uid(),
        },
        Err(_) => Peer {
            pid: None,
            uid: u32::MAX,
        },
    }
}

fn busy(message: &str) -> Response {
    Response::Refused {
        code: Code::Busy,
        message: message.to_string(),
        details: Vec::new(),
        hint: Some("finish or close your other connections to this socket, then call again".into()),
    }
}

/// Serves one connection: one request line, judged and handled, one response line.
pub async fn serve_connection<S>(stream: S, caller: Caller, endpoint: Arc<Endpoint>)
where
    S: AsyncRead + AsyncWrite + Send + Unpin,
{
    let (read, mut write) = tokio::io::split(stream);
    let Ok(_permit) = endpoint.connections.try_acquire() else {
        let message = format!(
            "this agent's socket already serves {MAX_CONNECTIONS_PER_AGENT} connections, the most it takes at once"
        );
        return respond(&mut write, busy(&message)).await;
    };
    let read =
        tokio::time::timeout(REQUEST_READ_TIMEOUT, read_line(read, &endpoint.buffered)).await;
    let line = match read {
        Ok(Ok(Some(line))) => line,
        Ok(Ok(None)) => {
            let message = format!(
                "this agent's connections hold {} MiB of unfinished requests, the most the socket buffers",
                MAX_BUFFERED_BYTES_PER_AGENT / (1024 * 1024)
            );
            return respond(&mut write, busy(&message)).await;
        }
        // Nothing (or nothing whole) arrived in time, or the peer went away: nobody to answer.
        Ok(Err(_)) | Err(_) => return,
    };
    let presented = Request::decode_presented(&line.bytes, MAX_REQUEST_BYTES);
    drop(line);
    // The sender first: one that may not speak for the agent learns nothing of its line.
    if let Err(refusal) = endpoint
        .handler
        .authorize(&caller, presented.secret.as_deref())
    {
        return respond(&mut write, refusal).await;
    }
    let response = match presented.request {
        Ok(request) => endpoint.handler.handle(request).await,
        Err(error) => error.into_response(),
    };
    respond(&mut write, response).await;
}

/// Answers a connection that reached no agent with `response`, once its request line is in (or
/// the wait for it is over): closing on an unread request could reset the connection before the
/// client reads the answer.
pub(super) async fn refuse<S>(stream: S, response: Response)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (read, mut write) = tokio::io::split(stream);
    let unbudgeted = AtomicUsize::new(0);
    let _ = tokio::time::timeout(REQUEST_READ_TIMEOUT, read_line(read, &unbudgeted)).await;
    respond(&mut write, response).await;
}

async fn respond(write: &mut (impl AsyncWrite + Unpin), response: Response) {
    let bytes = match response.encode(MAX_RESPONSE_BYTES) {
        Ok(bytes) => bytes,
        Err(oversized) => Response::Failed {
            code: super::refusal::Code::ResultTooLarge,
            message: format!("the response is {oversized}"),
            hint: None,
        }
        .encode(MAX_RESPONSE_BYTES)
        .expect("a short response fits"),
    };
    let _ = write.write_all(&bytes).await;
    let _ = write.shutdown().await;
}

/// A request line as read, holding its share of the socket's buffer budget until dropped.
struct Line<'a> {
    bytes: Vec<u8>,
    budget: &'a AtomicUsize,
}

impl Drop for Line<'_> {
    fn drop(&mut self) {
        self.budget.fetch_sub(self.bytes.len(), Ordering::SeqCst);
    }
}

/// Reads up to the first newline, at most one byte over the limit (so an oversized request is
/// refused as such instead of being read without end). Every byte kept is counted against the
/// socket's `budget`; `None` when the budget has no room for it.
async fn read_line(
    mut read: impl AsyncRead + Unpin,
    budget: &AtomicUsize,
) -> io::Result<Option<Line<'_>>> {
    let mut line = Line {
        bytes: Vec::new(),
        budget,
    };
    let mut chunk = vec![0u8; 64 * 1024];
    let mut ended = false;
    loop {
        let room = MAX_REQUEST_BYTES + 1 - line.bytes.len();
        let read = read.read(&mut chunk[..room.min(64 * 1024)]).await?;
        if read == 0 {
            break;
        }
        let newline = chunk[..read].iter().position(|b| *b == b'\n');
        let kept = newline.unwrap_or(read);
        if budget.fetch_add(kept, Ordering::SeqCst) + kept > MAX_BUFFERED_BYTES_PER_AGENT {
            budget.fetch_sub(kept, Ordering::SeqCst);
            return Ok(None);
        }
        line.bytes.extend_from_slice(&chunk[..kept]);
        ended = newline.is_some();
        if ended || line.bytes.len() > MAX_REQUEST_BYTES {
            break;
        }
    }
    if line.bytes.is_empty() && !ended {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "no request"));
    }
    Ok(Some(line))
}
