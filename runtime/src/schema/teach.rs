//! What a prompt tells the agent about answering and calling: the exact `wfa result` command for
//! its turn, and the tools block of the spec page ("What the agent runs").
//!
//! A small object of scalars is taught as options with a placeholder per value; anything else as
//! a quoted `<<'WF_JSON'` heredoc with the raw JSON Schema beside it (the predecessor's evidence:
//! with the schema in the prompt 80/80 first answers were valid, without it 0/160). The
//! terminator is never indented, since an indented terminator does not close a heredoc.
//!
//! Each text is returned without a trailing newline; putting the author's prompt, the answer
//! text and the tools block together (a blank line between) is `agents::prompt`'s job. The
//! launcher path is taken as given: awf makes it under `/tmp` with no characters to quote.

use serde_json::Value;

use super::describe::describe;
use super::shape::{shape_of, Flag, Shape};
use super::Schema;

/// How to write a value with a quote in it; the tools block and an options answer share it.
const QUOTING_RULE: &str = "Put every value in single quotes; a ' inside a value is written '\\''.";

/// The one-answer rule and what a rejection looks like.
const RETRY_RULE: &str =
    "Only one answer is accepted. A rejected answer prints what was wrong; fix that and send it again.";

/// One tool as the agent is taught it.
#[derive(Debug, Clone, Copy)]
pub struct ToolTeaching<'a> {
    /// The tool's name, as the agent types it after `wfa tool`.
    pub name: &'a str,
    /// What the tool is for, as the author wrote it; continuation lines are indented under it.
    pub description: &'a str,
    /// The input's schema; `None` for a tool called by its name alone.
    pub input: Option<&'a Schema>,
}

/// How to answer turn `turn` through `launcher`: text on stdin without a schema, options for a
/// small object of scalars, else JSON on stdin with the schema.
pub fn answer_instructions(launcher: &str, turn: &str, schema: Option<&Schema>) -> String {
    let command = format!("{launcher} result {turn}");
    let Some(schema) = schema else {
        return text_answer(&command);
    };
    match shape_of(schema.raw()) {
        Shape::Flags(flags) => options_answer(&command, &flags),
        Shape::Json => json_answer(&command, schema.raw()),
    }
}

fn text_answer(command: &str) -> String {
    [
        "When your answer is ready, send it with this command, putting your answer in place of \
         <your answer> and keeping the closing WF_JSON on a line of its own, not indented:",
        "",
        &heredoc(command, "<your answer>"),
        "",
        RETRY_RULE,
    ]
    .join("\n")
}

fn options_answer(command: &str, flags: &[Flag]) -> String {
    [
        "When your answer is ready, send it with this command:",
        "",
        &options_command(command, flags),
        "",
        QUOTING_RULE,
        "",
        RETRY_RULE,
    ]
    .join("\n")
}

fn json_answer(command: &str, raw: &Value) -> String {
    [
        "When your answer is ready, send it as JSON with this command, putting your JSON in place \
         of <json> and keeping the closing WF_JSON on a line of its own, not indented:",
        "",
        &heredoc(command, "<json>"),
        "",
        "The JSON must match this JSON Schema:",
        &raw.to_string(),
        "",
        RETRY_RULE,
    ]
    .join("\n")
}

/// The tools block; empty when the agent has no tools.
pub fn tools_instructions(launcher: &str, tools: &[ToolTeaching]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let mut lines = vec![
        "You have tools the workflow runs for you. Call one with:".to_string(),
        String::new(),
        format!("{launcher} tool <name> --<option> '<value>' ..."),
        String::new(),
        QUOTING_RULE.to_string(),
        String::new(),
    ];
    for tool in tools {
        lines.push(tool_entry(launcher, tool));
    }
    lines.join("\n")
}

/// `- name: description`, then how to call it, indented under it except for heredoc lines.
/// How to call one tool, as `wfa tool <name> --help` prints it: the tool's entry of the tools
/// block, with the quoting rule when it takes options.
pub fn tool_usage(launcher: &str, tool: &ToolTeaching) -> String {
    let entry = tool_entry(launcher, tool);
    let takes_options = tool
        .input
        .is_some_and(|schema| matches!(shape_of(schema.raw()), Shape::Flags(_)));
    if takes_options {
        format!("{entry}\n\n{QUOTING_RULE}\n")
    } else {
        format!("{entry}\n")
    }
}

fn tool_entry(launcher: &str, tool: &ToolTeaching) -> String {
    let description = tool.description.trim().replace('\n', "\n  ");
    let heading = match description.as_str() {
        "" => format!("- {}", tool.name),
        _ => format!("- {}: {description}", tool.name),
    };
    let command = format!("{launcher} tool {}", tool.name);
    let call = match tool
        .input
        .map(|schema| (shape_of(schema.raw()), schema.raw()))
    {
        None => format!("  {command}"),
        Some((Shape::Flags(flags), _)) => format!("  {}", options_command(&command, &flags)),
        Some((Shape::Json, raw)) => [
            format!("  {}", heredoc(&command, "<json>")),
            "  where <json> is one JSON value matching this JSON Schema, and WF_JSON stays \
             unindented:"
                .to_string(),
            format!("  {raw}"),
        ]
        .join("\n"),
    };
    format!("{heading}\n{call}")
}

/// `command --file <text, at least 1 character> [--note <text>]`, in the schema's order.
fn options_command(command: &str, flags: &[Flag]) -> String {
    let mut words = command.to_string();
    for flag in flags {
        let option = format!("--{} <{}>", flag.name, describe(flag.schema));
        if flag.required {
            words.push_str(&format!(" {option}"));
        } else {
            words.push_str(&format!(" [{option}]"));
        }
    }
    words
}

/// A command reading `placeholder` from a quoted heredoc; the lines after the first are never
/// indented, wherever the command is placed.
fn heredoc(command: &str, placeholder: &str) -> String {
    format!("{command} <<'WF_JSON'\n{placeholder}\nWF_JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LAUNCHER: &str = "/tmp/awf-x1/a1/wfa";

    fn finding() -> Schema {
        Schema::compile(json!({
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "line": {"type": "integer", "minimum": 1},
                "problem": {"type": "string", "minLength": 1}
            },
            "required": ["file", "line", "problem"]
        }))
        .unwrap()
    }

    fn labels() -> Schema {
        Schema::compile(json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "labels": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["id", "labels"]
        }))
        .unwrap()
    }

    #[test]
    fn the_spec_tools_block_character_for_character() {
        let finding = finding();
        let tools = [
            ToolTeaching {
                name: "add_finding",
                description: "Record one finding as soon as you are sure of it.",
                input: Some(&finding),
            },
            ToolTeaching {
                name: "list_findings",
                description: "The findings recorded so far, one per line.",
                input: None,
            },
        ];
        let expected = "\
You have tools the workflow runs for you. Call one with:

/tmp/awf-x1/a1/wfa tool <name> --<option> '<value>' ...

Put every value in single quotes; a ' inside a value is written '\\''.

- add_finding: Record one finding as soon as you are sure of it.
  /tmp/awf-x1/a1/wfa tool add_finding --file <text, at least 1 character> --line <integer, at least 1> --problem <text, at least 1 character>
- list_findings: The findings recorded so far, one per line.
  /tmp/awf-x1/a1/wfa tool list_findings";
        assert_eq!(tools_instructions(LAUNCHER, &tools), expected);
    }

    #[test]
    fn a_json_tool_is_a_heredoc_with_its_schema() {
        let labels = labels();
        let level = Schema::compile(json!({
            "type": "object",
            "properties": {
                "level": {"anyOf": [{"const": "low"}, {"const": "high"}]},
                "note": {"type": "string", "maxLength": 80}
            },
            "required": ["level"]
        }))
        .unwrap();
        let tools = [
            ToolTeaching {
                name: "label_item",
                description: "Set the labels of one backlog item.\nReplaces its labels.\n",
                input: Some(&labels),
            },
            ToolTeaching {
                name: "set_level",
                description: "Set the alert level.",
                input: Some(&level),
            },
        ];
        let expected = r#"You have tools the workflow runs for you. Call one with:

/tmp/awf-x1/a1/wfa tool <name> --<option> '<value>' ...

Put every value in single quotes; a ' inside a value is written '\''.

- label_item: Set the labels of one backlog item.
  Replaces its labels.
  /tmp/awf-x1/a1/wfa tool label_item <<'WF_JSON'
<json>
WF_JSON
  where <json> is one JSON value matching this JSON Schema, and WF_JSON stays unindented:
  {"type":"object","properties":{"id":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["id","labels"]}
- set_level: Set the alert level.
  /tmp/awf-x1/a1/wfa tool set_level --level <one of 'low', 'high'> [--note <text, at most 80 characters>]"#;
        assert_eq!(tools_instructions(LAUNCHER, &tools), expected);
    }

    #[test]
    fn no_tools_is_no_block() {
        assert_eq!(tools_instructions(LAUNCHER, &[]), "");
    }

    #[test]
    fn a_text_turn_answers_through_a_heredoc() {
        let expected = "\
When your answer is ready, send it with this command, putting your answer in place of <your answer> and keeping the closing WF_JSON on a line of its own, not indented:

/tmp/awf-x1/a1/wfa result t1 <<'WF_JSON'
<your answer>
WF_JSON

Only one answer is accepted. A rejected answer prints what was wrong; fix that and send it again.";
        assert_eq!(answer_instructions(LAUNCHER, "t1", None), expected);
    }

    #[test]
    fn a_flat_answer_is_options() {
        let schema = Schema::compile(json!({
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "line": {"type": "integer", "minimum": 1},
                "sure": {"type": "boolean"}
            },
            "required": ["file", "line"]
        }))
        .unwrap();
        let expected = "\
When your answer is ready, send it with this command:

/tmp/awf-x1/a1/wfa result t1 --file <text, at least 1 character> --line <integer, at least 1> [--sure <true or false>]

Put every value in single quotes; a ' inside a value is written '\\''.

Only one answer is accepted. A rejected answer prints what was wrong; fix that and send it again.";
        assert_eq!(answer_instructions(LAUNCHER, "t1", Some(&schema)), expected);
    }

    #[test]
    fn any_other_answer_is_json_with_the_raw_schema() {
        let expected = r#"When your answer is ready, send it as JSON with this command, putting your JSON in place of <json> and keeping the closing WF_JSON on a line of its own, not indented:

/tmp/awf-x1/a1/wfa result t1 <<'WF_JSON'
<json>
WF_JSON

The JSON must match this JSON Schema:
{"type":"object","properties":{"id":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["id","labels"]}

Only one answer is accepted. A rejected answer prints what was wrong; fix that and send it again."#;
        assert_eq!(
            answer_instructions(LAUNCHER, "t1", Some(&labels())),
            expected
        );
    }
}
