//! The script engine: given a request's history in a neutral form, decide the model's next reply.
//!
//! The prompt index is how many marker prompts the history holds, minus one; the step index is how
//! many tool calls the assistant made after the last one. Placeholders come from the last
//! prompt's text: `{wfa}` is the launcher path (the word ending in `/wfa` before ` result ` or
//! ` tool `), `{turn}` the word after `<launcher> result `.

use crate::script::{Script, Step, Usage};
use serde_json::{json, Value};

/// One entry of a request's history, as every API module reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// The text of a user message that is not a tool result.
    User(String),
    /// A tool call the assistant made.
    Call { name: String, arguments: Value },
    /// The text of a tool result.
    Output(String),
}

/// A tool the request offers: its name and the names of its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub params: Vec<String>,
}

/// A model request in neutral form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation {
    pub entries: Vec<Entry>,
    pub tools: Vec<Tool>,
}

/// What the model answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Call { name: String, arguments: Value },
    Text(String),
}

/// The reply and why: all of it goes to the request's log.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub reply: Reply,
    /// `shell`, `poll`, `same_again`, `text`, `untooled` (a request with no tools),
    /// `compaction` (one asking for a summary, when the script has one) or `miss`.
    pub kind: &'static str,
    pub prompt_index: Option<usize>,
    pub step_index: usize,
    /// The filled shell command, for `shell` and `same_again`.
    pub command: Option<String>,
    /// Why the script had no answer, for `miss`.
    pub miss: Option<String>,
    pub prompts: Vec<String>,
    pub tool_outputs: Vec<String>,
    pub usage: Usage,
}

/// The shell tools of the five CLIs, in order of preference.
const SHELL_TOOLS: [&str; 6] = [
    "exec_command",
    "shell_command",
    "shell",
    "Bash",
    "bash",
    "run_shell_command",
];

/// codex's tool for polling a command that is still running.
const POLL_TOOL: &str = "write_stdin";

const DEFAULT_POLL_MS: u64 = 30_000;

/// Decides the reply to one model request.
pub fn decide(script: &Script, conversation: &Conversation) -> Decision {
    let prompt_positions: Vec<usize> = conversation
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Entry::User(text) if text.contains(&script.marker)))
        .map(|(i, _)| i)
        .collect();
    let prompts: Vec<String> = prompt_positions
        .iter()
        .map(|&i| match &conversation.entries[i] {
            Entry::User(text) => text.clone(),
            _ => unreachable!("positions are of user entries"),
        })
        .collect();
    let since = &conversation.entries[prompt_positions.last().map_or(0, |&i| i + 1)..];
    let tool_outputs: Vec<String> = since
        .iter()
        .filter_map(|e| match e {
            Entry::Output(text) => Some(text.clone()),
            _ => None,
        })
        .collect();
    let step_index = since
        .iter()
        .filter(|e| matches!(e, Entry::Call { .. }))
        .count();
    let prompt_index = prompts.len().checked_sub(1);
    let mut decision = Decision {
        reply: Reply::Text(String::new()),
        kind: "miss",
        prompt_index,
        step_index,
        command: None,
        miss: None,
        prompts,
        tool_outputs,
        usage: Usage::default(),
    };
    let asks_for_summary = conversation
        .entries
        .iter()
        .any(|e| matches!(e, Entry::User(text) if text.to_lowercase().contains("summar")));
    if let (true, Some(summary)) = (
        conversation.tools.is_empty() && asks_for_summary,
        &script.summary,
    ) {
        decision.kind = "compaction";
        decision.reply = Reply::Text(summary.clone());
        return decision;
    }
    if conversation.tools.is_empty() {
        decision.kind = "untooled";
        decision.reply = Reply::Text("Fake title".into());
        return decision;
    }
    let Some(index) = prompt_index else {
        return missed(
            decision,
            format!("no user message contains {:?}", script.marker),
        );
    };
    let Some(prompt) = script.prompts.get(index) else {
        return missed(decision, format!("the script has no prompt {index}"));
    };
    decision.usage = prompt.usage;
    let Some(step) = prompt.steps.get(step_index) else {
        return missed(
            decision,
            format!("the script has no step {step_index} for prompt {index}"),
        );
    };
    let last_prompt = decision.prompts.last().map(String::as_str).unwrap_or("");
    match step {
        Step::Text(text) => {
            decision.kind = "text";
            decision.reply = Reply::Text(fill(text, last_prompt));
        }
        Step::Shell {
            command,
            yield_time_ms,
        } => {
            let Some(tool) = shell_tool(&conversation.tools) else {
                return missed(decision, "the request offers no shell tool".into());
            };
            let command = fill(command, last_prompt);
            decision.kind = "shell";
            decision.reply = Reply::Call {
                name: tool.name.clone(),
                arguments: shell_arguments(tool, &command, *yield_time_ms),
            };
            decision.command = Some(command);
        }
        Step::SameAgain => {
            let previous = since.iter().rev().find_map(|e| match e {
                Entry::Call { name, arguments } => {
                    command_of(arguments).map(|c| (name, arguments, c))
                }
                _ => None,
            });
            let Some((name, arguments, command)) = previous else {
                return missed(
                    decision,
                    "same_again: no shell call since the prompt".into(),
                );
            };
            decision.kind = "same_again";
            decision.command = Some(command);
            decision.reply = Reply::Call {
                name: name.clone(),
                arguments: arguments.clone(),
            };
        }
        Step::Poll { yield_time_ms } => {
            if !conversation.tools.iter().any(|t| t.name == POLL_TOOL) {
                return missed(decision, format!("poll: the request offers no {POLL_TOOL}"));
            }
            let Some(session) = decision
                .tool_outputs
                .last()
                .and_then(|o| running_session(o))
            else {
                return missed(
                    decision,
                    "poll: the last tool output names no running session".into(),
                );
            };
            decision.kind = "poll";
            decision.reply = Reply::Call {
                name: POLL_TOOL.into(),
                arguments: json!({
                    "session_id": session,
                    "chars": "",
                    "yield_time_ms": yield_time_ms.unwrap_or(DEFAULT_POLL_MS),
                }),
            };
        }
    }
    decision
}

fn missed(mut decision: Decision, why: String) -> Decision {
    decision.reply = Reply::Text(format!("fake-model script miss: {why}."));
    decision.kind = "miss";
    decision.miss = Some(why);
    decision
}

fn shell_tool(tools: &[Tool]) -> Option<&Tool> {
    SHELL_TOOLS
        .iter()
        .find_map(|name| tools.iter().find(|t| t.name == *name))
}

/// The arguments of a shell call in the shape the tool takes.
fn shell_arguments(tool: &Tool, command: &str, yield_time_ms: Option<u64>) -> Value {
    let mut args = match tool.name.as_str() {
        "exec_command" => json!({"cmd": command}),
        "shell" => json!({"command": ["bash", "-lc", command]}),
        _ => json!({"command": command}),
    };
    if tool.params.iter().any(|p| p == "description") {
        args["description"] = json!("Run the scripted command");
    }
    if let Some(ms) = yield_time_ms {
        args["yield_time_ms"] = json!(ms);
    }
    args
}

/// The command a shell call ran: `cmd`, `command`, or the last word of a `command` list.
fn command_of(arguments: &Value) -> Option<String> {
    let value = arguments.get("cmd").or_else(|| arguments.get("command"))?;
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => words.last()?.as_str().map(str::to_string),
        _ => None,
    }
}

/// The session id in codex's "Process running with session ID N".
fn running_session(output: &str) -> Option<u64> {
    let rest = &output[output.find("Process running with session ID ")? + 32..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Fills `{wfa}` and `{turn}` from a prompt's text; a placeholder the prompt lacks stays as it is.
pub fn fill(template: &str, prompt: &str) -> String {
    let mut out = template.to_string();
    if let Some(launcher) = launcher(prompt) {
        out = out.replace("{wfa}", launcher);
    }
    if let Some(turn) = turn(prompt) {
        out = out.replace("{turn}", turn);
    }
    out
}

/// The absolute launcher path: the word ending in `/wfa` before ` result ` or ` tool `.
pub fn launcher(prompt: &str) -> Option<&str> {
    prompt.match_indices("/wfa ").find_map(|(at, _)| {
        let after = &prompt[at + 5..];
        if !(after.starts_with("result ") || after.starts_with("tool ")) {
            return None;
        }
        let start = prompt[..at]
            .rfind(|c: char| c.is_whitespace() || "\"'`(".contains(c))
            .map_or(0, |i| i + 1);
        let word = &prompt[start..at + 4];
        word.starts_with('/').then_some(word)
    })
}

/// The turn id after `<launcher> result `.
pub fn turn(prompt: &str) -> Option<&str> {
    let launcher = launcher(prompt)?;
    let needle = format!("{launcher} result ");
    let rest = &prompt[prompt.find(&needle)? + needle.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

// Reading the JSON shapes the APIs share.

/// Content as text: a string, or the `text` of each part, one per line.
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Tool-call arguments sent as a JSON string; a string that is not JSON stays a string.
pub fn parse_arguments(arguments: Option<&Value>) -> Value {
    match arguments {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or_else(|_| json!(text)),
        Some(other) => other.clone(),
        None => json!({}),
    }
}

/// The property names of a JSON Schema object.
pub fn property_names(schema: Option<&Value>) -> Vec<String> {
    schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

impl Decision {
    /// The decision as the request log shows it.
    pub fn to_json(&self) -> Value {
        let (reply_text, tool, arguments) = match &self.reply {
            Reply::Text(text) => (Some(text.as_str()), None, None),
            Reply::Call { name, arguments } => (None, Some(name.as_str()), Some(arguments)),
        };
        json!({
            "kind": self.kind,
            "prompt_index": self.prompt_index,
            "step_index": self.step_index,
            "command": self.command,
            "tool": tool,
            "arguments": arguments,
            "text": reply_text,
            "miss": self.miss,
            "usage": {"input": self.usage.input, "cached": self.usage.cached,
                      "output": self.usage.output, "reasoning": self.usage.reasoning},
            "prompts": self.prompts,
            "tool_outputs": self.tool_outputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "Say hello.\n\nWhen your answer is ready:\n\n/tmp/awf-x1/a1/wfa result t2 <<'WF_JSON'\n<your answer>\nWF_JSON\n\n  /tmp/awf-x1/a1/wfa tool add --x <text>";

    fn script() -> Script {
        Script::parse(
            r#"{"prompts": [
                {"steps": [{"shell": "{wfa} tool add --x '1'", "yield_time_ms": 500}, {"poll": true},
                           {"same_again": true}, {"text": "Done with {turn}."}],
                 "usage": {"input": 1200, "cached": 200, "output": 40, "reasoning": 8}},
                {"steps": [{"shell": "{wfa} result {turn} --ok 'true'"}]}]}"#,
        )
        .unwrap()
    }

    fn tools(names: &[&str]) -> Vec<Tool> {
        names
            .iter()
            .map(|n| Tool {
                name: n.to_string(),
                params: vec!["command".into(), "description".into()],
            })
            .collect()
    }

    fn call(name: &str, arguments: Value) -> Entry {
        Entry::Call {
            name: name.into(),
            arguments,
        }
    }

    #[test]
    fn placeholders_come_from_the_prompt() {
        assert_eq!(launcher(PROMPT), Some("/tmp/awf-x1/a1/wfa"));
        assert_eq!(turn(PROMPT), Some("t2"));
        assert_eq!(
            fill("{wfa} result {turn} --a 'b'", PROMPT),
            "/tmp/awf-x1/a1/wfa result t2 --a 'b'"
        );
        // opencode wraps the message in double quotes
        assert_eq!(launcher("\"/x/wfa tool a\""), Some("/x/wfa"));
        assert_eq!(launcher("see wfa result t1"), None);
        assert_eq!(launcher("relative/wfa result t1"), None);
        assert_eq!(fill("{wfa} {turn}", "nothing here"), "{wfa} {turn}");
    }

    #[test]
    fn the_first_step_of_the_first_prompt_is_a_shell_call() {
        let conversation = Conversation {
            entries: vec![
                Entry::User("<environment_context/>".into()),
                Entry::User(PROMPT.into()),
            ],
            tools: tools(&["write_stdin", "exec_command"]),
        };
        let d = decide(&script(), &conversation);
        assert_eq!(
            (d.kind, d.prompt_index, d.step_index),
            ("shell", Some(0), 0)
        );
        assert_eq!(d.prompts, vec![PROMPT.to_string()]);
        assert_eq!(
            d.reply,
            Reply::Call {
                name: "exec_command".into(),
                arguments: json!({"cmd": "/tmp/awf-x1/a1/wfa tool add --x '1'",
                                  "description": "Run the scripted command", "yield_time_ms": 500}),
            }
        );
        assert_eq!(d.usage.input, 1200);
    }

    #[test]
    fn a_poll_reads_the_session_and_same_again_repeats_the_call() {
        let first = json!({"cmd": "/tmp/awf-x1/a1/wfa tool add --x '1'", "yield_time_ms": 500});
        let mut entries = vec![
            Entry::User(PROMPT.into()),
            call("exec_command", first.clone()),
            Entry::Output("Chunk ID: 1\nProcess running with session ID 4711\nOutput:\n".into()),
        ];
        let mut conversation = Conversation {
            entries: entries.clone(),
            tools: tools(&["exec_command", "write_stdin"]),
        };
        let d = decide(&script(), &conversation);
        assert_eq!((d.kind, d.step_index), ("poll", 1));
        assert_eq!(
            d.reply,
            Reply::Call {
                name: "write_stdin".into(),
                arguments: json!({"session_id": 4711, "chars": "", "yield_time_ms": 30000}),
            }
        );
        entries.push(call("write_stdin", json!({"session_id": 4711})));
        entries.push(Entry::Output("Process exited with code 0".into()));
        conversation.entries = entries;
        let d = decide(&script(), &conversation);
        assert_eq!((d.kind, d.step_index), ("same_again", 2));
        assert_eq!(
            d.reply,
            Reply::Call {
                name: "exec_command".into(),
                arguments: first
            }
        );
        assert_eq!(d.tool_outputs.len(), 2);
    }

    #[test]
    fn a_second_prompt_counts_steps_from_itself() {
        let second = PROMPT.replace("t2", "t3");
        let conversation = Conversation {
            entries: vec![
                Entry::User(PROMPT.into()),
                call("Bash", json!({"command": "x"})),
                Entry::Output("Recorded; 1 so far.".into()),
                Entry::User(second.clone()),
            ],
            tools: tools(&["Bash"]),
        };
        let d = decide(&script(), &conversation);
        assert_eq!(
            (d.kind, d.prompt_index, d.step_index),
            ("shell", Some(1), 0)
        );
        assert_eq!(
            d.command.as_deref(),
            Some("/tmp/awf-x1/a1/wfa result t3 --ok 'true'")
        );
        assert!(d.tool_outputs.is_empty());
        assert_eq!(d.prompts, vec![PROMPT.to_string(), second]);
    }

    #[test]
    fn misses_and_untooled_requests() {
        let mut conversation = Conversation {
            entries: vec![Entry::User("hello".into())],
            tools: vec![],
        };
        assert_eq!(decide(&script(), &conversation).kind, "untooled");
        let mut summarizing = script();
        summarizing.summary = Some("The numbers were 1.".into());
        let asking = Conversation {
            entries: vec![Entry::User("Write a summary of the conversation.".into())],
            tools: vec![],
        };
        let d = decide(&summarizing, &asking);
        assert_eq!(d.kind, "compaction");
        assert_eq!(d.reply, Reply::Text("The numbers were 1.".into()));
        assert_eq!(decide(&script(), &asking).kind, "untooled");
        conversation.tools = tools(&["bash"]);
        let d = decide(&script(), &conversation);
        assert_eq!((d.kind, d.prompt_index), ("miss", None));
        conversation.entries = vec![Entry::User(PROMPT.into()); 3];
        let d = decide(&script(), &conversation);
        assert_eq!(d.miss.as_deref(), Some("the script has no prompt 2"));
        assert_eq!(d.usage, Usage::default());
        conversation.entries = vec![
            Entry::User(PROMPT.into()),
            call("bash", json!({"command": "a"})),
            Entry::Output("x".into()),
        ];
        let d = decide(&script(), &conversation);
        assert_eq!(
            d.miss.as_deref(),
            Some("poll: the request offers no write_stdin")
        );
        conversation.entries.truncate(1);
        conversation.tools = tools(&["read"]);
        let d = decide(&script(), &conversation);
        assert_eq!(d.miss.as_deref(), Some("the request offers no shell tool"));
        assert!(matches!(d.reply, Reply::Text(t) if t.starts_with("fake-model script miss")));
    }

    #[test]
    fn each_shell_tool_gets_its_own_arguments() {
        let bare = |name: &str| Tool {
            name: name.into(),
            params: vec![],
        };
        assert_eq!(
            shell_arguments(&bare("shell"), "ls", None),
            json!({"command": ["bash", "-lc", "ls"]})
        );
        assert_eq!(
            shell_arguments(&bare("bash"), "ls", None),
            json!({"command": "ls"})
        );
        assert_eq!(
            command_of(&json!({"command": ["bash", "-lc", "ls"]})).as_deref(),
            Some("ls")
        );
        assert_eq!(
            running_session("Process running with session ID 12\n"),
            Some(12)
        );
        assert_eq!(running_session("Process exited with code 0"), None);
    }
}
