//! The `scripted` runtime: under `awf test`, a test's script plays every agent
//! (`testWorkflow` in agentswf/testing). `Scripts` is what a tested run stands in for its
//! agents' runtimes with (harness/registry.rs `StandIn`): the spec is checked as the declared
//! runtime's would be, then the script plays it.
//!
//! An attempt asks the test's JS for the turn ("script.turn", with the author's prompt and
//! schema); the script answers through the agent's real socket, as `wfa` would, so the answer
//! meets the same checks as a real one, and then says how its part ended: answered, silent (the
//! process exited without an answer: a check-in follows), failed, blocked, timed out, or it hangs
//! until the deadline. At the deadline or on cancellation the script's `turn.signal` aborts.
//!
//! A scripted agent can do what its declared runtime can (its `Capabilities`): a fork asks the
//! test's JS to fork the parent's script state ("script.fork"), a compaction asks for the
//! test's `compactions` answer ("script.compact"), a change of settings is checked as the
//! declared CLI would check it and recorded.

use std::pin::pin;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use serde_json::{json, Value};

use crate::cancel::until_cancelled;
use crate::harness::cli::{self, CliInfo};
use crate::harness::registry::{StandIn, StandInSettings};
use crate::harness::{
    Attempt, AttemptEnd, AttemptReport, BoxFuture, Capabilities, Compacted, Forked, Harness,
    HarnessEvent, OpEnd, RuntimeError, SessionOp, Settings, TurnSink,
};
use crate::records::time;
use crate::upcall::{
    ScriptAbort, ScriptCompact, ScriptFork, ScriptReply, ScriptTurn, Upcall, UpcallFailure,
};
use crate::usage::{Usage, UsageBasis};

/// A tested run's scripts, standing in for every agent's runtime.
pub struct Scripts {
    pub workflow: Arc<dyn Upcall>,
    pub run_id: String,
}

impl StandIn for Scripts {
    fn harness(
        &self,
        declared: &Value,
        capabilities: &'static Capabilities,
        cli: Option<&'static CliInfo>,
        settings: StandInSettings,
    ) -> Arc<dyn Harness> {
        Arc::new(Scripted {
            workflow: self.workflow.clone(),
            run_id: self.run_id.clone(),
            declared: declared.clone(),
            capabilities,
            cli,
            settings,
        })
    }
}

/// A test's script in place of an agent; `declared` is the runtime its spec asked for.
#[derive(Clone)]
pub struct Scripted {
    pub workflow: Arc<dyn Upcall>,
    pub run_id: String,
    pub declared: Value,
    /// What the declared runtime can do, which the scripted agent can do too.
    pub capabilities: &'static Capabilities,
    /// The declared CLI, whose effort levels `agent.set` is checked against.
    pub cli: Option<&'static CliInfo>,
    /// The model and effort it plays with: its spec's or its alias's, then `agent.set`'s.
    pub settings: StandInSettings,
}

impl Harness for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    /// `{ kind: "scripted", declared, harness?, model?, effort? }`: the spec as written, and
    /// the CLI, model and effort it resolved to (an alias expanded), as a real CLI's record has them.
    fn describe(&self) -> Value {
        let mut described = json!({ "kind": "scripted", "declared": self.declared });
        if let Some(info) = self.cli {
            described["harness"] = json!(info.name);
        }
        if let Some(model) = &self.settings.model {
            described["model"] = json!(model);
        }
        if let Some(effort) = &self.settings.effort {
            described["effort"] = json!(effort);
        }
        described
    }

    fn capabilities(&self) -> &'static Capabilities {
        self.capabilities
    }

    fn run<'a>(&'a self, attempt: Attempt<'a>) -> BoxFuture<'a, AttemptReport> {
        Box::pin(self.play(attempt))
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        Box::pin(async move {
            let fork = ScriptFork {
                run: &self.run_id,
                parent: op.agent,
                fork: op.fork,
            };
            match self.workflow.script_fork(&fork).await {
                Ok(_) => OpEnd::Done(Forked {
                    harness: Arc::new(self.clone()),
                    session: None,
                }),
                Err(failure) => OpEnd::Failed(failed(failure)),
            }
        })
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        Box::pin(async move {
            let compact = ScriptCompact {
                run: &self.run_id,
                agent: op.agent,
                id: op.id,
                focus,
            };
            let mut cancelled = op.cancelled.clone();
            let reply = tokio::select! {
                reply = self.workflow.script_compact(&compact) => reply,
                _ = tokio::time::sleep_until(op.deadline.into()) => return OpEnd::TimedOut,
                _ = until_cancelled(&mut cancelled) => return OpEnd::Cancelled,
            };
            let reply = match reply {
                Ok(reply) => reply.unwrap_or_default(),
                Err(failure) => return OpEnd::Failed(failed(failure)),
            };
            match reply.reply.as_deref() {
                Some("answered") => OpEnd::Done(Compacted {
                    summary: Some(reply.summary.unwrap_or_default()),
                    ..Compacted::default()
                }),
                Some("timed-out") => OpEnd::TimedOut,
                _ => OpEnd::Failed(
                    reply
                        .reason
                        .unwrap_or_else(|| "the scripted compaction failed".into()),
                ),
            }
        })
    }

    fn reconfigure(&self, settings: &Settings) -> Result<Arc<dyn Harness>, RuntimeError> {
        let Some(info) = self.cli else {
            return Err(RuntimeError::CannotSet {
                harness: "command",
                why: self.capabilities.set_reason(),
            });
        };
        if let Some(level) = &settings.effort {
            cli::check_effort(info, level)?;
        }
        let mut played = self.settings.clone();
        if let Some(model) = &settings.model {
            played.model = Some(model.clone());
        }
        if let Some(effort) = &settings.effort {
            played.effort = Some(effort.clone());
        }
        Ok(Arc::new(Scripted {
            settings: played,
            ..self.clone()
        }))
    }
}

/// Why a request to the test's JS failed.
fn failed(failure: UpcallFailure) -> String {
    match failure {
        UpcallFailure::Threw(error) => format!("the test's script failed: {}", error.headline()),
        UpcallFailure::NotJson(why) => {
            format!("the test's script replied with something that is not JSON: {why}")
        }
        UpcallFailure::HostGone => "the test ended".into(),
    }
}

impl Scripted {
    async fn play(&self, attempt: Attempt<'_>) -> AttemptReport {
        // A session of its own, as a CLI's first run makes one: `usage.sessions` and the
        // records name it, and its later turns (and a continued run's) resume it.
        if attempt.native.id.is_none() {
            let id = format!("script-{}", attempt.launch.agent);
            attempt.sink.activity(&HarnessEvent::Session(id.clone()));
            attempt.native.id = Some(id);
        }
        let deadline_ms = time::unix_millis(
            SystemTime::now() + attempt.deadline.saturating_duration_since(Instant::now()),
        );
        let turn = ScriptTurn {
            run: &self.run_id,
            agent: attempt.launch.agent,
            turn: attempt.launch.turn,
            n: attempt.launch.n,
            prompt: attempt.author_prompt,
            schema: attempt.schema.map(|s| s.raw()),
            check_in: attempt.launch.check_in,
            harness: self.cli.map(|info| info.name),
            deadline: deadline_ms,
            message: attempt.message.map(|m| m.to_json()),
        };
        let mut cancelled = attempt.cancelled.clone();
        let mut reply = pin!(self.workflow.script_turn(&turn));
        let stopped = tokio::select! {
            reply = &mut reply => return spent(attempt.sink, reply),
            _ = tokio::time::sleep_until(attempt.deadline.into()) => AttemptEnd::TimedOut(None),
            _ = until_cancelled(&mut cancelled) => AttemptEnd::Cancelled,
        };
        // Tell the script its turn is over; it may not listen, and the turn does not wait for it.
        let abort = ScriptAbort {
            run: &self.run_id,
            turn: attempt.launch.turn,
        };
        let _ = self.workflow.script_abort(&abort).await;
        AttemptReport::ended(stopped)
    }
}

/// The attempt the script's reply ends, with what the script said the model used
/// (`turn.spend`), reported as a CLI reports a model request's usage, so that budgets and the
/// live view count it as they count a real agent's.
fn spent(sink: &dyn TurnSink, reply: Result<Option<ScriptReply>, UpcallFailure>) -> AttemptReport {
    let usage = match &reply {
        Ok(Some(ScriptReply {
            usage: Some(usage), ..
        })) => *usage,
        _ => Usage::default(),
    };
    if !usage.tokens.is_zero() {
        sink.activity(&HarnessEvent::Usage {
            tokens: usage.tokens,
            basis: UsageBasis::Request,
        });
    }
    if let Some(usd) = usage.cost_usd {
        sink.activity(&HarnessEvent::Cost {
            usd,
            basis: UsageBasis::Request,
        });
    }
    let end = ended(sink.answered(), reply);
    AttemptReport {
        end,
        usage,
        output: Vec::new(),
    }
}

/// How the script said its part of the turn ended.
fn ended(accepted: bool, reply: Result<Option<ScriptReply>, UpcallFailure>) -> AttemptEnd {
    let reply = match reply {
        Ok(Some(reply)) => reply,
        Ok(None) => return AttemptEnd::Failed("the test's script gave no reply".into()),
        Err(UpcallFailure::Threw(error)) => {
            return AttemptEnd::Failed(format!("the test's script failed: {}", error.headline()))
        }
        Err(UpcallFailure::NotJson(why)) => {
            return AttemptEnd::Failed(format!(
                "the test's script replied with something that is not JSON: {why}"
            ))
        }
        Err(UpcallFailure::HostGone) => return AttemptEnd::Cancelled,
    };
    let reason = reply.reason;
    match reply.reply.as_deref() {
        Some("answered") if accepted => AttemptEnd::Answered,
        Some("answered") => {
            AttemptEnd::Failed("the test's script answered, but no answer was accepted".into())
        }
        Some("silent") => AttemptEnd::ExitedSilent,
        Some("failed") => {
            AttemptEnd::Failed(reason.unwrap_or_else(|| "the scripted agent failed".into()))
        }
        Some("blocked") => {
            AttemptEnd::Blocked(reason.unwrap_or_else(|| "the scripted agent is blocked".into()))
        }
        Some("timed-out") => AttemptEnd::TimedOut(reason),
        other => AttemptEnd::Failed(format!(
            "the test's script replied {other:?}, which is not a reply"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_map_to_ends() {
        let reply = |r: Value| ended(true, Ok(Some(ScriptReply::read(&r))));
        assert_eq!(reply(json!({"reply": "answered"})), AttemptEnd::Answered);
        assert_eq!(
            ended(
                false,
                Ok(Some(ScriptReply::read(&json!({"reply": "answered"}))))
            ),
            AttemptEnd::Failed("the test's script answered, but no answer was accepted".into())
        );
        assert_eq!(reply(json!({"reply": "silent"})), AttemptEnd::ExitedSilent);
        assert_eq!(
            reply(json!({"reply": "blocked", "reason": "login"})),
            AttemptEnd::Blocked("login".into())
        );
        assert_eq!(
            reply(json!({"reply": "timed-out"})),
            AttemptEnd::TimedOut(None)
        );
        assert_eq!(
            reply(json!({"reply": "timed-out", "reason": "my reason"})),
            AttemptEnd::TimedOut(Some("my reason".into()))
        );
        assert!(matches!(
            reply(json!({"reply": "odd"})),
            AttemptEnd::Failed(_)
        ));
        assert_eq!(
            ended(true, Err(UpcallFailure::HostGone)),
            AttemptEnd::Cancelled
        );
    }

    #[test]
    fn a_replys_spend_is_read_as_usage() {
        let read = ScriptReply::read(&json!({"reply": "answered",
            "usage": {"inputTokens": 30, "cachedInputTokens": 10, "outputTokens": 4, "reasoningTokens": 1, "costUsd": 0.5}}));
        let usage = read.usage.expect("usage");
        assert_eq!(
            (usage.tokens.input_tokens, usage.tokens.cached_input_tokens),
            (30, 10)
        );
        assert_eq!(
            (usage.tokens.output_tokens, usage.tokens.reasoning_tokens),
            (4, 1)
        );
        assert_eq!(usage.cost_usd, Some(0.5));
        assert_eq!(ScriptReply::read(&json!({"reply": "silent"})).usage, None);
    }
}
