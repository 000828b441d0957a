//! Events as a run records them, built in a line each for the progress module's tests: only
//! the fields the live view and the summary read are given, the rest left blank.

use serde_json::{json, Value};

use crate::records::Event;
use crate::usage::{Tokens, Usage};

pub fn run_started(run_id: &str, workflow: &str) -> Event {
    Event::RunStarted {
        run_id: run_id.into(),
        workflow: workflow.into(),
        file: String::new(),
        cwd: String::new(),
        argv: Vec::new(),
    }
}

pub fn run_ended(outcome: &str) -> Event {
    Event::RunEnded {
        outcome: outcome.into(),
        reason: None,
    }
}

pub fn log(message: &str, fields: Option<Value>) -> Event {
    Event::Log {
        message: message.into(),
        fields,
    }
}

/// An agent opened on a runtime described as records describe it (`{kind, model, program}`);
/// `Value::Null` for none.
pub fn opened(agent: &str, runtime: Value) -> Event {
    Event::AgentOpened {
        agent: agent.into(),
        runtime,
        cwd: String::new(),
        launcher: String::new(),
        tools: Vec::new(),
        tracking: String::new(),
        sandbox: None,
        home: None,
        labels: None,
        skills: None,
        execution: None,
        instructions: None,
    }
}

/// An agent opened on a command agent running `program`.
pub fn opened_command(agent: &str, program: &str) -> Event {
    opened(agent, json!({"kind": "command", "program": program}))
}

pub fn turn_started(agent: &str, turn: &str) -> Event {
    Event::TurnStarted {
        agent: agent.into(),
        turn: turn.into(),
        n: 1,
        prompt: String::new(),
        schema: None,
        deadline: String::new(),
        message: None,
        label: None,
    }
}

pub fn check_in(agent: &str, turn: &str) -> Event {
    Event::CheckIn {
        agent: agent.into(),
        turn: turn.into(),
        after: String::new(),
    }
}

pub fn tool_called(agent: &str, tool: &str, call: &str) -> Event {
    Event::ToolCalled {
        agent: agent.into(),
        turn: String::new(),
        tool: tool.into(),
        call: call.into(),
        input: Value::Null,
    }
}

/// A call that ended with a result.
pub fn tool_ok(agent: &str, tool: &str) -> Event {
    tool_settled(agent, tool, "result", None, None)
}

/// A call that ended `outcome`, with the handler's error and where it threw.
pub fn tool_settled(
    agent: &str,
    tool: &str,
    outcome: &str,
    error: Option<&str>,
    thrown_at: Option<&str>,
) -> Event {
    Event::ToolSettled {
        agent: agent.into(),
        tool: tool.into(),
        call: String::new(),
        outcome: outcome.into(),
        result: None,
        error: error.map(str::to_string),
        thrown_at: thrown_at.map(str::to_string),
        duration_ms: 0,
    }
}

pub fn tool_refused(agent: &str, tool: &str, code: &str) -> Event {
    Event::ToolRefused {
        agent: agent.into(),
        turn: None,
        call: None,
        tool: tool.into(),
        code: code.into(),
        message: String::new(),
        details: Vec::new(),
    }
}

pub fn shell_started(agent: &str, command: &str) -> Event {
    Event::ShellStarted {
        agent: agent.into(),
        turn: String::new(),
        command: command.into(),
    }
}

pub fn shell_finished(agent: &str, command: &str) -> Event {
    Event::ShellFinished {
        agent: agent.into(),
        turn: String::new(),
        command: command.into(),
        exit_code: None,
        output: None,
    }
}

/// Tokens reported on `basis` (`request`, `run`, `session`).
pub fn usage_reported(agent: &str, turn: &str, basis: &str, input: u64, output: u64) -> Event {
    Event::UsageReported {
        agent: agent.into(),
        turn: turn.into(),
        basis: basis.into(),
        tokens: Some(Tokens {
            input_tokens: input,
            output_tokens: output,
            ..Tokens::default()
        }),
        cost_usd: None,
    }
}

/// What a settled turn used.
pub fn usage(input: u64, cached: u64, output: u64, cost_usd: Option<f64>) -> Usage {
    Usage {
        tokens: Tokens {
            input_tokens: input,
            cached_input_tokens: cached,
            output_tokens: output,
            reasoning_tokens: 0,
        },
        cost_usd,
    }
}

pub fn turn_settled(
    agent: &str,
    turn: &str,
    outcome: &str,
    detail: Option<&str>,
    usage: Option<Usage>,
) -> Event {
    Event::TurnSettled {
        agent: agent.into(),
        turn: turn.into(),
        outcome: outcome.into(),
        detail: detail.map(str::to_string),
        duration_ms: 0,
        output: Vec::new(),
        usage,
    }
}
