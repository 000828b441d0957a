//! Why an agent's tools are refused when it opens (or reopens): one variant per rule of the
//! spec page's limits, each worded as the author must fix it, naming the tool.

use crate::duration::DurationError;
use crate::limits::{MAX_TOOLS_PER_AGENT, MAX_TOOL_NAME_LEN};
use crate::schema::SchemaError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolSetError {
    #[error("tools must be an object: {{ name: tool({{ ... }}) }}")]
    NotAnObject,
    #[error("{0} tools given; an agent holds at most {MAX_TOOLS_PER_AGENT}")]
    TooMany(usize),
    #[error("tool \"{tool}\": {problem}")]
    Tool { tool: String, problem: ToolProblem },
    #[error("tools differ: [{}] when it opened, [{}] now; a reopen must give the same tools (handlers may change)", .then.join(", "), .now.join(", "))]
    Differ { then: Vec<String>, now: Vec<String> },
    #[error("tool \"{tool}\" has a different {what} than when the agent opened; a reopen must keep each tool's description and input schema (handlers may change)")]
    Changed { tool: String, what: &'static str },
}

/// What is wrong with one tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolProblem {
    #[error("a tool name has 1 to {MAX_TOOL_NAME_LEN} characters")]
    NameLength,
    #[error("a tool name is lowercase letters, digits and _ (e.g. add_finding)")]
    NameCharacters,
    #[error("__proto__ sets a JavaScript object's prototype rather than a property, so a tool may not be named so; give it another name (e.g. add_finding)")]
    NameReserved,
    #[error("must be made with tool({{ description, input?, handler, timeout? }})")]
    NotATool,
    #[error("description is missing; say what the tool is for and when to call it")]
    NoDescription,
    #[error("description must be a string")]
    DescriptionNotText,
    #[error("input must be an object schema, e.g. typed(Type.Object({{ ... }}))")]
    InputNotObject,
    #[error("input: {0}")]
    Input(SchemaError),
    #[error("timeout: {0}")]
    Timeout(DurationError),
    #[error(
        "timeout: {0} is not a duration; write \"30s\", \"2m\", a number of milliseconds, or false"
    )]
    TimeoutNotADuration(String),
}

impl crate::hint::Hint for ToolSetError {
    /// The texts say what to write instead.
    fn hint(&self) -> Option<String> {
        None
    }
}
