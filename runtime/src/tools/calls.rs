//! One agent's tool calls: which runs now, and whether a new one may start.
//!
//! An agent makes one call at a time. A call needs an open turn that is not answered yet; the
//! same tool with the same input while a call runs joins that call (a harness gave up waiting
//! and the agent called again); anything else while a call runs is `busy`. The agent holds a
//! `ToolCalls` under the same lock as its turn, so "is a turn open" and "is a call running"
//! are decided together (an answer is refused while a call runs, and the other way round).

use std::sync::Arc;
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
    /// Notified when the turn ends.
    pub over: Arc<Notify>,
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
    /// Notified when the turn ends while the call runs.
    pub turn_over: Arc<Notify>,
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
            over: Arc::new(Notify::new()),
        })
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
    fn a_call_needs_an_open_turn() {
        let mut calls = ToolCalls::default();
        assert!(matches!(
            calls.begin("add", &json!({}), Err("you have no open turn".into())),
            CallStart::NotInTurn(why) if why == "you have no open turn"
        ));
    }
}
