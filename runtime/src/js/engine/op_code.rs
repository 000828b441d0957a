//! `OpCode`: every code an op's `AwfError` carries (`OpError::new`), in one table. A program
//! tests an error's `code`, so a code is spelled here and nowhere else in Rust; the TS side's
//! own codes are js/errors.ts.
//!
//! Two kinds: awf's own codes (kebab-case), for the workflow API and the test API; and Node's
//! codes, for the host APIs that mirror Node (`fetch`, `child_process`, `process`). Operating
//! system errors (`OpError::system`) carry the errno's own name (host/system_error.rs) and are
//! not listed. Where the user reference lists a code, its line below names the page; the unit
//! test holds those pages and this table to each other.

/// A code of an `AwfError` an op throws, as JS sees it (`as_str`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpCode {
    /// The agent is closed or closing (workflow-api.md, fork and compaction refusals).
    AgentClosed,
    /// A tool handler gave work to the agent waiting for it (workflow-api.md).
    AgentInToolCall,
    /// `wf.ask` waited its `timeout` out with no answer (workflow-api.md).
    AskTimeout,
    /// The harness could not fork the session (workflow-api.md).
    ForkFailed,
    /// `agent.fork({ key })` names an agent already open (workflow-api.md).
    ForkKeyOpen,
    /// A bad `agent.compact` call (workflow-api.md).
    InvalidCompaction,
    /// A bad `agent.fork` call (workflow-api.md).
    InvalidFork,
    /// A test's scripted answer to `wf.ask` that the question does not take (testing.md).
    InvalidAnswer,
    /// A bad `wf.ask` call (workflow-api.md).
    InvalidAsk,
    /// `agent.send` with something that is not a message (workflow-api.md).
    InvalidMessage,
    /// A bad `wf.receive` call (workflow-api.md).
    InvalidReceive,
    /// A test's request that is not a wire request (`agentswf/testing`).
    InvalidRequest,
    /// `agent.run({ schema })` that does not compile.
    InvalidSchema,
    /// A bad `agent.set` call (workflow-api.md).
    InvalidSettings,
    /// A stage name or options awf refuses.
    InvalidStage,
    /// A bad `agent.run` call (its timeout, its options).
    InvalidTurn,
    /// `wf.receive` from an agent opened without `messages: true` (workflow-api.md).
    MessagesOff,
    /// `fork` or `compact` before the agent's first turn (workflow-api.md).
    NoSessionYet,
    /// The runtime cannot do what was asked (workflow-api.md).
    NotSupported,
    /// The run the handle names has ended.
    RunEnded,
    /// A snapshot file `awf test` cannot read or write.
    SnapshotFile,
    /// No agent of that key in the run.
    UnknownAgent,
    /// An options object holds a key awf does not read (workflow-api.md, Options).
    UnknownOption,
    /// A test's request that did not reach the agent's channel.
    Unreachable,
    /// awf itself went wrong (`OpError::internal`).
    Internal,
    /// Node's: the fetch was aborted.
    AbortErr,
    /// Node's: an argument's value is refused (a fetch's method, a request that cannot be built).
    ErrInvalidArgValue,
    /// Node's: a header value with a character HTTP refuses.
    ErrInvalidChar,
    /// Node's: a header name or method that is not an HTTP token.
    ErrInvalidHttpToken,
    /// Node's: a URL that does not parse.
    ErrInvalidUrl,
    /// Node's: an option awf does not support (host-apis.md).
    ErrNotSupported,
    /// A redirect a fetch refuses: one under `redirect: "error"`, or one too many.
    ErrRedirect,
    /// A fetch's TLS failure.
    ErrTls,
    /// Node's: a signal name Node does not know.
    ErrUnknownSignal,
    /// undici's: a fetch's connection failed otherwise.
    UndErrSocket,
    /// Node's for `process.chdir` to a folder that is not there (host-apis.md).
    Enoent,
}

impl OpCode {
    /// Every code, for the tests that hold the table to the docs.
    #[cfg(test)]
    pub const ALL: [OpCode; 36] = [
        OpCode::AgentClosed,
        OpCode::AgentInToolCall,
        OpCode::AskTimeout,
        OpCode::ForkFailed,
        OpCode::ForkKeyOpen,
        OpCode::InvalidCompaction,
        OpCode::InvalidFork,
        OpCode::InvalidAnswer,
        OpCode::InvalidAsk,
        OpCode::InvalidMessage,
        OpCode::InvalidReceive,
        OpCode::InvalidRequest,
        OpCode::InvalidSchema,
        OpCode::InvalidSettings,
        OpCode::InvalidStage,
        OpCode::InvalidTurn,
        OpCode::MessagesOff,
        OpCode::NoSessionYet,
        OpCode::NotSupported,
        OpCode::RunEnded,
        OpCode::SnapshotFile,
        OpCode::UnknownAgent,
        OpCode::UnknownOption,
        OpCode::Unreachable,
        OpCode::Internal,
        OpCode::AbortErr,
        OpCode::ErrInvalidArgValue,
        OpCode::ErrInvalidChar,
        OpCode::ErrInvalidHttpToken,
        OpCode::ErrInvalidUrl,
        OpCode::ErrNotSupported,
        OpCode::ErrRedirect,
        OpCode::ErrTls,
        OpCode::ErrUnknownSignal,
        OpCode::UndErrSocket,
        OpCode::Enoent,
    ];

    /// The code as JS sees it (the error's `code`).
    pub fn as_str(self) -> &'static str {
        match self {
            OpCode::AgentClosed => "agent-closed",
            OpCode::AgentInToolCall => "agent-in-tool-call",
            OpCode::AskTimeout => "ask-timeout",
            OpCode::ForkFailed => "fork-failed",
            OpCode::ForkKeyOpen => "fork-key-open",
            OpCode::InvalidCompaction => "invalid-compaction",
            OpCode::InvalidFork => "invalid-fork",
            OpCode::InvalidAnswer => "invalid-answer",
            OpCode::InvalidAsk => "invalid-ask",
            OpCode::InvalidMessage => "invalid-message",
            OpCode::InvalidReceive => "invalid-receive",
            OpCode::InvalidRequest => "invalid-request",
            OpCode::InvalidSchema => "invalid-schema",
            OpCode::InvalidSettings => "invalid-settings",
            OpCode::InvalidStage => "invalid-stage",
            OpCode::InvalidTurn => "invalid-turn",
            OpCode::MessagesOff => "messages-off",
            OpCode::NoSessionYet => "no-session-yet",
            OpCode::NotSupported => "not-supported",
            OpCode::RunEnded => "run-ended",
            OpCode::SnapshotFile => "snapshot-file",
            OpCode::UnknownAgent => "unknown-agent",
            OpCode::UnknownOption => "unknown-option",
            OpCode::Unreachable => "unreachable",
            OpCode::Internal => "internal",
            OpCode::AbortErr => "ABORT_ERR",
            OpCode::ErrInvalidArgValue => "ERR_INVALID_ARG_VALUE",
            OpCode::ErrInvalidChar => "ERR_INVALID_CHAR",
            OpCode::ErrInvalidHttpToken => "ERR_INVALID_HTTP_TOKEN",
            OpCode::ErrInvalidUrl => "ERR_INVALID_URL",
            OpCode::ErrNotSupported => "ERR_NOT_SUPPORTED",
            OpCode::ErrRedirect => "ERR_REDIRECT",
            OpCode::ErrTls => "ERR_TLS",
            OpCode::ErrUnknownSignal => "ERR_UNKNOWN_SIGNAL",
            OpCode::UndErrSocket => "UND_ERR_SOCKET",
            OpCode::Enoent => "ENOENT",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The user reference pages that list codes, and the codes each lists as an op's error.
    const DOCUMENTED: &[(&str, &[OpCode])] = &[
        (
            "workflow-api.md",
            &[
                OpCode::AgentClosed,
                OpCode::AgentInToolCall,
                OpCode::AskTimeout,
                OpCode::ForkFailed,
                OpCode::ForkKeyOpen,
                OpCode::InvalidCompaction,
                OpCode::InvalidFork,
                OpCode::InvalidAsk,
                OpCode::InvalidMessage,
                OpCode::InvalidReceive,
                OpCode::InvalidSettings,
                OpCode::MessagesOff,
                OpCode::NoSessionYet,
                OpCode::NotSupported,
                OpCode::UnknownOption,
            ],
        ),
        ("host-apis.md", &[OpCode::ErrNotSupported, OpCode::Enoent]),
        ("testing.md", &[OpCode::InvalidAnswer]),
    ];

    #[test]
    fn codes_are_spelled_once_each() {
        let mut spelled: Vec<&str> = OpCode::ALL.iter().map(|c| c.as_str()).collect();
        spelled.sort_unstable();
        spelled.dedup();
        assert_eq!(spelled.len(), OpCode::ALL.len());
    }

    #[test]
    fn the_docs_name_the_codes_this_table_says_they_list() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
        for (page, codes) in DOCUMENTED {
            let text = std::fs::read_to_string(docs.join(page)).unwrap();
            for code in *codes {
                let code = code.as_str();
                assert!(
                    text.contains(&format!("`{code}`")),
                    "docs/{page} does not name `{code}`"
                );
            }
        }
    }

    /// The TS side's table is js/errors.ts: no built-in spells an `AwfError`'s code itself.
    #[test]
    fn the_built_ins_take_their_awf_error_codes_from_js_errors_ts() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "ts") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (at, _) in text.match_indices("new AwfError(") {
                        let rest = text[at + "new AwfError(".len()..].trim_start();
                        if rest.starts_with('"') || rest.starts_with('`') {
                            found.push(path.display().to_string());
                        }
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../js"),
            &mut found,
        );
        assert!(
            found.is_empty(),
            "spelled where js/errors.ts's CODES should be named: {found:?}"
        );
    }
}
