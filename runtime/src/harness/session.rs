//! Operations on an agent's native session besides its turns: a fork (a new agent on a copy of
//! the session), a compaction (the harness's own, with a focus), and a change of settings
//! (model, effort) for later turns.
//!
//! A harness that can do one says so in its `Capabilities` and implements it; the turn
//! machinery refuses the others before queueing them, quoting the capability's reason. A CLI
//! does a fork or a compaction with one process of its own (`Exchange`): what to start, with
//! which lines on stdin, and how its output says it is done. `converse` runs that process
//! under the agent's keeper, like a turn's, bounded by the operation's deadline and the run's
//! cancellation, and stops everything of it once its answer is read.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{mpsc, watch};

use super::environment::{self, AgentEnv};
use super::keeper::Supervision;
use super::process::{describe_status, AgentProcess};
use super::{Harness, Launch, Stream, Tokens};
use crate::cancel::until_cancelled;

/// One session operation of an agent, as its harness sees it.
pub struct SessionOp<'a> {
    pub agent: &'a str,
    /// For a fork: the new agent's key.
    pub fork: Option<&'a str>,
    /// The operation's id in the records (`f2-...` for a fork, `c3-...` for a compaction).
    pub id: &'a str,
    /// The agent's native session (the CLI's own id), when it has one.
    pub session: Option<&'a str>,
    /// `AWF_SESSION` of the agent.
    pub session_name: &'a str,
    pub cwd: &'a Path,
    pub launcher: &'a Path,
    pub env: &'a AgentEnv,
    pub deadline: Instant,
    pub cancelled: watch::Receiver<bool>,
    pub supervision: &'a Supervision,
    /// The agent's sandbox: the operation's process runs in it, as its turns do.
    pub sandbox: Option<&'a dyn super::confinement::Confinement>,
    /// Told the name of the container the operation's process was started in, when the
    /// sandbox is a container (the agent records it, as it does a turn's).
    pub in_container: &'a (dyn Fn(&str) + Send + Sync),
}

/// What a fork made: the fork's harness (the parent's settings) and its native session.
pub struct Forked {
    pub harness: Arc<dyn Harness>,
    pub session: Option<String>,
}

/// What a compaction gave back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compacted {
    /// The summary, where the harness gives one (codex keeps its own opaque).
    pub summary: Option<String>,
    /// The tokens the compaction used, or what the session held before it, as the CLI reports.
    pub tokens: Option<Tokens>,
    /// How many tokens the session held before, where the CLI says.
    pub tokens_before: Option<u64>,
}

/// How a session operation ended.
#[derive(Debug, PartialEq)]
pub enum OpEnd<T> {
    Done(T),
    Failed(String),
    TimedOut,
    Cancelled,
}

impl<T> OpEnd<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> OpEnd<U> {
        match self {
            OpEnd::Done(value) => OpEnd::Done(f(value)),
            OpEnd::Failed(why) => OpEnd::Failed(why),
            OpEnd::TimedOut => OpEnd::TimedOut,
            OpEnd::Cancelled => OpEnd::Cancelled,
        }
    }
}

/// The process of a session operation: `program args` in the agent's cwd, `stdin` written.
pub fn launch(
    program: &Path,
    args: Vec<String>,
    op: &SessionOp<'_>,
    stdin: String,
    hold: bool,
) -> Launch {
    Launch {
        program: program.to_path_buf(),
        args,
        cwd: op.cwd.to_path_buf(),
        env: Vec::new(),
        env_remove: Vec::new(),
        stdin: Some(stdin),
        hold_stdin: hold,
        container: None,
    }
}

/// A change of settings for later turns; `None` keeps what the agent has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub model: Option<String>,
    pub effort: Option<String>,
}

/// What a line of an exchange's stdout says: nothing yet, or its end.
pub type Reader<T> = Box<dyn FnMut(&str) -> Option<Result<T, String>> + Send>;

/// One process that does a session operation.
pub struct Exchange<T> {
    /// Started with `hold_stdin` when the CLI must keep reading (an RPC loop).
    pub launch: Launch,
    pub read: Reader<T>,
}

/// Runs an exchange's process to its answer, its end, the deadline or the run's cancellation.
pub async fn converse<T>(op: &SessionOp<'_>, exchange: Exchange<T>) -> OpEnd<T> {
    let Exchange {
        mut launch,
        mut read,
    } = exchange;
    environment::prepare(
        &mut launch,
        &environment::TurnVars {
            launcher: op.launcher,
            turn: op.id,
            agent: op.agent,
            n: 0,
            session_name: op.session_name,
            check_in: false,
            message: None,
        },
        op.env,
    );
    if let Some(sandbox) = op.sandbox {
        launch = sandbox.confine(launch);
    }
    let program = launch
        .program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (lines_in, mut lines) = mpsc::unbounded_channel();
    let mut process = match AgentProcess::spawn(&launch, op.launcher, op.supervision, lines_in)
        .await
    {
        Ok(process) => process,
        Err(e) => return OpEnd::Failed(format!("cannot start {}: {e}", launch.program.display())),
    };
    if let Some(container) = &launch.container {
        (op.in_container)(container);
    }
    let mut cancelled = op.cancelled.clone();
    let deadline = tokio::time::Instant::from_std(op.deadline);
    let mut answer = None;
    let mut exited = None;
    let stop = loop {
        tokio::select! {
            Some((stream, line)) = lines.recv() => {
                if stream == Stream::Stdout {
                    if let Some(said) = read(&line) {
                        answer = Some(said);
                        break None;
                    }
                }
            }
            status = process.wait() => {
                exited = status.ok();
                break None;
            }
            _ = tokio::time::sleep_until(deadline) => break Some(OpEnd::TimedOut),
            _ = until_cancelled(&mut cancelled) => break Some(OpEnd::Cancelled),
        }
    };
    let ended = process.stop(exited).await;
    // A process that exited may have said its answer in its last lines.
    while let (None, Ok((stream, line))) = (&answer, lines.try_recv()) {
        if stream == Stream::Stdout {
            answer = read(&line);
        }
    }
    if let Some(stop) = stop {
        return stop;
    }
    match answer {
        Some(Ok(value)) => OpEnd::Done(value),
        Some(Err(why)) => OpEnd::Failed(why),
        None => {
            let status = match ended.status {
                Some(status) => describe_status(&status),
                None => "ended".to_string(),
            };
            let said = ended.stderr.last_lines(5);
            OpEnd::Failed(if said.is_empty() {
                format!("{program} {status} without saying it was done")
            } else {
                format!("{program} {status} without saying it was done: {said}")
            })
        }
    }
}

/// A JSON-RPC request line (`{"jsonrpc":"2.0","id":N,"method":...,"params":...}`).
pub fn rpc(id: Option<u64>, method: &str, params: serde_json::Value) -> String {
    let mut line = serde_json::json!({ "jsonrpc": "2.0", "method": method });
    if let Some(id) = id {
        line["id"] = id.into();
    }
    if !params.is_null() {
        line["params"] = params;
    }
    line.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_lines_carry_their_id_only_when_a_reply_is_wanted() {
        let line = |text: String| serde_json::from_str::<serde_json::Value>(&text).unwrap();
        assert_eq!(
            line(rpc(None, "initialized", serde_json::Value::Null)),
            serde_json::json!({"jsonrpc": "2.0", "method": "initialized"})
        );
        assert_eq!(
            line(rpc(
                Some(2),
                "thread/fork",
                serde_json::json!({"threadId": "t"})
            )),
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "thread/fork", "params": {"threadId": "t"}})
        );
    }
}
