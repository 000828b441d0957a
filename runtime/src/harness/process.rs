//! Agent processes: each under its keeper (`keeper.rs`, which says what is guaranteed where),
//! its output streamed line by line to the attempt while it runs and kept (bounded) for the
//! records, and everything of it killed when its turn is over — SIGTERM, then SIGKILL after a
//! grace. No orphans.
//!
//! Every live agent's process group is also in `LIVE_GROUPS`, so that a second Ctrl-C (which
//! exits at once) can still kill them synchronously on its way out; the keepers then see awf
//! gone and kill the rest.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Mutex;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::keeper::{self, Kept, Supervision};
use crate::limits::{MAX_AGENT_OUTPUT_BYTES, MAX_HARNESS_LINE_BYTES};

static LIVE_GROUPS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn track(pgid: i32, live: bool) {
    let mut groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    let set = groups.get_or_insert_with(HashSet::new);
    if live {
        set.insert(pgid);
    } else {
        set.remove(&pgid);
    }
}

/// SIGKILLs every agent process group still alive; for exiting at once.
pub fn kill_all_now() {
    let groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for pgid in groups.iter().flatten() {
        unsafe {
            libc::killpg(*pgid, libc::SIGKILL);
        }
    }
}

/// What to start.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    /// Inherited variables the process must not see.
    pub env_remove: Vec<String>,
    /// Written to stdin, which is then closed; `None`: stdin is /dev/null (a CLI given a pipe
    /// may wait for it to close, or for data that never comes).
    pub stdin: Option<String>,
    /// Keep stdin open after writing it, until the process is stopped: for a CLI that reads
    /// requests in a loop and ends at stdin's end (an RPC mode).
    pub hold_stdin: bool,
    /// The container it runs in, when a container provider started it (sandbox/container/):
    /// its name, which the engine takes wherever it takes an id; recorded for the turn.
    pub container: Option<String>,
}

/// Which output stream a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// A line of output as the process wrote it (lossy UTF-8, without its newline), cut at
/// `MAX_HARNESS_LINE_BYTES`.
pub type Line = (Stream, String);

/// Output kept from one stream: its first bytes up to the bound, and whether more came.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub bytes: Vec<u8>,
    pub truncated: bool,
}

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The last `n` non-empty lines, for failure details (terminal colour codes taken out).
    pub fn last_lines(&self, n: usize) -> String {
        let text = strip_escapes(&self.text());
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }
}

/// `text` without ANSI escape sequences (`ESC [ ... letter`): a CLI colours its errors even
/// when its stderr is a pipe.
fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A started agent process, under its keeper (`keeper.rs`).
pub struct AgentProcess {
    kept: Kept,
    stdout: JoinHandle<Captured>,
    stderr: JoinHandle<Captured>,
    /// Dropped when the process is stopped: a held stdin closes then.
    stdin_held: Option<tokio::sync::oneshot::Sender<()>>,
}

/// How a process ended, with its output.
#[derive(Debug)]
pub struct Ended {
    pub status: Option<ExitStatus>,
    pub stdout: Captured,
    pub stderr: Captured,
}

impl AgentProcess {
    /// Starts the process under the keeper `wfa`; each line of its output is sent to `lines` as
    /// it comes.
    pub async fn spawn(
        launch: &Launch,
        wfa: &Path,
        supervision: &Supervision,
        lines: mpsc::UnboundedSender<Line>,
    ) -> std::io::Result<AgentProcess> {
        let mut kept = keeper::start(launch, wfa, supervision).await?;
        track(kept.agent, true);
        let stdout = tokio::spawn(pump(
            kept.child.stdout.take(),
            Stream::Stdout,
            lines.clone(),
        ));
        let stderr = tokio::spawn(pump(kept.child.stderr.take(), Stream::Stderr, lines));
        let mut stdin_held = None;
        if let (Some(mut stdin), Some(prompt)) = (kept.child.stdin.take(), launch.stdin.clone()) {
            let (held, released) = tokio::sync::oneshot::channel::<()>();
            if launch.hold_stdin {
                stdin_held = Some(held);
            }
            // The agent may never read its prompt; writing must not hold the turn up.
            tokio::spawn(async move {
                let _ = stdin.write_all(prompt.as_bytes()).await;
                let _ = stdin.flush().await;
                // Resolves at once unless stdin is held (its sender then lives in the process).
                let _ = released.await;
                let _ = stdin.shutdown().await;
            });
        }
        Ok(AgentProcess {
            kept,
            stdout,
            stderr,
            stdin_held,
        })
    }

    /// The keeper's pid: every process of the agent descends from it.
    pub fn root(&self) -> i32 {
        self.kept.keeper
    }

    /// Waits for the process itself to exit (what it started may live on).
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.kept.wait().await
    }

    /// Kills everything of the agent (SIGTERM, then SIGKILL after the grace) and collects the
    /// output.
    pub async fn stop(mut self, status: Option<ExitStatus>) -> Ended {
        drop(self.stdin_held.take());
        self.kept.stop().await;
        let status = status.or(self.kept.exit_status());
        track(self.kept.agent, false);
        // The pumps end when every holder of the pipes is gone, which the stop ensured; bound
        // the wait anyway.
        let stdout = join_capture(self.stdout).await;
        let stderr = join_capture(self.stderr).await;
        Ended {
            status,
            stdout,
            stderr,
        }
    }
}

async fn join_capture(handle: JoinHandle<Captured>) -> Captured {
    let abort = handle.abort_handle();
    match tokio::time::timeout(Duration::from_millis(500), handle).await {
        Ok(Ok(captured)) => captured,
        _ => {
            abort.abort();
            Captured {
                bytes: b"(output not collected: a process outside the agent's group kept its pipe open)".to_vec(),
                truncated: true,
            }
        }
    }
}

/// Reads a stream to its end: keeps its first bytes (bounded) and sends each line on.
async fn pump(
    stream: Option<impl AsyncRead + Unpin>,
    which: Stream,
    lines: mpsc::UnboundedSender<Line>,
) -> Captured {
    let Some(mut stream) = stream else {
        return Captured::default();
    };
    let mut captured = Captured::default();
    let mut splitter = LineSplitter::default();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => {
                if let Some(last) = splitter.finish() {
                    let _ = lines.send((which, last));
                }
                return captured;
            }
            Ok(n) => {
                let chunk = &buffer[..n];
                let room = MAX_AGENT_OUTPUT_BYTES.saturating_sub(captured.bytes.len());
                captured.bytes.extend_from_slice(&chunk[..n.min(room)]);
                if n > room {
                    captured.truncated = true;
                }
                for line in splitter.push(chunk) {
                    // The receiver may be gone (the attempt is over); keep reading to the end
                    // anyway, so the process never blocks on a full pipe.
                    let _ = lines.send((which, line));
                }
            }
        }
    }
}

/// Cuts a byte stream into lines, each at most `MAX_HARNESS_LINE_BYTES` (the rest of a longer
/// line is dropped: no line reader needs it, and memory stays bounded).
#[derive(Default)]
struct LineSplitter {
    partial: Vec<u8>,
    overlong: bool,
}

impl LineSplitter {
    fn push(&mut self, mut chunk: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        while let Some(at) = chunk.iter().position(|b| *b == b'\n') {
            self.take(&chunk[..at]);
            lines.push(self.line());
            chunk = &chunk[at + 1..];
        }
        self.take(chunk);
        lines
    }

    fn take(&mut self, bytes: &[u8]) {
        let room = MAX_HARNESS_LINE_BYTES.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.overlong |= bytes.len() > room;
    }

    fn line(&mut self) -> String {
        let mut bytes = std::mem::take(&mut self.partial);
        self.overlong = false;
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn finish(&mut self) -> Option<String> {
        (!self.partial.is_empty()).then(|| self.line())
    }
}

/// The exit code or the signal, in words: `exited with code 3`, `killed by signal 9`.
pub fn describe_status(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => "ended".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_cut_into_lines_across_chunks() {
        let mut splitter = LineSplitter::default();
        assert_eq!(splitter.push(b"{\"a\":"), Vec::<String>::new());
        assert_eq!(splitter.push(b"1}\r\nnext\nla"), vec!["{\"a\":1}", "next"]);
        assert_eq!(splitter.push(b"st"), Vec::<String>::new());
        assert_eq!(splitter.finish(), Some("last".to_string()));
        assert_eq!(splitter.finish(), None);
        let long = vec![b'x'; MAX_HARNESS_LINE_BYTES + 10];
        let mut lines = splitter.push(&long);
        lines.extend(splitter.push(b"\nshort\n"));
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_HARNESS_LINE_BYTES);
        assert_eq!(lines[1], "short");
    }

    #[test]
    fn failure_details_lose_colour_codes() {
        let stderr = Captured {
            bytes: b"\x1b[91m\x1b[1mError: \x1b[0mSession not found\n".to_vec(),
            truncated: false,
        };
        assert_eq!(stderr.last_lines(5), "Error: Session not found");
    }
}
