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
//! Beside it: `stream.rs` reads the lines claude prints, `session.rs` forks and compacts its
//! sessions.

mod session;
mod stream;

use std::sync::Arc;

use serde_json::json;

use crate::harness::cli::{self, json_line, AgentCli, CliConfig, CliInfo, Flag, Readiness};
use crate::harness::{
    BoxFuture, Can, Capabilities, Compacted, Effort, Forked, Harness, HarnessEvent, Launch,
    LaunchError, LineMemory, OpEnd, SessionOp, Stream, TurnLaunch,
};
use stream::read_event;

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
    model_flag: Flag::Named("--model"),
    effort_flag: Flag::Named("--effort"),
    open: |config| Arc::new(Claude { config }) as Arc<dyn Harness>,
    readiness,
    checks: cli::no_checks,
};

/// An agent run by Claude Code.
pub struct Claude {
    config: CliConfig,
}

impl AgentCli for Claude {
    const INFO: &'static CliInfo = &INFO;

    fn config(&self) -> &CliConfig {
        &self.config
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
        args.extend(INFO.chosen_args(&self.config));
        // Inside awf's sandbox the box is the gate: claude may edit and run anything in it
        // (`IS_SANDBOX=1` is what lets bypassPermissions run as root; harnesses.md, pitfall 8).
        let mut env = Vec::new();
        if turn.sandbox.is_some() {
            args.extend(["--permission-mode".into(), "bypassPermissions".into()]);
            env.push(("IS_SANDBOX".into(), "1".into()));
        }
        Ok(self
            .config
            .launch(turn, args, Some(turn.prompt.to_string()), env))
    }

    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent> {
        if stream == Stream::Stderr {
            return Vec::new();
        }
        json_line(line)
            .map(|event| read_event(&event, memory))
            .unwrap_or_default()
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        Box::pin(session::fork(&INFO, &self.config, op))
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        Box::pin(session::compact(&INFO, &self.config, op, focus))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::test_turn;
    use crate::harness::{Tokens, UsageBasis};

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
    fn each_responses_usage_is_read_once_as_it_streams() {
        let harness = claude();
        let mut memory = LineMemory::default();
        let mut read = |line: &str| harness.read_line(Stream::Stdout, line, &mut memory);
        let part = |id: &str, output: u64| {
            format!(
                r#"{{"type":"assistant","message":{{"id":"{id}","content":[],"usage":{{"input_tokens":100,"cache_read_input_tokens":300,"output_tokens":{output}}}}}}}"#
            )
        };
        let used = |input, cached, output| {
            vec![HarnessEvent::Usage {
                tokens: Tokens {
                    input_tokens: input,
                    cached_input_tokens: cached,
                    output_tokens: output,
                    reasoning_tokens: 0,
                },
                basis: UsageBasis::Request,
            }]
        };
        assert_eq!(read(&part("msg_1", 1)), used(400, 300, 1));
        // The same response's next part: only what grew.
        assert_eq!(read(&part("msg_1", 25)), used(0, 0, 24));
        assert_eq!(read(&part("msg_1", 25)), vec![]);
        assert_eq!(read(&part("msg_2", 5)), used(400, 300, 5));
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
