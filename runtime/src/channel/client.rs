//! The client side of an agent's socket, in the engine: what `wfa` does, for scripted agents in
//! tests, which answer and call tools through the real socket so that every check is real.

use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use super::wire::{Request, Response};
use crate::limits::{MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES};

/// How long a scripted agent waits for one response (tool calls are bounded by the server).
const RESPONSE_BOUND: Duration = Duration::from_secs(2 * 60 * 60);

/// Sends one request on `socket` and reads its response.
pub async fn exchange(socket: &Path, request: &Request) -> Result<Response, String> {
    let line = request
        .encode(MAX_REQUEST_BYTES)
        .map_err(|oversized| format!("the request is {oversized}"))?;
    let stream = UnixStream::connect(socket)
        .await
        .map_err(|e| format!("cannot reach the agent's socket {}: {e}", socket.display()))?;
    let (read, mut write) = stream.into_split();
    write
        .write_all(&line)
        .await
        .map_err(|e| format!("cannot send the request: {e}"))?;
    write
        .shutdown()
        .await
        .map_err(|e| format!("cannot send the request: {e}"))?;
    let mut response = Vec::new();
    let mut reader = BufReader::new(read);
    let read = tokio::time::timeout(RESPONSE_BOUND, reader.read_until(b'\n', &mut response));
    match read.await {
        Ok(Ok(_)) => Response::decode(
            response.strip_suffix(b"\n").unwrap_or(&response),
            MAX_RESPONSE_BYTES,
        )
        .map_err(|e| format!("the run's response is not valid: {e}")),
        Ok(Err(e)) => Err(format!("cannot read the response: {e}")),
        Err(_) => Err("no response within 2 hours".into()),
    }
}
