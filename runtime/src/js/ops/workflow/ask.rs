//! Ops of js/workflow/ask.ts: `wf.ask` opens a question (checked, recorded `asked`), waits for
//! its answer in the run folder's mailbox (ask/mailbox.rs) or takes a test's scripted one, and
//! records `answered` (or `ask-timed-out`). What a question takes is crate::ask's.

use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::context::run_of;
use super::messages::read_timeout;
use crate::ask::mailbox::{self, Waited};
use crate::ask::{key_of, Question};
use crate::hint::Hint;
use crate::js::engine::{async_op, sync_op, HostState, Json, OpCode, OpDecl, OpError};
use crate::records::Event;
use crate::workflow::run::Run;

pub const OPS: &[OpDecl] = &[
    sync_op!(ask_open),
    async_op!(ask_wait),
    sync_op!(ask_give_up),
    sync_op!(ask_scripted),
];

/// What `wf.ask(question, options)` gives.
#[derive(Deserialize)]
struct AskOpen {
    run: f64,
    question: Json,
    #[serde(default)]
    choices: Option<Json>,
    #[serde(default)]
    schema: Option<Json>,
    #[serde(default)]
    context: Option<Json>,
    #[serde(default)]
    timeout: Option<Json>,
    #[serde(default)]
    key: Option<Json>,
    /// The author's line, `file:line:col`.
    #[serde(default)]
    from: Option<String>,
}

fn given(value: Option<Json>) -> Option<Value> {
    value.and_then(|Json(raw)| raw).filter(|v| !v.is_null())
}

/// `ask_open({ run, question, choices?, schema?, context?, timeout?, key?, from? })`: checks the
/// question, gives it its key, records `asked`; `{ key, timeoutMs }`.
fn ask_open(state: &Rc<HostState>, args: AskOpen) -> Result<Value, OpError> {
    let run = run_of(state, args.run)?;
    let invalid = |why: String, hint: Option<String>| {
        OpError::new(OpCode::InvalidAsk, format!("wf.ask: {why}")).with_hint(hint)
    };
    let text =
        match given(Some(args.question)) {
            Some(Value::String(text)) if !text.trim().is_empty() => text,
            other => return Err(invalid(
                format!(
                    "the question must be a non-empty string; got {}",
                    other.map_or("nothing".to_string(), |v| v.to_string())
                ),
                Some(
                    "ask in words: wf.ask(\"Ship release 1.2?\", { choices: [\"yes\", \"no\"] })"
                        .into(),
                ),
            )),
        };
    let key = match given(args.key) {
        None => None,
        Some(Value::String(key)) => Some(key),
        Some(other) => {
            return Err(invalid(
                format!("key must be a string; got {other}"),
                Some("give a short name such as key: \"ship-release\"".into()),
            ))
        }
    };
    let base = key_of(key.as_deref(), &text).map_err(|e| invalid(e.to_string(), e.hint()))?;
    let choices = given(args.choices);
    let schema = given(args.schema);
    let timeout = read_timeout(
        "wf.ask(question, { timeout })",
        OpCode::InvalidAsk,
        given(args.timeout).as_ref(),
    )?;
    // The key is taken only once the question is sound: a refused ask numbers nothing.
    let mut question = Question::new(String::new(), text, choices.as_ref(), schema)
        .map_err(|e| invalid(e.to_string(), e.hint()))?;
    question.key = run.asks.next_key(&base);
    let timeout_ms = timeout.map(|t| t.as_millis() as u64);
    run.record(&Event::Asked {
        key: question.key.clone(),
        question: question.text.clone(),
        choices: question.choices.clone(),
        schema: question.schema.as_ref().map(|s| s.raw().clone()),
        context: given(args.context),
        timeout_ms,
        from: args.from.filter(|f| !f.is_empty()),
        pid: std::process::id(),
    });
    let key = question.key.clone();
    run.asks.wait_for(question);
    Ok(serde_json::json!({ "key": key, "base": base, "timeoutMs": timeout_ms }))
}

#[derive(Deserialize)]
struct AskWait {
    run: f64,
    key: String,
    #[serde(default, rename = "timeoutMs")]
    timeout_ms: Option<u64>,
}

/// `ask_wait({ run, key, timeout_ms })`: the answer, once one fits (recorded `answered`); an
/// `ask-timeout` error when `timeout_ms` passes first. A file in the mailbox that is not an
/// answer to the question is moved aside (`<key>.refused.json`) with a log line, and the
/// question waits on. `null` when the question was given up (`ask_give_up`).
fn ask_wait(
    state: &Rc<HostState>,
    args: AskWait,
) -> Result<impl std::future::Future<Output = Result<Value, OpError>>, OpError> {
    let run = run_of(state, args.run)?;
    let question = run.asks.open(&args.key).ok_or_else(|| {
        OpError::internal(format!("wf.ask: question {} is not waiting", args.key))
    })?;
    let deadline = args
        .timeout_ms
        .map(|ms| Instant::now() + Duration::from_millis(ms));
    Ok(async move { wait(run, question, deadline, args.timeout_ms).await })
}

async fn wait(
    run: Arc<Run>,
    question: Question,
    deadline: Option<Instant>,
    timeout_ms: Option<u64>,
) -> Result<Value, OpError> {
    let folder = run.records.path().to_path_buf();
    let key = question.key.clone();
    loop {
        let waited = mailbox::wait(&folder, &key, deadline, || run.asks.open(&key).is_some()).await;
        match waited {
            Waited::Given(given) => {
                let problems = question.check(&given.value);
                if problems.is_empty() {
                    if !run.asks.close(&key) {
                        return Ok(Value::Null);
                    }
                    run.record(&Event::Answered {
                        key: key.clone(),
                        value: given.value.clone(),
                        how: "awf answer".into(),
                        given_at: Some(given.at).filter(|at| !at.is_empty()),
                    });
                    // The record holds the answer now: the file has done its work.
                    let _ = run.records.flush();
                    mailbox::remove(&folder, &key);
                    return Ok(given.value);
                }
                set_aside(&run, &folder, &key, &problems.join("; "));
            }
            Waited::Unreadable(error) => set_aside(&run, &folder, &key, &error.to_string()),
            Waited::TimedOut => {
                run.asks.close(&key);
                let ms = timeout_ms.unwrap_or(0);
                run.record(&Event::AskTimedOut {
                    key: key.clone(),
                    timeout_ms: ms,
                });
                return Err(OpError::new(
                    OpCode::AskTimeout,
                    format!(
                        "wf.ask: no answer to {:?} (key {key}) came within {}",
                        question.text,
                        crate::duration::format_duration(Duration::from_millis(ms))
                    ),
                )
                .with_hint(Some(format!(
                    "answer sooner with `awf answer {} VALUE --question {key}`, or give the question a longer timeout",
                    run.id
                ))));
            }
            Waited::GivenUp => return Ok(Value::Null),
        }
    }
}

/// A mailbox file that is no answer to `key`: renamed `<key>.refused.json` and logged.
fn set_aside(run: &Run, folder: &std::path::Path, key: &str, why: &str) {
    let path = mailbox::path(folder, key);
    let aside = path.with_extension("refused.json");
    let _ = std::fs::rename(&path, &aside);
    run.log(
        &format!(
            "wf.ask: {} is no answer to question {key} ({why}); moved to {}, still waiting",
            path.display(),
            aside.display()
        ),
        None,
    );
}

#[derive(Deserialize)]
struct AskGiveUp {
    run: f64,
    key: String,
}

/// `ask_give_up({ run, key })`: the question waits no more (its scope was cancelled).
fn ask_give_up(state: &Rc<HostState>, args: AskGiveUp) -> Result<bool, OpError> {
    Ok(run_of(state, args.run)?.asks.close(&args.key))
}

#[derive(Deserialize)]
struct AskScripted {
    run: f64,
    key: String,
    value: Json,
}

/// `ask_scripted({ run, key, value })`: a test's scripted answer, checked against the question
/// and recorded `answered` (`how: "scripted"`); a value it does not take is `invalid-answer`
/// with the reasons.
fn ask_scripted(state: &Rc<HostState>, args: AskScripted) -> Result<Value, OpError> {
    let run = run_of(state, args.run)?;
    let question = run.asks.open(&args.key).ok_or_else(|| {
        OpError::internal(format!("wf.ask: question {} is not waiting", args.key))
    })?;
    let value = args.value.0.unwrap_or(Value::Null);
    let problems = question.check(&value);
    if !problems.is_empty() {
        return Err(OpError::new(
            OpCode::InvalidAnswer,
            format!(
                "the scripted answer to {:?} (key {}) is not an answer it takes ({}): {}",
                question.text,
                question.key,
                question.takes(),
                problems.join("; ")
            ),
        ));
    }
    run.asks.close(&args.key);
    run.record(&Event::Answered {
        key: args.key,
        value: value.clone(),
        how: "scripted".into(),
        given_at: None,
    });
    Ok(value)
}
