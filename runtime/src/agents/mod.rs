//! Agents: opened by key, given turns one at a time, answering through their socket.
//!
//! `Agents` is a run's registry: `open` checks a spec (a conflicting reopen is refused naming
//! the field), makes the agent's folder, launcher and socket, and records it. An `Agent` holds
//! its turn queue (queue.rs) and the state its socket reads: which turn is open, which are over,
//! whether its answer was accepted. turn.rs runs a turn; answer.rs reads an answer; prompt.rs
//! writes what the agent reads; outcome.rs is how a turn ends.

mod answer;
pub mod outcome;
pub mod prompt;
pub mod queue;
mod scripted;
pub mod turn;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::{watch, Notify};

use crate::channel::refusal::Code;
use crate::channel::server::{AgentSocket, ChannelHandler, HandlerFuture};
use crate::channel::wire::{Request, Response};
use crate::channel::{launcher, ControlDir};
use crate::harness::{self, Runtime, RuntimeOverrides};
use crate::js::JsRequester;
use crate::records::{time, Event, RunDir};
use crate::schema::Schema;
use crate::tools::{dispatch, ToolSet};
use crate::workflow::deadline::{format_duration, parse_duration};
pub use outcome::Outcome;
use queue::TurnQueue;

/// What every agent of a run shares with the run.
pub struct RunLink {
    /// The run's id; tool handlers are found by it in JS.
    pub run_id: String,
    /// Asks the run's JS to call tool handlers.
    pub js: JsRequester,
    pub records: Arc<RunDir>,
    pub cwd: PathBuf,
    pub deadline: Instant,
    /// Becomes true when the run is cancelled (Ctrl-C, SIGTERM, the run's end).
    pub cancelled: watch::Receiver<bool>,
    pub overrides: RuntimeOverrides,
    /// A test run: every agent is played by the test's scripts (js/agentswf/testing.ts).
    pub scripted: bool,
}

/// A run's agents, by key.
pub struct Agents {
    link: Arc<RunLink>,
    control: OnceLock<Result<ControlDir, String>>,
    by_key: Mutex<HashMap<String, Arc<Agent>>>,
    next_turn: AtomicU64,
    /// Operations started and not yet settled, across the run's agents.
    in_flight: Arc<watch::Sender<usize>>,
}

/// Counts one operation as in flight until dropped.
pub struct InFlight(Arc<watch::Sender<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// An agent spec as `wf.agents.open` gives it (JSON from js/workflow/agents.ts).
#[derive(Clone, Debug)]
pub struct AgentSpec {
    pub key: String,
    pub runtime: Value,
    pub instructions: Option<String>,
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
    /// `None` when the spec left tools out (a reopen then keeps what the agent has).
    pub tools: Option<ToolSet>,
}

impl AgentSpec {
    pub fn from_json(spec: &Value) -> Result<AgentSpec, String> {
        let Some(object) = spec.as_object() else {
            return Err("wf.agents.open(spec): spec must be an object with key and runtime".into());
        };
        const KNOWN: &[&str] = &["key", "runtime", "instructions", "cwd", "env", "tools"];
        if let Some(unknown) = object.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(format!(
                "wf.agents.open(spec): unknown option `{unknown}` (known: {})",
                KNOWN.join(", ")
            ));
        }
        let key = match object.get("key").and_then(Value::as_str) {
            Some(k) if valid_key(k) => k.to_string(),
            Some(k) => {
                return Err(format!(
                    "wf.agents.open(spec): key {} is not a valid agent key; use 1 to 64 letters, digits, '.', '_', ':' or '-'",
                    json!(k)
                ))
            }
            None => return Err("wf.agents.open(spec): key is missing; name the agent, e.g. key: \"reviewer\"".into()),
        };
        let Some(runtime) = object.get("runtime").cloned() else {
            return Err(format!("wf.agents.open(spec): agent \"{key}\" has no runtime; give runtime: {{ command: [\"./agent.sh\"] }}"));
        };
        let text = |name: &str| -> Result<Option<String>, String> {
            match object.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!(
                    "wf.agents.open(spec): agent \"{key}\": {name} must be a string"
                )),
            }
        };
        let env = match object.get("env") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(vars)) => {
                let mut env = Vec::new();
                for (name, value) in vars {
                    let Some(value) = value.as_str() else {
                        return Err(format!(
                            "wf.agents.open(spec): agent \"{key}\": env.{name} must be a string"
                        ));
                    };
                    env.push((name.clone(), value.to_string()));
                }
                env
            }
            Some(_) => {
                return Err(format!(
                    "wf.agents.open(spec): agent \"{key}\": env must be an object of strings"
                ))
            }
        };
        let tools = match object.get("tools") {
            None | Some(Value::Null) => None,
            Some(tools) => {
                Some(ToolSet::from_json(tools).map_err(|e| format!("agent \"{key}\": {e}"))?)
            }
        };
        Ok(AgentSpec {
            tools,
            instructions: text("instructions")?,
            cwd: text("cwd")?,
            key,
            runtime,
            env,
        })
    }

    /// The fields a reopen must repeat, for comparison.
    fn identity(&self) -> [(&'static str, Value); 4] {
        [
            ("runtime", self.runtime.clone()),
            ("instructions", json!(self.instructions)),
            ("cwd", json!(self.cwd)),
            ("env", json!(self.env)),
        ]
    }
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':'))
}

impl Agents {
    pub fn new(link: RunLink) -> Agents {
        Agents {
            link: Arc::new(link),
            control: OnceLock::new(),
            by_key: Mutex::default(),
            next_turn: AtomicU64::new(1),
            in_flight: Arc::new(watch::Sender::new(0)),
        }
    }

    /// Marks an operation in flight until the returned guard drops.
    pub fn in_flight(&self) -> InFlight {
        self.in_flight.send_modify(|n| *n += 1);
        InFlight(self.in_flight.clone())
    }

    /// Resolves once no operation is in flight (bounded: a turn being stopped kills its
    /// process group within the kill grace).
    pub async fn settled(&self) {
        let mut in_flight = self.in_flight.subscribe();
        let bound = crate::limits::KILL_GRACE * 3;
        let _ = tokio::time::timeout(bound, in_flight.wait_for(|n| *n == 0)).await;
    }

    /// Opens an agent, or returns the one already open under this key with the same spec.
    pub fn open(&self, spec: AgentSpec) -> Result<Arc<Agent>, String> {
        let mut by_key = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = by_key.get(&spec.key) {
            for ((field, old), (_, new)) in existing.spec.identity().iter().zip(spec.identity()) {
                if *old != new {
                    return Err(format!(
                        "agent \"{}\" is already open with a different {field} ({} then, {} now); open it with the same spec, or use another key",
                        spec.key,
                        compact(old),
                        compact(&new)
                    ));
                }
            }
            if let Some(tools) = &spec.tools {
                existing
                    .tools
                    .check_same(tools)
                    .map_err(|e| format!("agent \"{}\": {e}", spec.key))?;
            }
            if existing.is_closed() {
                return Err(format!(
                    "agent \"{}\" was closed; open a new agent under another key",
                    spec.key
                ));
            }
            return Ok(existing.clone());
        }
        let agent = self.create(spec)?;
        by_key.insert(agent.key.clone(), agent.clone());
        Ok(agent)
    }

    fn create(&self, spec: AgentSpec) -> Result<Arc<Agent>, String> {
        let cwd = match &spec.cwd {
            Some(dir) => {
                let path = self.link.cwd.join(dir);
                match std::fs::canonicalize(&path) {
                    Ok(p) if p.is_dir() => p,
                    _ => {
                        return Err(format!(
                            "agent \"{}\": cwd {} is not a directory",
                            spec.key,
                            path.display()
                        ))
                    }
                }
            }
            None => self.link.cwd.clone(),
        };
        let runtime = if self.link.scripted {
            Runtime::Scripted {
                declared: spec.runtime.clone(),
            }
        } else {
            harness::resolve(&spec.runtime, &cwd, &self.link.overrides)
                .map_err(|e| format!("agent \"{}\": {e}", spec.key))?
        };
        let control = self
            .control
            .get_or_init(|| {
                ControlDir::create()
                    .map_err(|e| format!("cannot create the run's control folder under /tmp: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let wfa = launcher::wfa_binary()?;
        let dir = control
            .agent_dir()
            .map_err(|e| format!("cannot create a folder for agent \"{}\": {e}", spec.key))?;
        let launcher = launcher::write(&dir, &wfa)
            .map_err(|e| format!("cannot write the launcher of agent \"{}\": {e}", spec.key))?;
        let tools = spec.tools.clone().unwrap_or_default();
        let agent = Arc::new(Agent {
            key: spec.key.clone(),
            tools,
            session: format!(
                "{}-{}",
                spec.key,
                dir.file_name().and_then(|n| n.to_str()).unwrap_or("a")
            ),
            runtime,
            cwd,
            launcher,
            spec,
            link: self.link.clone(),
            queue: Arc::new(TurnQueue::default()),
            state: Mutex::new(AgentState::default()),
            socket: Mutex::new(None),
        });
        let handler = Arc::new(AgentChannel {
            agent: Arc::downgrade(&agent),
        });
        let socket = AgentSocket::serve(&dir, handler).map_err(|e| {
            format!(
                "cannot listen on the socket of agent \"{}\": {e}",
                agent.key
            )
        })?;
        *agent.socket.lock().unwrap_or_else(|e| e.into_inner()) = Some(socket);
        agent.record(&Event::AgentOpened {
            agent: agent.key.clone(),
            runtime: agent.runtime.describe(),
            cwd: agent.cwd.display().to_string(),
            launcher: agent.launcher.display().to_string(),
            tools: agent.tools.names(),
        });
        Ok(agent)
    }

    pub fn get(&self, key: &str) -> Option<Arc<Agent>> {
        self.by_key
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    /// A new run-wide turn id: `t1`, `t2`, ...
    pub fn next_turn_id(&self) -> String {
        format!("t{}", self.next_turn.fetch_add(1, Ordering::SeqCst))
    }

    pub fn link(&self) -> &Arc<RunLink> {
        &self.link
    }

    /// Stops listening on every agent's socket and removes the control folder.
    pub fn shut_down(&self) {
        let agents: Vec<Arc<Agent>> = self
            .by_key
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for agent in agents {
            agent.stop_listening();
        }
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

/// An open agent.
pub struct Agent {
    pub key: String,
    /// Fixed at open: a reopen must give the same names, descriptions and schemas.
    pub tools: ToolSet,
    spec: AgentSpec,
    pub runtime: Runtime,
    pub cwd: PathBuf,
    pub launcher: PathBuf,
    /// `AWF_SESSION`: stable across the agent's turns.
    pub session: String,
    link: Arc<RunLink>,
    pub queue: Arc<TurnQueue>,
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
    /// The tool call running now, if any: an agent makes one call at a time.
    call: Option<RunningCall>,
    calls_made: u64,
}

/// A tool call in flight.
struct RunningCall {
    id: String,
    tool: String,
    input: Value,
    started: Instant,
    done: watch::Receiver<Option<Response>>,
}

/// What `begin_call` decided.
pub enum CallStart {
    Run(CallSlot),
    /// The same call is running: wait for its answer.
    Join(String, watch::Receiver<Option<Response>>),
    Busy(String),
    NotInTurn(String),
}

/// A call that may run: its id, its turn, and what ends it early.
pub struct CallSlot {
    pub id: String,
    pub tool: String,
    pub turn: String,
    pub turn_deadline: Instant,
    /// Notified when the turn ends while the call runs.
    pub turn_over: Arc<Notify>,
    finish: Arc<watch::Sender<Option<Response>>>,
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
}

impl Agent {
    pub fn link(&self) -> &Arc<RunLink> {
        &self.link
    }

    pub fn record(&self, event: &Event) {
        if let Err(e) = self.link.records.append(event) {
            eprintln!("awf: cannot append to the run's events: {e}");
        }
    }

    /// The agent's socket, while it listens.
    pub fn socket_path(&self) -> Option<PathBuf> {
        let socket = self.socket.lock().unwrap_or_else(|e| e.into_inner());
        socket.as_ref().map(|s| s.path().to_path_buf())
    }

    pub fn is_closed(&self) -> bool {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.closing || state.closed
    }

    /// Refuses new operations from now on; queued ones still run. `false` if already closing.
    pub fn begin_close(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        !std::mem::replace(&mut state.closing, true)
    }

    /// The last step of `close()`, once the operations queued before it are done.
    pub fn finish_close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.stop_listening();
        self.record(&Event::AgentClosed {
            agent: self.key.clone(),
        });
    }

    fn stop_listening(&self) {
        self.socket.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Opens a turn for answers; returns its number and the notifier of an accepted answer.
    fn open_turn(&self, id: &str, schema: Option<Schema>, deadline: Instant) -> (u32, Arc<Notify>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.turns_taken += 1;
        let answered = Arc::new(Notify::new());
        state.open = Some(OpenTurn {
            id: id.to_string(),
            schema,
            deadline,
            accepted: None,
            answered: answered.clone(),
            over: Arc::new(Notify::new()),
        });
        (state.turns_taken, answered)
    }

    /// The accepted answer of the open turn, if any.
    fn accepted(&self) -> Option<Value> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.open.as_ref().and_then(|t| t.accepted.clone())
    }

    /// Closes the open turn; later answers to it are refused as `closed-turn`.
    fn close_turn(&self, id: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
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
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.call.as_ref().map(|c| c.tool.clone())
    }

    /// Starts, joins or refuses a tool call.
    pub fn begin_call(&self, tool: &str, input: &Value) -> CallStart {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = &state.call {
            if running.tool == tool && running.input == *input {
                return CallStart::Join(running.id.clone(), running.done.clone());
            }
            return CallStart::Busy(format!(
                "{} is still running (called {} ago); you make one call at a time",
                running.tool,
                format_duration(std::time::Duration::from_millis(
                    running.started.elapsed().as_millis() as u64
                ))
            ));
        }
        let Some(open) = state.open.as_ref().filter(|t| t.accepted.is_none()) else {
            let why = match &state.open {
                Some(open) => format!(
                    "turn {} is answered; a tool is callable only while you work on a turn",
                    open.id
                ),
                None => "you have no open turn; a tool is callable only while you work on a turn"
                    .to_string(),
            };
            return CallStart::NotInTurn(why);
        };
        let (turn, turn_deadline, turn_over) = (open.id.clone(), open.deadline, open.over.clone());
        state.calls_made += 1;
        let id = format!("{}-c{}", turn, state.calls_made);
        let (finish, done) = watch::channel(None);
        let finish = Arc::new(finish);
        state.call = Some(RunningCall {
            id: id.clone(),
            tool: tool.to_string(),
            input: input.clone(),
            started: Instant::now(),
            done,
        });
        CallStart::Run(CallSlot {
            id,
            tool: tool.to_string(),
            turn,
            turn_deadline,
            turn_over,
            finish,
        })
    }

    /// Ends a call: joiners get `response`, and the agent may call again.
    pub fn end_call(&self, slot: &CallSlot, response: Response) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.call.as_ref().is_some_and(|c| c.id == slot.id) {
            state.call = None;
        }
        drop(state);
        slot.finish.send_replace(Some(response));
    }

    /// `busy` while a tool call runs: the agent cannot answer or ask for time meanwhile.
    fn refuse_while_calling(&self) -> Option<Response> {
        let tool = self.tool_call_running()?;
        Some(refused(
            Code::Busy,
            &format!("{tool} is still running; answer once it has answered"),
            vec![],
            Some("wait for the tool's answer, then send your answer again"),
        ))
    }

    fn submit_answer(&self, turn: &str, args: &[String], stdin: Option<&str>) -> Response {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let open = match state.open.as_mut() {
            Some(open) if open.id == turn => open,
            _ => return refuse_turn(&state, turn),
        };
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

    fn waiting(&self, turn: &str, reason: &str, timeout: Option<&str>) -> Response {
        if reason.trim().is_empty() {
            return refused(
                Code::InvalidRequest,
                "--reason is blank; say what the agent still waits for",
                vec![],
                None,
            );
        }
        if let Some(text) = timeout {
            if let Err(problem) = parse_duration(text) {
                return refused(
                    Code::InvalidRequest,
                    &format!("--timeout: {problem}"),
                    vec![],
                    None,
                );
            }
        }
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let deadline = match state.open.as_ref() {
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

fn refused(code: Code, message: &str, details: Vec<String>, hint: Option<&str>) -> Response {
    Response::Refused {
        code,
        message: message.to_string(),
        details,
        hint: hint.map(str::to_string),
    }
}

/// An agent's socket handler; holds the agent weakly so a closed run frees it.
struct AgentChannel {
    agent: std::sync::Weak<Agent>,
}

impl ChannelHandler for AgentChannel {
    fn handle(&self, request: Request) -> HandlerFuture {
        let agent = self.agent.upgrade();
        Box::pin(async move {
            let Some(agent) = agent else {
                return refused(Code::ClosedTurn, "this agent is closed", vec![], None);
            };
            match request {
                Request::Result { turn, args, stdin } => agent
                    .refuse_while_calling()
                    .unwrap_or_else(|| agent.submit_answer(&turn, &args, stdin.as_deref())),
                Request::Waiting {
                    turn,
                    reason,
                    timeout,
                } => agent
                    .refuse_while_calling()
                    .unwrap_or_else(|| agent.waiting(&turn, &reason, timeout.as_deref())),
                Request::Tools {} => dispatch::listing(&agent),
                Request::Tool { name, args, stdin } => {
                    dispatch::call(agent, name, args, stdin).await
                }
            }
        })
    }
}
