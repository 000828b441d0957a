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
/// Set for an agent's process: `1` when the turn is a check-in (the previous run of the turn
/// ended without an answer), else `0`.
pub const AWF_CHECK_IN: &str = "AWF_CHECK_IN";
/// Read by awf: the `wfa` binary agents' launchers start; default: `wfa` beside `awf`.
pub const AWF_WFA_BIN: &str = "AWF_WFA_BIN";
/// Read by awf: which diagnostics go to stderr, as tracing's filter directives (`debug`,
/// `awf_runtime::js=trace,info`); `--log-level` wins over it. Default: warnings only.
pub const AWF_LOG: &str = "AWF_LOG";
