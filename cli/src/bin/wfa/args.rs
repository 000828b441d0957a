//! The command line: the usage text and `--help`, and the words read into an [`Invocation`]: one
//! request for the run, or help or the version. A line wfa cannot read is a [`UsageError`] (exit
//! 3, nothing sent). How a tool's or an answer's flags become JSON is the run's business: wfa
//! passes them as typed.

use std::ffi::OsString;

use crate::limits;
use crate::output::Output;
use crate::refusal::{self, Exit};
use crate::wire::Request;

const USAGE: &str = "\
usage: wfa tool                                   list your tools, their limits and the codes
       wfa tool <name> [--<option> <value>]...    call a tool (JSON input: on standard input)
       wfa tool <name> --help                     how to call that tool
       wfa result <turn> [--<field> <value>]...   answer a turn (a JSON answer: on standard input)
       wfa result <turn> --help                   how to answer that turn
       wfa waiting <turn> --reason <text> [--timeout <duration>]
                                                  say you still work on the turn and need time
       wfa send '<text>'                          send the workflow a message (no words: text on
                                                  standard input)
       wfa send [<text>] --json                   send data: JSON on standard input
       wfa --help | --version
";

/// `wfa --help`: the usage, where to run wfa from, and the codes it exits with.
pub fn help() -> String {
    format!(
        "wfa: call your workflow's tools and answer its turns\n\n{USAGE}\nRun it through the \
         launcher named in your prompt (its path is also in $AWF_WFA).\n\n{}",
        refusal::codes_help()
    )
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Invocation {
    Help,
    Version,
    /// One request to the run; `subject` names it in messages: the tool, or the turn.
    Send {
        subject: String,
        request: Request,
    },
}

/// A command line wfa cannot read: exit 3, nothing sent.
#[derive(Debug, PartialEq)]
pub struct UsageError {
    /// The command the error is about, when there is one.
    subject: Option<String>,
    message: String,
}

impl UsageError {
    pub fn new(subject: &str, message: String) -> UsageError {
        UsageError {
            subject: Some(subject.to_owned()),
            message,
        }
    }

    pub fn render(&self) -> Output {
        let subject = match &self.subject {
            Some(subject) => format!("{subject}: "),
            None => String::new(),
        };
        Output::stderr(
            Exit::Usage,
            format!("wfa: {subject}{}\n\n{USAGE}", self.message),
        )
    }
}

pub fn utf8_words(words: Vec<OsString>) -> Result<Vec<String>, UsageError> {
    words
        .into_iter()
        .map(|word| {
            word.into_string().map_err(|word| UsageError {
                subject: None,
                message: format!("argument {word:?} is not UTF-8 text"),
            })
        })
        .collect()
}

pub fn parse(words: Vec<String>) -> Result<Invocation, UsageError> {
    let mut words = words.into_iter();
    let Some(command) = words.next() else {
        return Err(UsageError {
            subject: None,
            message: "no command given".to_owned(),
        });
    };
    match command.as_str() {
        "-h" | "--help" => Ok(Invocation::Help),
        "--version" => Ok(Invocation::Version),
        "tool" => match words.next() {
            None => Ok(Invocation::Send {
                subject: "tool".to_owned(),
                request: Request::Tools {},
            }),
            Some(name) if name == "-h" || name == "--help" => Ok(Invocation::Help),
            Some(name) if name.starts_with('-') => Err(UsageError::new(
                "tool",
                format!("expected a tool name before `{name}`"),
            )),
            Some(name) => {
                let args: Vec<String> = words.collect();
                // `wfa tool <name> --help` asks how to call the tool; a tool takes no `help` flag.
                let request = if matches!(args.as_slice(), [flag] if flag == "--help" || flag == "-h")
                {
                    Request::ToolHelp { name: name.clone() }
                } else {
                    Request::Tool {
                        name: name.clone(),
                        args,
                        stdin: None,
                    }
                };
                Ok(Invocation::Send {
                    subject: name,
                    request,
                })
            }
        },
        "result" => {
            let first = words.next();
            if first.as_deref().is_some_and(is_help) {
                return Ok(Invocation::Help);
            }
            let turn = turn_id("result", first)?;
            let args: Vec<String> = words.collect();
            // `wfa result <turn> --help` asks how to answer: it is no answer, and the run does not
            // judge or record it (as with a tool, only alone: `--help` among an answer's
            // flags may be a field's).
            let request = if matches!(args.as_slice(), [word] if is_help(word)) {
                Request::ResultHelp { turn: turn.clone() }
            } else {
                Request::Result {
                    turn: turn.clone(),
                    args,
                    stdin: None,
                }
            };
            Ok(Invocation::Send {
                subject: turn,
                request,
            })
        }
        "waiting" => parse_waiting(words),
        "send" => parse_send(words),
        _ => Err(UsageError::new(&command, "unknown command".to_owned())),
    }
}

fn is_help(word: &str) -> bool {
    word == "--help" || word == "-h"
}

fn turn_id(command: &str, word: Option<String>) -> Result<String, UsageError> {
    match word {
        None => Err(UsageError::new(command, "missing the turn id".to_owned())),
        Some(word) if word.starts_with('-') => Err(UsageError::new(
            command,
            format!("expected the turn id before `{word}`"),
        )),
        Some(turn) => Ok(turn),
    }
}

/// `waiting <turn> --reason <text> [--timeout <duration>]`, flags as `--x v` or `--x=v`. The
/// duration is checked by the run, which owns the duration syntax.
fn parse_waiting(mut words: impl Iterator<Item = String>) -> Result<Invocation, UsageError> {
    let turn = turn_id("waiting", words.next())?;
    let mut reason = None;
    let mut timeout = None;
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (word.as_str(), None),
        };
        let slot = match flag {
            "--reason" => &mut reason,
            "--timeout" => &mut timeout,
            _ => {
                let message = format!("unexpected `{word}`; expected --reason or --timeout");
                return Err(UsageError::new("waiting", message));
            }
        };
        if slot.is_some() {
            return Err(UsageError::new("waiting", format!("{flag} given twice")));
        }
        let value = match inline {
            Some(value) => value.to_owned(),
            None => words
                .next()
                .ok_or_else(|| UsageError::new("waiting", format!("{flag} needs a value")))?,
        };
        *slot = Some(value);
    }
    let Some(reason) = reason else {
        return Err(UsageError::new(
            "waiting",
            "--reason is required".to_owned(),
        ));
    };
    if reason.trim().is_empty() {
        return Err(UsageError::new("waiting", "--reason is empty".to_owned()));
    }
    if reason.len() > limits::MAX_WAITING_REASON_BYTES {
        let message = format!(
            "--reason is {} bytes, over the limit of {}",
            reason.len(),
            limits::MAX_WAITING_REASON_BYTES
        );
        return Err(UsageError::new("waiting", message));
    }
    Ok(Invocation::Send {
        subject: turn.clone(),
        request: Request::Waiting {
            turn,
            reason,
            timeout,
        },
    })
}

/// `send [<text>...] [--json]`: the words are the text (joined by spaces; `--` ends the flags,
/// so a text may start with `-`); `--json` takes data on standard input. Without words or
/// `--json`, the text comes on standard input.
fn parse_send(words: impl Iterator<Item = String>) -> Result<Invocation, UsageError> {
    let mut json = false;
    let mut text: Vec<String> = Vec::new();
    let mut flags = true;
    for word in words {
        match word.as_str() {
            "--" if flags => flags = false,
            "--json" if flags => json = true,
            "-h" | "--help" if flags => return Ok(Invocation::Help),
            flag if flags && flag.starts_with("--") => {
                let message = format!("unexpected `{flag}`; the only option is --json (put a text that starts with - after --)");
                return Err(UsageError::new("send", message));
            }
            _ => text.push(word),
        }
    }
    let text = (!text.is_empty()).then(|| text.join(" "));
    let data = json.then(String::new);
    Ok(Invocation::Send {
        subject: "send".to_owned(),
        request: Request::Send { text, data },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    fn usage_error(line: &str) -> String {
        let error = parse(words(line)).expect_err(line);
        let output = error.render();
        assert_eq!(output.exit, Exit::Usage);
        assert!(output.stderr.ends_with(USAGE));
        output.stderr.lines().next().unwrap().to_owned()
    }

    #[test]
    fn tool_name_help_asks_how_to_call_it() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse(words(&["tool", "add", "--help"])),
            Ok(Invocation::Send {
                subject: "add".into(),
                request: Request::ToolHelp { name: "add".into() },
            })
        );
        assert!(matches!(
            parse(words(&["tool", "add", "--help", "--x", "1"])),
            Ok(Invocation::Send {
                request: Request::Tool { .. },
                ..
            })
        ));
    }

    #[test]
    fn tool_alone_lists_the_tools() {
        assert_eq!(
            parse(words("tool")),
            Ok(Invocation::Send {
                subject: "tool".to_owned(),
                request: Request::Tools {}
            })
        );
    }

    #[test]
    fn a_tool_call_passes_its_words_as_typed() {
        let line = strings(&[
            "tool",
            "add_finding",
            "--file",
            "src/a.ts",
            "--line=41",
            "a b",
        ]);
        assert_eq!(
            parse(line),
            Ok(Invocation::Send {
                subject: "add_finding".to_owned(),
                request: Request::Tool {
                    name: "add_finding".to_owned(),
                    args: strings(&["--file", "src/a.ts", "--line=41", "a b"]),
                    stdin: None,
                }
            })
        );
    }

    #[test]
    fn a_result_takes_a_turn_and_its_words() {
        assert_eq!(
            parse(words("result t3 --verdict ok")),
            Ok(Invocation::Send {
                subject: "t3".to_owned(),
                request: Request::Result {
                    turn: "t3".to_owned(),
                    args: strings(&["--verdict", "ok"]),
                    stdin: None,
                }
            })
        );
    }

    #[test]
    fn result_turn_help_asks_how_to_answer_it_and_is_no_answer() {
        for help in ["--help", "-h"] {
            assert_eq!(
                parse(strings(&["result", "t3", help])),
                Ok(Invocation::Send {
                    subject: "t3".to_owned(),
                    request: Request::ResultHelp {
                        turn: "t3".to_owned()
                    },
                })
            );
            assert_eq!(parse(strings(&["result", help])), Ok(Invocation::Help));
        }
        assert!(matches!(
            parse(words("result t3 --help x")),
            Ok(Invocation::Send {
                request: Request::Result { .. },
                ..
            })
        ));
    }

    #[test]
    fn waiting_takes_a_reason_and_maybe_a_timeout() {
        let expected = |timeout: Option<&str>| {
            Ok(Invocation::Send {
                subject: "t3".to_owned(),
                request: Request::Waiting {
                    turn: "t3".to_owned(),
                    reason: "tests run".to_owned(),
                    timeout: timeout.map(String::from),
                },
            })
        };
        let line = strings(&["waiting", "t3", "--reason", "tests run"]);
        assert_eq!(parse(line), expected(None));
        let line = strings(&["waiting", "t3", "--timeout=2m", "--reason=tests run"]);
        assert_eq!(parse(line), expected(Some("2m")));
        let line = strings(&["waiting", "t3", "--reason", "tests run", "--timeout", "2m"]);
        assert_eq!(parse(line), expected(Some("2m")));
    }

    #[test]
    fn help_and_version_are_read_before_anything_else() {
        assert_eq!(parse(words("--help")), Ok(Invocation::Help));
        assert_eq!(parse(words("-h tool")), Ok(Invocation::Help));
        assert_eq!(parse(words("tool --help")), Ok(Invocation::Help));
        assert_eq!(parse(words("--version")), Ok(Invocation::Version));
    }

    #[test]
    fn usage_errors_name_the_command() {
        assert_eq!(usage_error(""), "wfa: no command given");
        assert_eq!(usage_error("peers"), "wfa: peers: unknown command");
        assert_eq!(
            usage_error("send --to b hi"),
            "wfa: send: unexpected `--to`; the only option is --json (put a text that starts with - after --)"
        );
        assert_eq!(
            usage_error("tool --file a"),
            "wfa: tool: expected a tool name before `--file`"
        );
        assert_eq!(usage_error("result"), "wfa: result: missing the turn id");
        assert_eq!(
            usage_error("result --verdict ok"),
            "wfa: result: expected the turn id before `--verdict`"
        );
        assert_eq!(usage_error("waiting"), "wfa: waiting: missing the turn id");
        assert_eq!(
            usage_error("waiting t3"),
            "wfa: waiting: --reason is required"
        );
        assert_eq!(
            usage_error("waiting t3 --timeout 2m"),
            "wfa: waiting: --reason is required"
        );
        assert_eq!(
            usage_error("waiting t3 --reason"),
            "wfa: waiting: --reason needs a value"
        );
        assert_eq!(
            usage_error("waiting t3 --reason="),
            "wfa: waiting: --reason is empty"
        );
        assert_eq!(
            usage_error("waiting t3 --reason a --reason b"),
            "wfa: waiting: --reason given twice"
        );
        assert_eq!(
            usage_error("waiting t3 --reason a soon"),
            "wfa: waiting: unexpected `soon`; expected --reason or --timeout"
        );
    }

    #[test]
    fn a_reason_over_the_limit_is_a_usage_error() {
        let fits = "r".repeat(limits::MAX_WAITING_REASON_BYTES);
        let line = vec![
            "waiting".to_owned(),
            "t3".to_owned(),
            "--reason".to_owned(),
            fits,
        ];
        assert!(parse(line.clone()).is_ok());
        let mut over = line;
        over[3].push('r');
        let error = parse(over).unwrap_err();
        assert_eq!(
            error.message,
            format!(
                "--reason is {} bytes, over the limit of {}",
                limits::MAX_WAITING_REASON_BYTES + 1,
                limits::MAX_WAITING_REASON_BYTES
            )
        );
    }

    #[test]
    fn send_takes_its_words_as_the_text_and_json_on_stdin() {
        let request = |line: &[&str]| match parse(strings(line)).unwrap() {
            Invocation::Send { request, .. } => request,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            request(&["send", "found", "3 problems"]),
            Request::Send {
                text: Some("found 3 problems".into()),
                data: None
            }
        );
        assert_eq!(
            request(&["send", "--json"]),
            Request::Send {
                text: None,
                data: Some(String::new())
            }
        );
        assert_eq!(
            request(&["send", "--", "--x"]),
            Request::Send {
                text: Some("--x".into()),
                data: None
            }
        );
        assert_eq!(parse(strings(&["send", "--help"])), Ok(Invocation::Help));
    }
}
