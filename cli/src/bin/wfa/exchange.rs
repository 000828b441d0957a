//! One exchange with the run, on the agent's socket or over TLS (`tls.rs`): connect, send the
//! request line, end it (half-close the socket; over TLS the newline ends it), read the response
//! line; or why the run could not be reached ([`Unreachable`], exit 4).

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use crate::channel::Target;
use crate::limits;
use crate::output::Output;
use crate::refusal::Exit;
use crate::tls::{self, TlsStream};
use crate::wire::Response;

/// How long wfa waits for a response. The server bounds every call by the call's and the turn's
/// time and answers or closes when the run ends, so this only stops a wedged run from holding
/// the agent for ever; a call cut off here keeps running, and calling again with the same input
/// joins it.
const RESPONSE_BOUND: Duration = Duration::from_secs(2 * 60 * 60);

/// Why the run could not be reached: exit 4.
#[derive(Debug, PartialEq)]
pub struct Unreachable {
    why: String,
}

impl Unreachable {
    /// The message for a run at `place` (a socket's path, a TCP address).
    pub fn render(&self, place: &str) -> Output {
        Output::stderr(
            Exit::Unreachable,
            format!(
                "wfa: cannot reach the workflow run at {place}: {}\n\nhint: the run this launcher \
                 belongs to is over: a launcher works only while its run runs. To go on, start a \
                 new run (`awf run FILE`, or `awf run FILE --continue ID` for one that did not \
                 complete) and use the launcher named in its prompt\n",
                self.why
            ),
        )
    }
}

/// A connection a request can be sent and ended on, and a response read from.
trait Connection: Read + Write {
    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()>;
    /// Says the request is whole.
    fn end_request(&mut self) -> io::Result<()>;
}

impl Connection for UnixStream {
    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        UnixStream::set_read_timeout(self, Some(timeout))
    }

    fn end_request(&mut self) -> io::Result<()> {
        self.shutdown(Shutdown::Write)
    }
}

impl Connection for TlsStream {
    fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        self.sock.set_read_timeout(Some(timeout))
    }

    /// The newline ends a request; the server reads no further, so the TLS stream stays open
    /// both ways for the response.
    fn end_request(&mut self) -> io::Result<()> {
        self.flush()
    }
}

/// One exchange with the run at `target`: see [`exchange_on`].
pub fn exchange(target: &Target, line: &[u8]) -> Result<Response, Unreachable> {
    let unreachable = |error: io::Error| Unreachable {
        why: describe(&error),
    };
    match target {
        Target::Socket(path) => {
            let stream = UnixStream::connect(path).map_err(unreachable)?;
            stream
                .set_write_timeout(Some(limits::REQUEST_READ_TIMEOUT))
                .map_err(unreachable)?;
            exchange_on(stream, line)
        }
        Target::Tcp(route) => {
            let stream = tls::connect(route, limits::REQUEST_READ_TIMEOUT).map_err(unreachable)?;
            stream
                .sock
                .set_write_timeout(Some(limits::REQUEST_READ_TIMEOUT))
                .map_err(unreachable)?;
            exchange_on(stream, line)
        }
    }
}

/// One exchange on a connection: send the request line, end it, read the response line.
///
/// Connecting to a Unix socket succeeds or fails at once (it waits only while the server's
/// backlog is full); a TCP connection is given [`limits::REQUEST_READ_TIMEOUT`]. The server takes
/// a request within that time or drops it, so writing is bounded by the same time. The response
/// may take as long as the call (minutes), up to [`RESPONSE_BOUND`].
fn exchange_on(mut stream: impl Connection, line: &[u8]) -> Result<Response, Unreachable> {
    let sent = stream.write_all(line).and_then(|()| stream.end_request());
    // Read even when sending failed: a server that refused the request early (too large) has
    // answered before closing, and that answer says more than the broken pipe.
    let received = read_response(&mut stream);
    let bytes = match (sent, received) {
        (_, Ok(bytes)) if !bytes.is_empty() => bytes,
        (Err(error), _) => {
            let why = format!("cannot send the request: {}", describe(&error));
            return Err(Unreachable { why });
        }
        (Ok(()), Err(error)) if is_timeout(&error) => {
            let why = format!(
                "no response within {} hours; the request was sent, so it may have been \
                 carried out",
                RESPONSE_BOUND.as_secs() / 3600
            );
            return Err(Unreachable { why });
        }
        (Ok(()), Err(error)) => {
            let why = format!(
                "cannot read the response: {}; the request was sent, so it may have been \
                 carried out",
                describe(&error)
            );
            return Err(Unreachable { why });
        }
        (Ok(()), Ok(_)) => {
            let why = "the run closed the connection without a response; the request was \
                       sent, so it may have been carried out"
                .to_owned();
            return Err(Unreachable { why });
        }
    };
    Response::decode(&bytes, limits::MAX_RESPONSE_BYTES).map_err(|error| Unreachable {
        why: format!("malformed response: {error}"),
    })
}

/// Reads up to the first newline or the end, and no more than one byte past the response limit
/// (decoding then reports the size).
fn read_response(stream: &mut impl Connection) -> io::Result<Vec<u8>> {
    let deadline = Instant::now() + RESPONSE_BOUND;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    while bytes.len() <= limits::MAX_RESPONSE_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(left)?;
        let read = match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let newline = chunk[..read].iter().position(|&b| b == b'\n');
        bytes.extend_from_slice(&chunk[..newline.map_or(read, |at| at + 1)]);
        if newline.is_some() {
            break;
        }
    }
    Ok(bytes)
}

fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// An I/O error as lowercase text for a message.
pub fn describe(error: &io::Error) -> String {
    let text = match error.kind() {
        io::ErrorKind::NotFound => "no socket at that path",
        io::ErrorKind::ConnectionRefused => "nothing listens on the socket",
        io::ErrorKind::PermissionDenied => "permission denied",
        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset => {
            "the run closed the connection"
        }
        _ => {
            let text = error.to_string();
            let mut chars = text.chars();
            return match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => text,
            };
        }
    };
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreachable_says_where_and_why() {
        let output = Unreachable {
            why: "nothing listens on the socket".to_owned(),
        }
        .render("/tmp/awf-1/a1/s.sock");
        assert_eq!(output.exit, Exit::Unreachable);
        assert!(output.stderr.starts_with(
            "wfa: cannot reach the workflow run at /tmp/awf-1/a1/s.sock: nothing listens on the \
             socket\n\nhint: the run this launcher belongs to is over: a launcher works only \
             while its run runs. To go on, start a new run"
        ));
    }

    #[test]
    fn io_errors_read_in_lowercase() {
        let error = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(describe(&error), "nothing listens on the socket");
        let error = io::Error::other("Odd failure");
        assert_eq!(describe(&error), "odd failure");
    }
}
