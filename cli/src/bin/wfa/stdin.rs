//! Standard input as wfa takes it: the JSON input of `wfa tool <name>`, or the answer of `wfa
//! result <turn>`, when no words follow.
//!
//! A heredoc or a `< file` is readable the moment wfa starts, while a harness's tool shell may
//! hand wfa an inherited pipe that nobody writes or closes: blocking on it would hang the
//! agent's call for ever. So a thread reads, and wfa waits [`STDIN_WAIT`] for the first bytes or
//! the end. If stdin is still silent, wfa asks the run what the input is taught as: a tool
//! taught as JSON, or a text answer, waits for a slow producer (`slow | wfa tool x`) up to
//! [`STDIN_IDLE`] for a first byte, then to the end; anything else takes silence as "not given".
//! A terminal is never read. Once input has begun it must end within [`STDIN_READ_BOUND`] and
//! stay within `limits::MAX_PAYLOAD_BYTES`; blank input counts as none.

use std::io::{self, IsTerminal, Read};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::Duration;

use crate::exchange::describe;
use crate::limits;
use crate::output::{refused_locally, report, Output};
use crate::refusal::{Code, Exit};

/// How long standard input may take to become readable before wfa asks whether to wait.
const STDIN_WAIT: Duration = Duration::from_millis(25);
/// How long a JSON or text input may stay silent (open, no byte) before it is refused.
pub const STDIN_IDLE: Duration = Duration::from_secs(5);
/// How long standard input may take to end once something has arrived on it.
const STDIN_READ_BOUND: Duration = Duration::from_secs(30);

/// Why standard input could not be taken.
#[derive(Debug, PartialEq)]
pub enum StdinError {
    TooLarge,
    NotUtf8,
    StillOpen,
    /// Open, expected, and silent for [`STDIN_IDLE`].
    Silent,
    Unreadable(String),
}

impl StdinError {
    pub fn render(&self, subject: &str) -> Output {
        let message = match self {
            StdinError::TooLarge => {
                let message = format!(
                    "standard input is over the limit of {} bytes",
                    limits::MAX_PAYLOAD_BYTES
                );
                return refused_locally(subject, Code::RequestTooLarge, &message);
            }
            StdinError::Silent => {
                let message = format!(
                    "nothing arrived on standard input within {} s, and it was never closed",
                    STDIN_IDLE.as_secs()
                );
                let hint = "send the input in a quoted heredoc, which ends by itself:\n\
                            $AWF_WFA ... <<'WF_JSON'\n{\"field\": \"value\"}\nWF_JSON\n\
                            or pipe from a command that closes its output when done";
                let code = Code::InvalidInput;
                let text = report(subject, "refused", code, &message, &[], Some(hint));
                return Output::stderr(code.exit(), text);
            }
            StdinError::NotUtf8 => "standard input is not UTF-8 text".to_owned(),
            StdinError::StillOpen => format!(
                "standard input did not end within {} s\n\nhint: end the heredoc with its \
                 terminator alone on a line, or pass the input as flags",
                STDIN_READ_BOUND.as_secs()
            ),
            StdinError::Unreadable(why) => format!("cannot read standard input: {why}"),
        };
        Output::stderr(Exit::Usage, format!("wfa: {subject}: {message}\n"))
    }
}

/// What the reader thread reports about standard input.
enum StdinEvent {
    /// The first bytes arrived: the input is given, now wait for its end.
    Began,
    Ended(io::Result<Vec<u8>>),
}

/// Standard input, when the agent gave some; `None` when it gave none. `waits` is asked, only
/// when stdin is open and silent, whether this input is worth waiting for (`None`: unknown).
pub fn read(waits: impl FnOnce() -> Option<bool>) -> Result<Option<String>, StdinError> {
    if io::stdin().is_terminal() {
        return Ok(None);
    }
    let (events, arrivals) = mpsc::channel();
    thread::spawn(move || pump(events));
    let mut began = false;
    let mut asked = false;
    let mut waits = Some(waits);
    let bytes = loop {
        let wait = match (began, asked) {
            (true, _) => STDIN_READ_BOUND,
            (false, false) => STDIN_WAIT,
            (false, true) => STDIN_IDLE,
        };
        match arrivals.recv_timeout(wait) {
            Ok(StdinEvent::Began) => began = true,
            Ok(StdinEvent::Ended(result)) => {
                break result.map_err(|error| StdinError::Unreadable(describe(&error)))?
            }
            Err(_) if began => return Err(StdinError::StillOpen),
            Err(_) if asked => return Err(StdinError::Silent),
            Err(_) => match waits.take().and_then(|ask| ask()) {
                Some(true) => asked = true,
                _ => return Ok(None),
            },
        }
    };
    if bytes.len() > limits::MAX_PAYLOAD_BYTES {
        return Err(StdinError::TooLarge);
    }
    let text = String::from_utf8(bytes).map_err(|_| StdinError::NotUtf8)?;
    Ok(if text.trim().is_empty() {
        None
    } else {
        Some(text)
    })
}

/// Reads standard input to its end, or to one byte past the payload limit.
fn pump(events: Sender<StdinEvent>) {
    let mut input = io::stdin()
        .lock()
        .take(limits::MAX_PAYLOAD_BYTES as u64 + 1);
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let result = loop {
        match input.read(&mut chunk) {
            Ok(0) => break Ok(bytes),
            Ok(read) => {
                if bytes.is_empty() {
                    let _ = events.send(StdinEvent::Began);
                }
                bytes.extend_from_slice(&chunk[..read]);
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => break Err(error),
        }
    };
    let _ = events.send(StdinEvent::Ended(result));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_refusal_looks_like_the_run_s() {
        let output = StdinError::TooLarge.render("label_item");
        assert_eq!(output.exit, Exit::Refused);
        assert_eq!(
            output.stderr,
            format!(
                "wfa: label_item: refused (request-too-large): standard input is over the limit \
                 of {} bytes\n",
                limits::MAX_PAYLOAD_BYTES
            )
        );
        assert_eq!(StdinError::NotUtf8.render("t3").exit, Exit::Usage);
    }
}
