//! One turn of an agent, from its queue ticket to its outcome.
//!
//! The deadline is fixed before the turn is queued and nothing extends it. The turn waits for
//! the agent's earlier operations, opens for answers, and runs the agent's process; then:
//! - an accepted answer ends it `answered`, once the process has wrapped up (bounded);
//! - a process that exits 0 without an answer gets one check-in, a second run with a prompt
//!   that says the answer is missing; a second silent exit is `unanswered`;
//! - a non-zero exit is `failed`, with the code and the last lines of stderr;
//! - the deadline is `timed-out`, the run's cancellation `cancelled`.
//!
//! Whatever ends the turn, the agent's process group is killed (harness/process.rs).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::prompt::{self, TurnText};
use super::queue::Ticket;
use super::{scripted, Agent, Outcome};
use crate::harness::command::{self, TurnEnv};
use crate::harness::process::{describe_status, AgentProcess, Ended};
use crate::harness::Runtime;
use crate::limits::ANSWERED_RELEASE_GRACE;
use crate::records::{time, Event};
use crate::schema::Schema;

/// A turn as asked, with its deadline and its place in the agent's queue.
pub struct TurnRequest {
    pub id: String,
    pub prompt: String,
    pub schema: Option<Schema>,
    pub deadline: Instant,
    pub ticket: Ticket,
}

/// How one run of the agent's process ended.
pub(super) enum RunEnd {
    Answered,
    ExitedSilent,
    Failed(String),
    Blocked(String),
    TimedOut,
    Cancelled,
}

pub async fn run(agent: Arc<Agent>, mut request: TurnRequest) -> Outcome {
    let started = Instant::now();
    let mut cancelled = agent.link.cancelled.clone();
    let waited = tokio::select! {
        _ = request.ticket.served() => None,
        _ = tokio::time::sleep_until(request.deadline.into()) => Some(Outcome::TimedOut(
            "the turn's deadline passed while it waited for the agent's earlier operations".into(),
        )),
        _ = until_cancelled(&mut cancelled) => Some(Outcome::Cancelled("the run was cancelled before the turn began".into())),
    };
    if let Some(outcome) = waited {
        settle(&agent, &request.id, &outcome, started, Vec::new());
        return outcome;
    }
    let (n, answered) = agent.open_turn(&request.id, request.schema.clone(), request.deadline);
    let launcher = agent.launcher.display().to_string();
    let tools = agent.tools.teaching();
    let text = TurnText {
        instructions: if n == 1 {
            agent.spec.instructions.as_deref()
        } else {
            None
        },
        prompt: &request.prompt,
        launcher: &launcher,
        turn: &request.id,
        schema: request.schema.as_ref(),
        tools: &tools,
    };
    let first_prompt = prompt::compose(&text);
    agent.record(&Event::TurnStarted {
        agent: agent.key.clone(),
        turn: request.id.clone(),
        n,
        prompt: first_prompt.clone(),
        schema: request.schema.as_ref().map(|s| s.raw().clone()),
        deadline: time::rfc3339(
            SystemTime::now() + request.deadline.saturating_duration_since(Instant::now()),
        ),
    });
    let mut outputs = Vec::new();
    let mut outcome = None;
    for attempt in 1..=2 {
        let check_in = attempt == 2;
        let prompt = if check_in {
            prompt::check_in(&text)
        } else {
            first_prompt.clone()
        };
        let end = match &agent.runtime {
            Runtime::Command { program, args } => {
                let command = (program.as_path(), args.as_slice());
                run_process(
                    &agent,
                    &request,
                    command,
                    n,
                    check_in,
                    prompt,
                    &answered,
                    &mut outputs,
                )
                .await
            }
            Runtime::Scripted { .. } => scripted::play(&agent, &request, n, check_in).await,
        };
        outcome = Some(match end {
            RunEnd::Answered => Outcome::Answered(agent.accepted().unwrap_or_default()),
            RunEnd::ExitedSilent if !check_in => {
                agent.record(&Event::CheckIn {
                    agent: agent.key.clone(),
                    turn: request.id.clone(),
                    after: "the agent's process exited with code 0 without an accepted answer"
                        .into(),
                });
                continue;
            }
            RunEnd::ExitedSilent => Outcome::Unanswered(
                "the agent ended its turn without an accepted answer, and again after a check-in"
                    .into(),
            ),
            RunEnd::Failed(detail) => Outcome::Failed(detail),
            RunEnd::Blocked(detail) => Outcome::Blocked(detail),
            RunEnd::TimedOut => {
                Outcome::TimedOut("the turn's deadline passed before an answer was accepted".into())
            }
            RunEnd::Cancelled => Outcome::Cancelled("the run was cancelled".into()),
        });
        break;
    }
    let outcome = outcome.expect("the loop settles on its last attempt");
    agent.close_turn(&request.id);
    settle(&agent, &request.id, &outcome, started, outputs);
    // `request.ticket` drops here: the agent's next operation may start.
    outcome
}

#[allow(clippy::too_many_arguments)]
async fn run_process(
    agent: &Agent,
    request: &TurnRequest,
    (program, args): (&std::path::Path, &[String]),
    n: u32,
    check_in: bool,
    prompt: String,
    answered: &tokio::sync::Notify,
    outputs: &mut Vec<String>,
) -> RunEnd {
    let turn_env = TurnEnv {
        launcher: &agent.launcher,
        turn: &request.id,
        agent: &agent.key,
        turn_number: n,
        session: &agent.session,
        check_in,
    };
    let launch = command::launch(
        program,
        args,
        &agent.cwd,
        &agent.spec.env,
        &turn_env,
        prompt,
    );
    let mut process = match AgentProcess::spawn(&launch) {
        Ok(p) => p,
        Err(e) => return RunEnd::Failed(format!("cannot start {}: {e}", program.display())),
    };
    let mut cancelled = agent.link.cancelled.clone();
    let deadline = tokio::time::Instant::from_std(request.deadline);
    let (end, status) = tokio::select! {
        status = process.wait() => {
            let status = status.ok();
            if agent.accepted().is_some() {
                (RunEnd::Answered, status)
            } else {
                match status {
                    Some(s) if s.success() => (RunEnd::ExitedSilent, status),
                    Some(s) => (RunEnd::Failed(String::new()), Some(s)),
                    None => (RunEnd::Failed("its exit status could not be read".into()), None),
                }
            }
        }
        _ = answered.notified() => {
            // Let the agent wrap up (a CLI saves its session as it ends), within bounds.
            let release = (Instant::now() + ANSWERED_RELEASE_GRACE).min(request.deadline);
            let status = tokio::time::timeout_at(release.into(), process.wait()).await.ok().and_then(Result::ok);
            (RunEnd::Answered, status)
        }
        _ = tokio::time::sleep_until(deadline) => (RunEnd::TimedOut, None),
        _ = until_cancelled(&mut cancelled) => (RunEnd::Cancelled, None),
    };
    let ended = process.stop(status).await;
    outputs.extend(keep_output(
        agent,
        &request.id,
        if check_in { 2 } else { 1 },
        &ended,
    ));
    match end {
        RunEnd::Failed(reason) if reason.is_empty() => {
            RunEnd::Failed(failure_detail(program, &ended))
        }
        other => other,
    }
}

/// `./agent.sh exited with code 3: <last stderr lines>`.
fn failure_detail(program: &std::path::Path, ended: &Ended) -> String {
    let status = ended
        .status
        .as_ref()
        .map(describe_status)
        .unwrap_or_else(|| "ended".into());
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tail = ended.stderr.last_lines(5);
    if tail.is_empty() {
        format!("{name} {status}")
    } else {
        format!("{name} {status}: {tail}")
    }
}

/// Writes a process's output into the run folder: `turns/<turn>/<attempt>.stdout|.stderr`.
fn keep_output(agent: &Agent, turn: &str, attempt: u32, ended: &Ended) -> Vec<String> {
    let dir = agent.link.records.path().join("turns").join(turn);
    let mut kept = Vec::new();
    for (stream, captured) in [("stdout", &ended.stdout), ("stderr", &ended.stderr)] {
        if captured.bytes.is_empty() {
            continue;
        }
        let mut bytes = captured.bytes.clone();
        if captured.truncated {
            bytes.extend_from_slice(b"\n[awf: output truncated at the limit]\n");
        }
        let name = format!("{attempt}.{stream}");
        if std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(dir.join(&name), bytes))
            .is_ok()
        {
            kept.push(format!("turns/{turn}/{name}"));
        }
    }
    kept
}

fn settle(agent: &Agent, turn: &str, outcome: &Outcome, started: Instant, output: Vec<String>) {
    agent.record(&Event::TurnSettled {
        agent: agent.key.clone(),
        turn: turn.to_string(),
        outcome: outcome.kind().to_string(),
        detail: outcome.detail().map(str::to_string),
        duration_ms: started.elapsed().as_millis() as u64,
        output,
    });
}

/// Resolves when the run is cancelled.
pub async fn until_cancelled(cancelled: &mut tokio::sync::watch::Receiver<bool>) {
    if cancelled.wait_for(|c| *c).await.is_err() {
        // The run is gone; nothing will cancel this turn any more.
        std::future::pending::<()>().await;
    }
}

/// The least of a turn's own timeout and the run's deadline, fixed now.
pub fn deadline(timeout: Option<Duration>, run_deadline: Instant) -> Instant {
    match timeout {
        Some(t) => (Instant::now() + t).min(run_deadline),
        None => run_deadline,
    }
}
