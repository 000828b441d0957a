//! One tool call, from `wfa tool <name> ...` on an agent's socket to the text the agent reads.
//!
//! Refusals come first and the handler never runs for them: unknown tool, no open turn
//! (`not-in-turn`), another call running (`busy`), input that does not fit (`invalid-input`).
//! The same input again while a call runs joins it: harnesses give up on slow commands and
//! agents call again. Then the handler runs in JS (js/workflow/tools.ts) within its budget
//! (30 s, its own `timeout`, or only the turn's deadline), always bounded by the turn: at the
//! budget's end or the turn's, `call.signal` aborts, and a handler that ignores it gets
//! `TOOL_ABORT_GRACE` more before the call ends without it, reported as `may-have-run`. A call
//! whose turn ends for another reason than its deadline (the agent exited, the workflow
//! cancelled the turn) or whose run is cancelled (Ctrl-C, SIGTERM) is `cancelled`, with what
//! ended it; on a signal its listeners get `SIGNAL_ABORT_GRACE`. A refusal made in a turn is
//! recorded with that turn and a call id of its own.

use std::future::Future;
use std::path::Path;
use std::pin::{pin, Pin};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::watch;

use super::calls::{abort_reason, CallSlot, CallStart, RefusedCall, TurnEnding};
use super::{input, CallBudget, ToolSet};
use crate::cancel::until_cancelled;
use crate::channel::refusal::{self, Code};
use crate::channel::wire::Response;
use crate::duration::format_duration;
use crate::harness::registry;
use crate::limits::{
    DEFAULT_TOOL_TIMEOUT, MAX_PAYLOAD_BYTES, MAX_TOOLS_PER_AGENT, MAX_TOOL_RESULT_BYTES,
    SIGNAL_ABORT_GRACE, TOOL_ABORT_GRACE,
};
use crate::records::Event;
use crate::schema::teach;
use crate::upcall::{ToolAbort, ToolCall, Upcall, UpcallFailure};

/// The agent a call comes from, as a call needs it (agents/ implements it).
pub trait Caller: Send + Sync {
    fn key(&self) -> &str;
    fn tools(&self) -> &ToolSet;
    fn launcher(&self) -> &Path;
    /// Starts, joins or refuses a call, deciding together with the agent's turn.
    fn begin_call(&self, tool: &str, input: &Value) -> CallStart;
    /// Ends a call: joiners get `response`, and the agent may call again.
    fn end_call(&self, slot: &CallSlot, response: Response);
    /// The turn a refused call was made in and the call id it is recorded under.
    fn refused_call(&self) -> RefusedCall;
    fn record(&self, event: &Event);
    /// The run's id and its workflow code, where handlers run.
    fn run_id(&self) -> &str;
    fn workflow(&self) -> &dyn Upcall;
    /// Becomes true when the run is cancelled (Ctrl-C, SIGTERM).
    fn cancelled(&self) -> watch::Receiver<bool>;
    /// Holds why the turn `turn` was cancelled by the workflow (`wf.race`, ...), once it is;
    /// `None` for a turn the workflow cannot cancel.
    fn turn_cancel(&self, turn: &str) -> Option<watch::Receiver<Option<String>>>;
}

/// Runs `wfa tool <name> <args>` for `agent`, in a `tool` span.
pub async fn call(
    agent: &impl Caller,
    name: String,
    args: Vec<String>,
    stdin: Option<String>,
) -> Response {
    use tracing::Instrument;
    let span = tracing::debug_span!("tool", agent = %agent.key(), name = %name);
    call_in_span(agent, name, args, stdin)
        .instrument(span)
        .await
}

async fn call_in_span(
    agent: &impl Caller,
    name: String,
    args: Vec<String>,
    stdin: Option<String>,
) -> Response {
    let Some(tool) = agent.tools().get(&name).cloned() else {
        return refuse(
            agent,
            &name,
            Code::UnknownTool,
            unknown_tool(agent, &name),
            vec![],
            Some(UNKNOWN_TOOL_HINT),
        );
    };
    let input =
        match input::read(&name, tool.input.as_ref(), &args, stdin.as_deref()) {
            Ok(input) => input,
            Err(problems) => return refuse(
                agent,
                &name,
                Code::InvalidInput,
                "the input does not fit the tool's schema".into(),
                problems,
                Some("call again with the input fixed; `wfa tool` alone lists each tool's options"),
            ),
        };
    match agent.begin_call(&name, &input) {
        CallStart::NotInTurn(why) => refuse(
            agent,
            &name,
            Code::NotInTurn,
            why,
            vec![],
            Some("a tool can be called only while you work on a turn"),
        ),
        CallStart::Busy(why) => refuse(
            agent,
            &name,
            Code::Busy,
            why,
            vec![],
            Some("call again once the running call has answered"),
        ),
        CallStart::Join(call, mut done) => {
            agent.record(&Event::ToolJoined {
                agent: agent.key().to_string(),
                tool: name,
                call,
            });
            loop {
                if let Some(response) = done.borrow_and_update().clone() {
                    return response;
                }
                if done.changed().await.is_err() {
                    return failed(
                        Code::HandlerFailed,
                        "the call ended without an answer (the run is ending)".into(),
                        None,
                    );
                }
            }
        }
        CallStart::Run(slot) => run_call(agent, tool.budget, input, slot).await,
    }
}

async fn run_call(
    agent: &impl Caller,
    budget: CallBudget,
    input: Value,
    slot: CallSlot,
) -> Response {
    let started = Instant::now();
    agent.record(&Event::ToolCalled {
        agent: agent.key().to_string(),
        turn: slot.turn.clone(),
        tool: slot.tool.clone(),
        call: slot.id.clone(),
        input: input.clone(),
    });
    let workflow = agent.workflow();
    let mut reply = pin!(workflow.call_tool(&ToolCall {
        run: agent.run_id(),
        agent: agent.key(),
        tool: &slot.tool,
        call: &slot.id,
        input: &input,
    }));
    let ends_at = match budget {
        CallBudget::Within(d) => (started + d).min(slot.turn_deadline),
        CallBudget::TurnOnly => slot.turn_deadline,
    };
    let budget_text = match budget {
        CallBudget::Within(d) if started + d <= slot.turn_deadline => {
            format!("its {}", format_duration(d))
        }
        _ => "the time left in its turn".to_string(),
    };
    let mut cancelled = agent.cancelled();
    // Watched from the call's start: the turn's entry is gone once the turn has ended.
    let turn_cancel = agent.turn_cancel(&slot.turn);
    // In this order when several are ready: the end of the turn (whose end also aborts the
    // call's signal, so the handler may answer at once) and of the run say what stopped the
    // call; an answer counts before the budget.
    let stopped = tokio::select! {
        biased;
        ending = slot.turn_over.ended() => Stopped::TurnOver(ending),
        _ = until_cancelled(&mut cancelled) => Stopped::Cancelled,
        answer = &mut reply => Stopped::Answer(answer),
        _ = tokio::time::sleep_until(ends_at.into()) => Stopped::TimeUp,
    };
    // A turn ended by the run's cancellation, or by the workflow cancelling it, cancels its
    // call too.
    let cancelled_turn = turn_cancel.as_ref().and_then(|w| w.borrow().clone());
    let stopped = match (stopped, cancelled_turn) {
        (Stopped::TurnOver(_), _) if *cancelled.borrow() => Stopped::Cancelled,
        (Stopped::TurnOver(_), Some(reason)) => Stopped::TurnCancelled(reason),
        (stopped, _) => stopped,
    };
    let took = match &stopped {
        Stopped::Answer(_) => String::new(),
        Stopped::TurnCancelled(reason) => {
            format!("{} was still running when its turn was {reason}", slot.tool)
        }
        Stopped::TimeUp => format!("{} took longer than {budget_text}", slot.tool),
        Stopped::TurnOver(ending) if ending.timed_out => {
            format!("{} was still running when its turn ended", slot.tool)
        }
        Stopped::TurnOver(ending) => format!(
            "{} was still running when its turn ended ({})",
            slot.tool, ending.how
        ),
        Stopped::Cancelled => format!("{} was still running when the run was cancelled", slot.tool),
    };
    // What the handler's `call.signal.reason` says.
    let reason = abort_reason(
        matches!(
            stopped,
            Stopped::TimeUp
                | Stopped::TurnOver(TurnEnding {
                    timed_out: true,
                    ..
                })
        ),
        &took,
    );
    let abort = Abort {
        workflow,
        run: agent.run_id(),
        call: &slot.id,
        reason,
    };
    let settled = match stopped {
        Stopped::Answer(answer) => answered(&slot.tool, answer),
        Stopped::Cancelled => {
            // Ctrl-C or SIGTERM: the signal's listeners, and the handler's code after them, run
            // for the run's short grace (run/mod.rs `drive`); nothing is stopped before.
            let waited = abort
                .and_wait(&mut reply, SIGNAL_ABORT_GRACE, &mut cancelled)
                .await;
            Settled::failure(Code::Cancelled, waited.told(&took), None)
        }
        Stopped::TurnCancelled(_)
        | Stopped::TurnOver(TurnEnding {
            timed_out: false, ..
        }) => {
            // The workflow cancelled the turn, or the agent ended it (it exited, or failed):
            // nothing timed out, so the call is cancelled, with what ended its turn.
            workflow.stop_call(&slot.id);
            let waited = abort
                .and_wait(&mut reply, TOOL_ABORT_GRACE, &mut cancelled)
                .await;
            workflow.call_was_stopped(&slot.id);
            Settled::failure(Code::Cancelled, waited.told(&took), None)
        }
        Stopped::TimeUp | Stopped::TurnOver(_) => {
            // Stop the handler's code if it holds the JS thread, abort its signal, then give it
            // the grace.
            workflow.stop_call(&slot.id);
            let waited = abort
                .and_wait(&mut reply, TOOL_ABORT_GRACE, &mut cancelled)
                .await;
            if workflow.call_was_stopped(&slot.id) {
                Settled::failure(
                    Code::TimedOut,
                    format!("{took}: its handler was running code that never yielded, and was stopped there"),
                    Some("a handler must not block: await its slow work, and check call.signal in long loops"),
                )
            } else if let Waited::Answered = waited {
                Settled::failure(
                    Code::TimedOut,
                    waited.told(&took),
                    Some("call again only if the work is still needed; a slow tool may need a narrower input"),
                )
            } else {
                let message = waited.told(&took);
                tracing::warn!("agent \"{}\": tool {message}", agent.key());
                Settled::failure(
                    Code::MayHaveRun,
                    message,
                    Some("check whether its work was done before calling it again"),
                )
            }
        }
    };
    agent.record(&Event::ToolSettled {
        agent: agent.key().to_string(),
        tool: slot.tool.clone(),
        call: slot.id.clone(),
        outcome: settled.outcome.to_string(),
        result: settled.result,
        error: settled.error,
        thrown_at: settled.at,
        duration_ms: started.elapsed().as_millis() as u64,
    });
    agent.end_call(&slot, settled.response.clone());
    settled.response
}

/// Why waiting for a handler stopped.
enum Stopped {
    Answer(Result<Option<Value>, UpcallFailure>),
    TimeUp,
    /// The call's turn ended, so: by its deadline (the call timed out), or otherwise (the agent
    /// exited or failed: the call is cancelled).
    TurnOver(TurnEnding),
    /// The run was cancelled (Ctrl-C, SIGTERM): the call is recorded `cancelled`, not
    /// `timed-out`.
    Cancelled,
    /// The workflow cancelled the call's turn (`wf.race`, ...), for this reason.
    TurnCancelled(String),
}

/// Aborting one running call's `call.signal`, for `reason`.
struct Abort<'a> {
    workflow: &'a dyn Upcall,
    run: &'a str,
    call: &'a str,
    reason: Value,
}

impl Abort<'_> {
    /// Aborts the call's signal, then waits for its handler to answer: `grace` at most, and once
    /// the run is cancelled no more than `SIGNAL_ABORT_GRACE`, since the run's engine stops
    /// then.
    async fn and_wait<F: Future>(
        &self,
        reply: &mut Pin<&mut F>,
        grace: Duration,
        cancelled: &mut watch::Receiver<bool>,
    ) -> Waited {
        let abort = self.workflow.abort_tool(&ToolAbort {
            run: self.run,
            call: self.call,
            reason: &self.reason,
        });
        let mut waited = pin!(async {
            let _ = abort.await;
            match tokio::time::timeout(grace, reply.as_mut()).await {
                Ok(_) => Waited::Answered,
                Err(_) => Waited::Ignored(grace),
            }
        });
        tokio::select! {
            biased;
            waited = &mut waited => return waited,
            _ = until_cancelled(cancelled) => {}
        }
        tokio::time::timeout(SIGNAL_ABORT_GRACE, waited)
            .await
            .unwrap_or(Waited::Ignored(SIGNAL_ABORT_GRACE))
    }
}

/// How a handler took its aborted signal.
enum Waited {
    Answered,
    /// It did not answer within this grace (the last one it got, when the run's cancellation
    /// cut a longer one short).
    Ignored(Duration),
}

impl Waited {
    /// `took` (what stopped the call), and how the handler took it.
    fn told(&self, took: &str) -> String {
        match self {
            Waited::Answered => format!("{took} and was stopped (call.signal aborted)"),
            Waited::Ignored(grace) => format!(
                "{took} and ignored call.signal for {} more: it may have run, or may still finish",
                format_duration(*grace)
            ),
        }
    }
}

/// How a call ended: what the agent reads, and what the records say of it.
struct Settled {
    response: Response,
    /// `result`, or the failure's code (`handler-failed`, `timed-out`, ...).
    outcome: &'static str,
    result: Option<Value>,
    error: Option<String>,
    /// Where the handler threw: `file:line:col`.
    at: Option<String>,
}

impl Settled {
    fn failure(code: Code, message: String, hint: Option<&str>) -> Settled {
        Settled {
            response: failed(code, message.clone(), hint),
            outcome: code.as_str(),
            result: None,
            error: Some(message),
            at: None,
        }
    }
}

/// The agent's view of a handler's answer, and the record's.
fn answered(tool: &str, answer: Result<Option<Value>, UpcallFailure>) -> Settled {
    match answer {
        Ok(value) => {
            let stdout = match &value {
                None => String::new(),
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
            };
            let size = value.as_ref().map(|v| v.to_string().len()).unwrap_or(0);
            if size > MAX_TOOL_RESULT_BYTES {
                return Settled::failure(
                    Code::ResultTooLarge,
                    format!("{tool} returned {size} bytes as JSON, over the limit of {MAX_TOOL_RESULT_BYTES}"),
                    Some("the workflow's tool must return a summary or a path, not a whole file"),
                );
            }
            Settled {
                response: Response::Ok { stdout },
                outcome: "result",
                result: value,
                error: None,
                at: None,
            }
        }
        // tools.ts checks the handler's value, to place what is not JSON at the handler.
        Err(UpcallFailure::Threw(error)) if error.code.as_deref() == Some("result-not-json") => {
            Settled {
                at: error.thrown_at(),
                ..Settled::failure(Code::ResultNotJson, error.message, None)
            }
        }
        Err(UpcallFailure::Threw(error)) => {
            let message = if error.message.is_empty() {
                error.name.clone()
            } else {
                error.message.clone()
            };
            Settled {
                at: error.thrown_at(),
                ..Settled::failure(Code::HandlerFailed, message, None)
            }
        }
        Err(UpcallFailure::NotJson(why)) => Settled::failure(
            Code::ResultNotJson,
            format!("{tool} returned a value that is not JSON: {why}"),
            None,
        ),
        Err(UpcallFailure::HostGone) => Settled::failure(
            Code::HandlerFailed,
            "the workflow run ended before the tool answered".to_string(),
            None,
        ),
    }
}

const UNKNOWN_TOOL_HINT: &str = "`wfa tool` alone lists your tools and how to call them";

/// Why a tool the agent does not have is refused, naming those it has.
fn unknown_tool(agent: &impl Caller, name: &str) -> String {
    let yours = if agent.tools().is_empty() {
        "you have no tools".to_string()
    } else {
        format!("your tools: {}", agent.tools().names().join(", "))
    };
    format!("you have no tool \"{name}\"; {yours}")
}

fn failed(code: Code, message: String, hint: Option<&str>) -> Response {
    Response::Failed {
        code,
        message,
        hint: hint.map(str::to_string),
    }
}

fn refuse(
    agent: &impl Caller,
    tool: &str,
    code: Code,
    message: String,
    details: Vec<String>,
    hint: Option<&str>,
) -> Response {
    let RefusedCall { turn, call } = agent.refused_call();
    agent.record(&Event::ToolRefused {
        agent: agent.key().to_string(),
        turn,
        call,
        tool: tool.to_string(),
        code: code.as_str().to_string(),
        message: message.clone(),
        details: details.clone(),
    });
    Response::Refused {
        code,
        message,
        details,
        hint: hint.map(str::to_string),
    }
}

/// What `wfa tool <name> --help` prints: how to call that tool, and its time budget. Asking
/// for help is no call: an unknown name is refused, and not recorded.
pub fn tool_help(agent: &impl Caller, name: &str) -> Response {
    let tools = agent.tools();
    let Some(tool) = tools.get(name) else {
        return Response::Refused {
            code: Code::UnknownTool,
            message: unknown_tool(agent, name),
            details: vec![],
            hint: Some(UNKNOWN_TOOL_HINT.to_string()),
        };
    };
    let teaching = tools.teaching();
    let taught = teaching
        .iter()
        .find(|t| t.name == name)
        .expect("a tool is taught");
    let launcher = agent.launcher().display().to_string();
    Response::Ok {
        stdout: format!(
            "{}\nEach call may take {}; `{launcher} tool` alone lists every tool, the limits and the codes.\n",
            teach::tool_usage(&launcher, taught),
            tool.budget.describe()
        ),
    }
}

/// What `wfa tool` alone prints: this agent's tools, the limits, the harness limits, the codes.
pub fn listing(agent: &impl Caller) -> Response {
    let launcher = agent.launcher().display().to_string();
    let tools = agent.tools();
    let mut out = String::new();
    if tools.is_empty() {
        out.push_str(&format!("Agent \"{}\" has no tools.\n", agent.key()));
    } else {
        out.push_str(&teach::tools_instructions(&launcher, &tools.teaching()));
        out.push('\n');
        for name in tools.names() {
            let tool = tools.get(&name).expect("listed");
            out.push_str(&format!(
                "\n{name}: each call may take {}",
                tool.budget.describe()
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "\nLimits: at most {MAX_TOOLS_PER_AGENT} tools per agent; names of lowercase letters, digits and _; \
a result of at most {} KiB as JSON; an input of at most {} MiB; {} per call unless the tool sets another \
time, always within the turn's deadline; when a call's time is up its handler is told to stop and gets {} more.\n\
Calls: one at a time. Calling again with the same input while a call runs waits for that call's answer; \
a call made after it ended runs again. While a call runs, result and waiting are refused (busy).\n",
        MAX_TOOL_RESULT_BYTES / 1024,
        MAX_PAYLOAD_BYTES / (1024 * 1024),
        format_duration(DEFAULT_TOOL_TIMEOUT),
        format_duration(TOOL_ABORT_GRACE),
    ));
    out.push_str(
        "\nHow long each agent CLI lets one shell command run before it backgrounds or stops it:\n",
    );
    for (cli, limit) in registry::shell_limits() {
        out.push_str(&format!("  {cli}: {limit}\n"));
    }
    out.push('\n');
    out.push_str(&refusal::codes_help());
    Response::Ok { stdout: out }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::tools::calls::{ToolCalls, TurnEnd, TurnWindow};
    use crate::upcall::fake::{FakeWorkflow, Handler};
    use crate::upcall::{JsError, Kind};

    /// An agent with one tool, `add`, and a turn open until `turn_ends`.
    struct TestAgent {
        tools: ToolSet,
        calls: Mutex<ToolCalls>,
        turn_ends: Instant,
        turn_over: Arc<TurnEnd>,
        events: Mutex<Vec<Event>>,
        workflow: FakeWorkflow,
        cancel: watch::Sender<bool>,
        launcher: PathBuf,
    }

    impl TestAgent {
        fn new(workflow: FakeWorkflow, turn_lasts: Duration) -> TestAgent {
            TestAgent {
                tools: ToolSet::from_json(&json!({ "add": {
                    "description": "adds",
                    "input": { "type": "object", "properties": { "x": { "type": "number" } } }
                } }))
                .expect("a valid tool"),
                calls: Mutex::default(),
                turn_ends: Instant::now() + turn_lasts,
                turn_over: Arc::default(),
                events: Mutex::default(),
                workflow,
                cancel: watch::Sender::new(false),
                launcher: PathBuf::from("/run/wfa"),
            }
        }

        /// How the call's settled record says it ended.
        fn settled(&self) -> Vec<String> {
            let events = self.events.lock().expect("not poisoned");
            events
                .iter()
                .filter_map(|event| match event {
                    Event::ToolSettled { outcome, .. } => Some(outcome.clone()),
                    _ => None,
                })
                .collect()
        }
    }

    impl Caller for TestAgent {
        fn key(&self) -> &str {
            "a"
        }
        fn tools(&self) -> &ToolSet {
            &self.tools
        }
        fn launcher(&self) -> &Path {
            &self.launcher
        }
        fn begin_call(&self, tool: &str, input: &Value) -> CallStart {
            let window = TurnWindow {
                id: "t1".into(),
                deadline: self.turn_ends,
                over: self.turn_over.clone(),
            };
            let mut calls = self.calls.lock().expect("not poisoned");
            calls.begin(tool, input, Ok(window))
        }
        fn end_call(&self, slot: &CallSlot, response: Response) {
            self.calls.lock().expect("not poisoned").end(slot);
            slot.finish(response);
        }
        fn refused_call(&self) -> RefusedCall {
            let mut calls = self.calls.lock().expect("not poisoned");
            calls.refused(Some("t1".into()))
        }
        fn record(&self, event: &Event) {
            self.events
                .lock()
                .expect("not poisoned")
                .push(event.clone());
        }
        fn run_id(&self) -> &str {
            "r1"
        }
        fn workflow(&self) -> &dyn Upcall {
            &self.workflow
        }
        fn cancelled(&self) -> watch::Receiver<bool> {
            self.cancel.subscribe()
        }
        fn turn_cancel(&self, _turn: &str) -> Option<watch::Receiver<Option<String>>> {
            None
        }
    }

    fn call_add(agent: &TestAgent) -> Response {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        runtime.block_on(call(agent, "add".into(), vec![], Some("{\"x\": 1}".into())))
    }

    #[test]
    fn the_handler_gets_the_call_and_its_answer_is_what_the_agent_reads() {
        let agent = TestAgent::new(
            FakeWorkflow::new(Handler::Answers(json!({ "sum": 3 }))),
            Duration::from_secs(60),
        );
        assert_eq!(
            call_add(&agent),
            Response::Ok {
                stdout: "{\"sum\":3}".into()
            }
        );
        assert_eq!(
            agent.workflow.asked(),
            vec![(
                Kind::ToolCall,
                json!({ "run": "r1", "agent": "a", "tool": "add", "call": "t1-c1", "input": { "x": 1 } })
            )]
        );
        assert_eq!(agent.settled(), vec!["result"]);
    }

    #[test]
    fn a_handler_that_throws_fails_the_call_with_its_message() {
        let thrown = JsError::message("Error", "the disk is full");
        let agent = TestAgent::new(
            FakeWorkflow::new(Handler::Throws(thrown)),
            Duration::from_secs(60),
        );
        let Response::Failed { code, message, .. } = call_add(&agent) else {
            panic!("the call fails");
        };
        assert_eq!(
            (code, message.as_str()),
            (Code::HandlerFailed, "the disk is full")
        );
        assert_eq!(agent.settled(), vec!["handler-failed"]);
    }

    #[test]
    fn a_handler_that_never_answers_is_stopped_and_aborted_when_its_turn_ends() {
        let agent = TestAgent::new(FakeWorkflow::new(Handler::Hangs), Duration::from_millis(50));
        let Response::Failed { code, message, .. } = call_add(&agent) else {
            panic!("the call fails");
        };
        assert_eq!(code, Code::TimedOut);
        assert_eq!(
            message,
            "add took longer than the time left in its turn: its handler was running code that never yielded, and was stopped there"
        );
        let asked: Vec<Kind> = agent.workflow.asked().into_iter().map(|(k, _)| k).collect();
        assert_eq!(asked, vec![Kind::ToolCall, Kind::ToolAbort]);
        let (_, abort) = &agent.workflow.asked()[1];
        assert_eq!(abort["call"], "t1-c1");
        assert_eq!(abort["reason"]["name"], "TimeoutError");
        assert_eq!(agent.settled(), vec!["timed-out"]);
    }

    #[test]
    fn a_call_whose_host_is_gone_fails_saying_the_run_ended() {
        let agent = TestAgent::new(FakeWorkflow::new(Handler::Gone), Duration::from_secs(60));
        let Response::Failed { code, message, .. } = call_add(&agent) else {
            panic!("the call fails");
        };
        assert_eq!(
            (code, message.as_str()),
            (
                Code::HandlerFailed,
                "the workflow run ended before the tool answered"
            )
        );
    }
}
