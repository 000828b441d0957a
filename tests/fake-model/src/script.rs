//! The script a fake model follows: a marker that tells awf's prompts from other user messages,
//! and per prompt the steps the model takes in order, plus the usage it reports.
//!
//! ```json
//! { "marker": "wfa result", "summary": "The numbers were 1.",
//!   "prompts": [ { "steps": [ {"shell": "{wfa} result {turn} --ok 'true'"}, {"text": "Done."} ],
//!                  "usage": {"input": 1200, "cached": 200, "output": 40, "reasoning": 8} } ] }
//! ```
//!
//! `summary`, when given, answers a compaction: a request without tools whose user text asks for
//! a summary (the CLIs' compaction prompts do); without it such a request gets a title.
//!
//! Usage follows the OpenAI convention: `input` includes `cached`, `output` includes
//! `reasoning`. Each API module converts it to its own shape.

use serde_json::{Map, Value};

/// The whole script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// A user message is a prompt when its text contains this (default `wfa result`).
    pub marker: String,
    /// The reply to a compaction request.
    pub summary: Option<String>,
    pub prompts: Vec<Prompt>,
}

/// What the model does for one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub steps: Vec<Step>,
    pub usage: Usage,
}

/// One model reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Call the CLI's shell tool with this command (placeholders `{wfa}` and `{turn}` filled).
    Shell {
        command: String,
        yield_time_ms: Option<u64>,
    },
    /// codex: `write_stdin` with no input, on the session the last tool output names.
    Poll { yield_time_ms: Option<u64> },
    /// The previous shell call again, with the same arguments.
    SameAgain,
    /// A final assistant text.
    Text(String),
}

/// Token counts reported for every model request answered for a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub cached: u64,
    pub output: u64,
    pub reasoning: u64,
}

impl Default for Usage {
    /// Small numbers that differ from each other, so a test can tell the fields apart.
    fn default() -> Usage {
        Usage {
            input: 100,
            cached: 20,
            output: 10,
            reasoning: 2,
        }
    }
}

impl Script {
    /// Reads a script from its JSON text.
    pub fn parse(text: &str) -> Result<Script, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let top = object(&value, "the script")?;
        allow_keys(top, &["marker", "summary", "prompts"], "the script")?;
        let summary = match top.get("summary") {
            None => None,
            Some(s) => Some(s.as_str().ok_or("summary: not a string")?.to_string()),
        };
        let marker = match top.get("marker") {
            None => "wfa result".to_string(),
            Some(m) => m.as_str().ok_or("marker: not a string")?.to_string(),
        };
        let prompts = top
            .get("prompts")
            .and_then(Value::as_array)
            .ok_or("prompts: missing or not a list")?
            .iter()
            .enumerate()
            .map(|(i, p)| parse_prompt(p).map_err(|e| format!("prompts[{i}]: {e}")))
            .collect::<Result<_, _>>()?;
        Ok(Script {
            marker,
            summary,
            prompts,
        })
    }
}

fn parse_prompt(value: &Value) -> Result<Prompt, String> {
    let prompt = object(value, "a prompt")?;
    allow_keys(prompt, &["steps", "usage"], "a prompt")?;
    let steps = prompt
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("steps: missing or not a list")?
        .iter()
        .enumerate()
        .map(|(i, s)| parse_step(s).map_err(|e| format!("steps[{i}]: {e}")))
        .collect::<Result<_, _>>()?;
    let usage = match prompt.get("usage") {
        None => Usage::default(),
        Some(u) => parse_usage(u)?,
    };
    Ok(Prompt { steps, usage })
}

fn parse_step(value: &Value) -> Result<Step, String> {
    let step = object(value, "a step")?;
    let yield_time_ms = match step.get("yield_time_ms") {
        None => None,
        Some(v) => Some(v.as_u64().ok_or("yield_time_ms: not a whole number")?),
    };
    if let Some(command) = step.get("shell") {
        allow_keys(step, &["shell", "yield_time_ms"], "a shell step")?;
        let command = command.as_str().ok_or("shell: not a string")?.to_string();
        return Ok(Step::Shell {
            command,
            yield_time_ms,
        });
    }
    if let Some(text) = step.get("text") {
        allow_keys(step, &["text"], "a text step")?;
        return Ok(Step::Text(
            text.as_str().ok_or("text: not a string")?.to_string(),
        ));
    }
    if step.get("poll") == Some(&Value::Bool(true)) {
        allow_keys(step, &["poll", "yield_time_ms"], "a poll step")?;
        return Ok(Step::Poll { yield_time_ms });
    }
    if step.get("same_again") == Some(&Value::Bool(true)) {
        allow_keys(step, &["same_again"], "a same_again step")?;
        return Ok(Step::SameAgain);
    }
    Err("expected one of shell, text, poll: true, same_again: true".into())
}

fn parse_usage(value: &Value) -> Result<Usage, String> {
    let usage = object(value, "usage")?;
    allow_keys(usage, &["input", "cached", "output", "reasoning"], "usage")?;
    let field = |name: &str| match usage.get(name) {
        None => Ok(0),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("usage.{name}: not a whole number")),
    };
    let parsed = Usage {
        input: field("input")?,
        cached: field("cached")?,
        output: field("output")?,
        reasoning: field("reasoning")?,
    };
    if parsed.cached > parsed.input || parsed.reasoning > parsed.output {
        return Err("usage: cached must not exceed input, nor reasoning output".into());
    }
    Ok(parsed)
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("{what}: not an object"))
}

fn allow_keys(map: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<(), String> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(key) => Err(format!("{what}: unknown key {key:?}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_kind_and_usage() {
        let script = Script::parse(
            r#"{"marker": "MARK", "prompts": [
                {"steps": [{"shell": "{wfa} tool add", "yield_time_ms": 500}, {"poll": true},
                           {"same_again": true}, {"text": "Done."}],
                 "usage": {"input": 1200, "cached": 200, "output": 40, "reasoning": 8}},
                {"steps": []}]}"#,
        )
        .unwrap();
        assert_eq!(script.marker, "MARK");
        assert_eq!(
            script.prompts[0].steps,
            vec![
                Step::Shell {
                    command: "{wfa} tool add".into(),
                    yield_time_ms: Some(500)
                },
                Step::Poll {
                    yield_time_ms: None
                },
                Step::SameAgain,
                Step::Text("Done.".into()),
            ]
        );
        assert_eq!(
            script.prompts[0].usage,
            Usage {
                input: 1200,
                cached: 200,
                output: 40,
                reasoning: 8
            }
        );
        assert_eq!(script.prompts[1].usage, Usage::default());
    }

    #[test]
    fn the_marker_defaults_to_the_result_command() {
        let script = Script::parse(r#"{"prompts": []}"#).unwrap();
        assert_eq!(script.marker, "wfa result");
        assert_eq!(script.summary, None);
        let script = Script::parse(r#"{"summary": "S.", "prompts": []}"#).unwrap();
        assert_eq!(script.summary.as_deref(), Some("S."));
    }

    #[test]
    fn mistakes_name_their_place() {
        let err = Script::parse(r#"{"prompts": [{"steps": [{"shel": "x"}]}]}"#).unwrap_err();
        assert!(
            err.starts_with("prompts[0]: steps[0]: expected one of"),
            "{err}"
        );
        let err =
            Script::parse(r#"{"prompts": [{"steps": [{"text": "x", "extra": 1}]}]}"#).unwrap_err();
        assert_eq!(
            err,
            "prompts[0]: steps[0]: a text step: unknown key \"extra\""
        );
        let err =
            Script::parse(r#"{"prompts": [{"steps": [], "usage": {"input": 1, "cached": 2}}]}"#)
                .unwrap_err();
        assert!(err.contains("cached must not exceed input"), "{err}");
        assert!(Script::parse("[]").unwrap_err().contains("not an object"));
    }
}
