//! The `claude` runtime: Anthropic's Claude Code (`@anthropic-ai/claude-code`), one `claude -p`
//! per attempt.
//!
//! First turn: `claude -p --output-format stream-json --verbose --session-id <uuid>
//! --allowedTools 'Bash(<launcher> *)' --settings <hook> [--model M] [--effort E] [ARGS]`, the
//! prompt on stdin; awf chooses the session id, so it is known before the first line. Later
//! turns and check-ins: `--resume <id>` in place of `--session-id`.
//!
//! Permissions, without a blanket bypass (which Claude Code refuses as root anyway): the rule
//! `Bash(<launcher> *)` lets the agent run its own launcher; other commands follow the user's
//! own Claude Code settings, and in `-p` mode what would need approval is denied. Claude Code's
//! command checker also denies a launcher call whose heredoc holds JSON ("brace with quote
//! character"), which is how awf teaches structured answers, so a PreToolUse hook, the launcher
//! itself (`<launcher> hook claude`, cli/src/bin/wfa/hook.rs), approves a Bash command when it is
//! exactly one call of this agent's launcher (plain or single-quoted words, at most one quoted
//! `WF_JSON` heredoc) and says nothing about any other command.
//!
//! Its stream: `system/init{session_id}`, `assistant` messages (text, `tool_use`), `user`
//! messages with the `tool_result`s, `system/permission_denied`, and a last `result` with the
//! run's `usage`, the session's running `total_cost_usd`, `is_error` and `api_error_status`.
//! A denied permission or a refused key makes the turn `blocked`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::cli::{self, count, json_line, text, CliConfig, CliInfo, Readiness};
use super::{
    BoxFuture, Can, Capabilities, Compacted, Effort, Forked, Harness, HarnessEvent, Launch,
    LaunchError, LineMemory, OpEnd, ProcessHarness, RuntimeError, SessionOp, Settings, Stream,
    Tokens, TurnLaunch, UsageBasis,
};

static CAPABILITIES: Capabilities = Capabilities {
    resume: Can::Yes("claude -p --resume <session id>; awf chooses the id with --session-id"),
    fork: Can::Yes("claude -p --resume <id> --fork-session --session-id <new id>, given /cost: no model call"),
    compact: Can::Yes("/compact <focus> on a resumed claude -p; the summary is the row after its compact boundary"),
    set: Can::Yes("the next claude -p --resume runs with the new --model or --effort"),
    effort: Effort::Levels(&["low", "medium", "high", "xhigh", "max"]),
    usage: Can::Yes("result.usage for each run; total_cost_usd, the session's running cost"),
    shell_limit: "120 s by default, up to 600 s with the Bash tool's timeout",
};

pub static INFO: CliInfo = CliInfo {
    name: "claude",
    program: "claude",
    package: "@anthropic-ai/claude-code",
    tested: "2.1.332",
    capabilities: &CAPABILITIES,
    open: |config| Arc::new(Claude { config }) as Arc<dyn Harness>,
    readiness,
    checks: cli::no_checks,
};

/// An agent run by Claude Code.
pub struct Claude {
    config: CliConfig,
}

impl ProcessHarness for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn describe(&self) -> Value {
        self.config.describe("claude")
    }

    fn capabilities(&self) -> &'static Capabilities {
        &CAPABILITIES
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        let launcher = turn.launcher.display().to_string();
        let mut args: Vec<String> = ["-p", "--output-format", "stream-json", "--verbose"]
            .map(String::from)
            .to_vec();
        match turn.resume {
            Some(session) => args.extend(["--resume".into(), session.to_string()]),
            None => args.extend(["--session-id".into(), cli::new_session_id()?]),
        }
        args.extend([
            "--allowedTools".into(),
            format!("Bash({launcher} *)"),
            "--settings".into(),
            hook_settings(&launcher),
        ]);
        if let Some(model) = &self.config.model {
            args.extend(["--model".into(), model.clone()]);
        }
        if let Some(effort) = &self.config.effort {
            args.extend(["--effort".into(), effort.clone()]);
        }
        args.extend(self.config.args.iter().cloned());
        Ok(self
            .config
            .launch(turn, args, Some(turn.prompt.to_string()), Vec::new()))
    }

    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent> {
        if stream == Stream::Stderr {
            return Vec::new();
        }
        json_line(line)
            .map(|event| read_event(&event, memory))
            .unwrap_or_default()
    }

    fn reconfigure(&self, settings: &Settings) -> Result<Arc<dyn Harness>, RuntimeError> {
        cli::reconfigure(&INFO, &self.config, settings)
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        Box::pin(super::claude_session::fork(&self.config, op))
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        Box::pin(super::claude_session::compact(&self.config, op, focus))
    }
}

/// The `--settings` that install the launcher as a PreToolUse hook for Bash.
fn hook_settings(launcher: &str) -> String {
    json!({
        "hooks": {
            "PreToolUse": [{
                "matcher": "Bash",
                "hooks": [{ "type": "command", "command": format!("'{launcher}' hook claude") }],
            }],
        },
    })
    .to_string()
}

fn read_event(event: &Value, memory: &mut LineMemory) -> Vec<HarnessEvent> {
    match (text(event, "type"), text(event, "subtype")) {
        ("system", "init") if !text(event, "session_id").is_empty() => {
            vec![HarnessEvent::Session(text(event, "session_id").to_string())]
        }
        ("system", "permission_denied") => vec![HarnessEvent::Error {
            message: format!(
                "claude was denied {}: {}; allow it with runtime.args (e.g. [\"--allowedTools\", \"{}\"])",
                text(event, "tool_name"),
                text(event, "message"),
                text(event, "tool_name")
            ),
            blocked: true,
        }],
        ("assistant", _) => content(&event["message"])
            .filter_map(|part| read_assistant_part(part, memory))
            .collect(),
        ("user", _) => content(&event["message"])
            .filter_map(|part| read_tool_result(part, memory))
            .collect(),
        ("result", _) => read_result(event),
        _ => Vec::new(),
    }
}

fn content(message: &Value) -> impl Iterator<Item = &Value> {
    message["content"].as_array().into_iter().flatten()
}

fn read_assistant_part(part: &Value, memory: &mut LineMemory) -> Option<HarnessEvent> {
    match text(part, "type") {
        "text" if !text(part, "text").trim().is_empty() => {
            Some(HarnessEvent::Message(text(part, "text").to_string()))
        }
        "tool_use" if text(part, "name") == "Bash" => {
            let command = text(&part["input"], "command").to_string();
            memory
                .shells
                .insert(text(part, "id").to_string(), command.clone());
            Some(HarnessEvent::ShellStarted { command })
        }
        "tool_use" => Some(HarnessEvent::ToolUsed {
            tool: text(part, "name").to_string(),
            detail: tool_detail(&part["input"]),
        }),
        _ => None,
    }
}

/// What a tool was used on: its path, pattern or URL, else its input as JSON.
fn tool_detail(input: &Value) -> String {
    [
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
    ]
    .iter()
    .find_map(|field| input.get(*field).and_then(Value::as_str))
    .map(str::to_string)
    .unwrap_or_else(|| input.to_string())
}

fn read_tool_result(part: &Value, memory: &mut LineMemory) -> Option<HarnessEvent> {
    if text(part, "type") != "tool_result" {
        return None;
    }
    let command = memory.shells.remove(text(part, "tool_use_id"))?;
    let output = content_text(&part["content"]);
    // A failed command's result starts "Exit code N"; a good one has none.
    let exit_code = if part["is_error"] == Value::Bool(true) {
        output
            .strip_prefix("Exit code ")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|code| code.parse().ok())
    } else {
        Some(0)
    };
    Some(HarnessEvent::ShellFinished {
        command,
        exit_code,
        output: Some(output),
    })
}

fn read_result(event: &Value) -> Vec<HarnessEvent> {
    let usage = &event["usage"];
    let cached = count(usage, "cache_read_input_tokens");
    let mut events = vec![HarnessEvent::Usage {
        tokens: Tokens {
            input_tokens: count(usage, "input_tokens")
                + count(usage, "cache_creation_input_tokens")
                + cached,
            cached_input_tokens: cached,
            output_tokens: count(usage, "output_tokens"),
            reasoning_tokens: count(&usage["output_tokens_details"], "thinking_tokens"),
        },
        basis: UsageBasis::Run,
    }];
    if let Some(usd) = event["total_cost_usd"].as_f64() {
        events.push(HarnessEvent::Cost {
            usd,
            basis: UsageBasis::Session,
        });
    }
    if event["is_error"] == Value::Bool(true) {
        let said = match event.get("result").and_then(Value::as_str) {
            Some(result) if !result.is_empty() => result.to_string(),
            _ => event["errors"]
                .as_array()
                .map(|errors| {
                    errors
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .filter(|joined| !joined.is_empty())
                .unwrap_or_else(|| format!("claude ended with {}", text(event, "subtype"))),
        };
        let status = event["api_error_status"].as_u64();
        events.push(HarnessEvent::Error {
            blocked: matches!(status, Some(401 | 403)) || cli::says_login_needed(&said),
            message: said,
        });
    }
    events
}

/// A key or token in the environment, or a login in Claude Code's config folder.
fn readiness() -> Readiness {
    if let Some(name) = cli::env_set(&[
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    ]) {
        return Readiness::found(format!("{name} is set"));
    }
    let Some(dir) = cli::home_dir("CLAUDE_CONFIG_DIR", ".claude") else {
        return Readiness::missing("no HOME or CLAUDE_CONFIG_DIR to look for a login in");
    };
    if dir.join(".credentials.json").is_file() {
        return Readiness::found(format!(
            "a login in {}",
            dir.join(".credentials.json").display()
        ));
    }
    Readiness::missing(format!(
        "no ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN, and no login in {}; run `claude` once and log in, or set ANTHROPIC_API_KEY",
        dir.display()
    ))
}

/// A message's or tool result's `content`, as claude writes it: a string, or parts whose texts
/// are joined by lines.
pub(super) fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| text(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::test_turn;

    fn claude() -> Claude {
        Claude {
            config: CliConfig {
                program: "/usr/bin/claude".into(),
                model: Some("sonnet".into()),
                effort: Some("high".into()),
                args: vec![],
            },
        }
    }

    #[test]
    fn a_first_turn_chooses_its_session_and_a_later_one_resumes_it() {
        let first = claude().launch(&test_turn(None)).unwrap();
        let at = first.args.iter().position(|a| a == "--session-id").unwrap();
        let id = &first.args[at + 1];
        assert_eq!(id.len(), 36, "{id}");
        assert_eq!(&id[14..15], "4", "a version 4 uuid: {id}");
        assert!(first
            .args
            .contains(&"Bash(/tmp/awf-x/a1/wfa *)".to_string()));
        let settings = &first.args[first.args.iter().position(|a| a == "--settings").unwrap() + 1];
        assert!(
            settings.contains("'/tmp/awf-x/a1/wfa' hook claude"),
            "{settings}"
        );
        assert!(!first
            .args
            .iter()
            .any(|a| a.contains("dangerously") || a.contains("bypass")));
        assert_eq!(first.stdin.as_deref(), Some("Say hello."));
        let later = claude().launch(&test_turn(Some("0b2d"))).unwrap();
        let at = later.args.iter().position(|a| a == "--resume").unwrap();
        assert_eq!(later.args[at + 1], "0b2d");
        assert!(!later.args.contains(&"--session-id".to_string()));
        assert!(later.args.ends_with(&[
            "--model".into(),
            "sonnet".into(),
            "--effort".into(),
            "high".into()
        ]));
    }

    #[test]
    fn reads_the_stream_claude_prints() {
        let harness = claude();
        let mut memory = LineMemory::default();
        let mut read = |line: &str| harness.read_line(Stream::Stdout, line, &mut memory);
        assert_eq!(
            read(
                r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"0b2d","tools":["Bash"]}"#
            ),
            vec![HarnessEvent::Session("0b2d".into())]
        );
        assert_eq!(
            read(
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"/tmp/a/wfa tool bad --x 'abc'"}}]}}"#
            ),
            vec![HarnessEvent::ShellStarted {
                command: "/tmp/a/wfa tool bad --x 'abc'".into()
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"Exit code 2\nwfa: bad: refused (invalid-input)","is_error":true,"tool_use_id":"toolu_2"}]}}"#
            ),
            vec![HarnessEvent::ShellFinished {
                command: "/tmp/a/wfa tool bad --x 'abc'".into(),
                exit_code: Some(2),
                output: Some("Exit code 2\nwfa: bad: refused (invalid-input)".into()),
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Done."},{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/w/a.ts"}}]}}"#
            ),
            vec![
                HarnessEvent::Message("Done.".into()),
                HarnessEvent::ToolUsed {
                    tool: "Read".into(),
                    detail: "/w/a.ts".into()
                },
            ]
        );
        assert_eq!(
            read(
                r#"{"type":"result","subtype":"success","is_error":false,"session_id":"0b2d","total_cost_usd":0.03,"usage":{"input_tokens":1000,"cache_creation_input_tokens":10,"cache_read_input_tokens":3000,"output_tokens":60,"output_tokens_details":{"thinking_tokens":5}}}"#
            ),
            vec![
                HarnessEvent::Usage {
                    tokens: Tokens {
                        input_tokens: 4010,
                        cached_input_tokens: 3000,
                        output_tokens: 60,
                        reasoning_tokens: 5
                    },
                    basis: UsageBasis::Run,
                },
                HarnessEvent::Cost {
                    usd: 0.03,
                    basis: UsageBasis::Session
                },
            ]
        );
    }

    #[test]
    fn a_refused_key_blocks_and_a_lost_session_fails() {
        let harness = claude();
        let mut memory = LineMemory::default();
        let auth = harness.read_line(Stream::Stdout, r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"result":"Invalid API key · Fix external API key","usage":{}}"#, &mut memory);
        assert_eq!(
            auth.last(),
            Some(&HarnessEvent::Error {
                message: "Invalid API key · Fix external API key".into(),
                blocked: true
            })
        );
        let lost = harness.read_line(Stream::Stdout, r#"{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["No conversation found with session ID: 6eb6"],"usage":{}}"#, &mut memory);
        assert_eq!(
            lost.last(),
            Some(&HarnessEvent::Error {
                message: "No conversation found with session ID: 6eb6".into(),
                blocked: false
            })
        );
        let denied = harness.read_line(Stream::Stdout, r#"{"type":"system","subtype":"permission_denied","tool_name":"Bash","message":"cat in '/etc/hostname' was blocked."}"#, &mut memory);
        assert!(
            matches!(&denied[..], [HarnessEvent::Error { message, blocked: true }] if message.starts_with("claude was denied Bash: cat in '/etc/hostname' was blocked."))
        );
    }
}
