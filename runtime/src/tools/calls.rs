//! One agent's tool calls: which runs now, and whether a new one may start.
//!
//! An agent makes one call at a time. A call needs an open turn that is not answered yet; the
//! same tool with the same input while a call runs joins that call (a harness gave up waiting
//! and the agent called again); anything else while a call runs is `busy`. The agent holds a
//! `ToolCalls` under the same lock as its turn, so "is a turn open" and "is a call running"
//! are decided together (an answer is refused while a call runs, and the other way round).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::{watch, Notify};

use crate::channel::wire::Response;
use crate::duration::format_duration;

/// The calls of one agent.
#[derive(Default)]
pub struct ToolCalls {
    running: Option<RunningCall>,
    /// Calls started so far, for call ids.
    made: u64,
}

/// A call in flight.
struct RunningCall {
    id: String,
    tool: String,
    input: Value,
    started: Instant,
    done: watch::Receiver<Option<Response>>,
}

/// The turn a call would belong to: open, and not answered yet.
pub struct TurnWindow {
    pub id: String,
    pub deadline: Instant,
    /// Says when and how the turn ends.
    pub over: Arc<TurnEnd>,
}

/// The end of a turn, as the calls running in it see it: when, and how the turn ended, so that
/// a call cut off by an agent that exited is recorded `cancelled` with that reason, and one cut
/// off by the turn's deadline `timed-out`.
#[derive(Default)]
pub struct TurnEnd {
    notify: Notify,
    how: Mutex<Option<TurnEnding>>,
}

/// How a turn ended, for the call it cut off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnEnding {
    /// Its deadline passed.
    pub timed_out: bool,
    /// Its outcome in words: `failed: the agent's process exited with code 3`.
    pub how: String,
}

impl TurnEnding {
    /// What a call's `call.signal.reason` says when its turn ends so.
    pub fn abort_reason(&self) -> Value {
        abort_reason(self.timed_out, &format!("its turn ended ({})", self.how))
    }
}

/// A call's `call.signal.reason`, as `tool.abort` gives it (js/workflow/tools.ts): a
/// `TimeoutError` when its time ran out, an `AbortError` when it was cancelled, with `message`.
pub fn abort_reason(timed_out: bool, message: &str) -> Value {
    let name = if timed_out {
        "TimeoutError"
    } else {
        "AbortError"
    };
    serde_json::json!({ "name": name, "message": message })
}

impl TurnEnd {
    /// The turn ended so: wakes the calls waiting in it.
    pub fn end(&self, ending: TurnEnding) {
        *self.how.lock().unwrap_or_else(|p| p.into_inner()) = Some(ending);
        self.notify.notify_waiters();
    }

    /// Resolves when the turn ends, with how; at once if it has.
    pub async fn ended(&self) -> TurnEnding {
        loop {
            let notified = self.notify.notified();
            if let Some(ending) = self.how.lock().unwrap_or_else(|p| p.into_inner()).clone() {
                return ending;
            }
            notified.await;
        }
    }
}

/// Where a refused call was made: the agent's open turn, if any, and the call id the refusal is
/// recorded under (`None` without a turn).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefusedCall {
    pub turn: Option<String>,
    pub call: Option<String>,
}

/// What `ToolCalls::begin` decided.
pub enum CallStart {
    Run(CallSlot),
    /// The same call is running: wait for its answer. Holds the running call's id.
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
    /// Says when and how the turn ends while the call runs.
    pub turn_over: Arc<TurnEnd>,
    finish: watch::Sender<Option<Response>>,
}

impl CallSlot {
    /// Gives the call's answer to everyone who joined it.
    pub fn finish(&self, response: Response) {
        self.finish.send_replace(Some(response));
    }
}

impl ToolCalls {
    /// Starts, joins or refuses a call of `tool` with `input`; `turn` is the agent's open,
    /// unanswered turn, or why there is none.
    pub fn begin(
        &mut self,
        tool: &str,
        input: &Value,
        turn: Result<TurnWindow, String>,
    ) -> CallStart {
        if let Some(running) = &self.running {
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
        let turn = match turn {
            Ok(turn) => turn,
            Err(why) => return CallStart::NotInTurn(why),
        };
        self.made += 1;
        let id = format!("{}-c{}", turn.id, self.made);
        let (finish, done) = watch::channel(None);
        self.running = Some(RunningCall {
            id: id.clone(),
            tool: tool.to_string(),
            input: input.clone(),
            started: Instant::now(),
            done,
        });
        CallStart::Run(CallSlot {
            id,
            tool: tool.to_string(),
            turn: turn.id,
            turn_deadline: turn.deadline,
            turn_over: turn.over,
            finish,
        })
    }

    /// Numbers a call refused while `turn` is open (answered or not): it is recorded under a
    /// call id of its own, from the same count as the calls that run, so `awf logs --turn`
    /// finds it in its turn. A call refused outside any turn takes no id.
    pub fn refused(&mut self, turn: Option<String>) -> RefusedCall {
        let Some(turn) = turn else {
            return RefusedCall::default();
        };
        self.made += 1;
        RefusedCall {
            call: Some(format!("{turn}-c{}", self.made)),
            turn: Some(turn),
        }
    }

    /// Ends the call `slot` started: the agent may call again. (Its answer goes out through
    /// `CallSlot::finish`, once the agent's lock is released.)
    pub fn end(&mut self, slot: &CallSlot) {
        if self.running.as_ref().is_some_and(|c| c.id == slot.id) {
            self.running = None;
        }
    }

    /// The tool of the call running now, if any.
    pub fn running_tool(&self) -> Option<&str> {
        self.running.as_ref().map(|c| c.tool.as_str())
    }

    /// The id of the call running now, if any.
    pub fn running_id(&self) -> Option<&str> {
        self.running.as_ref().map(|c| c.id.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn window() -> Result<TurnWindow, String> {
        Ok(TurnWindow {
            id: "t1".into(),
            deadline: Instant::now(),
            over: Arc::default(),
        })
    }

    #[tokio::test]
    async fn a_call_hears_how_its_turn_ended_even_when_it_ended_before_the_call_waited() {
        let end = TurnEnd::default();
        let ending = TurnEnding {
            timed_out: false,
            how: "failed: the agent's process exited with code 3".into(),
        };
        let waiting = end.ended();
        end.end(ending.clone());
        assert_eq!(waiting.await, ending);
        assert_eq!(
            end.ended().await,
            ending,
            "a call that waits later hears it too"
        );
    }

    #[test]
    fn one_call_at_a_time_the_same_one_joins() {
        let mut calls = ToolCalls::default();
        let CallStart::Run(slot) = calls.begin("add", &json!({"x": 1}), window()) else {
            panic!("the first call runs");
        };
        assert_eq!(slot.id, "t1-c1");
        assert_eq!(calls.running_tool(), Some("add"));
        let CallStart::Join(id, done) = calls.begin("add", &json!({"x": 1}), window()) else {
            panic!("the same call joins");
        };
        assert_eq!(id, "t1-c1");
        assert!(
            matches!(calls.begin("add", &json!({"x": 2}), window()), CallStart::Busy(why) if why.starts_with("add is still running"))
        );
        calls.end(&slot);
        slot.finish(Response::Ok {
            stdout: "done".into(),
        });
        assert_eq!(
            *done.borrow(),
            Some(Response::Ok {
                stdout: "done".into()
            })
        );
        assert_eq!(calls.running_tool(), None);
        let CallStart::Run(next) = calls.begin("add", &json!({"x": 2}), window()) else {
            panic!("a call after the first ended runs");
        };
        assert_eq!(next.id, "t1-c2");
    }

    #[test]
    fn a_refused_call_in_a_turn_takes_the_next_id_and_one_outside_takes_none() {
        let mut calls = ToolCalls::default();
        assert_eq!(calls.refused(None), RefusedCall::default());
        assert_eq!(
            calls.refused(Some("t1".into())),
            RefusedCall {
                turn: Some("t1".into()),
                call: Some("t1-c1".into()),
            }
        );
        let CallStart::Run(slot) = calls.begin("add", &json!({}), window()) else {
            panic!("a call in a turn runs");
        };
        assert_eq!(
            slot.id, "t1-c2",
            "ids are unique across refused and run calls"
        );
    }

    /// A call without an open turn is refused, holds no slot and uses no call id.
    #[test]
    fn a_call_needs_an_open_turn() {
        let mut calls = ToolCalls::default();
        assert!(matches!(
            calls.begin("add", &json!({}), Err("you have no open turn".into())),
            CallStart::NotInTurn(_)
        ));
        assert_eq!(calls.running_tool(), None, "a refused call does not run");
        let CallStart::Run(slot) = calls.begin("add", &json!({}), window()) else {
            panic!("a call in a turn runs");
        };
        assert_eq!(slot.id, "t1-c1", "the refused call took no id");
    }
}
