//! Every environment variable awf sets or reads, each documented once.

/// Set for an agent's process: the absolute path of its launcher (`wfa`).
pub const AWF_WFA: &str = "AWF_WFA";
/// Set for an agent's process: the id of the turn it works on (`t3`).
pub const AWF_TURN: &str = "AWF_TURN";
/// Set for an agent's process: the agent's key.
pub const AWF_AGENT: &str = "AWF_AGENT";
/// Set for an agent's process: the agent's turn number, from 1.
pub const AWF_TURN_NUMBER: &str = "AWF_TURN_NUMBER";
/// Set for an agent's process: an id stable across the agent's turns, for its own state.
pub const AWF_SESSION: &str = "AWF_SESSION";
/// Set for a forked `command` agent's process: the `AWF_SESSION` of the agent it was forked
/// from, whose state it may copy to start from.
pub const AWF_FORKED_FROM: &str = "AWF_FORKED_FROM";
/// Set for an agent's process: `1` when the turn is a check-in (the previous run of the turn
/// ended without an answer), else `0`.
pub const AWF_CHECK_IN: &str = "AWF_CHECK_IN";
/// Set for an agent's process: `1` in a message turn (`agent.send` woke the agent; it owes no
/// answer), else `0`.
pub const AWF_MESSAGE: &str = "AWF_MESSAGE";
/// Set for an agent's process in a message turn: the message's text (may be empty).
pub const AWF_MESSAGE_TEXT: &str = "AWF_MESSAGE_TEXT";
/// Set for an agent's process in a message turn whose message has data: the data as JSON.
pub const AWF_MESSAGE_DATA: &str = "AWF_MESSAGE_DATA";
/// Read by awf: the `wfa` binary agents' launchers start; default: `wfa` beside `awf`.
pub const AWF_WFA_BIN: &str = "AWF_WFA_BIN";
/// Read by awf: which diagnostics go to stderr, as tracing's filter directives (`debug`,
/// `awf_runtime::js=trace,info`); `--log-level` wins over it. Default: warnings only.
pub const AWF_LOG: &str = "AWF_LOG";
/// Read by awf: `subreaper` tracks agent processes by the keeper's subreaper alone, without a
/// cgroup even where awf could make one (harness/keeper.rs); anything else, or unset: a cgroup
/// where the machine allows.
pub const AWF_PROCESS_TRACKING: &str = "AWF_PROCESS_TRACKING";
/// Read by awf: the cap on one run's `events.jsonl`, in bytes; default
/// `limits::MAX_EVENTS_BYTES` (256 MiB).
pub const AWF_MAX_EVENTS_BYTES: &str = "AWF_MAX_EVENTS_BYTES";

/// Inherited variables an agent never sees: the ones an agent CLI sets in its own tool shell to
/// say "you run inside my session" (seen on each CLI's shell, reference/harnesses.md versions).
/// When awf itself runs inside an agent's session, passing them on would make the agents it
/// opens think they are that session's children (a codex thread id, claude's session and its
/// messaging socket, ...). Everything else passes, so `CODEX_HOME`, `ANTHROPIC_BASE_URL`,
/// `GEMINI_API_KEY` and the like reach the CLI. Every inherited `AWF_*` variable is withheld
/// too (`AWF_PREFIX`): those awf gives an agent are set for each turn.
pub const WITHHELD_FROM_AGENTS: &[&str] = &[
    // codex
    "CODEX_CI",
    "CODEX_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_TOOL_CALL_ID",
    "CODEX_MANAGED_BY_NPM",
    "CODEX_MANAGED_PACKAGE_ROOT",
    "CODEX_VERSION",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    // claude
    "AI_AGENT",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_CHILD_NOTES_DIR",
    "CLAUDE_CODE_EXECPATH",
    "CLAUDE_CODE_MESSAGING_SOCKET",
    "CLAUDE_CODE_MESSAGING_TOKEN",
    "CLAUDE_CODE_SESSION_ATTENDED",
    "CLAUDE_CODE_SSE_PORT",
    "CLAUDE_EFFORT",
    "CLAUDE_PID",
    // gemini
    "GEMINI_CLI",
    "GEMINI_CLI_NO_RELAUNCH",
    // pi
    "PI_CODING_AGENT",
    "PI_SESSION_ID",
    // opencode
    "AGENT",
    "OPENCODE",
    "OPENCODE_PID",
];
/// Inherited variables with this prefix are withheld from agents (see `WITHHELD_FROM_AGENTS`).
pub const AWF_PREFIX: &str = "AWF_";
