//! One attempt of a run and its shared state: its identity, records, deadline, stages and agents
//! (`Run`), reached by the ops of `wf` through the handle the host gave it. `RunSpec` is what it
//! is opened with, by `awf run` (crate::run, records from attempt.rs) or by a test's
//! `testWorkflow` (js/ops/agentswf/testing.rs).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use super::attempt::AttemptStart;
use super::stages::Stages;
use crate::agents::{Agents, RunLink};
use crate::harness::registry::StandIn;
use crate::harness::RuntimeOverrides;
use crate::records::{Event, RunDir, RunObserver};
use crate::sandbox::operator::OperatorSandbox;
use crate::upcall::Upcall;

impl Drop for Run {
    /// A test that timed out never closed its run: its folders go when the run does.
    fn drop(&mut self) {
        self.remove_scratch();
    }
}

/// What a run is opened with.
pub struct RunSpec<'a> {
    pub workflow: &'a str,
    pub file: &'a Path,
    pub cwd: &'a Path,
    pub argv: &'a [String],
    pub timeout: Duration,
    pub overrides: RuntimeOverrides,
    /// Calls into the run's workflow code: tool handlers (and, in tests, scripts).
    pub upcall: Arc<dyn Upcall>,
    pub mode: RunMode,
    /// The attempt's records and what it starts from.
    pub start: AttemptStart,
}

/// Whether agents are real processes or scripted by a test.
pub enum RunMode {
    /// `awf run`: `observer`, if any, watches the run as it happens (the live view);
    /// `agent_sandbox`, the operator's sandbox every agent runs in (`--agent-sandbox`).
    Live {
        observer: Option<Arc<dyn RunObserver>>,
        agent_sandbox: Option<Box<OperatorSandbox>>,
    },
    /// `testWorkflow`: every agent is played by the test's scripts (`scripts`); records (in a
    /// folder of their own) are also kept in memory for the test to read. `scratch` folders
    /// are removed at the run's end.
    Scripted {
        scripts: Arc<dyn StandIn>,
        scratch: Vec<PathBuf>,
    },
}

/// One run's shared state: its identity, records, deadline and agents.
pub struct Run {
    pub id: String,
    pub attempt: u32,
    /// The input `run(wf, input)` gets: prepare's, or in a continued run, the first attempt's.
    pub input: Value,
    pub stages: Stages,
    pub workflow: String,
    pub file: PathBuf,
    pub cwd: PathBuf,
    pub started: SystemTime,
    pub deadline: Instant,
    pub records: Arc<RunDir>,
    /// The attempt's record as it began (`attempts/<n>.json`), written again with its ending;
    /// `None` for a test's run, which has none.
    pub attempt_record: Option<Value>,
    pub agents: Agents,
    /// The questions `wf.ask` asked in this attempt, and those waiting for a person.
    pub asks: crate::ask::Asks,
    cancel: tokio::sync::watch::Sender<bool>,
    /// Folders made for the run alone (a test's temp cwd and records), removed at its end.
    scratch: Vec<PathBuf>,
}

impl Run {
    /// Opens the attempt on its records: the first event, the agents, the stages.
    pub fn open(spec: RunSpec<'_>) -> std::io::Result<Run> {
        let started = SystemTime::now();
        let (scripted, operator_sandbox) = match &spec.mode {
            RunMode::Scripted { scripts, .. } => (Some(scripts.clone()), None),
            RunMode::Live { agent_sandbox, .. } => (None, agent_sandbox.as_deref().cloned()),
        };
        let AttemptStart {
            records,
            run_id: id,
            attempt,
            input,
            plan,
            sessions,
            changed,
            record,
        } = spec.start;
        match &spec.mode {
            // A tested run keeps its events for the test to read (`run.logs`, `run.turns`).
            RunMode::Scripted { .. } => records.keep_events(),
            RunMode::Live {
                observer: Some(observer),
                ..
            } => records.observe(observer.clone()),
            RunMode::Live { observer: None, .. } => {}
        }
        records.append(&Event::RunStarted {
            run_id: id.clone(),
            workflow: spec.workflow.to_string(),
            file: spec.file.display().to_string(),
            cwd: spec.cwd.display().to_string(),
            argv: spec.argv.to_vec(),
        })?;
        if let Some((since_attempt, changed)) = changed.filter(|(_, c)| !c.is_empty()) {
            records.append(&Event::SourcesChanged {
                since_attempt,
                changed,
            })?;
        }
        let records = Arc::new(records);
        let timeout = spec.timeout.min(crate::duration::MAX_DURATION);
        let deadline = Instant::now() + timeout;
        let (cancel, cancelled) = tokio::sync::watch::channel(false);
        let agents = Agents::new(RunLink {
            run_id: id.clone(),
            workflow: spec.upcall,
            records: records.clone(),
            cwd: spec.cwd.to_path_buf(),
            deadline,
            cancelled,
            overrides: spec.overrides,
            scripted,
            operator_sandbox,
            resume: sessions,
            messages: Default::default(),
            in_flight: Default::default(),
            budgets: crate::budget::RunBudgets::of_attempts(
                &crate::records::run_files::attempts(records.path()).unwrap_or_default(),
            ),
        });
        Ok(Run {
            id,
            attempt,
            input,
            stages: Stages::new(records.clone(), attempt, plan),
            workflow: spec.workflow.to_string(),
            file: spec.file.to_path_buf(),
            cwd: spec.cwd.to_path_buf(),
            started,
            deadline,
            records,
            attempt_record: record,
            agents,
            asks: Default::default(),
            cancel,
            scratch: match spec.mode {
                RunMode::Live { .. } => Vec::new(),
                RunMode::Scripted { scratch, .. } => scratch,
            },
        })
    }

    /// Ends a run that JS drove (a test's): cancels what is left, lets the turns settle, stops
    /// the agents' sockets and removes the run's scratch folders.
    pub async fn close(&self) {
        self.cancel();
        self.agents.settled().await;
        self.report_unreceived();
        self.agents.shut_down();
        self.remove_scratch();
    }

    fn remove_scratch(&self) {
        if self.scratch.is_empty() {
            return;
        }
        // run.json may still be on its way into a scratch folder.
        let _ = self.records.flush();
        for dir in &self.scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Records the messages agents sent that the workflow never received; how many.
    pub fn report_unreceived(&self) -> usize {
        match self.agents.link().messages.unreceived_event() {
            Some(event) => {
                let count = match &event {
                    Event::MessagesUnreceived { count, .. } => *count,
                    _ => 0,
                };
                self.record(&event);
                count
            }
            None => 0,
        }
    }

    /// Cancels every turn of the run: queued ones and running ones end `cancelled`.
    pub fn cancel(&self) {
        self.cancel.send_replace(true);
    }

    /// `wf.log`: a line in the records (the live view shows it as it comes).
    pub fn log(&self, message: &str, fields: Option<Value>) {
        tracing::debug!(text = message, "wf.log");
        self.record(&Event::Log {
            message: message.to_string(),
            fields,
        });
    }

    /// Appends an event; a record that cannot be written is a warning, and the run goes on
    /// (losing a log line must not fail a workflow).
    pub fn record(&self, event: &Event) {
        if let Err(e) = self.records.append(event) {
            tracing::warn!(
                "cannot append to {}: {e}",
                self.records.path().join("events.jsonl").display()
            );
        }
    }
}
