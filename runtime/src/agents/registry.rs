//! A run's agents, by key: `open` checks a spec (a conflicting reopen is refused naming the
//! field), resolves its runtime to a harness, makes the agent's folder, launcher and socket, and
//! records it. Also what every agent of a run shares with the run (`RunLink`) and the count of
//! operations in flight, which the run's end waits for.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::watch;

use super::agent::Agent;
use super::channel::AgentChannel;
use super::problem::OpenError;
use super::spec::{AgentSpec, SandboxChoice};
use crate::channel::secret::Secret;
use crate::channel::server::AgentSocket;
use crate::channel::{launcher, ControlDir, RunMarker};
use crate::harness::home::AgentHome;
use crate::harness::keeper::Supervision;
use crate::harness::registry::{OpenContext, StandIn};
use crate::harness::{self, Harness, RuntimeOverrides, Usage};
use crate::records::run_files::PriorSession;
use crate::records::{Event, RunDir};
use crate::sandbox::operator::OperatorSandbox;
use crate::sandbox::{self, AgentBox, AgentPlace, Purpose, Sandbox, SandboxError, SandboxSpec};
use crate::skills::{self, SkillRecord};
use crate::upcall::Upcall;
use crate::worktree::{Ledger, Place, Worktree};

/// What every agent of a run shares with the run.
pub struct RunLink {
    /// The run's id; tool handlers are found by it in JS.
    pub run_id: String,
    /// Calls into the run's workflow code: tool handlers, the message queue, a test's scripts.
    pub workflow: Arc<dyn Upcall>,
    pub records: Arc<RunDir>,
    pub cwd: PathBuf,
    pub deadline: Instant,
    /// Becomes true when the run is cancelled (Ctrl-C, SIGTERM, the run's end).
    pub cancelled: watch::Receiver<bool>,
    pub overrides: RuntimeOverrides,
    /// A test run: every agent is played by the test's scripts (js/agentswf/testing.ts).
    pub scripted: Option<Arc<dyn StandIn>>,
    /// `awf run --agent-sandbox`: every agent runs in this sandbox, and the workflow may open
    /// none of its own.
    pub operator_sandbox: Option<OperatorSandbox>,
    /// A continued run: the native session each agent key had in an earlier attempt; an agent
    /// opened under that key resumes it when its harness is the same and can resume.
    pub resume: HashMap<String, PriorSession>,
    /// The messages agents sent and the workflow has not received yet.
    pub messages: crate::messages::Ledger,
    /// Operations (turns, tool calls) started and not yet settled, across the run's agents.
    pub in_flight: InFlightCount,
    /// The run's budget, and what its earlier attempts spent (budget/run.rs).
    pub budgets: crate::budget::RunBudgets,
}

/// What awf could not set up for an agent.
fn setup(key: &str, what: &'static str, error: std::io::Error) -> OpenError {
    OpenError::Setup {
        key: key.to_string(),
        what,
        error: error.to_string(),
    }
}

/// A run's agents, by key.
pub struct Agents {
    link: Arc<RunLink>,
    /// The run's control folder and how its agent processes are tracked, made at the first open.
    control: OnceLock<Result<(ControlDir, Arc<Supervision>), OpenError>>,
    by_key: Mutex<HashMap<String, Arc<Agent>>>,
    /// The sandboxes `wf.sandboxes.open` made, by key, for agents to share.
    sandboxes: Mutex<HashMap<String, Arc<Sandbox>>>,
    /// The operator's sandbox (`--agent-sandbox`), opened at the first agent's open.
    operator_box: OnceLock<Result<Arc<Sandbox>, SandboxError>>,
    /// The skills each agent was given, by key, as agent-opened records them (a fork's are its
    /// parent's: they are in the CLI home it shares).
    skills: Mutex<HashMap<String, Value>>,
    next_turn: AtomicU64,
}

/// How many operations of a run are in flight; the run's end waits for none.
#[derive(Clone)]
pub struct InFlightCount(Arc<watch::Sender<usize>>);

impl Default for InFlightCount {
    fn default() -> InFlightCount {
        InFlightCount(Arc::new(watch::Sender::new(0)))
    }
}

impl InFlightCount {
    /// Marks an operation in flight until the returned guard drops.
    pub fn enter(&self) -> InFlight {
        self.0.send_modify(|n| *n += 1);
        InFlight(self.0.clone())
    }
}

/// Counts one operation as in flight until dropped.
pub struct InFlight(Arc<watch::Sender<usize>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Agents {
    pub fn new(link: RunLink) -> Agents {
        Agents {
            link: Arc::new(link),
            control: OnceLock::new(),
            by_key: Mutex::default(),
            sandboxes: Mutex::default(),
            operator_box: OnceLock::new(),
            skills: Mutex::default(),
            next_turn: AtomicU64::new(1),
        }
    }

    /// Marks an operation in flight until the returned guard drops.
    pub fn in_flight(&self) -> InFlight {
        self.link.in_flight.enter()
    }

    /// Resolves once no operation is in flight (bounded: a turn being stopped kills its
    /// process group within the kill grace, and a tool call of a cancelled run ends within
    /// `SIGNAL_ABORT_GRACE`).
    pub async fn settled(&self) {
        let mut in_flight = self.link.in_flight.0.subscribe();
        let bound = crate::limits::KILL_GRACE * 3;
        let _ = tokio::time::timeout(bound, in_flight.wait_for(|n| *n == 0)).await;
    }

    /// Opens an agent, or returns the one already open under this key with the same spec.
    pub fn open(&self, spec: AgentSpec) -> Result<Arc<Agent>, OpenError> {
        let mut by_key = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = by_key.get(&spec.key) {
            existing.check_reopen(&spec)?;
            if let Some(budget) = spec.budget {
                existing.set_budget(budget);
            }
            return Ok(existing.clone());
        }
        let agent = self.create(spec)?;
        by_key.insert(agent.key.clone(), agent.clone());
        Ok(agent)
    }

    fn create(&self, spec: AgentSpec) -> Result<Arc<Agent>, OpenError> {
        let cwd = match &spec.cwd {
            Some(dir) => {
                let path = self.link.cwd.join(dir);
                match std::fs::canonicalize(&path) {
                    Ok(p) if p.is_dir() => p,
                    _ => {
                        return Err(OpenError::Cwd {
                            key: spec.key.clone(),
                            path,
                        })
                    }
                }
            }
            None => self.link.cwd.clone(),
        };
        let worktree = self.make_worktree(&spec, &cwd)?;
        let cwd = worktree.as_ref().map_or(cwd, |made| made.cwd.clone());
        let mut sandbox = match &spec.sandbox {
            None => match &self.link.operator_sandbox {
                Some(operator) => Some(self.operator_box(operator)?),
                None => None,
            },
            Some(_) if self.link.operator_sandbox.is_some() => {
                return Err(self
                    .operator_chose(format!(
                        "wf.agents.open(spec): agent \"{}\": sandbox",
                        spec.key
                    ))
                    .into())
            }
            Some(SandboxChoice::Inline(inline)) => Some(Arc::new(Sandbox::open(
                format!("agent:{}", spec.key),
                inline.clone(),
                &cwd,
                sandbox::user_home().as_deref(),
                self.control()?.0.path(),
                self.sandbox_purpose(),
            )?)),
            Some(SandboxChoice::Shared(key)) => Some(
                self.sandboxes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(key)
                    .cloned()
                    .ok_or_else(|| SandboxError::UnknownRef {
                        agent: spec.key.clone(),
                        sandbox: key.clone(),
                    })?,
            ),
        };
        // A worktree agent's own box, or its copy of the operator's, lets git commit on its
        // branch; a box shared by wf.sandboxes.open grants only what it was opened with.
        let own_box = matches!(spec.sandbox, Some(SandboxChoice::Inline(_)))
            || self.link.operator_sandbox.is_some();
        if let (true, Some(made), Some(boxed)) = (own_box, &worktree, sandbox.as_mut()) {
            let write = &mut Arc::make_mut(boxed).write;
            for grant in made.git_dir_grants() {
                if !write.contains(&grant) {
                    write.push(grant);
                }
            }
        }
        let harness = harness::resolve(
            &spec.runtime,
            &OpenContext {
                cwd: &cwd,
                overrides: &self.link.overrides,
                stand_in: self.link.scripted.as_deref(),
            },
        )
        .map_err(|source| OpenError::Runtime {
            key: spec.key.clone(),
            source,
        })?;
        let home = self.agent_home(&spec, harness.as_ref(), sandbox.is_some())?;
        let skills = self.give_skills(&spec, harness.as_ref(), home.as_deref())?;
        let agent = self.create_with(spec, cwd, harness, sandbox, home, skills)?;
        if let Some(workspace) = &agent.spec.workspace {
            agent.record(&Event::AgentWorkspace {
                agent: agent.key.clone(),
                workspace: workspace.to_json(),
                worktree: worktree.as_ref().map(Worktree::describe),
            });
        }
        Ok(agent)
    }

    /// The worktree `spec.workspace` asks for (none in `awf test`: scripted agents work nowhere).
    fn make_worktree(
        &self,
        spec: &AgentSpec,
        cwd: &std::path::Path,
    ) -> Result<Option<Worktree>, OpenError> {
        let Some(workspace) = &spec.workspace else {
            return Ok(None);
        };
        if self.link.scripted.is_some() {
            return Ok(None);
        }
        let place = Place {
            run_folder: self.link.records.path(),
            run_id: &self.link.run_id,
            key: &spec.key,
            cwd,
        };
        Ok(Some(Worktree::create(workspace, &place)?))
    }

    /// Ends the worktree of the agent `key` (it closed), if it has one still open: kept or
    /// removed by its `keep` rule, as a run that has not failed.
    pub fn end_worktree(&self, key: &str) {
        let ledger = Ledger::of(self.link.records.path());
        if let Some((worktree, ending)) = ledger.end(key, false) {
            self.record_worktree_end(key, &worktree, &ending);
        }
    }

    /// Ends every worktree of the run still open (the run's end), as a run that `failed` or not.
    pub fn end_worktrees(&self, failed: bool) {
        let ledger = Ledger::of(self.link.records.path());
        for (key, worktree, ending) in ledger.end_all(failed) {
            self.record_worktree_end(&key, &worktree, &ending);
        }
    }

    fn record_worktree_end(
        &self,
        key: &str,
        worktree: &Worktree,
        ending: &crate::worktree::Ending,
    ) {
        let _ = self.link.records.append(&Event::WorktreeEnded {
            agent: key.to_string(),
            path: worktree.path.display().to_string(),
            branch: worktree.branch.clone(),
            head: ending.head.clone(),
            dirty: ending.dirty,
            kept: ending.kept,
        });
    }

    /// Opens a sandbox for agents to share (`wf.sandboxes.open`), or returns the one open under
    /// its key with the same spec.
    pub fn open_sandbox(&self, spec: SandboxSpec) -> Result<Arc<Sandbox>, SandboxError> {
        let Some(key) = spec.key.clone() else {
            return Err(SandboxError::NotText {
                place: "wf.sandboxes.open(spec)".into(),
                field: "key",
            });
        };
        if self.link.operator_sandbox.is_some() {
            return Err(self.operator_chose("wf.sandboxes.open(spec)".into()));
        }
        let mut sandboxes = self.sandboxes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = sandboxes.get(&key) {
            if open.spec != spec {
                return Err(SandboxError::Reopened(key));
            }
            return Ok(open.clone());
        }
        let control = self.control().map_err(|e| SandboxError::Proxy {
            key: key.clone(),
            error: e.to_string(),
        })?;
        let sandbox = Arc::new(Sandbox::open(
            key.clone(),
            spec,
            &self.link.cwd,
            sandbox::user_home().as_deref(),
            control.0.path(),
            self.sandbox_purpose(),
        )?);
        sandboxes.insert(key, sandbox.clone());
        Ok(sandbox)
    }

    /// The operator's sandbox (`--agent-sandbox`), opened once for every agent of the run.
    fn operator_box(&self, operator: &OperatorSandbox) -> Result<Arc<Sandbox>, OpenError> {
        let control = self.control()?.0.path();
        let opened = self.operator_box.get_or_init(|| {
            let mut sandbox = Sandbox::open(
                sandbox::operator::KEY.to_string(),
                operator.spec.clone(),
                &operator.folder(),
                sandbox::user_home().as_deref(),
                control,
                self.sandbox_purpose(),
            )?;
            sandbox.from = Some(operator.file.clone());
            Ok(Arc::new(sandbox))
        });
        Ok(opened.clone()?)
    }

    /// The refusal of a sandbox the workflow opens (`what`) in a run under `--agent-sandbox`.
    fn operator_chose(&self, what: String) -> SandboxError {
        SandboxError::OperatorChose {
            what,
            file: self
                .link
                .operator_sandbox
                .as_ref()
                .map(|o| o.file.clone())
                .unwrap_or_default(),
        }
    }

    /// Sandboxes of `awf test` are only recorded: its scripted agents run no process.
    fn sandbox_purpose(&self) -> Purpose {
        match self.link.scripted {
            Some(_) => Purpose::Record,
            None => Purpose::Confine,
        }
    }

    /// The agent's own CLI home (`<run>/agents/<key>/home`, kept across `--continue`), made
    /// for a sandboxed agent whose CLI has one: the box masks the user's CLI homes and lets it
    /// write nowhere else; and for an agent given skills (not a scripted one), so that its CLI
    /// reads these skills and not the user's. Any other agent keeps the user's.
    fn agent_home(
        &self,
        spec: &AgentSpec,
        harness: &dyn Harness,
        sandboxed: bool,
    ) -> Result<Option<Arc<AgentHome>>, OpenError> {
        let cli = harness.name();
        let skilled = !spec.skills.is_empty() && self.link.scripted.is_none();
        if !(sandboxed || skilled) || !AgentHome::supports(cli) {
            return Ok(None);
        }
        let dir = self
            .link
            .records
            .path()
            .join("agents")
            .join(&spec.key)
            .join("home");
        let home = AgentHome::create(cli, &dir, &|name| spec.env.value(name))
            .map_err(|e| setup(&spec.key, "make its CLI home", e))?;
        Ok(Some(Arc::new(home)))
    }

    /// Gives the agent its `skills` (skills/): installed in its CLI home's skills folder, or for
    /// a scripted agent of `awf test` checked only; a runtime with no skills folder (an
    /// executable) is refused. What it got, as agent-opened records it.
    fn give_skills(
        &self,
        spec: &AgentSpec,
        harness: &dyn Harness,
        home: Option<&AgentHome>,
    ) -> Result<Option<Value>, OpenError> {
        if spec.skills.is_empty() {
            return Ok(None);
        }
        let skills_dir = match home.and_then(AgentHome::skills_dir) {
            Some(dir) => Some(dir),
            None if self.link.scripted.is_some() => None,
            None => {
                return Err(OpenError::NoSkillsFolder {
                    key: spec.key.clone(),
                    runtime: harness.name().to_string(),
                })
            }
        };
        let cache = skills::cache_dir(|name| std::env::var(name).ok());
        let given =
            skills::give(&spec.skills, &cache, skills_dir.as_deref()).map_err(|source| {
                OpenError::Skills {
                    key: spec.key.clone(),
                    source: Box::new(source),
                }
            })?;
        let records: Vec<SkillRecord> = given.iter().map(SkillRecord::from).collect();
        Ok(serde_json::to_value(records).ok())
    }

    /// The skills the agent `key` was given, as agent-opened recorded them.
    pub(super) fn skills_of(&self, key: &str) -> Option<Value> {
        let skills = self.skills.lock().unwrap_or_else(|e| e.into_inner());
        skills.get(key).cloned()
    }

    /// Opens a fork (agents/fork.rs): a new agent under a key not open yet, with the harness
    /// the parent's fork gave, the parent's cwd, sandbox, CLI home (where its session is) and
    /// skills.
    pub(super) fn open_fork(
        &self,
        spec: AgentSpec,
        cwd: PathBuf,
        harness: Arc<dyn Harness>,
        sandbox: Option<Arc<Sandbox>>,
        home: Option<Arc<AgentHome>>,
        skills: Option<Value>,
    ) -> Result<Arc<Agent>, OpenError> {
        let mut by_key = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        if by_key.contains_key(&spec.key) {
            return Err(OpenError::ForkKeyTaken(spec.key));
        }
        let agent = self.create_with(spec, cwd, harness, sandbox, home, skills)?;
        by_key.insert(agent.key.clone(), agent.clone());
        Ok(agent)
    }

    /// The run's control folder and how its agent processes are tracked, made at first use.
    fn control(&self) -> Result<&(ControlDir, Arc<Supervision>), OpenError> {
        self.control
            .get_or_init(|| {
                let supervision = if self.link.scripted.is_some() {
                    Supervision::without_cgroup()
                } else {
                    Supervision::new(&self.link.run_id)
                };
                let control = ControlDir::create(&RunMarker {
                    records: self.link.records.path(),
                    cgroup: supervision.run_cgroup().map(|c| c.path()),
                })
                .map_err(|e| OpenError::ControlFolder(e.to_string()))?;
                Ok((control, Arc::new(supervision)))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn create_with(
        &self,
        spec: AgentSpec,
        cwd: PathBuf,
        harness: Arc<dyn Harness>,
        sandbox: Option<Arc<Sandbox>>,
        home: Option<Arc<AgentHome>>,
        skills: Option<Value>,
    ) -> Result<Arc<Agent>, OpenError> {
        let (control, supervision) = self.control()?;
        let wfa = launcher::wfa_binary()?;
        let dir = control
            .agent_dir()
            .map_err(|e| setup(&spec.key, "create the folder", e))?;
        let tcp = control
            .tcp(&self.link.records)
            .map_err(|e| setup(&spec.key, "listen on TCP", e))?;
        let secret =
            Secret::generate().map_err(|e| setup(&spec.key, "make the agent's secret", e))?;
        let route = tcp.map(|tcp| tcp.route(&dir));
        let launcher = launcher::write(&dir, &wfa, &secret, route)
            .map_err(|e| setup(&spec.key, "write the launcher", e))?;
        let session_name = format!("{}-{}", spec.key, control.agent_number(&dir));
        let sandbox = sandbox.map(|sandbox| AgentBox {
            sandbox,
            place: AgentPlace {
                runtime: harness.name(),
                control: dir.clone(),
                run_folder: self.link.records.path().to_path_buf(),
                home: home.as_ref().map(|h| h.dir().to_path_buf()),
                user_home: sandbox::user_home(),
            },
        });
        let agent = Arc::new(
            Agent::new(
                spec,
                harness,
                cwd,
                launcher,
                session_name,
                self.link.clone(),
                supervision.clone(),
            )
            .with_sandbox(sandbox)
            .with_home(home),
        );
        let handler = Arc::new(AgentChannel::new(&agent, secret));
        let mut socket = AgentSocket::serve(&dir, handler)
            .map_err(|e| setup(&agent.key, "listen on the socket", e))?;
        if let Some(tcp) = tcp {
            socket.serve_over(tcp, &dir);
        }
        agent.listen(socket);
        agent.record(&Event::AgentOpened {
            agent: agent.key.clone(),
            runtime: agent.harness().describe(),
            cwd: agent.cwd.display().to_string(),
            launcher: agent.launcher.display().to_string(),
            tools: agent.tools.names(),
            tracking: agent.supervision.tracking().to_string(),
            sandbox: agent.sandbox().map(|s| s.describe()),
            home: agent.home().map(|h| h.dir().display().to_string()),
            labels: agent.spec.labels.clone(),
            skills: skills.clone(),
            execution: Some(Box::new(agent.execution())),
            instructions: agent.spec.instructions.clone(),
        });
        if let Some(skills) = skills {
            let mut given = self.skills.lock().unwrap_or_else(|e| e.into_inner());
            given.insert(agent.key.clone(), skills);
        }
        self.resume_prior_session(&agent);
        Ok(agent)
    }

    /// In a continued run, gives the agent the native session its key had in an earlier
    /// attempt, so that its next turn resumes it (the agent remembers).
    fn resume_prior_session(&self, agent: &Agent) {
        let Some(prior) = self.link.resume.get(&agent.key) else {
            return;
        };
        let harness = agent.harness();
        if prior.harness != harness.name() || !harness.capabilities().resume.given() {
            return;
        }
        if let Ok(mut native) = agent.native.try_lock() {
            native.id = Some(prior.session.clone());
        }
        agent.record(&Event::AgentResumed {
            agent: agent.key.clone(),
            harness: prior.harness.clone(),
            session: prior.session.clone(),
            from_attempt: prior.attempt,
        });
    }

    pub fn get(&self, key: &str) -> Option<Arc<Agent>> {
        self.by_key
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    fn all(&self) -> Vec<Arc<Agent>> {
        let by_key = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        let mut agents: Vec<Arc<Agent>> = by_key.values().cloned().collect();
        agents.sort_by(|a, b| a.key.cmp(&b.key));
        agents
    }

    /// A new run-wide turn id: `t1-` and a random part, `t2-`..., so that no agent can guess
    /// another's (the socket's peer check is the authority; this is a second fence).
    pub fn next_turn_id(&self) -> String {
        let n = self.next_turn.fetch_add(1, Ordering::SeqCst);
        format!("t{n}-{}", crate::os::random::unguessable(6))
    }

    pub fn link(&self) -> &Arc<RunLink> {
        &self.link
    }

    /// What each agent that used any tokens used, by key, in key order.
    pub fn usage(&self) -> Vec<(String, Usage)> {
        self.all()
            .into_iter()
            .map(|agent| (agent.key.clone(), agent.usage()))
            .filter(|(_, usage)| !usage.is_empty())
            .collect()
    }

    /// `usage()` as output.json holds it: `{ "<key>": { inputTokens, ... } }`.
    pub fn usage_json(&self) -> Option<Value> {
        let usage = self.usage();
        if usage.is_empty() {
            return None;
        }
        let map = usage
            .into_iter()
            .map(|(key, usage)| (key, serde_json::to_value(usage).unwrap_or_default()))
            .collect();
        Some(Value::Object(map))
    }

    /// The run's budget and each agent's against what was spent, as output.json holds them:
    /// `[{ "of": "run" | "agent <key>", "words": "1,234 tokens of 1,000 (hard, passed)",
    /// budget, hard, spent, passed }]`; `None` when nothing has a budget.
    pub fn budgets_json(&self) -> Option<Value> {
        let run = self
            .link
            .budgets
            .run
            .report()
            .map(|report| ("run".to_string(), report));
        let agents = self.all().into_iter().filter_map(|agent| {
            let report = agent.budget_report()?;
            Some((format!("agent {}", agent.key), report))
        });
        let list: Vec<Value> = run
            .into_iter()
            .chain(agents)
            .map(|(of, report)| {
                let mut json = serde_json::to_value(&report).unwrap_or_default();
                json["of"] = Value::String(of);
                json["words"] = Value::String(report.words());
                json
            })
            .collect();
        (!list.is_empty()).then_some(Value::Array(list))
    }

    /// Stops listening on every agent's socket, removes what their sandboxes keep of them
    /// (containers) and the control folder.
    pub fn shut_down(&self) {
        for agent in self.all() {
            agent.stop_listening();
            agent.release_sandbox();
        }
    }
}
