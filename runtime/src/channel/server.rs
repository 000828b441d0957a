//! One Unix socket per agent: one request line in, one response line out, per connection.
//!
//! The socket says which agent a request is for, and the kernel says who sent it
//! (`SO_PEERCRED`): before a byte is read, the agent's `ChannelHandler` judges the [`Peer`], and
//! a process that is not the agent's own is refused `forbidden`. Each connection is served on
//! its own task: a slow tool call never holds up another request, and a connection that sends
//! nothing is dropped after a bounded wait. One agent cannot starve the run: a socket serves at
//! most `MAX_CONNECTIONS_PER_AGENT` connections at once and buffers at most
//! `MAX_BUFFERED_BYTES_PER_AGENT` of unfinished requests across them; past either, a connection
//! is refused `busy` at once.

use std::future::Future;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use super::refusal::Code;
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

/// What an agent does with the connections and requests that arrive on its socket.
pub trait ChannelHandler: Send + Sync + 'static {
    /// Whether `peer` may use this socket; the refusal it gets if not.
    fn authorize(&self, peer: Peer) -> Result<(), Response>;
    fn handle(&self, request: Request) -> HandlerFuture;
}

/// What one socket's connections hold between them.
struct Load {
    connections: Semaphore,
    buffered: AtomicUsize,
}

/// A listening socket; stops listening and removes the socket when dropped.
#[derive(Debug)]
pub struct AgentSocket {
    path: PathBuf,
    accept: JoinHandle<()>,
}

impl AgentSocket {
    /// Binds `<dir>/s.sock` (`wire::SOCKET_NAME`, mode 0600) and serves it. Needs a tokio runtime.
    pub fn serve(dir: &Path, handler: Arc<dyn ChannelHandler>) -> io::Result<AgentSocket> {
        let path = dir.join(super::wire::SOCKET_NAME);
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let accept = tokio::spawn(accept_loop(listener, handler));
        Ok(AgentSocket { path, accept })
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

async fn accept_loop(listener: UnixListener, handler: Arc<dyn ChannelHandler>) {
    let load = Arc::new(Load {
        connections: Semaphore::new(MAX_CONNECTIONS_PER_AGENT),
        buffered: AtomicUsize::new(0),
    });
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(stream, handler.clone(), load.clone()));
            }
            // Out of file descriptors and the like: wait a moment rather than spin.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
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

async fn serve_connection(stream: UnixStream, handler: Arc<dyn ChannelHandler>, load: Arc<Load>) {
    let peer = match stream.peer_cred() {
        Ok(cred) => Peer {
            pid: cred.pid(),
            uid: cred.uid(),
        },
        Err(_) => Peer {
            pid: None,
            uid: u32::MAX,
        },
    };
    let (read, mut write) = stream.into_split();
    if let Err(refusal) = handler.authorize(peer) {
        return respond(&mut write, refusal).await;
    }
    let Ok(_permit) = load.connections.try_acquire() else {
        let message = format!(
            "this agent's socket already serves {MAX_CONNECTIONS_PER_AGENT} connections, the most it takes at once"
        );
        return respond(&mut write, busy(&message)).await;
    };
    let read = tokio::time::timeout(REQUEST_READ_TIMEOUT, read_line(read, &load.buffered)).await;
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
    let decoded = Request::decode(&line.bytes, MAX_REQUEST_BYTES);
    drop(line);
    let response = match decoded {
        Ok(request) => handler.handle(request).await,
        Err(error) => error.into_response(),
    };
    respond(&mut write, response).await;
}

async fn respond(write: &mut tokio::net::unix::OwnedWriteHalf, response: Response) {
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
    mut read: tokio::net::unix::OwnedReadHalf,
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
