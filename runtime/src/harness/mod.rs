//! Agent runtimes ("harnesses"): how one attempt of a turn runs, and what it reports.
//!
//! The turn machinery in `agents/` knows only the `Harness` trait: it gives an `Attempt` (a
//! turn's first run, or its check-in) and gets back how it ended, the tokens it used and the
//! files its output was kept in. Each runtime implements the trait in its own file:
//! `command.rs` (any executable), and one place per agent CLI (`gemini.rs`, `opencode.rs`, and a
//! folder for each CLI with session operations of its own: `codex/`, `claude/`, `pi/`). A runtime
//! that runs a process per attempt implements `ProcessHarness` instead:
//! how a turn becomes a `Launch`, how each line of its output becomes `HarnessEvent`s, how its
//! end maps to an `AttemptEnd`; `attempt.rs` runs that loop for all of them and `process.rs`
//! starts and stops the processes. `registry.rs` reads an agent's `runtime` spec and maps names
//! to harnesses; what each CLI reports of its tokens is folded by `crate::usage`. Besides turns,
//! a harness may fork, compact and change the settings of its session (`session.rs`; each CLI's
//! own way in its folder's `session.rs`), as its `Capabilities` say.

pub mod aliases;
pub mod attempt;
pub mod claude;
pub mod cli;
pub mod codex;
pub mod command;
pub mod confinement;
pub mod environment;
pub mod gemini;
pub mod home;
pub mod keeper;
pub mod opencode;
pub mod pi;
pub mod probe;
pub mod problem;
pub mod process;
pub mod registry;
pub mod session;
pub mod survey;

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::{watch, Notify};

pub use crate::usage::{Tokens, Usage, UsageBasis};
pub use problem::{LaunchError, ProgramError, RuntimeError};
pub use process::{Captured, Launch, Stream};
pub use registry::{resolve, RuntimeOverrides};
pub use session::{Compacted, Forked, OpEnd, SessionOp, Settings};

use crate::schema::Schema;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An agent runtime, as the turn machinery sees it. One value per open agent: it holds what the
/// agent's spec chose (the program, the model, the effort).
pub trait Harness: Send + Sync {
    /// The harness's name, as records and `awf doctor` show it (`codex`, `command`).
    fn name(&self) -> &'static str;
    /// What records say about this agent's runtime (its harness, model, effort, program).
    fn describe(&self) -> Value;
    /// What the runtime can do.
    fn capabilities(&self) -> &'static Capabilities;
    /// Runs one attempt of a turn to its end.
    fn run<'a>(&'a self, attempt: Attempt<'a>) -> BoxFuture<'a, AttemptReport>;
    /// A copy of the agent's session for a new agent (`Capabilities::fork`).
    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        let _ = op;
        cannot(self.capabilities().fork)
    }
    /// The harness's own compaction of the session, with `focus` (`Capabilities::compact`).
    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        let _ = (op, focus);
        cannot(self.capabilities().compact)
    }
    /// This agent's harness with other settings for the later turns of the same session
    /// (`Capabilities::set`); a setting it cannot take is refused as at open.
    fn reconfigure(&self, settings: &Settings) -> Result<Arc<dyn Harness>, RuntimeError> {
        let _ = settings;
        Err(cannot_set(self.name(), self.capabilities()))
    }
}

/// The end of an operation the runtime cannot do, with its reason.
fn cannot<'a, T: Send + 'a>(can: Can) -> BoxFuture<'a, OpEnd<T>> {
    let why = match can {
        Can::Yes(how) => how,
        Can::No(why) => why,
    };
    Box::pin(async move { OpEnd::Failed(why.to_string()) })
}

fn cannot_set(harness: &'static str, capabilities: &Capabilities) -> RuntimeError {
    RuntimeError::CannotSet {
        harness,
        why: capabilities.set_reason(),
    }
}

/// A runtime that runs one process per attempt: the five agent CLIs and `command`.
/// `attempt::run` drives it (see there for the loop every one of them shares).
pub trait ProcessHarness: Send + Sync {
    fn name(&self) -> &'static str;
    fn describe(&self) -> Value;
    fn capabilities(&self) -> &'static Capabilities;
    /// The process for an attempt: a first turn, a resumed turn (`turn.resume` holds the native
    /// session id) or a check-in. An `Err` fails the attempt with that reason.
    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError>;
    /// What one line of the process's output says; most lines say nothing. `memory` lasts for
    /// the attempt (a shell call's command by its id, until its result line comes).
    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent>;
    /// How the process's end (no answer was accepted) maps to an attempt's end. The default
    /// reads the exit status and the errors seen; a CLI that exits 0 after an error overrides it.
    fn ended(&self, exit: &ProcessExit<'_>) -> AttemptEnd {
        attempt::default_end(exit)
    }
    /// Whether what the runtime just reported leaves the attempt nothing to wait for: no
    /// command the agent runs can succeed (codex: its own sandbox refuses them all, `wfa` too),
    /// so the process is stopped at once and its end read by `ended`. By default nothing does.
    fn hopeless(&self, event: &HarnessEvent) -> bool {
        let _ = event;
        false
    }
    /// As `Harness::fork`; the default cannot.
    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        let _ = op;
        cannot(ProcessHarness::capabilities(self).fork)
    }
    /// As `Harness::compact`; the default cannot.
    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        let _ = (op, focus);
        cannot(ProcessHarness::capabilities(self).compact)
    }
    /// As `Harness::reconfigure`; the default cannot.
    fn reconfigure(&self, settings: &Settings) -> Result<Arc<dyn Harness>, RuntimeError> {
        let _ = settings;
        Err(cannot_set(
            ProcessHarness::name(self),
            ProcessHarness::capabilities(self),
        ))
    }
}

impl<T: ProcessHarness> Harness for T {
    fn name(&self) -> &'static str {
        ProcessHarness::name(self)
    }

    fn describe(&self) -> Value {
        ProcessHarness::describe(self)
    }

    fn capabilities(&self) -> &'static Capabilities {
        ProcessHarness::capabilities(self)
    }

    fn run<'a>(&'a self, attempt: Attempt<'a>) -> BoxFuture<'a, AttemptReport> {
        Box::pin(attempt::run(self, attempt))
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        ProcessHarness::fork(self, op)
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        ProcessHarness::compact(self, op, focus)
    }

    fn reconfigure(&self, settings: &Settings) -> Result<Arc<dyn Harness>, RuntimeError> {
        ProcessHarness::reconfigure(self, settings)
    }
}

/// One attempt of a turn: everything a harness may need to run it.
pub struct Attempt<'a> {
    /// Who runs which turn, and what it reads this time: what a process is launched with.
    pub launch: TurnLaunch<'a>,
    /// What the author asked: a script reads these; a process is given `launch.prompt`.
    pub author_prompt: &'a str,
    pub schema: Option<&'a Schema>,
    pub deadline: Instant,
    /// The agent spec's `env`: what the agent inherits and the variables set on top.
    pub env: &'a environment::AgentEnv,
    /// The agent's native session: updated from what the runtime reports (`launch.resume` is
    /// its id as the attempt began).
    pub native: &'a mut NativeSession,
    /// Becomes true when the run is cancelled.
    pub cancelled: watch::Receiver<bool>,
    /// Notified when an answer for the turn is accepted.
    pub answered: &'a Notify,
    pub sink: &'a dyn TurnSink,
    /// How the run's agent processes are tracked (their cgroups).
    pub supervision: &'a keeper::Supervision,
    /// A message turn (`agent.send`): the message. It owes no answer; `prompt` gives it.
    pub message: Option<&'a crate::messages::Body>,
}

/// Where an attempt reports as it runs (the agent's records).
pub trait TurnSink: Send + Sync {
    /// Whether an answer for the turn has been accepted.
    fn answered(&self) -> bool;
    /// Something the runtime did, as it happened.
    fn activity(&self, event: &HarnessEvent);
    /// A line the agent's process wrote on stderr, as it came (for a live view).
    fn stderr_line(&self, line: &str);
    /// Keeps a stream of the attempt's output in the run folder; the file's path in it.
    fn keep_output(&self, stream: Stream, captured: &Captured) -> Option<String>;
    /// The root of the agent's process tree while a process runs (its keeper's pid), `None`
    /// once it is stopped: the agent's socket serves only processes descending from it.
    fn process(&self, root: Option<i32>);
    /// The attempt's process runs in this container (a container provider's name for it).
    fn container(&self, name: &str);
}

/// What an attempt is, apart from its live parts (the session it updates, where it reports,
/// its cancel flag): all a process-based harness launches it from, so that a CLI's `launch`
/// reads plain values (its unit tests build one with `test_turn`).
pub struct TurnLaunch<'a> {
    /// What the agent reads this time: the composed prompt, or the check-in.
    pub prompt: &'a str,
    /// The native session to resume (the CLI's own id), when the agent has one.
    pub resume: Option<&'a str>,
    pub cwd: &'a Path,
    /// The agent's launcher (`wfa`), by absolute path.
    pub launcher: &'a Path,
    /// The agent's key.
    pub agent: &'a str,
    /// The turn's id (`t3`) and the agent's turn number, from 1.
    pub turn: &'a str,
    pub n: u32,
    pub check_in: bool,
    /// `AWF_SESSION`: a name stable across the agent's turns, for an executable's own state.
    pub session_name: &'a str,
    /// The sandbox the agent runs in: its process is started through it, and a CLI opens its
    /// own gate inside (awf's box is the gate). `None`: unconfined, as before.
    pub sandbox: Option<&'a dyn confinement::Confinement>,
}

/// An agent's native session, across its turns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NativeSession {
    /// The id the runtime gave (or was given) for the session; the next attempt resumes it.
    pub id: Option<String>,
    /// The session's running totals as the runtime last reported them, for runtimes that
    /// report totals rather than what one run used (`UsageBasis::Session`).
    pub reported: Usage,
}

/// How an attempt ended, with what it used and where its output is.
#[derive(Debug)]
pub struct AttemptReport {
    pub end: AttemptEnd,
    pub usage: Usage,
    /// Files in the run folder with the attempt's output.
    pub output: Vec<String>,
}

impl AttemptReport {
    pub fn ended(end: AttemptEnd) -> AttemptReport {
        AttemptReport {
            end,
            usage: Usage::default(),
            output: Vec::new(),
        }
    }
}

/// How one attempt of a turn ended.
#[derive(Clone, Debug, PartialEq)]
pub enum AttemptEnd {
    /// An answer was accepted.
    Answered,
    /// It ended without an answer and without a failure: a check-in follows.
    ExitedSilent,
    Failed(String),
    /// It needs what only a person can give: a login, a permission.
    Blocked(String),
    /// The turn's deadline passed; `Some` when the runtime said why (a test's script does).
    TimedOut(Option<String>),
    Cancelled,
}

/// What a runtime's output said, line by line.
#[derive(Clone, Debug, PartialEq)]
pub enum HarnessEvent {
    /// The native session's id.
    Session(String),
    /// The agent started a shell command.
    ShellStarted { command: String },
    /// A shell command ended; `output` is its start, when the runtime reports it.
    ShellFinished {
        command: String,
        exit_code: Option<i32>,
        output: Option<String>,
    },
    /// The agent used one of its runtime's other tools (read a file, edited one, ...).
    ToolUsed { tool: String, detail: String },
    /// Text the agent wrote.
    Message(String),
    /// Tokens used, on the runtime's own basis.
    Usage { tokens: Tokens, basis: UsageBasis },
    /// Money spent, as the runtime reckons it, on its own basis.
    Cost { usd: f64, basis: UsageBasis },
    /// An error the runtime reported; `blocked` when it needs a person (login, permission).
    Error { message: String, blocked: bool },
}

/// What a line reader keeps between the lines of one attempt.
#[derive(Debug, Default)]
pub struct LineMemory {
    /// Shell commands still running, by the runtime's own call id.
    pub shells: std::collections::HashMap<String, String>,
    /// A message the runtime streams in parts, gathered until it ends.
    pub text: String,
    /// The usage each model response reported so far, by the runtime's response id (claude
    /// repeats a response's usage on each of its parts).
    pub responses: std::collections::HashMap<String, Tokens>,
    /// The process runs inside awf's sandbox, its runtime's own gate open (codex: no sandbox of
    /// its own, so what codex says of its sandbox's helper does not concern it).
    pub confined: bool,
}

/// How a process ended, with what its output said, for `ProcessHarness::ended`.
pub struct ProcessExit<'a> {
    /// The program's file name, as failure details name it.
    pub program: &'a str,
    pub status: Option<std::process::ExitStatus>,
    pub stderr: &'a Captured,
    /// The errors the runtime reported, in order.
    pub errors: &'a [(String, bool)],
    /// Whether the runtime reported a session.
    pub session: Option<&'a str>,
}

/// Whether a runtime can do something, and if not, why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Can {
    Yes(&'static str),
    No(&'static str),
}

impl Can {
    pub fn given(self) -> bool {
        matches!(self, Can::Yes(_))
    }

    pub fn to_json(self) -> Value {
        match self {
            Can::Yes(how) => serde_json::json!({ "given": true, "how": how }),
            Can::No(why) => serde_json::json!({ "given": false, "why": why }),
        }
    }
}

/// What a runtime can do, each stated as given (and how) or absent (and why).
#[derive(Clone, Copy, Debug)]
pub struct Capabilities {
    /// The next turn continues the same conversation.
    pub resume: Can,
    pub fork: Can,
    pub compact: Can,
    /// A model or effort change for later turns of the same session.
    pub set: Can,
    /// The effort levels `runtime.effort` may name; `None`: any (passed through as given).
    pub effort: Effort,
    /// Tokens per turn read from its output.
    pub usage: Can,
    /// How long one shell command may run before the runtime backgrounds, kills or hands it
    /// back (`wfa tool` prints it; reference: harnesses.md).
    pub shell_limit: &'static str,
}

/// Which effort levels a runtime takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    Levels(&'static [&'static str]),
    /// Any name; the runtime (or its provider) decides what it means.
    AnyName(&'static str),
    None(&'static str),
}

impl Capabilities {
    /// Why the runtime cannot change its settings (or how it does).
    pub fn set_reason(&self) -> &'static str {
        match self.set {
            Can::Yes(how) | Can::No(how) => how,
        }
    }

    pub fn to_json(&self) -> Value {
        let effort = match self.effort {
            Effort::Levels(levels) => serde_json::json!({ "given": true, "levels": levels }),
            Effort::AnyName(how) => serde_json::json!({ "given": true, "how": how }),
            Effort::None(why) => serde_json::json!({ "given": false, "why": why }),
        };
        serde_json::json!({
            "resume": self.resume.to_json(),
            "fork": self.fork.to_json(),
            "compact": self.compact.to_json(),
            "set": self.set.to_json(),
            "effort": effort,
            "usage": self.usage.to_json(),
            "shellLimit": self.shell_limit,
        })
    }
}

/// A turn to launch in unit tests: the agent `a`'s first turn `t1` in `/work`, resuming `resume`.
#[cfg(test)]
pub(crate) fn test_turn(resume: Option<&'static str>) -> TurnLaunch<'static> {
    TurnLaunch {
        prompt: "Say hello.",
        resume,
        cwd: Path::new("/work"),
        launcher: Path::new("/tmp/awf-x/a1/wfa"),
        agent: "a",
        turn: "t1",
        n: 1,
        check_in: false,
        session_name: "a-a1",
        sandbox: None,
    }
}
