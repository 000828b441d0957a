//! One Unix socket per agent: one request line in, one response line out, per connection.
//!
//! The socket is the agent's identity, so the server hands every request to that agent's
//! `ChannelHandler`. Each connection is served on its own task: a slow tool call never holds up
//! another request, and a connection that sends nothing is dropped after a bounded wait.

use std::future::Future;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;

use super::wire::{Request, Response};
use crate::limits::{MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES, REQUEST_READ_TIMEOUT};

pub type HandlerFuture = Pin<Box<dyn Future<Output = Response> + Send>>;

/// What an agent does with the requests that arrive on its socket.
pub trait ChannelHandler: Send + Sync + 'static {
    fn handle(&self, request: Request) -> HandlerFuture;
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
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(stream, handler.clone()));
            }
            // Out of file descriptors and the like: wait a moment rather than spin.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
}

async fn serve_connection(stream: UnixStream, handler: Arc<dyn ChannelHandler>) {
    let (read, mut write) = stream.into_split();
    let line = match tokio::time::timeout(REQUEST_READ_TIMEOUT, read_line(read)).await {
        Ok(Ok(line)) => line,
        // Nothing (or nothing whole) arrived in time, or the peer went away: nobody to answer.
        Ok(Err(_)) | Err(_) => return,
    };
    let response = match Request::decode(&line, MAX_REQUEST_BYTES) {
        Ok(request) => handler.handle(request).await,
        Err(error) => error.into_response(),
    };
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

/// Reads up to the first newline, at most one byte over the limit (so an oversized request is
/// refused as such instead of being read without end).
async fn read_line(read: tokio::net::unix::OwnedReadHalf) -> io::Result<Vec<u8>> {
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64 + 2));
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).await?;
    if line.is_empty() {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "no request"));
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Ok(line)
}
