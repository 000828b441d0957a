//! The client side of an agent's socket, in the engine: what `wfa` does, for scripted agents in
//! tests, which answer and call tools through the real socket so that every check is real.

use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use super::wire::{Oversized, Request, Response};
use crate::limits::{MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES};

/// How long a scripted agent waits for one response (tool calls are bounded by the server).
const RESPONSE_BOUND: Duration = Duration::from_secs(2 * 60 * 60);

/// Why a scripted agent's request got no response.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    #[error("the request is {0}")]
    Oversized(Oversized),
    #[error("cannot reach the agent's socket {}: {error}", .socket.display())]
    Unreachable {
        socket: std::path::PathBuf,
        error: std::io::Error,
    },
    #[error("cannot send the request: {0}")]
    Send(std::io::Error),
    #[error("cannot read the response: {0}")]
    Read(std::io::Error),
    #[error("the run's response is not valid: {0}")]
    Invalid(String),
    #[error("no response within 2 hours")]
    NoResponse,
}

/// Sends one request on `socket` and reads its response.
pub async fn exchange(socket: &Path, request: &Request) -> Result<Response, ExchangeError> {
    let line = request
        .encode(MAX_REQUEST_BYTES)
        .map_err(ExchangeError::Oversized)?;
    let stream = UnixStream::connect(socket)
        .await
        .map_err(|error| ExchangeError::Unreachable {
            socket: socket.to_path_buf(),
            error,
        })?;
    let (read, mut write) = stream.into_split();
    write.write_all(&line).await.map_err(ExchangeError::Send)?;
    write.shutdown().await.map_err(ExchangeError::Send)?;
    let mut response = Vec::new();
    let mut reader = BufReader::new(read);
    let read = tokio::time::timeout(RESPONSE_BOUND, reader.read_until(b'\n', &mut response));
    match read.await {
        Ok(Ok(_)) => Response::decode(
            response.strip_suffix(b"\n").unwrap_or(&response),
            MAX_RESPONSE_BYTES,
        )
        .map_err(|e| ExchangeError::Invalid(e.to_string())),
        Ok(Err(e)) => Err(ExchangeError::Read(e)),
        Err(_) => Err(ExchangeError::NoResponse),
    }
}
