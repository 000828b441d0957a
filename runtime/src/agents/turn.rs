//! One turn of an agent, from its queue ticket to its outcome.
//!
//! The deadline is fixed before the turn is queued and nothing extends it. The turn waits for
//! the agent's earlier operations, opens for answers, and gives its harness an attempt: the
//! agent's process (or script) runs with the composed prompt, resuming the agent's native
//! session when it has one. Then:
//! - an accepted answer ends it `answered`;
//! - an attempt that ends without an answer and without a failure gets one check-in, a second
//!   attempt with a prompt that says the answer is missing; a second silent end is `unanswered`;
//! - a failure is `failed` (or `blocked`, when the runtime needs a person), with its detail;
//! - the deadline is `timed-out`, the run's cancellation `cancelled`, and so is the workflow's
//!   cancelling this one turn (cancel.rs), queued or running, with the reason it gave.
//!
//! What the runtime does meanwhile (its session, shell commands, messages, tokens) is recorded
//! as it happens (`AttemptRecorder`); the turn's tokens are summed into the agent's.
//!
//! The queue, the deadline and the cancel scope are operation.rs's, which every operation on an
//! agent goes through; here is what a turn does once served. A message turn (message_turn.rs)
//! is opened, attempted, closed and recorded the same way (`Attempts`, `settled`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::{watch, Notify};

use super::check_in::CheckIn;
use super::operation::{self, Operation, Queued, Scope, Unstarted};
use super::prompt::{self, TurnText};
use super::queue::Ticket;
use super::{Agent, OperationUsage, Outcome};
use crate::harness::{
    Attempt, AttemptEnd, AttemptReport, Captured, HarnessEvent, NativeSession, Stream, TurnLaunch,
    TurnSink, Usage,
};
use crate::limits::MAX_ACTIVITY_TEXT_BYTES;
use crate::messages::Body;
use crate::records::{time, Event};
use crate::schema::Schema;
use crate::tools::calls::TurnEnding;
use crate::usage::{PricedUsage, UsageFold};

/// A turn as asked, with its deadline and its place in the agent's queue.
pub struct TurnRequest {
    pub id: String,
    pub prompt: String,
    pub schema: Option<Schema>,
    pub deadline: Instant,
    pub ticket: Ticket,
    /// The author's name for the turn (`agent.run({ label })`), shown instead of its id.
    pub label: Option<String>,
    pub check_in: CheckIn,
}

/// How a turn ended and what its attempts used, priced.
pub struct TurnEnd {
    pub outcome: Outcome,
    pub usage: OperationUsage,
}

impl TurnEnd {
    /// The outcome as workflow code sees it, with its `usage`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut json = self.outcome.to_json();
        json["usage"] = self.usage.to_json();
        json
    }
}

/// Runs one turn to its end, in a `turn` span that the log lines of its work carry.
pub async fn run(agent: Arc<Agent>, request: TurnRequest) -> TurnEnd {
    use tracing::Instrument;
    let span = tracing::info_span!("turn", agent = %agent.key, turn = %request.id);
    let end = run_in_span(agent, request).instrument(span.clone()).await;
    span.in_scope(|| tracing::debug!(outcome = end.outcome.kind(), "turn ended"));
    end
}

async fn run_in_span(agent: Arc<Agent>, request: TurnRequest) -> TurnEnd {
    let TurnRequest {
        id,
        prompt,
        schema,
        deadline,
        ticket,
        label,
        check_in,
    } = request;
    let queued = Queued::fixed(&agent, ticket, deadline, &id);
    let turn = Turn {
        agent: agent.clone(),
        id,
        prompt,
        schema,
        label,
        check_in,
        spent: Spent::default(),
    };
    operation::run(turn, queued).await
}

/// A turn in the agent's queue.
struct Turn {
    agent: Arc<Agent>,
    id: String,
    prompt: String,
    schema: Option<Schema>,
    label: Option<String>,
    check_in: CheckIn,
    spent: Spent,
}

impl Operation for Turn {
    type End = TurnEnd;

    fn unstarted(&mut self, why: Unstarted) -> TurnEnd {
        TurnEnd {
            outcome: why.outcome("turn"),
            usage: self
                .agent
                .operation_usage(self.spent.priced(&self.agent), None),
        }
    }

    async fn run(&mut self, scope: &Scope) -> TurnEnd {
        let Turn {
            agent,
            id,
            prompt: asked,
            schema,
            label,
            check_in: policy,
            spent,
        } = self;
        let agent: &Agent = agent;
        if let Some(detail) = agent.budget_blocked() {
            // A hard budget passed: the turn does not start its CLI.
            return TurnEnd {
                outcome: Outcome::Blocked(detail),
                usage: agent.operation_usage(spent.priced(agent), None),
            };
        }
        let (n, answered) = agent.open_turn(id, schema.clone(), scope.deadline);
        let launcher = agent.launcher.display().to_string();
        let tools = agent.tools.teaching();
        let text = TurnText {
            instructions: agent.instructions_for_turn(n),
            prompt: asked,
            launcher: &launcher,
            turn: id,
            schema: schema.as_ref(),
            tools: &tools,
            sends: agent.sends_messages(),
        };
        let first_prompt = prompt::compose(&text);
        let attempts = Attempts {
            agent,
            id,
            n,
            author_prompt: asked,
            schema: schema.as_ref(),
            deadline: scope.deadline,
            answered: &answered,
            message: None,
            label: label.as_deref(),
        };
        attempts.started(&first_prompt);
        let mut native = agent.native.lock().await;
        let mut check_in = false;
        let outcome = loop {
            let (prompt, deadline) = if check_in {
                let sentence = policy.sentence();
                (
                    prompt::check_in(&text, sentence),
                    policy.deadline(scope.deadline),
                )
            } else {
                (first_prompt.clone(), scope.deadline)
            };
            let report = Attempts {
                deadline,
                ..attempts
            }
            .run(&prompt, check_in, &mut native, scope.cancelled.clone())
            .await;
            let end = spent.add(report);
            if let Some(detail) = over_budget(agent, &end) {
                break Outcome::Blocked(detail);
            }
            break match end {
                AttemptEnd::Answered => Outcome::Answered(agent.accepted().unwrap_or_default()),
                AttemptEnd::ExitedSilent if policy.is_off() => Outcome::Unanswered(
                    "the agent's process exited with code 0 without an accepted answer (the turn has checkIn: false, so no check-in)"
                        .into(),
                ),
                AttemptEnd::ExitedSilent if !check_in => {
                    agent.record(&Event::CheckIn {
                        agent: agent.key.clone(),
                        turn: id.clone(),
                        after: "the agent's process exited with code 0 without an accepted answer"
                            .into(),
                    });
                    check_in = true;
                    continue;
                }
                AttemptEnd::ExitedSilent => Outcome::Unanswered(
                    "the agent's process exited with code 0 without an accepted answer, and again after a check-in"
                        .into(),
                ),
                AttemptEnd::Failed(detail) => Outcome::Failed(detail),
                AttemptEnd::Blocked(detail) => Outcome::Blocked(detail),
                AttemptEnd::TimedOut(reason) => Outcome::TimedOut(reason.unwrap_or_else(|| {
                    if deadline < scope.deadline {
                        "the check-in's timeout passed before an answer was accepted".into()
                    } else {
                        "the turn's deadline passed before an answer was accepted".into()
                    }
                })),
                AttemptEnd::Cancelled => Outcome::Cancelled(scope.cancelled_why()),
            };
        };
        let session = native.id.clone();
        drop(native);
        attempts.close(outcome.ending(), spent).await;
        TurnEnd {
            outcome,
            usage: agent.operation_usage(spent.priced(agent), session.as_deref()),
        }
    }

    fn settle(&mut self, TurnEnd { outcome, .. }: &TurnEnd, called: Instant) {
        let spent = std::mem::take(&mut self.spent);
        settled(
            &self.agent,
            &self.id,
            (outcome.kind(), outcome.detail()),
            called,
            spent,
        );
    }
}

/// What a turn's attempts kept and used, for the record of its end.
#[derive(Default)]
pub(super) struct Spent {
    output: Vec<String>,
    usage: Usage,
}

impl Spent {
    /// Adds what an attempt kept and used; how it ended.
    pub(super) fn add(&mut self, report: AttemptReport) -> AttemptEnd {
        self.output.extend(report.output);
        self.usage.add(&report.usage);
        report.end
    }

    /// What the attempts used, priced at the model `agent` was opened with.
    pub(super) fn priced(&self, agent: &Agent) -> PricedUsage {
        let described = agent.harness().describe();
        PricedUsage::of(self.usage, described["model"].as_str())
    }
}

/// Why an attempt that ended as `end` ends its turn `blocked`: a hard budget was passed while
/// it ran (its process was stopped as on a cancel, or it ended without an answer). An answer
/// accepted before the spend was known stands; the agent's next turn is blocked.
pub(super) fn over_budget(agent: &Agent, end: &AttemptEnd) -> Option<String> {
    match end {
        AttemptEnd::Answered => None,
        _ => agent.budget_blocked(),
    }
}

/// The attempts of one turn or message turn, opened as `n`: what each of them is given.
pub(super) struct Attempts<'a> {
    pub agent: &'a Agent,
    pub id: &'a str,
    pub n: u32,
    /// What the author asked: the prompt, or the message's text.
    pub author_prompt: &'a str,
    pub schema: Option<&'a Schema>,
    pub deadline: Instant,
    pub answered: &'a Notify,
    pub message: Option<&'a Body>,
    /// The turn's label, recorded with its start.
    pub label: Option<&'a str>,
}

impl Attempts<'_> {
    /// Records the turn's start, with the prompt its first attempt reads.
    pub(super) fn started(&self, prompt: &str) {
        self.agent.record(&Event::TurnStarted {
            agent: self.agent.key.clone(),
            turn: self.id.to_string(),
            n: self.n,
            prompt: prompt.to_string(),
            schema: self.schema.map(|s| s.raw().clone()),
            deadline: time::rfc3339(
                SystemTime::now() + self.deadline.saturating_duration_since(Instant::now()),
            ),
            message: self.message.map(Body::to_json),
            label: self.label.map(str::to_string),
        });
    }

    /// Runs one attempt (`check_in`: the second, saying the answer is missing) through the
    /// agent's harness, recorded as it goes: the one place an `Attempt` is made.
    pub(super) async fn run(
        &self,
        prompt: &str,
        check_in: bool,
        native: &mut NativeSession,
        cancelled: watch::Receiver<bool>,
    ) -> AttemptReport {
        let agent = self.agent;
        let recorder =
            AttemptRecorder::new(agent, self.id, if check_in { 2 } else { 1 }).counting(native);
        let harness = agent.harness();
        let resume = native.id.clone();
        // A hard budget passed while it runs stops it as a cancel does.
        let (cancelled, forward) = crate::cancel::merged(cancelled, agent.until_budget_blocked());
        let attempt = harness.run(Attempt {
            launch: TurnLaunch {
                prompt,
                resume: resume.as_deref(),
                cwd: &agent.cwd,
                launcher: &agent.launcher,
                agent: &agent.key,
                turn: self.id,
                n: self.n,
                check_in,
                session_name: &agent.session_name,
                sandbox: agent.confinement(),
            },
            author_prompt: self.author_prompt,
            schema: self.schema,
            deadline: self.deadline,
            env: agent.env(),
            native,
            cancelled,
            answered: self.answered,
            sink: &recorder,
            supervision: &agent.supervision,
            message: self.message,
        });
        tokio::select! {
            report = attempt => report,
            never = forward => match never {},
        }
    }

    /// Closes the turn, which ended as `ending` says: a tool call still running in it is
    /// aborted, and what it used is summed into the agent's, its cost reported or estimated.
    pub(super) async fn close(&self, ending: TurnEnding, spent: &Spent) {
        self.agent.close_turn(self.id, ending.clone());
        self.agent.abort_running_call(&ending).await;
        let used = spent.priced(self.agent).as_usage();
        self.agent.add_usage(&used);
        self.agent.spend_settled(self.id, &used);
    }
}

/// Records the end of a turn or a message turn (`outcome`: its kind and detail), called at
/// `called`.
pub(super) fn settled(
    agent: &Agent,
    turn: &str,
    (outcome, detail): (&str, Option<&str>),
    called: Instant,
    spent: Spent,
) {
    agent.record(&Event::TurnSettled {
        agent: agent.key.clone(),
        turn: turn.to_string(),
        outcome: outcome.to_string(),
        detail: detail.map(str::to_string),
        duration_ms: called.elapsed().as_millis() as u64,
        output: spent.output,
        usage: (!spent.usage.is_empty()).then_some(spent.usage),
    });
}

/// Records what one attempt's runtime does, as it happens, under the agent and turn.
pub(super) struct AttemptRecorder<'a> {
    agent: &'a Agent,
    turn: &'a str,
    attempt: u32,
    /// The session last recorded: runtimes repeat it on many lines.
    session: Mutex<Option<String>>,
    /// What the attempt used so far, counted against the budgets as it is reported.
    spend: Mutex<LiveSpend>,
}

/// An attempt's usage as it is reported, folded as the harness folds it (harness/attempt.rs).
#[derive(Default)]
struct LiveSpend {
    fold: UsageFold,
    /// The native session's totals before the attempt, and which session they are of.
    before: (Option<String>, Usage),
    /// What was counted so far, priced.
    counted: Usage,
}

impl<'a> AttemptRecorder<'a> {
    pub(super) fn new(agent: &'a Agent, turn: &'a str, attempt: u32) -> AttemptRecorder<'a> {
        AttemptRecorder {
            agent,
            turn,
            attempt,
            session: Mutex::new(None),
            spend: Mutex::default(),
        }
    }

    /// Counts its usage against the budgets as it is reported, from `native`'s totals.
    fn counting(self, native: &NativeSession) -> AttemptRecorder<'a> {
        *self.spend.lock().unwrap_or_else(|e| e.into_inner()) = LiveSpend {
            before: (native.id.clone(), native.reported),
            ..LiveSpend::default()
        };
        self
    }

    /// Counts what `event` reports of the attempt's usage against the agent's budgets.
    fn count(&self, event: &HarnessEvent) {
        let mut spend = self.spend.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            // A session of its own: its running totals start again.
            HarnessEvent::Session(id) if spend.before.0.as_deref() != Some(id.as_str()) => {
                spend.before = (Some(id.clone()), Usage::default());
                return;
            }
            HarnessEvent::Usage { tokens, basis } => spend.fold.tokens(*tokens, *basis),
            HarnessEvent::Cost { usd, basis } => spend.fold.cost(*usd, *basis),
            _ => return,
        }
        let so_far = spend.fold.so_far(&spend.before.1);
        let described = self.agent.harness().describe();
        let priced = PricedUsage::of(so_far, described["model"].as_str()).as_usage();
        let delta = priced.since(&spend.counted);
        spend.counted = priced;
        drop(spend);
        self.agent.spend_running(self.turn, &delta);
    }
}

impl TurnSink for AttemptRecorder<'_> {
    fn answered(&self) -> bool {
        self.agent.accepted().is_some()
    }

    fn activity(&self, event: &HarnessEvent) {
        self.count(event);
        let agent = self.agent.key.clone();
        let turn = self.turn.to_string();
        let recorded = match event {
            HarnessEvent::Session(id) => {
                let mut last = self.session.lock().unwrap_or_else(|e| e.into_inner());
                if last.as_deref() == Some(id.as_str()) {
                    return;
                }
                *last = Some(id.clone());
                Event::AgentSession {
                    agent,
                    turn,
                    harness: self.agent.harness().name().to_string(),
                    session: id.clone(),
                }
            }
            HarnessEvent::ShellStarted { command } => Event::ShellStarted {
                agent,
                turn,
                command: bounded(command),
            },
            HarnessEvent::ShellFinished {
                command,
                exit_code,
                output,
            } => Event::ShellFinished {
                agent,
                turn,
                command: bounded(command),
                exit_code: *exit_code,
                output: output.as_deref().map(bounded),
            },
            HarnessEvent::ToolUsed { tool, detail } => Event::AgentToolUsed {
                agent,
                turn,
                tool: tool.clone(),
                detail: bounded(detail),
            },
            HarnessEvent::Message(text) => Event::AgentMessage {
                agent,
                turn,
                text: bounded(text),
            },
            HarnessEvent::Usage { tokens, basis } => Event::UsageReported {
                agent,
                turn,
                basis: basis.name().to_string(),
                tokens: Some(*tokens),
                cost_usd: None,
            },
            HarnessEvent::Cost { usd, basis } => Event::UsageReported {
                agent,
                turn,
                basis: basis.name().to_string(),
                tokens: None,
                cost_usd: Some(*usd),
            },
            HarnessEvent::Error { message, blocked } => Event::HarnessError {
                agent,
                turn,
                message: bounded(message),
                blocked: *blocked,
            },
        };
        self.agent.record(&recorded);
    }

    fn stderr_line(&self, line: &str) {
        self.agent
            .link
            .records
            .agent_stderr(&self.agent.key, self.turn, line);
    }

    fn process(&self, root: Option<i32>) {
        self.agent.set_process_root(root);
    }

    fn container(&self, name: &str) {
        self.agent.record_container(self.turn, name);
    }

    fn keep_output(&self, stream: Stream, captured: &Captured) -> Option<String> {
        let mut bytes = captured.bytes.clone();
        if captured.truncated {
            bytes.extend_from_slice(b"\n[awf: output truncated at the limit]\n");
        }
        let name = format!("{}.{}", self.attempt, stream.name());
        self.agent
            .link
            .records
            .write_turn_output(self.turn, &name, &bytes)
            .ok()
    }
}

/// `text`, cut at `MAX_ACTIVITY_TEXT_BYTES` (on a character boundary) with an ellipsis.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_ACTIVITY_TEXT_BYTES {
        return text.to_string();
    }
    let mut end = MAX_ACTIVITY_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The least of a turn's own timeout and the run's deadline, fixed now.
pub fn deadline(timeout: Option<Duration>, run_deadline: Instant) -> Instant {
    match timeout {
        Some(t) => Instant::now()
            .checked_add(t)
            .map_or(run_deadline, |at| at.min(run_deadline)),
        None => run_deadline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_activity_texts_are_cut_on_a_character_boundary() {
        assert_eq!(bounded("ls -la"), "ls -la");
        let long = "é".repeat(MAX_ACTIVITY_TEXT_BYTES);
        let cut = bounded(&long);
        assert!(cut.len() <= MAX_ACTIVITY_TEXT_BYTES + '…'.len_utf8());
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn a_turns_deadline_is_the_least_of_its_own_and_the_runs() {
        let run = Instant::now() + Duration::from_secs(60);
        assert_eq!(deadline(None, run), run);
        assert_eq!(deadline(Some(Duration::from_secs(3600)), run), run);
        assert!(deadline(Some(Duration::from_secs(1)), run) < run);
    }
}
