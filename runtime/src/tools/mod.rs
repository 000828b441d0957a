//! Workflow tools: what an agent holds, checked when it opens, and one call's path.
//!
//! `ToolSpec` is a tool as the agent sees it (name, description, input schema, time budget);
//! its handler stays in JS (js/workflow/tools.ts). `ToolSet::from_json` checks every limit
//! of the spec page when the agent opens, so a mistake fails there, naming the tool, and never
//! mid-turn. `calls.rs` is an agent's call state (one at a time, joins, `busy`); `dispatch.rs`
//! runs one call for any `Caller`; `input.rs` reads a call's input from its words. Nothing here
//! imports `agents/`: an agent is a `Caller` to this folder.

pub mod calls;
pub mod dispatch;
pub mod input;
pub mod problem;

use std::time::Duration;

use serde_json::{json, Value};

use crate::duration::{format_duration, parse_timeout, timeout_from_millis};
use crate::limits::{DEFAULT_TOOL_TIMEOUT, MAX_TOOLS_PER_AGENT, MAX_TOOL_NAME_LEN};
use crate::schema::teach::ToolTeaching;
use crate::schema::Schema;
pub use problem::{ToolProblem, ToolSetError};

/// How long one call of a tool may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallBudget {
    Within(Duration),
    /// `timeout: false`: only the turn's deadline bounds a call.
    TurnOnly,
}

impl CallBudget {
    pub fn describe(self) -> String {
        match self {
            CallBudget::Within(d) => format_duration(d),
            CallBudget::TurnOnly => "the turn's deadline".to_string(),
        }
    }
}

/// A tool as an agent holds it.
#[derive(Clone, Debug)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input: Option<Schema>,
    pub budget: CallBudget,
}

impl ToolSpec {
    /// What a reopen must repeat: name, description and schema (handlers may change).
    fn identity(&self) -> Value {
        json!({ "description": self.description, "input": self.input.as_ref().map(Schema::raw) })
    }
}

/// An agent's tools, in the order the workflow gave them.
#[derive(Clone, Debug, Default)]
pub struct ToolSet {
    tools: Vec<ToolSpec>,
}

impl ToolSet {
    /// Reads `{ name: { description, input, timeout } }` and checks every limit.
    pub fn from_json(tools: &Value) -> Result<ToolSet, ToolSetError> {
        let Some(map) = tools.as_object() else {
            return Err(ToolSetError::NotAnObject);
        };
        if map.len() > MAX_TOOLS_PER_AGENT {
            return Err(ToolSetError::TooMany(map.len()));
        }
        let tools = map
            .iter()
            .map(|(name, spec)| {
                read_tool(name, spec).map_err(|problem| ToolSetError::Tool {
                    tool: name.clone(),
                    problem,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ToolSet { tools })
    }

    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn teaching(&self) -> Vec<ToolTeaching<'_>> {
        self.tools
            .iter()
            .map(|t| ToolTeaching {
                name: &t.name,
                description: &t.description,
                input: t.input.as_ref(),
            })
            .collect()
    }

    /// A reopen with tools must give the same names, descriptions and schemas.
    pub fn check_same(&self, other: &ToolSet) -> Result<(), ToolSetError> {
        let (then, now) = (self.names(), other.names());
        if then != now {
            return Err(ToolSetError::Differ { then, now });
        }
        match self
            .tools
            .iter()
            .zip(&other.tools)
            .find(|(a, b)| a.identity() != b.identity())
        {
            Some((then, now)) => Err(ToolSetError::Changed {
                tool: then.name.clone(),
                what: if then.description != now.description {
                    "description"
                } else {
                    "input schema"
                },
            }),
            None => Ok(()),
        }
    }
}

fn read_tool(name: &str, spec: &Value) -> Result<ToolSpec, ToolProblem> {
    check_name(name)?;
    let Some(spec) = spec.as_object() else {
        return Err(ToolProblem::NotATool);
    };
    let description = match spec.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => d.trim().to_string(),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            return Err(ToolProblem::NoDescription)
        }
        Some(_) => return Err(ToolProblem::DescriptionNotText),
    };
    let input = match spec.get("input") {
        None | Some(Value::Null) => None,
        Some(raw) => Some(read_input(raw)?),
    };
    let budget = match spec.get("timeout") {
        None | Some(Value::Null) => CallBudget::Within(DEFAULT_TOOL_TIMEOUT),
        Some(Value::Bool(false)) => CallBudget::TurnOnly,
        Some(Value::String(text)) => {
            CallBudget::Within(parse_timeout(text).map_err(ToolProblem::Timeout)?)
        }
        Some(Value::Number(n)) => CallBudget::Within(
            timeout_from_millis(n.as_f64().unwrap_or(f64::NAN)).map_err(ToolProblem::Timeout)?,
        ),
        Some(other) => return Err(ToolProblem::TimeoutNotADuration(other.to_string())),
    };
    Ok(ToolSpec {
        name: name.to_string(),
        description,
        input,
        budget,
    })
}

fn check_name(name: &str) -> Result<(), ToolProblem> {
    if name.is_empty() || name.len() > MAX_TOOL_NAME_LEN {
        return Err(ToolProblem::NameLength);
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(ToolProblem::NameCharacters);
    }
    // Of `Object.prototype`'s names that fit the characters (`__proto__`, `constructor`), the one
    // that does harm: `{ __proto__: t }` sets an object's prototype rather than a property, so
    // such a tool would vanish from the object that holds it.
    if name == "__proto__" {
        return Err(ToolProblem::NameReserved);
    }
    Ok(())
}

/// A tool's input is an object schema.
fn read_input(raw: &Value) -> Result<Schema, ToolProblem> {
    if raw.get("type").and_then(Value::as_str) != Some("object") {
        return Err(ToolProblem::InputNotObject);
    }
    Schema::compile(raw.clone()).map_err(ToolProblem::Input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding() -> Value {
        json!({"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]})
    }

    #[test]
    fn reads_tools_in_order_with_their_budgets() {
        let set = ToolSet::from_json(&json!({
            "add_finding": {"description": "Record one.", "input": finding(), "timeout": null},
            "list_findings": {"description": "List them.", "timeout": "2m"},
            "slow": {"description": "Slow.", "timeout": false},
        }))
        .unwrap();
        assert_eq!(set.names(), vec!["add_finding", "list_findings", "slow"]);
        assert_eq!(
            set.get("add_finding").unwrap().budget,
            CallBudget::Within(Duration::from_secs(30))
        );
        assert_eq!(
            set.get("list_findings").unwrap().budget,
            CallBudget::Within(Duration::from_secs(120))
        );
        assert_eq!(set.get("slow").unwrap().budget, CallBudget::TurnOnly);
    }

    #[test]
    fn every_limit_is_checked_naming_the_tool() {
        let err = |tools: Value| ToolSet::from_json(&tools).unwrap_err().to_string();
        assert_eq!(
            err(json!({"Add-Finding": {"description": "x"}})),
            "tool \"Add-Finding\": a tool name is lowercase letters, digits and _ (e.g. add_finding)"
        );
        assert_eq!(
            err(json!({"__proto__": {"description": "x"}})),
            "tool \"__proto__\": __proto__ sets a JavaScript object's prototype rather than a property, so a tool may not be named so; give it another name (e.g. add_finding)"
        );
        assert!(ToolSet::from_json(&json!({"constructor": {"description": "x"}})).is_ok());
        assert!(err(json!({"a": {"description": " "}})).contains("description is missing"));
        assert!(
            err(json!({"a": {"description": "x", "input": {"type": "string"}}}))
                .contains("object schema")
        );
        assert!(err(json!({"a": {"description": "x", "timeout": "soon"}})).contains("timeout"));
        assert!(err(json!({"a": {"description": "x", "timeout": 0}})).contains("positive"));
        assert!(err(json!({"a": {"description": "x", "timeout": "0s"}})).contains("no time at all"));
        assert!(err(json!({"a": {"description": "x", "timeout": 1e300}}))
            .contains("longer than awf takes"));
        assert!(
            err(json!({"a": {"description": "x", "timeout": "4000000000000000h"}}))
                .contains("longer than awf takes")
        );
        let many: serde_json::Map<String, Value> = (0..17)
            .map(|i| (format!("t{i}"), json!({"description": "x"})))
            .collect();
        assert!(err(Value::Object(many)).contains("at most 16"));
    }

    #[test]
    fn a_reopen_must_give_the_same_tools() {
        let a = ToolSet::from_json(&json!({"x": {"description": "One."}})).unwrap();
        let b = ToolSet::from_json(&json!({"x": {"description": "Two."}})).unwrap();
        let c = ToolSet::from_json(&json!({"y": {"description": "One."}})).unwrap();
        assert!(a.check_same(&a.clone()).is_ok());
        assert!(a
            .check_same(&b)
            .unwrap_err()
            .to_string()
            .contains("tool \"x\" has a different description than"));
        let typed = |t: &str| {
            ToolSet::from_json(&json!({"x": {"description": "One.", "input": {"type": "object", "properties": {"n": {"type": t}}}}}))
                .unwrap()
        };
        assert!(typed("integer")
            .check_same(&typed("string"))
            .unwrap_err()
            .to_string()
            .contains("tool \"x\" has a different input schema than"));
        assert!(a
            .check_same(&c)
            .unwrap_err()
            .to_string()
            .contains("tools differ"));
    }
}
