//! What wfa prints and how it exits: the [`Output`] of one invocation, built without side
//! effects and written once by `main`; the run's response as the agent reads it; and the one
//! shape of every refusal and failure, whether the run or wfa itself made it.

use crate::refusal::{Code, Exit};
use crate::wire::Response;

/// Everything wfa prints and how it exits: built without side effects, written once by `main`.
#[derive(Debug, PartialEq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub exit: Exit,
}

impl Output {
    pub fn stdout(text: String) -> Output {
        Output {
            stdout: text,
            stderr: String::new(),
            exit: Exit::Done,
        }
    }

    pub fn stderr(exit: Exit, text: String) -> Output {
        Output {
            stdout: String::new(),
            stderr: text,
            exit,
        }
    }
}

/// What wfa prints for the run's response, and its exit.
pub fn render(subject: &str, response: Response) -> Output {
    match response {
        Response::Ok { mut stdout } => {
            if !stdout.is_empty() && !stdout.ends_with('\n') {
                stdout.push('\n');
            }
            Output::stdout(stdout)
        }
        Response::Refused {
            code,
            message,
            details,
            hint,
        } => Output::stderr(
            code.exit(),
            report(
                subject,
                "refused",
                code,
                &message,
                &details,
                hint.as_deref(),
            ),
        ),
        Response::Failed {
            code,
            message,
            hint,
        } => Output::stderr(
            code.exit(),
            report(subject, "failed", code, &message, &[], hint.as_deref()),
        ),
    }
}

/// A refusal wfa makes itself, before sending anything.
pub fn refused_locally(subject: &str, code: Code, message: &str) -> Output {
    Output::stderr(
        code.exit(),
        report(subject, "refused", code, message, &[], None),
    )
}

/// `wfa: <subject>: <verdict> (<code>): <message>`, each detail indented two spaces, then a
/// blank line and the hint. Lines after the first of a message, detail or hint are indented under
/// it, so a multi-line handler error stays readable as one block.
pub fn report(
    subject: &str,
    verdict: &str,
    code: Code,
    message: &str,
    details: &[String],
    hint: Option<&str>,
) -> String {
    let mut text = format!("wfa: {subject}: {verdict} ({code}): ");
    push_indented(&mut text, message, "  ");
    for detail in details {
        text.push_str("  ");
        push_indented(&mut text, detail, "    ");
    }
    if let Some(hint) = hint {
        text.push_str("\nhint: ");
        push_indented(&mut text, hint, "      ");
    }
    text
}

/// Appends `block` and a newline, with every line after the first prefixed by `indent`.
fn push_indented(text: &mut String, block: &str, indent: &str) {
    for (index, line) in block.trim_end().lines().enumerate() {
        if index > 0 {
            text.push_str(indent);
        }
        text.push_str(line);
        text.push('\n');
    }
    if block.trim_end().is_empty() {
        text.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn ok_prints_stdout_ending_in_one_newline() {
        let ok = |text: &str| {
            render(
                "x",
                Response::Ok {
                    stdout: text.to_owned(),
                },
            )
        };
        assert_eq!(ok(""), Output::stdout(String::new()));
        assert_eq!(ok("Recorded."), Output::stdout("Recorded.\n".to_owned()));
        assert_eq!(ok("a\nb\n"), Output::stdout("a\nb\n".to_owned()));
        assert_eq!(ok("a\n\n"), Output::stdout("a\n\n".to_owned()));
    }

    #[test]
    fn a_refusal_prints_code_details_and_hint() {
        let output = render(
            "add_finding",
            Response::Refused {
                code: Code::InvalidInput,
                message: "the input does not fit the tool's schema".to_owned(),
                details: strings(&["/line: must be >= 1, got 0", "/problem: required, missing"]),
                hint: Some(
                    "call again with the input fixed; `wfa tool` alone lists each tool's flags"
                        .to_owned(),
                ),
            },
        );
        assert_eq!(output.exit, Exit::Refused);
        assert_eq!(output.stdout, "");
        assert_eq!(
            output.stderr,
            "wfa: add_finding: refused (invalid-input): the input does not fit the tool's schema
  /line: must be >= 1, got 0
  /problem: required, missing

hint: call again with the input fixed; `wfa tool` alone lists each tool's flags
"
        );
    }

    #[test]
    fn a_refusal_without_details_or_hint_is_one_line() {
        let output = render(
            "t3",
            Response::Refused {
                code: Code::ClosedTurn,
                message: "turn t3 is answered".to_owned(),
                details: Vec::new(),
                hint: None,
            },
        );
        assert_eq!(output.exit, Exit::Refused);
        assert_eq!(
            output.stderr,
            "wfa: t3: refused (closed-turn): turn t3 is answered\n"
        );
    }

    #[test]
    fn a_failure_exits_1_and_indents_a_multi_line_message() {
        let output = render(
            "add_finding",
            Response::Failed {
                code: Code::HandlerFailed,
                message: "src/a.ts:3 is already recorded\nsee list_findings\n".to_owned(),
                hint: Some("record another line".to_owned()),
            },
        );
        assert_eq!(output.exit, Exit::Failed);
        assert_eq!(
            output.stderr,
            "wfa: add_finding: failed (handler-failed): src/a.ts:3 is already recorded
  see list_findings

hint: record another line
"
        );
        let empty = render(
            "x",
            Response::Failed {
                code: Code::TimedOut,
                message: String::new(),
                hint: None,
            },
        );
        assert_eq!(empty.stderr, "wfa: x: failed (timed-out): \n");
    }
}
