//! A turn played by a test's script instead of a process (`testWorkflow` in agentswf/testing).
//!
//! The run asks the test's JS for the turn ("script.turn", with the author's prompt and schema);
//! the script answers through the agent's real socket, as `wfa` would, so the answer meets the
//! same checks as a real one, and then says how its part ended: answered, silent (the process
//! exited without an answer: a check-in follows), failed, blocked, timed out, or it hangs until
//! the deadline. At the deadline or on cancellation the script's `turn.signal` aborts.

use std::pin::pin;
use std::time::{Instant, SystemTime};

use serde_json::{json, Value};

use super::turn::{until_cancelled, RunEnd, TurnRequest};
use super::Agent;
use crate::js::JsFailure;
use crate::records::time;

pub(super) async fn play(agent: &Agent, request: &TurnRequest, n: u32, check_in: bool) -> RunEnd {
    let link = agent.link();
    let deadline_ms = time::unix_millis(
        SystemTime::now() + request.deadline.saturating_duration_since(Instant::now()),
    );
    let payload = json!({
        "run": link.run_id,
        "agent": agent.key,
        "turn": request.id,
        "n": n,
        "prompt": request.prompt,
        "schema": request.schema.as_ref().map(|s| s.raw().clone()),
        "checkIn": check_in,
        "deadline": deadline_ms,
    });
    let mut cancelled = link.cancelled.clone();
    let mut reply = pin!(link.js.request("script.turn", payload));
    let stopped = tokio::select! {
        reply = &mut reply => return ended(agent, reply),
        _ = tokio::time::sleep_until(request.deadline.into()) => RunEnd::TimedOut,
        _ = until_cancelled(&mut cancelled) => RunEnd::Cancelled,
    };
    // Tell the script its turn is over; it may not listen, and the turn does not wait for it.
    let _ = link
        .js
        .request(
            "script.abort",
            json!({ "run": link.run_id, "turn": request.id }),
        )
        .await;
    stopped
}

/// How the script said its part of the turn ended.
fn ended(agent: &Agent, reply: Result<Option<Value>, JsFailure>) -> RunEnd {
    let reply = match reply {
        Ok(Some(reply)) => reply,
        Ok(None) => return RunEnd::Failed("the test's script gave no reply".into()),
        Err(JsFailure::Threw(error)) => {
            return RunEnd::Failed(format!("the test's script failed: {}", error.headline()))
        }
        Err(JsFailure::NotJson(why)) => {
            return RunEnd::Failed(format!(
                "the test's script replied with something that is not JSON: {why}"
            ))
        }
        Err(JsFailure::HostGone) => return RunEnd::Cancelled,
    };
    let reason = reply["reason"].as_str().map(str::to_string);
    match reply["reply"].as_str() {
        Some("answered") if agent.accepted().is_some() => RunEnd::Answered,
        Some("answered") => {
            RunEnd::Failed("the test's script answered, but no answer was accepted".into())
        }
        Some("silent") => RunEnd::ExitedSilent,
        Some("failed") => {
            RunEnd::Failed(reason.unwrap_or_else(|| "the scripted agent failed".into()))
        }
        Some("blocked") => {
            RunEnd::Blocked(reason.unwrap_or_else(|| "the scripted agent is blocked".into()))
        }
        Some("timed-out") => RunEnd::TimedOut,
        other => RunEnd::Failed(format!(
            "the test's script replied {other:?}, which is not a reply"
        )),
    }
}
