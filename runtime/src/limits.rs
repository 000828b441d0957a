//! Every number of the contract, in one place: tool limits, time budgets, wire sizes.
//!
//! The spec page (tools) and ARCHITECTURE.md fix these; code elsewhere names the constant
//! rather than repeating the number, and `wfa tool` prints them from here.

use std::time::Duration;

/// Most tools one agent may hold.
pub const MAX_TOOLS_PER_AGENT: usize = 16;
/// Longest tool name, in bytes.
pub const MAX_TOOL_NAME_LEN: usize = 64;
/// Largest tool result, measured as JSON text.
pub const MAX_TOOL_RESULT_BYTES: usize = 64 * 1024;
/// A tool call's budget when its tool sets none.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a handler that ignored `call.signal` still gets before its call ends without it.
pub const TOOL_ABORT_GRACE: Duration = Duration::from_secs(5);
/// After Ctrl-C or SIGTERM, how long the run's code still runs once every running tool call's
/// `call.signal` is aborted, so that abort listeners (and what they settle) run before the code
/// is stopped; a handler that has not answered by then is recorded as ignoring its signal.
pub const SIGNAL_ABORT_GRACE: Duration = Duration::from_millis(500);
/// How long a workflow's `present` or `report` may run once its attempt has ended; past it the
/// code is stopped and the run ends without that text.
pub const ENDING_HOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// A test's (or hook's) time limit under `awf test` when neither it nor `--timeout` sets one, as
/// in bun.
pub const DEFAULT_TEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The run's deadline when `awf run --timeout` is not given.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How long an answered agent process may take to wrap up before its group is killed.
pub const ANSWERED_RELEASE_GRACE: Duration = Duration::from_secs(30);
/// Between SIGTERM and SIGKILL when an agent's process group is stopped.
pub const KILL_GRACE: Duration = Duration::from_millis(1500);
/// Bytes of an agent process's stdout and of its stderr kept for the records.
pub const MAX_AGENT_OUTPUT_BYTES: usize = 1024 * 1024;
/// Longest line of an agent process's output a harness reads (an agent CLI's JSON event can
/// carry a command's whole output); the rest of a longer line is dropped.
pub const MAX_HARNESS_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Longest text (a shell command, an assistant message, an error) an activity event records.
pub const MAX_ACTIVITY_TEXT_BYTES: usize = 4 * 1024;

/// Deepest nesting of arrays and objects awf takes as JSON, from a workflow (results, tool
/// results, answers, log fields) and from an agent (inputs and answers on standard input);
/// deeper is refused rather than walked off the stack. It is serde_json's own parser limit, so
/// whatever awf writes (events.jsonl, output.json) it can read back.
pub const MAX_JSON_DEPTH: usize = 127;

/// Largest `events.jsonl` of one run; past it events are counted and dropped (records/mod.rs).
/// `$AWF_MAX_EVENTS_BYTES` sets another.
pub const MAX_EVENTS_BYTES: u64 = 256 * 1024 * 1024;

/// Largest answer (`wfa result`) or tool input, in bytes.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;
/// Largest request line on an agent's socket: a payload escaped inside a JSON string (each `"`,
/// `\` or newline doubles) plus its envelope.
pub const MAX_REQUEST_BYTES: usize = 2 * MAX_PAYLOAD_BYTES + 4 * 1024;
/// Largest response line `wfa` accepts.
pub const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;
/// Most connections one agent's socket serves at once; more are refused `busy` at once, so one
/// agent cannot hold the run's file descriptors.
pub const MAX_CONNECTIONS_PER_AGENT: usize = 32;
/// Most bytes of unfinished requests one agent's socket holds across its connections; past it
/// a connection is refused `busy`, so stalled half-requests cannot take the run's memory.
pub const MAX_BUFFERED_BYTES_PER_AGENT: usize = 3 * MAX_REQUEST_BYTES;
/// How long a connection may take to send its request line before the server drops it.
pub const REQUEST_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest message (`wfa send`, `agent.send`): its text's bytes plus its data as JSON.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// Longest `wfa waiting` reason, in bytes.
pub const MAX_WAITING_REASON_BYTES: usize = 2048;
