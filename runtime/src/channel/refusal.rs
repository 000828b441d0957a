//! Every code a refused or failed agent request carries, in one table: its wire string, the exit
//! code `wfa` leaves with and what it means; and `wfa`'s exit codes.
//!
//! The server and the engine pick a code; `wire/` carries it; `wfa` exits by it; `wfa --help`
//! and the server's `wfa tool` listing print both tables through [`codes_help`], so the numbers
//! an agent reads are the ones it gets. `wfa` compiles this file by `#[path]`, so it uses std only.

use std::fmt;

/// How `wfa` ends. The numbers are contract: agents and prompts rely on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Done = 0,
    Failed = 1,
    Refused = 2,
    Usage = 3,
    Unreachable = 4,
}

impl Exit {
    /// Every exit code, in order.
    pub const ALL: [Exit; 5] = [
        Exit::Done,
        Exit::Failed,
        Exit::Refused,
        Exit::Usage,
        Exit::Unreachable,
    ];

    /// The process exit status.
    pub fn status(self) -> u8 {
        self as u8
    }

    /// What the exit code tells the agent, in one line.
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Done => "done; the result, if any, is on standard output",
            Exit::Failed => "the call ran and failed; standard error has the code and the message",
            Exit::Refused => "refused before anything ran; standard error has the code and why",
            Exit::Usage => "wfa's own usage error: the command line is wrong; nothing was sent",
            Exit::Unreachable => {
                "the workflow run cannot be reached: it has ended, or the launcher is stale"
            }
        }
    }
}

/// Why a request was refused (exit 2: nothing ran) or why a call failed (exit 1: it ran).
///
/// The order of the variants is the order of [`TABLE`]'s rows; a test holds them together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The handler threw or its promise rejected; the message is the error's message.
    HandlerFailed,
    /// The call's time ran out (its own budget or its turn's end); `call.signal` aborted it and
    /// the handler settled within the grace, so nothing of it runs any more.
    TimedOut,
    /// The call's time ran out and the handler ignored `call.signal` through the grace too: the
    /// call ended without it, and its work may have happened or may still finish.
    MayHaveRun,
    /// The run was cancelled (Ctrl-C, SIGTERM) while the call ran; `call.signal` aborted it.
    Cancelled,
    /// The handler's result is over the tool result limit, measured as JSON.
    ResultTooLarge,
    /// The handler returned something JSON cannot hold (a Date, a class instance, a cycle).
    ResultNotJson,
    /// The tool's input does not fit its schema, or its flags could not be read as that input.
    InvalidInput,
    /// The agent holds no tool by that name.
    UnknownTool,
    /// Another call of this agent is running; also `result` and `waiting` while one runs.
    Busy,
    /// awf could not check or serve the request for want of a system resource (a descriptor to
    /// read `/proc` with, memory); nothing ran, and the same request may succeed in a moment.
    ResourceError,
    /// The agent has no open turn (none yet, or its answer was accepted): tools need one.
    NotInTurn,
    /// The answer does not fit the turn's schema; the turn stays open for another answer.
    InvalidResult,
    /// The agent has no turn with that id.
    UnknownTurn,
    /// The turn is over (answered, timed out or cancelled).
    ClosedTurn,
    /// The request, or the input or answer in it, is over its size limit.
    RequestTooLarge,
    /// The request line is not a request of this protocol version.
    InvalidRequest,
    /// The request names a protocol version the run does not speak.
    UnsupportedVersion,
    /// The connecting process is not one of the agent's own (another agent's, another user's,
    /// or one outside any agent): the socket it used is not its to use.
    Forbidden,
    /// `wfa send` by an agent the workflow opened without `messages: true`.
    MessagesOff,
    /// `wfa result` or `wfa waiting` in a message turn, which owes no answer.
    MessageTurn,
}

/// One code's row: wire string, exit code, meaning for the agent.
struct Row {
    code: Code,
    wire: &'static str,
    exit: Exit,
    meaning: &'static str,
}

/// The one table of codes. Meanings are written for the agent that reads them in `wfa --help`.
const TABLE: [Row; 20] = [
    Row {
        code: Code::HandlerFailed,
        wire: "handler-failed",
        exit: Exit::Failed,
        meaning: "the tool's handler threw; the message is its error",
    },
    Row {
        code: Code::TimedOut,
        wire: "timed-out",
        exit: Exit::Failed,
        meaning: "the call's time ran out and it was stopped",
    },
    Row {
        code: Code::MayHaveRun,
        wire: "may-have-run",
        exit: Exit::Failed,
        meaning: "the call's time ran out and it would not stop: it may have run, or may still",
    },
    Row {
        code: Code::Cancelled,
        wire: "cancelled",
        exit: Exit::Failed,
        meaning: "the run was cancelled while the call ran, and the call was stopped",
    },
    Row {
        code: Code::ResultTooLarge,
        wire: "result-too-large",
        exit: Exit::Failed,
        meaning: "the tool's result is over the size limit",
    },
    Row {
        code: Code::ResultNotJson,
        wire: "result-not-json",
        exit: Exit::Failed,
        meaning: "the tool returned a value that is not JSON",
    },
    Row {
        code: Code::InvalidInput,
        wire: "invalid-input",
        exit: Exit::Refused,
        meaning: "the input does not fit the tool's schema; fix it and call again",
    },
    Row {
        code: Code::UnknownTool,
        wire: "unknown-tool",
        exit: Exit::Refused,
        meaning: "you have no tool by that name; `wfa tool` lists yours",
    },
    Row {
        code: Code::Busy,
        wire: "busy",
        exit: Exit::Refused,
        meaning: "another call of yours is running; try again once it has answered",
    },
    Row {
        code: Code::ResourceError,
        wire: "resource-error",
        exit: Exit::Refused,
        meaning: "awf ran short of open files or memory and nothing ran; try again in a moment",
    },
    Row {
        code: Code::NotInTurn,
        wire: "not-in-turn",
        exit: Exit::Refused,
        meaning: "tools can be called only while you work on a turn",
    },
    Row {
        code: Code::InvalidResult,
        wire: "invalid-result",
        exit: Exit::Refused,
        meaning: "the answer does not fit the turn's schema; fix it and answer again",
    },
    Row {
        code: Code::UnknownTurn,
        wire: "unknown-turn",
        exit: Exit::Refused,
        meaning: "you have no turn with that id; use the id in your prompt",
    },
    Row {
        code: Code::ClosedTurn,
        wire: "closed-turn",
        exit: Exit::Refused,
        meaning: "the turn is over: answered, timed out or cancelled",
    },
    Row {
        code: Code::RequestTooLarge,
        wire: "request-too-large",
        exit: Exit::Refused,
        meaning: "the input or answer is over the size limit",
    },
    Row {
        code: Code::InvalidRequest,
        wire: "invalid-request",
        exit: Exit::Refused,
        meaning: "the run could not read the request",
    },
    Row {
        code: Code::UnsupportedVersion,
        wire: "unsupported-version",
        exit: Exit::Refused,
        meaning: "this wfa and the run speak different protocol versions",
    },
    Row {
        code: Code::Forbidden,
        wire: "forbidden",
        exit: Exit::Refused,
        meaning: "this launcher is not yours: only the agent it was made for may use it",
    },
    Row {
        code: Code::MessagesOff,
        wire: "messages-off",
        exit: Exit::Refused,
        meaning: "you may not send messages: the workflow opened you without messages: true",
    },
    Row {
        code: Code::MessageTurn,
        wire: "message-turn",
        exit: Exit::Refused,
        meaning: "a message turn owes no answer: do what the message asks, then end",
    },
];

impl Code {
    /// The code as it is written on the wire, on stderr and in the records.
    pub fn as_str(self) -> &'static str {
        self.row().wire
    }

    /// The code with this wire string, if there is one.
    pub fn from_wire(wire: &str) -> Option<Code> {
        TABLE
            .iter()
            .find(|row| row.wire == wire)
            .map(|row| row.code)
    }

    /// The exit code `wfa` leaves with for this code: [`Exit::Failed`] or [`Exit::Refused`].
    pub fn exit(self) -> Exit {
        self.row().exit
    }

    /// Whether the request was refused before anything ran (rather than run and failed).
    pub fn is_refusal(self) -> bool {
        self.exit() == Exit::Refused
    }

    /// What the code tells the agent, in one line.
    pub fn meaning(self) -> &'static str {
        self.row().meaning
    }

    fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The exit-code table and the code table, as `wfa --help` and `wfa tool` print them.
pub fn codes_help() -> String {
    let width = TABLE.iter().map(|row| row.wire.len()).max().unwrap_or(0);
    let mut text = String::from("exit codes:\n");
    for exit in Exit::ALL {
        text.push_str(&format!("  {}  {}\n", exit.status(), exit.meaning()));
    }
    text.push_str("\ncodes, shown on standard error as `refused (<code>)` or `failed (<code>)`:\n");
    for row in &TABLE {
        text.push_str(&format!(
            "  {:width$}  exit {}  {}\n",
            row.wire,
            row.exit.status(),
            row.meaning
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_variant_order() {
        for (index, row) in TABLE.iter().enumerate() {
            assert_eq!(row.code as usize, index, "row {} is out of place", row.wire);
        }
    }

    #[test]
    fn every_code_round_trips_through_its_wire_string() {
        for row in &TABLE {
            assert_eq!(Code::from_wire(row.code.as_str()), Some(row.code));
            assert_eq!(row.code.to_string(), row.wire);
        }
        assert_eq!(Code::from_wire("internal-error"), None);
        assert_eq!(Code::from_wire("Busy"), None);
    }

    #[test]
    fn wire_strings_are_unique_kebab_case() {
        for (index, row) in TABLE.iter().enumerate() {
            assert!(
                row.wire
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                row.wire
            );
            assert!(TABLE[index + 1..]
                .iter()
                .all(|other| other.wire != row.wire));
        }
    }

    #[test]
    fn exit_codes_are_as_the_contract_lists() {
        let failed = [
            "handler-failed",
            "timed-out",
            "may-have-run",
            "cancelled",
            "result-too-large",
            "result-not-json",
        ];
        let refused = [
            "invalid-input",
            "unknown-tool",
            "busy",
            "resource-error",
            "not-in-turn",
            "invalid-result",
            "unknown-turn",
            "closed-turn",
            "request-too-large",
            "invalid-request",
            "unsupported-version",
            "forbidden",
            "messages-off",
            "message-turn",
        ];
        assert_eq!(failed.len() + refused.len(), TABLE.len());
        for wire in failed {
            let code = Code::from_wire(wire).unwrap();
            assert_eq!(code.exit().status(), 1, "{wire}");
            assert!(!code.is_refusal());
        }
        for wire in refused {
            let code = Code::from_wire(wire).unwrap();
            assert_eq!(code.exit().status(), 2, "{wire}");
            assert!(code.is_refusal());
        }
        let statuses: Vec<u8> = Exit::ALL.iter().map(|exit| exit.status()).collect();
        assert_eq!(statuses, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn meanings_read_as_error_text() {
        let meanings = TABLE
            .iter()
            .map(|row| row.meaning)
            .chain(Exit::ALL.iter().map(|exit| exit.meaning()));
        for meaning in meanings {
            assert!(!meaning.ends_with('.'), "{meaning}");
            assert!(!meaning.contains('\n'), "{meaning}");
            assert!(
                meaning.starts_with(|c: char| !c.is_ascii_uppercase()),
                "{meaning}"
            );
        }
    }

    #[test]
    fn help_lists_every_exit_and_code() {
        let help = codes_help();
        for exit in Exit::ALL {
            assert!(help.contains(&format!("  {}  {}\n", exit.status(), exit.meaning())));
        }
        for row in &TABLE {
            assert!(help.contains(row.wire), "{}", row.wire);
        }
        assert!(help.contains("  busy                 exit 2  another call of yours"));
    }
}
