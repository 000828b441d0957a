//! An agent's open turn: opening and closing it, and what its socket asks of it: an answer
//! (`wfa result`), judged against the turn's schema; more time (`wfa waiting`), which never moves
//! the deadline; and what the answer is taught as (`expects`, for `wfa` reading stdin). A message
//! turn (`agent.send`) owes no answer and takes none.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::Notify;

use super::{refused, Agent, AgentState, OpenTurn};
use crate::agents::answer;
use crate::channel::refusal::Code;
use crate::channel::wire::Response;
use crate::duration::{format_duration, parse_timeout};
use crate::records::{time, Event};
use crate::schema::{teach, Schema};
use crate::tools::calls::TurnEnding;

impl Agent {
    /// Opens a turn for answers; returns its number and the notifier of an accepted answer.
    pub(in crate::agents) fn open_turn(
        &self,
        id: &str,
        schema: Option<Schema>,
        deadline: Instant,
    ) -> (u32, Arc<Notify>) {
        self.open(id, schema, deadline, false)
    }

    /// Opens a message turn: the agent may call its tools, and owes no answer.
    pub(in crate::agents) fn open_message_turn(
        &self,
        id: &str,
        deadline: Instant,
    ) -> (u32, Arc<Notify>) {
        self.open(id, None, deadline, true)
    }

    fn open(
        &self,
        id: &str,
        schema: Option<Schema>,
        deadline: Instant,
        message: bool,
    ) -> (u32, Arc<Notify>) {
        let mut state = self.state();
        state.turns_taken += 1;
        let answered = Arc::new(Notify::new());
        state.open = Some(OpenTurn {
            id: id.to_string(),
            schema,
            deadline,
            accepted: None,
            answered: answered.clone(),
            over: Arc::default(),
            message,
        });
        (state.turns_taken, answered)
    }

    /// The id of the turn the agent works on, if any.
    pub fn open_turn_id(&self) -> Option<String> {
        self.state().open.as_ref().map(|t| t.id.clone())
    }

    /// The accepted answer of the open turn, if any.
    pub(in crate::agents) fn accepted(&self) -> Option<Value> {
        let state = self.state();
        state.open.as_ref().and_then(|t| t.accepted.clone())
    }

    /// Closes the open turn, which ended as `ending` says (a call still running in it hears
    /// how); later answers to it are refused as `closed-turn`.
    pub(in crate::agents) fn close_turn(&self, id: &str, ending: TurnEnding) {
        let mut state = self.state();
        if state.open.as_ref().is_some_and(|t| t.id == id) {
            if let Some(open) = state.open.take() {
                open.over.end(ending);
            }
        }
        state.over.insert(id.to_string());
    }

    /// `wfa result`: judges an answer to `turn`. Refusals are recorded by code: `invalid-result`
    /// (it does not fit), `busy` (a tool call runs; checked first, whatever the turn) and
    /// `closed-turn` (a second answer, or one after its turn ended); `unknown-turn` and
    /// `message-turn` are not, since no answer was owed there.
    pub(in crate::agents) fn submit_answer(
        &self,
        turn: &str,
        args: &[String],
        stdin: Option<&str>,
    ) -> Response {
        let response = self
            .refuse_while_calling()
            .unwrap_or_else(|| self.judge_answer(turn, args, stdin));
        if let Response::Refused {
            code: code @ (Code::InvalidResult | Code::ClosedTurn | Code::Busy),
            message,
            details,
            ..
        } = &response
        {
            self.record(&Event::AnswerSubmitted {
                agent: self.key.clone(),
                turn: turn.to_string(),
                accepted: false,
                value: None,
                code: Some(code.as_str().to_string()),
                message: Some(message.clone()),
                problems: details.clone(),
            });
        }
        response
    }

    fn judge_answer(&self, turn: &str, args: &[String], stdin: Option<&str>) -> Response {
        let mut state = self.state();
        let open = match state.open.as_mut() {
            Some(open) if open.id == turn => open,
            _ => return refuse_turn(&state, turn),
        };
        if open.message {
            return crate::agents::message_turn::refuse_answer(turn, "result");
        }
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
                    code: None,
                    message: None,
                    problems: vec![],
                });
                Response::Ok {
                    stdout: format!("answer accepted for turn {turn}\n"),
                }
            }
            Err(problems) => {
                drop(state);
                refused(
                    Code::InvalidResult,
                    "the answer does not fit the turn",
                    problems,
                    Some("fix what is listed and send the answer again; the turn is still open"),
                )
            }
        }
    }

    /// `wfa result <turn> --help`: how to answer `turn`, as its prompt taught it. Asking is no
    /// answer: nothing is judged or recorded, and a turn that takes no answer is refused as a
    /// result would be.
    pub(in crate::agents) fn answer_help(&self, turn: &str) -> Response {
        let state = self.state();
        let open = match state.open.as_ref() {
            Some(open) if open.id == turn && open.message => {
                return crate::agents::message_turn::refuse_answer(turn, "result")
            }
            Some(open) if open.id == turn && open.accepted.is_none() => open,
            _ => return refuse_turn(&state, turn),
        };
        let launcher = self.launcher.display().to_string();
        Response::Ok {
            stdout: format!(
                "{}\n",
                teach::answer_instructions(&launcher, turn, open.schema.as_ref())
            ),
        }
    }

    /// What input a tool or a turn's answer is taught as: `json`, `text`, `flags` or `nothing`.
    pub(in crate::agents) fn expects(&self, tool: Option<&str>, turn: Option<&str>) -> Response {
        let taught = |schema: Option<&Schema>, without: &str| match schema {
            None => without.to_string(),
            Some(schema) if schema.takes_flags() => "flags".to_string(),
            Some(_) => "json".to_string(),
        };
        let stdout = match (tool, turn) {
            (Some(name), None) => match self.tools.get(name) {
                Some(tool) => taught(tool.input.as_ref(), "nothing"),
                None => {
                    return refused(
                        Code::UnknownTool,
                        &format!("you have no tool \"{name}\""),
                        vec![],
                        None,
                    )
                }
            },
            (None, Some(id)) => {
                let state = self.state();
                match state.open.as_ref() {
                    Some(open) if open.id == id => taught(open.schema.as_ref(), "text"),
                    _ => return refuse_turn(&state, id),
                }
            }
            _ => {
                return refused(
                    Code::InvalidRequest,
                    "expects takes a tool or a turn",
                    vec![],
                    None,
                )
            }
        };
        Response::Ok { stdout }
    }

    pub(in crate::agents) fn waiting(
        &self,
        turn: &str,
        reason: &str,
        timeout: Option<&str>,
    ) -> Response {
        if reason.trim().is_empty() {
            return refused(
                Code::InvalidRequest,
                "--reason is blank; say what the agent still waits for",
                vec![],
                None,
            );
        }
        if let Some(text) = timeout {
            if let Err(problem) = parse_timeout(text) {
                return refused(
                    Code::InvalidRequest,
                    &format!("--timeout: {problem}"),
                    vec![],
                    None,
                );
            }
        }
        let state = self.state();
        let deadline = match state.open.as_ref() {
            Some(open) if open.id == turn && open.message => {
                return crate::agents::message_turn::refuse_answer(turn, "waiting")
            }
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
