//! `awf answer RUN [VALUE]`: answers a question a run asked with `wf.ask`. The value is checked
//! against the question as its `asked` record holds it (a choice, a value of its schema, or
//! text); a value it does not take is refused (exit 2) with the reasons, and the run keeps
//! waiting. A value it takes is left in the run folder's mailbox (runtime/src/ask/mailbox.rs):
//! a running run takes it within a moment (this command waits until it has), and a run that
//! is not running takes it when `awf run --continue` asks the question again.

use std::io::{IsTerminal, Read};
use std::path::Path;
use std::time::Duration;

use anyhow::{anyhow, Context};
use awf_runtime::ask::mailbox;
use awf_runtime::ask::open::{open_questions, OpenQuestion};
use awf_runtime::ask::Question;
use awf_runtime::records::status::{self, shell_word};
use awf_runtime::records::{ending, logs};

use crate::args::AnswerArgs;
use crate::failure::Failure;

/// How often this command looks whether the running run took the answer.
const LOOK: Duration = Duration::from_millis(100);

pub fn run(args: AnswerArgs) -> i32 {
    answer(args).unwrap_or_else(Failure::report)
}

fn answer(args: AnswerArgs) -> Result<i32, Failure> {
    let cwd = match &args.cwd {
        Some(cwd) => std::fs::canonicalize(cwd)
            .with_context(|| format!("--cwd {}", cwd.display()))
            .map_err(Failure::usage)?,
        None => std::env::current_dir()
            .context("cannot read the current directory")
            .map_err(Failure::usage)?,
    };
    let dir = logs::find_run(&cwd, Some(&args.run)).map_err(|e| Failure::of(e.into(), 2))?;
    // A run whose awf died (kill -9) is closed as interrupted first: its questions stay open.
    awf_runtime::channel::sweep::sweep_dead_runs();
    let _ = ending::close_if_orphaned(&dir);
    let open = open_questions(&dir)
        .with_context(|| format!("cannot read the records of run {}", args.run))
        .map_err(Failure::failed)?;
    let open_question = pick(&args, &open)?;
    let question = Question::from_asked(&open_question.asked)
        .map_err(|e| Failure::failed(anyhow!("run {}: {e}", args.run)))?;
    let words = words(&args)?;
    let value = question
        .read(&words, args.json)
        .map_err(|e| Failure::usage(anyhow!("{e}")))?;
    let problems = question.check(&value);
    if !problems.is_empty() {
        let lines: String = problems.iter().map(|p| format!("\n  {p}")).collect();
        return Err(Failure::usage(anyhow!(
            "run {}: that is not an answer to {:?} (key {}):{lines}",
            args.run,
            question.text,
            question.key
        ))
        .with_hint(format!(
            "it takes {}; the run is still waiting for an answer{}",
            question.takes(),
            if question.schema.is_some() && !args.json {
                " (give a typed value as JSON: --json '{...}')"
            } else {
                ""
            }
        )));
    }
    match mailbox::give(&dir, &question.key, &value) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(already_given(&args.run, &question.key))
        }
        Err(e) => {
            return Err(Failure::failed(
                anyhow!(e).context(format!("cannot leave the answer in {}", dir.display())),
            ))
        }
    }
    let shown = serde_json::to_string(&value).unwrap_or_default();
    if !running(&dir) {
        return Ok(left_for_continue(&dir, &cwd, &args.run, &question, &shown));
    }
    loop {
        std::thread::sleep(LOOK);
        if !mailbox::path(&dir, &question.key).exists() {
            println!(
                "answered {} ({:?}) with {shown}: run {} took it",
                question.key, question.text, args.run
            );
            return Ok(0);
        }
        let still_open = open_questions(&dir)
            .map(|open| open.iter().any(|q| q.key == question.key))
            .unwrap_or(true);
        if !still_open {
            // It timed out (or was given up) between our look and our answer.
            mailbox::remove(&dir, &question.key);
            return Err(Failure::usage(anyhow!(
                "run {}: question {} ({:?}) stopped waiting before it took the answer",
                args.run,
                question.key,
                question.text
            ))
            .with_hint(format!("`awf logs {}` says why (ask-timed-out)", args.run)));
        }
        if !running(&dir) {
            return Ok(left_for_continue(&dir, &cwd, &args.run, &question, &shown));
        }
    }
}

/// The question `--question` names (by key or words), else the oldest with no answer given.
fn pick<'a>(args: &AnswerArgs, open: &'a [OpenQuestion]) -> Result<&'a OpenQuestion, Failure> {
    let listed = || {
        open.iter()
            .map(|q| format!("{} ({:?})", q.key, q.question))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &args.question {
        Some(wanted) => {
            let found = open
                .iter()
                .find(|q| &q.key == wanted || &q.question == wanted)
                .ok_or_else(|| {
                    let failure =
                        Failure::usage(anyhow!("run {} has no open question {wanted:?}", args.run));
                    if open.is_empty() {
                        failure.with_hint(format!("run {} waits for no answer now", args.run))
                    } else {
                        failure.with_hint(format!("its open questions: {}", listed()))
                    }
                })?;
            if found.given {
                return Err(already_given(&args.run, &found.key));
            }
            Ok(found)
        }
        None => open.iter().find(|q| !q.given).ok_or_else(|| {
            if open.is_empty() {
                Failure::usage(anyhow!("run {} has no open question", args.run)).with_hint(format!(
                    "`awf logs {}` shows what it asked and the answers it took",
                    args.run
                ))
            } else {
                already_given(&args.run, &open[0].key)
            }
        }),
    }
}

fn already_given(run: &str, key: &str) -> Failure {
    Failure::usage(anyhow!(
        "run {run}: question {key} has an answer already, which the run has not taken yet"
    ))
    .with_hint(format!(
        "the run takes it when it runs again (`awf run FILE --continue {run}`); to answer otherwise, remove .awf/runs/.../{run}/answers/{key}.json first"
    ))
}

/// The answer's words: VALUE, else standard input (one final newline dropped).
fn words(args: &AnswerArgs) -> Result<String, Failure> {
    if let Some(value) = args.value.as_deref().filter(|v| *v != "-") {
        return Ok(value.to_string());
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Failure::usage(anyhow!("no answer given"))
            .with_hint("give it as VALUE (`awf answer RUN yes`), or pipe it: `echo '{...}' | awf answer RUN --json`"));
    }
    let mut text = String::new();
    stdin
        .lock()
        .read_to_string(&mut text)
        .context("cannot read the answer from standard input")
        .map_err(Failure::usage)?;
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    Ok(text)
}

/// Whether an awf runs the run in `dir` now.
fn running(dir: &Path) -> bool {
    status::status_of(dir).is_some_and(|s| s.status == "running")
}

/// The answer waits in the run folder for the attempt that asks again: says how to start it.
fn left_for_continue(dir: &Path, cwd: &Path, run: &str, question: &Question, shown: &str) -> i32 {
    let again = status::status_of(dir)
        .and_then(|s| s.continue_command(cwd))
        .unwrap_or_else(|| format!("awf run FILE --continue {}", shell_word(run)));
    println!(
        "answered {} ({:?}) with {shown}: run {run} is not running; `{again}` asks the question again and takes this answer",
        question.key, question.text
    );
    0
}
