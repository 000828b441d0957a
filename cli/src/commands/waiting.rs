//! The questions runs wait on (`wf.ask`), for `awf runs`: under the table, one line per open
//! question with the command that answers it; in `--json`, `questions` on each run.

use std::io::Write;

use awf_runtime::ask::open::{open_questions, OpenQuestion};
use awf_runtime::records::status::{shell_word, RunStatus};
use serde_json::{json, Value};

/// The open questions of `run`; none for a completed run, whose questions all ended.
fn of(run: &RunStatus) -> Vec<OpenQuestion> {
    if run.status == "completed" {
        return Vec::new();
    }
    open_questions(&run.dir).unwrap_or_default()
}

/// `questions` of `awf runs --json`: `[{ key, question, choices?, given }]`.
pub fn questions_json(run: &RunStatus) -> Value {
    of(run)
        .iter()
        .map(|q| {
            let mut item = json!({ "key": q.key, "question": q.question, "given": q.given });
            if let Some(choices) = q.asked.get("choices") {
                item["choices"] = choices.clone();
            }
            item
        })
        .collect()
}

/// A line per open question: `run ID waits for a person: KEY "QUESTION": awf answer ...`.
pub fn list(runs: &[RunStatus], out: &mut impl Write) {
    let mut first = true;
    for run in runs {
        for question in of(run) {
            if first {
                let _ = writeln!(out);
                first = false;
            }
            let how = if question.given {
                "answered; the run takes it when it runs again".to_string()
            } else {
                format!(
                    "awf answer {} --question {} VALUE",
                    shell_word(&run.id),
                    question.key
                )
            };
            let _ = writeln!(
                out,
                "run {} waits for a person: {} {:?}: {how}",
                run.id, question.key, question.question
            );
        }
    }
}
