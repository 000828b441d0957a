//! The kinds of line in `events.jsonl`, one variant each.
//!
//! Every line is a JSON object with `at` (RFC 3339, UTC) and `event` (the kind, kebab-case),
//! then the variant's fields in camelCase. `awf logs` reads these lines back.

use std::time::SystemTime;

use serde::Serialize;

use super::time::rfc3339;
use crate::usage::{Tokens, Usage};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    #[serde(rename_all = "camelCase")]
    RunStarted {
        run_id: String,
        workflow: String,
        file: String,
        cwd: String,
        argv: Vec<String>,
    },
    Log {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        fields: Option<serde_json::Value>,
    },
    #[serde(rename_all = "camelCase")]
    AgentOpened {
        agent: String,
        runtime: serde_json::Value,
        cwd: String,
        launcher: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tools: Vec<String>,
        /// What tracks the agent's processes: `cgroup` or `subreaper` (harness/keeper.rs).
        tracking: String,
        /// Where it runs, when sandboxed: key, provider, cwd, read, write and network grants.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox: Option<serde_json::Value>,
        /// Its own CLI home (harness/home.rs), when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        home: Option<String>,
        /// The author's `labels` (a JSON object), when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        labels: Option<serde_json::Value>,
        /// The skills it was given (skills/), when any: `[{ name, source, digest }]`, in order.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        skills: Option<serde_json::Value>,
        /// Its settings as agentswf's `execution` shows them (`Agent::execution`); boxed, so
        /// that this variant does not make every event larger.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        execution: Option<Box<serde_json::Value>>,
        /// The author's standing instructions, which come with its first turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instructions: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    TurnStarted {
        agent: String,
        turn: String,
        n: u32,
        /// The prompt as the agent received it.
        prompt: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        schema: Option<serde_json::Value>,
        deadline: String,
        /// A message turn (`agent.send`): the message, `{ text, data? }`.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<serde_json::Value>,
        /// The author's name for the turn (`agent.run({ label })`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    AnswerSubmitted {
        agent: String,
        turn: String,
        accepted: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<serde_json::Value>,
        /// A refused answer's code: `invalid-result`, `closed-turn` (a second answer, or one
        /// after the turn ended), `busy` (while a tool call runs).
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        problems: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    Waiting {
        agent: String,
        turn: String,
        reason: String,
    },
    #[serde(rename_all = "camelCase")]
    CheckIn {
        agent: String,
        turn: String,
        /// Why the agent is checked in on: how its run of the turn ended.
        after: String,
    },
    #[serde(rename_all = "camelCase")]
    TurnSettled {
        agent: String,
        turn: String,
        outcome: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
        duration_ms: u64,
        /// Files in the run folder with each agent process's output.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        output: Vec<String>,
        /// What the turn used, where the runtime reports it.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// The native session an agent's runtime reported (the next turn resumes it).
    #[serde(rename_all = "camelCase")]
    AgentSession {
        agent: String,
        turn: String,
        harness: String,
        session: String,
    },
    /// A turn's process (or a fork's or compaction's, `turn` then its id) was started in a
    /// container (sandbox/container/): its name, which the
    /// engine takes wherever it takes an id (`podman logs NAME`); the engine and image are the
    /// agent's `sandbox.container` in `agent-opened`.
    #[serde(rename_all = "camelCase")]
    AgentContainer {
        agent: String,
        turn: String,
        container: String,
    },
    /// The agent started a shell command (as its runtime reported it).
    #[serde(rename_all = "camelCase")]
    ShellStarted {
        agent: String,
        turn: String,
        command: String,
    },
    #[serde(rename_all = "camelCase")]
    ShellFinished {
        agent: String,
        turn: String,
        command: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    /// The agent used another tool of its runtime (read or edited a file, searched, ...).
    #[serde(rename_all = "camelCase")]
    AgentToolUsed {
        agent: String,
        turn: String,
        tool: String,
        detail: String,
    },
    /// Text the agent wrote.
    #[serde(rename_all = "camelCase")]
    AgentMessage {
        agent: String,
        turn: String,
        text: String,
    },
    /// Tokens or money the runtime reported, on its own basis (`request`: one model request;
    /// `run`: the CLI run so far; `session`: the native session's running total).
    #[serde(rename_all = "camelCase")]
    UsageReported {
        agent: String,
        turn: String,
        basis: String,
        #[serde(flatten)]
        tokens: Option<Tokens>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// An error the agent's runtime reported; `blocked` when it needs a person (a login).
    #[serde(rename_all = "camelCase")]
    HarnessError {
        agent: String,
        turn: String,
        message: String,
        blocked: bool,
    },
    #[serde(rename_all = "camelCase")]
    ToolCalled {
        agent: String,
        turn: String,
        tool: String,
        call: String,
        input: serde_json::Value,
    },
    /// The same call again while it ran: the agent got the running call's answer.
    #[serde(rename_all = "camelCase")]
    ToolJoined {
        agent: String,
        tool: String,
        call: String,
    },
    /// A call refused before its handler ran; made while a turn was open, it carries that turn
    /// and a call id of its own.
    #[serde(rename_all = "camelCase")]
    ToolRefused {
        agent: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        turn: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        call: Option<String>,
        tool: String,
        code: String,
        message: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        details: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolSettled {
        agent: String,
        tool: String,
        call: String,
        /// `result`, or the failure code (`handler-failed`, `timed-out`, ...).
        outcome: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<serde_json::Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Where the handler threw, `file:line:col`.
        #[serde(skip_serializing_if = "Option::is_none")]
        thrown_at: Option<String>,
        duration_ms: u64,
    },
    /// An agent sent the workflow a message (`wfa send`); `seq` is its place in the run's order.
    #[serde(rename_all = "camelCase")]
    MessageSent {
        agent: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        turn: Option<String>,
        seq: u64,
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<serde_json::Value>,
    },
    /// A `wfa send` refused (`messages-off`, data that is not JSON, too large).
    #[serde(rename_all = "camelCase")]
    MessageRefused {
        agent: String,
        code: String,
        message: String,
    },
    /// The workflow received message `seq` from `agent` (`wf.receive`).
    #[serde(rename_all = "camelCase")]
    MessageReceived { agent: String, seq: u64 },
    /// The run ended with messages agents sent that the workflow never received.
    #[serde(rename_all = "camelCase")]
    MessagesUnreceived {
        count: usize,
        /// `{ agent, seq, text }` of each, in the order they were sent.
        messages: Vec<serde_json::Value>,
    },
    #[serde(rename_all = "camelCase")]
    AgentClosed { agent: String },
    /// `wf.agents.stop(key, reason?)`: its turns are cancelled, then it closes (`agent-closed`).
    #[serde(rename_all = "camelCase")]
    AgentStopped {
        agent: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// The agent's `workspace` as asked, and the worktree made for it (`path`, `branch`, `repo`,
    /// `base`, `keep`; none in `awf test`, whose scripted agents work nowhere).
    #[serde(rename_all = "camelCase")]
    AgentWorkspace {
        agent: String,
        workspace: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worktree: Option<serde_json::Value>,
    },
    /// An agent's worktree ended: its branch's commit, whether it held uncommitted changes, and
    /// whether it was kept (by its `keep` rule) or removed.
    #[serde(rename_all = "camelCase")]
    WorktreeEnded {
        agent: String,
        path: String,
        branch: String,
        head: Option<String>,
        dirty: bool,
        kept: bool,
    },
    /// A connection refused: to an agent's socket from a process that is not the agent's or
    /// with a wrong secret; over TCP (`address`, the sender's), one without the agent's secret,
    /// or one that reached no agent (no `agent`: a failed TLS handshake, an unknown launcher).
    #[serde(rename_all = "camelCase")]
    ChannelRefused {
        #[serde(skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pid: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        uid: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        address: Option<String>,
        why: String,
    },
    /// A connection to an agent's socket whose sender awf could not check (`/proc` unreadable
    /// for want of descriptors or memory): refused `resource-error`, not `forbidden`.
    #[serde(rename_all = "camelCase")]
    ChannelCheckFailed {
        agent: String,
        pid: i32,
        uid: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        errno: Option<i32>,
        error: String,
    },
    /// An agent opened in a continued run picks up the native session an earlier attempt left.
    #[serde(rename_all = "camelCase")]
    AgentResumed {
        agent: String,
        harness: String,
        session: String,
        from_attempt: u32,
    },
    /// `agent.fork`: `agent` is the new agent, on a copy of `from`'s native session.
    #[serde(rename_all = "camelCase")]
    AgentForked {
        agent: String,
        from: String,
        fork: String,
        harness: String,
        /// The parent's native session, and the fork's (a command agent has none).
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        fork_session: Option<String>,
        /// `AWF_SESSION` of the parent and of the fork.
        from_session_name: String,
        session_name: String,
        duration_ms: u64,
    },
    /// `agent.compact`: the harness's own compaction, with the author's focus.
    #[serde(rename_all = "camelCase")]
    AgentCompacted {
        agent: String,
        compaction: String,
        focus: String,
        outcome: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        /// What the session held before, where the harness says.
        #[serde(skip_serializing_if = "Option::is_none")]
        tokens_before: Option<u64>,
        /// What the compaction's model request used, where the harness says.
        #[serde(skip_serializing_if = "Option::is_none")]
        tokens: Option<Tokens>,
        duration_ms: u64,
    },
    /// `agent.set`: later turns run with these settings; `runtime` is what the agent runs now.
    #[serde(rename_all = "camelCase")]
    SettingsChanged {
        agent: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        effort: Option<String>,
        runtime: serde_json::Value,
    },
    /// A stage's work begins (`wf.stage`); `because` says why a recorded stage runs again.
    #[serde(rename_all = "camelCase")]
    StageStarted {
        stage: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        because: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    StageEnded {
        stage: String,
        outcome: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The line `wf.stage(name, { summary })` made of its value.
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        duration_ms: u64,
    },
    /// A stage an earlier attempt finished, reused without running its work.
    #[serde(rename_all = "camelCase")]
    StageReused {
        stage: String,
        from_attempt: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
    /// Files of the workflow that changed since the attempt before.
    #[serde(rename_all = "camelCase")]
    SourcesChanged {
        since_attempt: u32,
        changed: Vec<String>,
    },
    /// `wf.ask`: a question for a person; the run waits for its answer (`awf answer`). `from`
    /// is the workflow's line that asked, `pid` the awf that waits.
    #[serde(rename_all = "camelCase")]
    Asked {
        key: String,
        question: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        choices: Option<Vec<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        schema: Option<serde_json::Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        context: Option<serde_json::Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        pid: u32,
    },
    /// The answer a question took, and how it came: `awf answer`, or `scripted` in a test.
    #[serde(rename_all = "camelCase")]
    Answered {
        key: String,
        value: serde_json::Value,
        how: String,
        /// When the answer was given (it may have waited for a continue), RFC 3339.
        #[serde(skip_serializing_if = "Option::is_none")]
        given_at: Option<String>,
    },
    /// A question's `timeout` passed with no answer (`wf.ask` rejects, `ask-timeout`).
    #[serde(rename_all = "camelCase")]
    AskTimedOut { key: String, timeout_ms: u64 },
    /// A budget was passed (budget/): `agent`'s own, or the run's when none; `hard` stopped
    /// the agent (or every agent), a soft one only warns. `detail` says which and the spend.
    #[serde(rename_all = "camelCase")]
    BudgetPassed {
        #[serde(skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        budget: crate::budget::Budget,
        hard: bool,
        spent: Usage,
        detail: String,
    },
    /// The events file reached its cap: later events are dropped, the run goes on.
    #[serde(rename_all = "camelCase")]
    EventsCapped { limit_bytes: u64 },
    #[serde(rename_all = "camelCase")]
    RunEnded {
        outcome: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// The full line for an event at a time, newline included.
pub fn line(at: SystemTime, event: &Event) -> String {
    line_of(&stamped(at, event, 0, None))
}

/// An event's line in events.jsonl, newline included, from its stamped object (`stamped`).
pub fn line_of(stamped: &serde_json::Value) -> String {
    let mut text = stamped.to_string();
    text.push('\n');
    text
}

/// Whether a line of this kind says what an attempt did, and so carries the attempt (and the
/// stage open when it was written).
fn says_what_an_attempt_did(event: &Event) -> bool {
    matches!(
        event,
        Event::RunStarted { .. }
            | Event::RunEnded { .. }
            | Event::AgentOpened { .. }
            | Event::AgentWorkspace { .. }
            | Event::WorktreeEnded { .. }
            | Event::AgentResumed { .. }
            | Event::AgentForked { .. }
            | Event::AgentStopped { .. }
            | Event::AgentCompacted { .. }
            | Event::SettingsChanged { .. }
            | Event::TurnStarted { .. }
            | Event::TurnSettled { .. }
            | Event::AgentSession { .. }
            | Event::AgentContainer { .. }
            | Event::StageStarted { .. }
            | Event::StageEnded { .. }
            | Event::StageReused { .. }
            | Event::SourcesChanged { .. }
            | Event::Asked { .. }
            | Event::Answered { .. }
            | Event::AskTimedOut { .. }
            | Event::BudgetPassed { .. }
    )
}

/// The object for an event written by `attempt` (0: none) while `stage` is open: its line in
/// events.jsonl is this, written out (`line_of`).
pub fn stamped(
    at: SystemTime,
    event: &Event,
    attempt: u32,
    stage: Option<&str>,
) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    object.insert("at".into(), rfc3339(at).into());
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(event) {
        object.extend(fields);
    }
    if attempt > 0 && says_what_an_attempt_did(event) {
        object.insert("attempt".into(), attempt.into());
        if let Some(stage) = stage {
            object.entry("stage").or_insert_with(|| stage.into());
        }
    }
    serde_json::Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn lines_start_with_time_and_kind() {
        let at = UNIX_EPOCH + Duration::from_secs(1);
        let text = line(
            at,
            &Event::RunEnded {
                outcome: "completed".into(),
                reason: None,
            },
        );
        assert_eq!(text, "{\"at\":\"1970-01-01T00:00:01.000Z\",\"event\":\"run-ended\",\"outcome\":\"completed\"}\n");
    }
}
