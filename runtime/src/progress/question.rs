//! What the live view says of `wf.ask`'s questions: the question, what it takes, its context,
//! and the command that answers it; then the answer it took, or that it timed out.

use serde_json::Value;

use crate::records::status::shell_word;

/// The lines shown when run `run_id` asks: `? Ship? [yes, no]`, the context indented under it
/// (at most `MAX_CONTEXT_LINES`), and `  answer: awf answer RUN --question KEY VALUE`.
pub fn asked(
    run_id: Option<&str>,
    key: &str,
    question: &str,
    choices: Option<&[String]>,
    typed: bool,
    context: Option<&Value>,
) -> String {
    let takes = match (choices, typed) {
        (Some(choices), _) => format!(" [{}]", choices.join(", ")),
        (None, true) => " (a JSON value)".to_string(),
        (None, false) => String::new(),
    };
    let mut text = format!("? {question}{takes}");
    if let Some(context) = context {
        let shown = match context {
            Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        let lines: Vec<&str> = shown.lines().collect();
        for line in lines.iter().take(MAX_CONTEXT_LINES) {
            text += &format!("\n  | {line}");
        }
        if lines.len() > MAX_CONTEXT_LINES {
            text += &format!(
                "\n  | ... ({} more lines in `awf logs`)",
                lines.len() - MAX_CONTEXT_LINES
            );
        }
    }
    let value = match (choices, typed) {
        (Some(choices), _) => choices
            .first()
            .map_or("VALUE".to_string(), |c| shell_word(c)),
        (None, true) => "--json '{...}'".to_string(),
        (None, false) => "'TEXT'".to_string(),
    };
    text += &format!(
        "\n  answer: awf answer {} --question {key} {value}",
        shell_word(run_id.unwrap_or("RUN"))
    );
    text
}

/// The most lines of a question's context the live view shows.
const MAX_CONTEXT_LINES: usize = 12;

/// The line shown when a question took its answer.
pub fn answered(key: &str, value: &Value, how: &str) -> String {
    format!("answered {key} ({how}): {value}")
}

/// The line shown when a question timed out.
pub fn timed_out(key: &str, timeout_ms: u64) -> String {
    format!(
        "no answer to {key} within {}",
        crate::duration::format_duration(std::time::Duration::from_millis(timeout_ms))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_question_shows_its_context_and_the_command_that_answers_it() {
        let choices = ["yes".to_string(), "no".to_string()];
        assert_eq!(
            asked(Some("r1"), "ship", "Ship?", Some(&choices), false, Some(&json!("1. build\n2. ship"))),
            "? Ship? [yes, no]\n  | 1. build\n  | 2. ship\n  answer: awf answer r1 --question ship yes"
        );
        assert_eq!(
            asked(Some("r1"), "plan", "Plan?", None, true, None),
            "? Plan? (a JSON value)\n  answer: awf answer r1 --question plan --json '{...}'"
        );
        let long = (1..=14)
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let shown = asked(None, "n", "Notes?", None, false, Some(&json!(long)));
        assert!(shown.contains("  | 12\n  | ... (2 more lines in `awf logs`)\n  answer: awf answer RUN --question n 'TEXT'"), "{shown}");
    }

    #[test]
    fn answers_and_timeouts_are_one_line() {
        assert_eq!(
            answered("ship", &json!("yes"), "awf answer"),
            "answered ship (awf answer): \"yes\""
        );
        assert_eq!(timed_out("ship", 1500), "no answer to ship within 1.5s");
    }
}
