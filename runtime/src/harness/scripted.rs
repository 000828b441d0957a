//! The `scripted` runtime: under `awf test`, a test's script plays every agent
//! (`testWorkflow` in agentswf/testing).
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

use super::attempt::until_cancelled;
use super::cli::{self, CliInfo};
use super::{
    Attempt, AttemptEnd, AttemptReport, BoxFuture, Capabilities, Compacted, Forked, Harness, OpEnd,
    RuntimeError, SessionOp, Settings,
};
use crate::js::{JsFailure, JsRequester};
use crate::records::time;

/// A test's script in place of an agent; `declared` is the runtime its spec asked for.
#[derive(Clone)]
pub struct Scripted {
    pub js: JsRequester,
    pub run_id: String,
    pub declared: Value,
    /// What the declared runtime can do, which the scripted agent can do too.
    pub capabilities: &'static Capabilities,
    /// The declared CLI, whose effort levels `agent.set` is checked against.
    pub cli: Option<&'static CliInfo>,
}

impl Harness for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn describe(&self) -> Value {
        json!({ "kind": "scripted", "declared": self.declared })
    }

    fn capabilities(&self) -> &'static Capabilities {
        self.capabilities
    }

    fn run<'a>(&'a self, attempt: Attempt<'a>) -> BoxFuture<'a, AttemptReport> {
        Box::pin(async move { AttemptReport::ended(self.play(attempt).await) })
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        Box::pin(async move {
            let payload = json!({ "run": self.run_id, "parent": op.agent, "fork": op.fork });
            match self.js.request("script.fork", payload).await {
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
            let payload =
                json!({ "run": self.run_id, "agent": op.agent, "id": op.id, "focus": focus });
            let mut cancelled = op.cancelled.clone();
            let reply = tokio::select! {
                reply = self.js.request("script.compact", payload) => reply,
                _ = tokio::time::sleep_until(op.deadline.into()) => return OpEnd::TimedOut,
                _ = until_cancelled(&mut cancelled) => return OpEnd::Cancelled,
            };
            let reply = match reply {
                Ok(reply) => reply.unwrap_or_default(),
                Err(failure) => return OpEnd::Failed(failed(failure)),
            };
            let reason = reply["reason"]
                .as_str()
                .unwrap_or("the scripted compaction failed");
            match reply["reply"].as_str() {
                Some("answered") => OpEnd::Done(Compacted {
                    summary: Some(reply["summary"].as_str().unwrap_or_default().to_string()),
                    ..Compacted::default()
                }),
                Some("timed-out") => OpEnd::TimedOut,
                _ => OpEnd::Failed(reason.to_string()),
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
        let mut declared = match &self.declared {
            Value::Object(map) => Value::Object(map.clone()),
            _ => json!({ "harness": info.name }),
        };
        if let Some(model) = &settings.model {
            declared["model"] = json!(model);
        }
        if let Some(effort) = &settings.effort {
            declared["effort"] = json!(effort);
        }
        Ok(Arc::new(Scripted {
            declared,
            ..self.clone()
        }))
    }
}

/// Why a request to the test's JS failed.
fn failed(failure: JsFailure) -> String {
    match failure {
        JsFailure::Threw(error) => format!("the test's script failed: {}", error.headline()),
        JsFailure::NotJson(why) => {
            format!("the test's script replied with something that is not JSON: {why}")
        }
        JsFailure::HostGone => "the test ended".into(),
    }
}

impl Scripted {
    async fn play(&self, attempt: Attempt<'_>) -> AttemptEnd {
        let deadline_ms = time::unix_millis(
            SystemTime::now() + attempt.deadline.saturating_duration_since(Instant::now()),
        );
        let payload = json!({
            "run": self.run_id,
            "agent": attempt.agent,
            "turn": attempt.turn,
            "n": attempt.n,
            "prompt": attempt.author_prompt,
            "schema": attempt.schema.map(|s| s.raw().clone()),
            "checkIn": attempt.check_in,
            "deadline": deadline_ms,
            "message": attempt.message.map(|m| m.to_json()),
        });
        let mut cancelled = attempt.cancelled.clone();
        let mut reply = pin!(self.js.request("script.turn", payload));
        let stopped = tokio::select! {
            reply = &mut reply => return ended(attempt.sink.answered(), reply),
            _ = tokio::time::sleep_until(attempt.deadline.into()) => AttemptEnd::TimedOut,
            _ = until_cancelled(&mut cancelled) => AttemptEnd::Cancelled,
        };
        // Tell the script its turn is over; it may not listen, and the turn does not wait for it.
        let _ = self
            .js
            .request(
                "script.abort",
                json!({ "run": self.run_id, "turn": attempt.turn }),
            )
            .await;
        stopped
    }
}

/// How the script said its part of the turn ended.
fn ended(accepted: bool, reply: Result<Option<Value>, JsFailure>) -> AttemptEnd {
    let reply = match reply {
        Ok(Some(reply)) => reply,
        Ok(None) => return AttemptEnd::Failed("the test's script gave no reply".into()),
        Err(JsFailure::Threw(error)) => {
            return AttemptEnd::Failed(format!("the test's script failed: {}", error.headline()))
        }
        Err(JsFailure::NotJson(why)) => {
            return AttemptEnd::Failed(format!(
                "the test's script replied with something that is not JSON: {why}"
            ))
        }
        Err(JsFailure::HostGone) => return AttemptEnd::Cancelled,
    };
    let reason = reply["reason"].as_str().map(str::to_string);
    match reply["reply"].as_str() {
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
        Some("timed-out") => AttemptEnd::TimedOut,
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
        let reply = |r: Value| ended(true, Ok(Some(r)));
        assert_eq!(reply(json!({"reply": "answered"})), AttemptEnd::Answered);
        assert_eq!(
            ended(false, Ok(Some(json!({"reply": "answered"})))),
            AttemptEnd::Failed("the test's script answered, but no answer was accepted".into())
        );
        assert_eq!(reply(json!({"reply": "silent"})), AttemptEnd::ExitedSilent);
        assert_eq!(
            reply(json!({"reply": "blocked", "reason": "login"})),
            AttemptEnd::Blocked("login".into())
        );
        assert_eq!(reply(json!({"reply": "timed-out"})), AttemptEnd::TimedOut);
        assert!(matches!(
            reply(json!({"reply": "odd"})),
            AttemptEnd::Failed(_)
        ));
        assert_eq!(ended(true, Err(JsFailure::HostGone)), AttemptEnd::Cancelled);
    }
}
