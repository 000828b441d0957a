//! An open agent and the state its socket reads: which turn is open, which are over, whether
//! its answer was accepted, and its tool calls (tools/calls.rs, under the same lock). Answers
//! and `wfa waiting` are decided here; a tool call goes to tools/dispatch.rs, for which the
//! agent is a `Caller`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::Notify;

use super::answer;
use super::cancel::TurnCancels;
use super::problem::OpenError;
use super::queue::TurnQueue;
use super::registry::RunLink;
use super::spec::AgentSpec;
use crate::channel::refusal::Code;
use crate::channel::server::{AgentSocket, Peer};
use crate::channel::wire::Response;
use crate::duration::{format_duration, parse_timeout};
use crate::harness::keeper::Supervision;
use crate::harness::{Harness, NativeSession, Usage};
use crate::js::JsRequester;
use crate::records::{time, Event};
use crate::schema::Schema;
use crate::tools::calls::{CallSlot, CallStart, ToolCalls, TurnWindow};
use crate::tools::dispatch::Caller;
use crate::tools::ToolSet;

/// An open agent.
pub struct Agent {
    pub key: String,
    /// Fixed at open: a reopen must give the same names, descriptions and schemas.
    pub tools: ToolSet,
    pub(super) spec: AgentSpec,
    /// Replaced by `agent.set` (the same session with other settings).
    harness: Mutex<Arc<dyn Harness>>,
    pub cwd: PathBuf,
    pub launcher: PathBuf,
    /// `AWF_SESSION`: stable across the agent's turns.
    pub session_name: String,
    pub(super) link: Arc<RunLink>,
    pub queue: Arc<TurnQueue>,
    /// The agent's native session; a turn holds it while it runs (turns run one at a time).
    pub(super) native: tokio::sync::Mutex<NativeSession>,
    /// How the run's agent processes are tracked; each attempt's process is started through it.
    pub supervision: Arc<Supervision>,
    /// Its turns that the workflow may cancel (`wf.race`, `wf.parallel`).
    pub cancels: TurnCancels,
    state: Mutex<AgentState>,
    socket: Mutex<Option<AgentSocket>>,
}

#[derive(Default)]
struct AgentState {
    turns_taken: u32,
    open: Option<OpenTurn>,
    over: HashSet<String>,
    /// `close()` was called: no new operation is accepted.
    closing: bool,
    closed: bool,
    calls: ToolCalls,
    /// What the agent's turns used so far.
    usage: Usage,
    /// The root of the agent's process tree (its keeper's pid) while a process runs.
    process_root: Option<i32>,
}

/// The turn an agent works on.
struct OpenTurn {
    id: String,
    schema: Option<Schema>,
    deadline: Instant,
    accepted: Option<Value>,
    answered: Arc<Notify>,
    /// Wakes a running tool call when the turn ends.
    over: Arc<Notify>,
    /// A message turn (`agent.send`): tools work, and no answer is owed or taken.
    message: bool,
}

impl Agent {
    pub(super) fn new(
        spec: AgentSpec,
        harness: Arc<dyn Harness>,
        cwd: PathBuf,
        launcher: PathBuf,
        session_name: String,
        link: Arc<RunLink>,
        supervision: Arc<Supervision>,
    ) -> Agent {
        Agent {
            key: spec.key.clone(),
            tools: spec.tools.clone().unwrap_or_default(),
            spec,
            harness: Mutex::new(harness),
            cwd,
            launcher,
            session_name,
            link,
            queue: Arc::new(TurnQueue::default()),
            native: tokio::sync::Mutex::default(),
            supervision,
            cancels: TurnCancels::default(),
            state: Mutex::new(AgentState::default()),
            socket: Mutex::new(None),
        }
    }

    pub fn link(&self) -> &Arc<RunLink> {
        &self.link
    }

    /// The agent's harness, with the settings its later turns run with.
    pub fn harness(&self) -> Arc<dyn Harness> {
        self.harness
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(super) fn replace_harness(&self, harness: Arc<dyn Harness>) {
        *self.harness.lock().unwrap_or_else(|e| e.into_inner()) = harness;
    }

    /// How many turns the agent has begun.
    pub fn turns_taken(&self) -> u32 {
        self.state().turns_taken
    }

    fn state(&self) -> std::sync::MutexGuard<'_, AgentState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn record(&self, event: &Event) {
        if let Err(e) = self.link.records.append(event) {
            tracing::warn!(agent = %self.key, "cannot append to the run's events: {e}");
        }
    }

    /// A reopen under this key must give the same spec (tools: the same names, descriptions and
    /// schemas; handlers may change).
    pub(super) fn check_reopen(&self, spec: &AgentSpec) -> Result<(), OpenError> {
        for ((field, old), (_, new)) in self.spec.identity().iter().zip(spec.identity()) {
            if *old != new {
                return Err(OpenError::Reopened {
                    key: spec.key.clone(),
                    field,
                    then: compact(old),
                    now: compact(&new),
                });
            }
        }
        if let Some(tools) = &spec.tools {
            self.tools
                .check_same(tools)
                .map_err(|source| OpenError::Tools {
                    key: spec.key.clone(),
                    source,
                })?;
        }
        if self.is_closed() {
            return Err(OpenError::Closed(spec.key.clone()));
        }
        Ok(())
    }

    pub(super) fn listen(&self, socket: AgentSocket) {
        *self.socket.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket);
    }

    /// The agent's socket, while it listens.
    pub fn socket_path(&self) -> Option<PathBuf> {
        let socket = self.socket.lock().unwrap_or_else(|e| e.into_inner());
        socket.as_ref().map(|s| s.path().to_path_buf())
    }

    pub(super) fn stop_listening(&self) {
        self.socket.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    pub fn is_closed(&self) -> bool {
        let state = self.state();
        state.closing || state.closed
    }

    /// Refuses new operations from now on; queued ones still run. `false` if already closing.
    pub fn begin_close(&self) -> bool {
        !std::mem::replace(&mut self.state().closing, true)
    }

    /// The last step of `close()`, once the operations queued before it are done.
    pub fn finish_close(&self) {
        self.state().closed = true;
        self.stop_listening();
        self.record(&Event::AgentClosed {
            agent: self.key.clone(),
        });
    }

    /// Sets (or clears) the root of the agent's process tree.
    pub(super) fn set_process_root(&self, root: Option<i32>) {
        self.state().process_root = root;
    }

    /// Whether the process that connected (`peer`) may speak for this agent: a process of this
    /// user that descends from the agent's running process (its keeper), or, in a test run,
    /// awf itself, which plays the scripted agents. Anything else is refused `forbidden` and
    /// recorded.
    pub(super) fn authorize(&self, peer: Peer) -> Result<(), Response> {
        // SAFETY: plain syscall.
        let me = unsafe { libc::geteuid() };
        let why = match peer.pid {
            _ if peer.uid != me => format!("a process of another user (uid {})", peer.uid),
            None => "a process awf cannot identify".to_string(),
            Some(pid) if self.link.scripted && pid == std::process::id() as i32 => return Ok(()),
            Some(pid) => match self.state().process_root {
                Some(root) if crate::os::proc::descends_from(pid, root) => return Ok(()),
                Some(_) => format!(
                    "process {pid}, which is not one of agent \"{}\"'s",
                    self.key
                ),
                None => format!(
                    "process {pid}, while agent \"{}\" has no process running",
                    self.key
                ),
            },
        };
        self.record(&Event::ChannelRefused {
            agent: self.key.clone(),
            pid: peer.pid,
            uid: peer.uid,
            why: why.clone(),
        });
        Err(refused(
            Code::Forbidden,
            &format!("this launcher belongs to agent \"{}\" and was used by {why}", self.key),
            vec![],
            Some("use the launcher named in your own prompt ($AWF_WFA); only the agent it was made for may use it"),
        ))
    }

    /// What the agent's turns used so far.
    pub fn usage(&self) -> Usage {
        self.state().usage
    }

    pub(super) fn add_usage(&self, usage: &Usage) {
        self.state().usage.add(usage);
    }

    /// Opens a turn for answers; returns its number and the notifier of an accepted answer.
    pub(super) fn open_turn(
        &self,
        id: &str,
        schema: Option<Schema>,
        deadline: Instant,
    ) -> (u32, Arc<Notify>) {
        self.open(id, schema, deadline, false)
    }

    /// Opens a message turn: the agent may call its tools, and owes no answer.
    pub(super) fn open_message_turn(&self, id: &str, deadline: Instant) -> (u32, Arc<Notify>) {
        self.open(id, None, deadline, true)
    }

    fn open(
        &self,
        id: &str,
        schema: Option<Schema>,
        deadline: Instant,
        message: bool,
    ) -> (u32, Arc<Notify>) {
        let mut state = self.state();
        state.turns_taken += 1;
        let answered = Arc::new(Notify::new());
        state.open = Some(OpenTurn {
            id: id.to_string(),
            schema,
            deadline,
            accepted: None,
            answered: answered.clone(),
            over: Arc::new(Notify::new()),
            message,
        });
        (state.turns_taken, answered)
    }

    /// Whether the agent was opened with `messages: true`.
    /// The spec's standing instructions, which go with the agent's first turn (`n` 1) only.
    pub(super) fn instructions_for_turn(&self, n: u32) -> Option<&str> {
        (n == 1)
            .then_some(self.spec.instructions.as_deref())
            .flatten()
    }

    pub fn sends_messages(&self) -> bool {
        self.spec.messages
    }

    /// The id of the turn the agent works on, if any.
    pub fn open_turn_id(&self) -> Option<String> {
        self.state().open.as_ref().map(|t| t.id.clone())
    }

    /// The accepted answer of the open turn, if any.
    pub(super) fn accepted(&self) -> Option<Value> {
        let state = self.state();
        state.open.as_ref().and_then(|t| t.accepted.clone())
    }

    /// Closes the open turn; later answers to it are refused as `closed-turn`.
    pub(super) fn close_turn(&self, id: &str) {
        let mut state = self.state();
        if state.open.as_ref().is_some_and(|t| t.id == id) {
            if let Some(open) = state.open.take() {
                open.over.notify_waiters();
            }
        }
        state.over.insert(id.to_string());
    }

    /// Whether a tool call of this agent is running: the agent waits for a handler, so giving
    /// it work now would wait for that handler too.
    pub fn tool_call_running(&self) -> Option<String> {
        self.state().calls.running_tool().map(str::to_string)
    }

    /// Aborts the signal of the tool call still running when a turn ends, before the turn's
    /// outcome goes back to the workflow: the host takes requests in order, so the handler's
    /// abort listeners run before the code awaiting the turn goes on. (The call's own task
    /// also aborts it, later; a second abort does nothing.)
    pub(super) async fn abort_running_call(&self) {
        let running = self.state().calls.running_id().map(str::to_string);
        if let Some(call) = running {
            let payload = serde_json::json!({ "run": self.link.run_id, "call": call });
            let _ = self.link.js.request("tool.abort", payload).await;
        }
    }

    /// `busy` while a tool call runs: the agent cannot answer or ask for time meanwhile.
    pub(super) fn refuse_while_calling(&self) -> Option<Response> {
        let tool = self.tool_call_running()?;
        Some(refused(
            Code::Busy,
            &format!("{tool} is still running; answer once it has answered"),
            vec![],
            Some("wait for the tool's answer, then send your answer again"),
        ))
    }

    pub(super) fn submit_answer(
        &self,
        turn: &str,
        args: &[String],
        stdin: Option<&str>,
    ) -> Response {
        let mut state = self.state();
        let open = match state.open.as_mut() {
            Some(open) if open.id == turn => open,
            _ => return refuse_turn(&state, turn),
        };
        if open.message {
            return super::message_turn::refuse_answer(turn, "result");
        }
        if open.accepted.is_some() {
            return refused(
                Code::ClosedTurn,
                &format!("turn {turn} is already answered; only one answer is accepted"),
                vec![],
                None,
            );
        }
        match answer::read(open.schema.as_ref(), args, stdin) {
            Ok(value) => {
                open.accepted = Some(value.clone());
                open.answered.notify_one();
                drop(state);
                self.record(&Event::AnswerSubmitted {
                    agent: self.key.clone(),
                    turn: turn.to_string(),
                    accepted: true,
                    value: Some(value),
                    problems: vec![],
                });
                Response::Ok {
                    stdout: format!("answer accepted for turn {turn}\n"),
                }
            }
            Err(problems) => {
                drop(state);
                self.record(&Event::AnswerSubmitted {
                    agent: self.key.clone(),
                    turn: turn.to_string(),
                    accepted: false,
                    value: None,
                    problems: problems.clone(),
                });
                refused(
                    Code::InvalidResult,
                    "the answer does not fit the turn",
                    problems,
                    Some("fix what is listed and send the answer again; the turn is still open"),
                )
            }
        }
    }

    /// What input a tool or a turn's answer is taught as: `json`, `text`, `flags` or `nothing`.
    pub(super) fn expects(&self, tool: Option<&str>, turn: Option<&str>) -> Response {
        let taught = |schema: Option<&Schema>, without: &str| match schema {
            None => without.to_string(),
            Some(schema) if schema.takes_flags() => "flags".to_string(),
            Some(_) => "json".to_string(),
        };
        let stdout = match (tool, turn) {
            (Some(name), None) => match self.tools.get(name) {
                Some(tool) => taught(tool.input.as_ref(), "nothing"),
                None => {
                    return refused(
                        Code::UnknownTool,
                        &format!("you have no tool \"{name}\""),
                        vec![],
                        None,
                    )
                }
            },
            (None, Some(id)) => {
                let state = self.state();
                match state.open.as_ref() {
                    Some(open) if open.id == id => taught(open.schema.as_ref(), "text"),
                    _ => return refuse_turn(&state, id),
                }
            }
            _ => {
                return refused(
                    Code::InvalidRequest,
                    "expects takes a tool or a turn",
                    vec![],
                    None,
                )
            }
        };
        Response::Ok { stdout }
    }

    pub(super) fn waiting(&self, turn: &str, reason: &str, timeout: Option<&str>) -> Response {
        if reason.trim().is_empty() {
            return refused(
                Code::InvalidRequest,
                "--reason is blank; say what the agent still waits for",
                vec![],
                None,
            );
        }
        if let Some(text) = timeout {
            if let Err(problem) = parse_timeout(text) {
                return refused(
                    Code::InvalidRequest,
                    &format!("--timeout: {problem}"),
                    vec![],
                    None,
                );
            }
        }
        let state = self.state();
        let deadline = match state.open.as_ref() {
            Some(open) if open.id == turn && open.message => {
                return super::message_turn::refuse_answer(turn, "waiting")
            }
            Some(open) if open.id == turn && open.accepted.is_none() => open.deadline,
            _ => return refuse_turn(&state, turn),
        };
        drop(state);
        self.record(&Event::Waiting {
            agent: self.key.clone(),
            turn: turn.to_string(),
            reason: reason.to_string(),
        });
        let left = deadline.saturating_duration_since(Instant::now());
        let at = time::rfc3339(std::time::SystemTime::now() + left);
        Response::Ok {
            stdout: format!(
                "noted; turn {turn} stays open until its deadline, {at} (in {}), which waiting does not move; answer with result before then\n",
                format_duration(std::time::Duration::from_secs(left.as_secs()))
            ),
        }
    }
}

impl Caller for Agent {
    fn key(&self) -> &str {
        &self.key
    }

    fn tools(&self) -> &ToolSet {
        &self.tools
    }

    fn launcher(&self) -> &Path {
        &self.launcher
    }

    fn begin_call(&self, tool: &str, input: &Value) -> CallStart {
        let mut state = self.state();
        let window = match &state.open {
            Some(open) if open.accepted.is_none() => Ok(TurnWindow {
                id: open.id.clone(),
                deadline: open.deadline,
                over: open.over.clone(),
            }),
            Some(open) => Err(format!(
                "turn {} is answered; a tool is callable only while you work on a turn",
                open.id
            )),
            None => Err(
                "you have no open turn; a tool is callable only while you work on a turn".into(),
            ),
        };
        state.calls.begin(tool, input, window)
    }

    fn end_call(&self, slot: &CallSlot, response: Response) {
        self.state().calls.end(slot);
        slot.finish(response);
    }

    fn record(&self, event: &Event) {
        Agent::record(self, event)
    }

    fn run_id(&self) -> &str {
        &self.link.run_id
    }

    fn js(&self) -> &JsRequester {
        &self.link.js
    }

    fn cancelled(&self) -> tokio::sync::watch::Receiver<bool> {
        self.link.cancelled.clone()
    }

    fn turn_cancel(&self, turn: &str) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        self.cancels.watch(turn)
    }
}

/// The refusal for an answer to a turn that is not this agent's open one.
fn refuse_turn(state: &AgentState, turn: &str) -> Response {
    if state.over.contains(turn)
        || state
            .open
            .as_ref()
            .is_some_and(|t| t.id == turn && t.accepted.is_some())
    {
        let current = match &state.open {
            Some(open) if open.id != turn => format!("; your current turn is {}", open.id),
            _ => String::new(),
        };
        return refused(
            Code::ClosedTurn,
            &format!("turn {turn} is over{current}"),
            vec![],
            None,
        );
    }
    let hint = match &state.open {
        Some(open) => format!(
            "your current turn is {}; copy the command from your prompt",
            open.id
        ),
        None => "you have no open turn now".to_string(),
    };
    refused(
        Code::UnknownTurn,
        &format!("you have no turn {turn}"),
        vec![],
        Some(&hint),
    )
}

pub(super) fn refused(
    code: Code,
    message: &str,
    details: Vec<String>,
    hint: Option<&str>,
) -> Response {
    Response::Refused {
        code,
        message: message.to_string(),
        details,
        hint: hint.map(str::to_string),
    }
}

fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_shortened_in_messages() {
        assert_eq!(compact(&json!("short")), "\"short\"");
        let long = compact(&json!("x".repeat(100)));
        assert_eq!(long.chars().count(), 61);
        assert!(long.ends_with('…'));
    }
}
