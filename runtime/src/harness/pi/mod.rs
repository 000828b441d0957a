//! The `pi` runtime: the pi coding agent (`@mariozechner/pi-coding-agent`), one `pi -p` per
//! attempt.
//!
//! First turn: `pi -p --mode json [--model M] [--thinking E] [ARGS] <prompt>`; pi names its
//! session on its first line (`{"type":"session","id"}`) and keeps it where it always does
//! (`$PI_CODING_AGENT_DIR/sessions`). Later turns and check-ins add `--session <id>`. pi has no
//! permission gate: every tool call runs, the launcher's too, so nothing needs granting.
//!
//! Its stream: `session`, `message_end` of each assistant message (its text, this request's
//! `usage` and `cost`, and `stopReason: "error"` with `errorMessage` when the model call failed),
//! `tool_execution_start`/`tool_execution_end` by `toolCallId`, and `agent_end` with every
//! message of the run. pi exits 0 when the model call fails (a refused key, an endpoint that is
//! down), so the run's last assistant message says whether it failed, and `ended` reads that.
//!
//! Beside it: `session.rs` forks and compacts its sessions (`pi --mode rpc`).

mod session;

use std::sync::Arc;

use serde_json::Value;

use crate::harness::attempt::default_end;
use crate::harness::cli::{
    self, count, json_line, text, AgentCli, CliConfig, CliInfo, Flag, Readiness,
};
use crate::harness::{
    AttemptEnd, BoxFuture, Can, Capabilities, Compacted, Effort, Forked, Harness, HarnessEvent,
    Launch, LaunchError, LineMemory, OpEnd, ProcessExit, SessionOp, Stream, Tokens, TurnLaunch,
    UsageBasis,
};

static CAPABILITIES: Capabilities = Capabilities {
    resume: Can::Yes("pi --session <session id>"),
    fork: Can::Yes("pi --mode rpc --fork <session>: no model call"),
    compact: Can::Yes("pi --mode rpc compact with the focus as its instructions; pi compacts only what is older than its last ~20k tokens"),
    set: Can::Yes("the next pi --session run takes the new --model or --thinking"),
    effort: Effort::Levels(&["off", "minimal", "low", "medium", "high", "xhigh"]),
    usage: Can::Yes("message_end.message.usage and cost, for each model request"),
    shell_limit: "no limit unless the model sets one",
};

pub static INFO: CliInfo = CliInfo {
    name: "pi",
    program: "pi",
    package: "@mariozechner/pi-coding-agent",
    tested: "0.73.1",
    capabilities: &CAPABILITIES,
    model_flag: Flag::Named("--model"),
    effort_flag: Flag::Named("--thinking"),
    open: |config| Arc::new(Pi { config }) as Arc<dyn Harness>,
    readiness,
    checks: cli::no_checks,
};

/// An agent run by pi.
pub struct Pi {
    config: CliConfig,
}

impl AgentCli for Pi {
    const INFO: &'static CliInfo = &INFO;

    fn config(&self) -> &CliConfig {
        &self.config
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        let mut args: Vec<String> = vec!["-p".into(), "--mode".into(), "json".into()];
        if let Some(session) = turn.resume {
            args.extend(["--session".into(), session.to_string()]);
        }
        args.extend(INFO.chosen_args(&self.config));
        args.push(cli::prompt_argument(turn.prompt)?);
        Ok(self.config.launch(turn, args, None, Vec::new()))
    }

    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent> {
        if stream == Stream::Stderr {
            return Vec::new();
        }
        json_line(line)
            .map(|event| read_event(&event, memory))
            .unwrap_or_default()
    }

    /// A failed model call ends the run with exit 0; the error pi reported decides.
    fn ended(&self, exit: &ProcessExit<'_>) -> AttemptEnd {
        match (exit.status, exit.errors.last()) {
            (Some(status), Some((message, blocked))) if status.success() => {
                if *blocked {
                    AttemptEnd::Blocked(message.clone())
                } else {
                    AttemptEnd::Failed(format!("pi: {message}"))
                }
            }
            _ => default_end(exit),
        }
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        Box::pin(session::fork(&INFO, &self.config, op))
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        Box::pin(session::compact(&INFO, &self.config, op, focus))
    }
}

fn read_event(event: &Value, memory: &mut LineMemory) -> Vec<HarnessEvent> {
    match text(event, "type") {
        "session" if !text(event, "id").is_empty() => {
            vec![HarnessEvent::Session(text(event, "id").to_string())]
        }
        "message_end" if text(&event["message"], "role") == "assistant" => {
            read_message(&event["message"])
        }
        "tool_execution_start" if text(event, "toolName") == "bash" => {
            let command = text(&event["args"], "command").to_string();
            memory
                .shells
                .insert(text(event, "toolCallId").to_string(), command.clone());
            vec![HarnessEvent::ShellStarted { command }]
        }
        "tool_execution_start" => vec![HarnessEvent::ToolUsed {
            tool: text(event, "toolName").to_string(),
            detail: ["path", "file_path", "pattern"]
                .iter()
                .find_map(|f| event["args"].get(*f).and_then(Value::as_str))
                .map(str::to_string)
                .unwrap_or_else(|| event["args"].to_string()),
        }],
        "tool_execution_end" => {
            let Some(command) = memory.shells.remove(text(event, "toolCallId")) else {
                return Vec::new();
            };
            let output = parts_text(&event["result"]["content"]);
            // pi ends a failed command's output with "Command exited with code N".
            let exit_code = match output.rsplit_once("Command exited with code ") {
                Some((_, code)) => code.trim().parse().ok(),
                None if event["isError"] == Value::Bool(true) => None,
                None => Some(0),
            };
            vec![HarnessEvent::ShellFinished {
                command,
                exit_code,
                output: Some(output),
            }]
        }
        "agent_end" => final_error(event),
        _ => Vec::new(),
    }
}

fn read_message(message: &Value) -> Vec<HarnessEvent> {
    let mut events = Vec::new();
    let said = parts_text(&message["content"]);
    if !said.trim().is_empty() {
        events.push(HarnessEvent::Message(said));
    }
    let usage = &message["usage"];
    if usage.is_object() {
        let cached = count(usage, "cacheRead");
        events.push(HarnessEvent::Usage {
            tokens: Tokens {
                input_tokens: count(usage, "input") + cached + count(usage, "cacheWrite"),
                cached_input_tokens: cached,
                output_tokens: count(usage, "output"),
                reasoning_tokens: count(usage, "reasoning"),
            },
            basis: UsageBasis::Request,
        });
        if let Some(usd) = usage["cost"]["total"].as_f64().filter(|usd| *usd > 0.0) {
            events.push(HarnessEvent::Cost {
                usd,
                basis: UsageBasis::Request,
            });
        }
    }
    events
}

/// The run's failure, if its last assistant message failed (earlier failures may have been
/// retried).
fn final_error(event: &Value) -> Vec<HarnessEvent> {
    let last = event["messages"].as_array().and_then(|messages| {
        messages
            .iter()
            .rev()
            .find(|m| text(m, "role") == "assistant")
    });
    match last {
        Some(message) if text(message, "stopReason") == "error" => {
            let said = match text(message, "errorMessage") {
                "" => "the model call failed".to_string(),
                said => said.to_string(),
            };
            vec![HarnessEvent::Error {
                blocked: cli::says_login_needed(&said),
                message: said,
            }]
        }
        _ => Vec::new(),
    }
}

fn parts_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| text(p, "type") == "text")
            .map(|p| text(p, "text"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A provider key pi knows in the environment, or pi's own auth or models file.
fn readiness() -> Readiness {
    let keys = [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "OPENROUTER_API_KEY",
        "GROQ_API_KEY",
        "XAI_API_KEY",
        "MISTRAL_API_KEY",
    ];
    if let Some(name) = cli::env_set(&keys) {
        return Readiness::found(format!("{name} is set"));
    }
    let Some(dir) = cli::home_dir("PI_CODING_AGENT_DIR", ".pi/agent") else {
        return Readiness::missing("no HOME or PI_CODING_AGENT_DIR to look for a login in");
    };
    for file in ["auth.json", "models.json"] {
        if dir.join(file).is_file() {
            return Readiness::found(format!("{}", dir.join(file).display()));
        }
    }
    Readiness::missing(format!(
        "no provider key in the environment, and no auth.json or models.json in {}; run `pi` once and log in, or set a provider's key",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::test_turn;
    use crate::harness::Captured;
    use std::os::unix::process::ExitStatusExt;

    fn pi() -> Pi {
        Pi {
            config: CliConfig {
                program: "/usr/bin/pi".into(),
                model: Some("wf/fake-model".into()),
                effort: Some("high".into()),
                args: vec![],
            },
        }
    }

    #[test]
    fn launches_resume_the_session_pi_named() {
        let turn = test_turn(Some("01a2"));
        assert_eq!(
            pi().launch(&turn).unwrap().args.join(" "),
            "-p --mode json --session 01a2 --model wf/fake-model --thinking high Say hello."
        );
        let first = pi()
            .launch(&TurnLaunch {
                resume: None,
                ..turn
            })
            .unwrap();
        assert!(!first.args.contains(&"--session".to_string()));
    }

    #[test]
    fn reads_the_stream_pi_prints() {
        let harness = pi();
        let mut memory = LineMemory::default();
        let mut read = |line: &str| harness.read_line(Stream::Stdout, line, &mut memory);
        assert_eq!(
            read(r#"{"type":"session","version":3,"id":"01a2","cwd":"/w"}"#),
            vec![HarnessEvent::Session("01a2".into())]
        );
        assert_eq!(
            read(
                r#"{"type":"tool_execution_start","toolCallId":"call_2","toolName":"bash","args":{"command":"/tmp/a/wfa tool bad --x 'abc'"}}"#
            ),
            vec![HarnessEvent::ShellStarted {
                command: "/tmp/a/wfa tool bad --x 'abc'".into()
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"tool_execution_end","toolCallId":"call_2","toolName":"bash","result":{"content":[{"type":"text","text":"wfa: bad: refused\n\n\nCommand exited with code 2"}]},"isError":true}"#
            ),
            vec![HarnessEvent::ShellFinished {
                command: "/tmp/a/wfa tool bad --x 'abc'".into(),
                exit_code: Some(2),
                output: Some("wfa: bad: refused\n\n\nCommand exited with code 2".into()),
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input":1000,"output":40,"cacheRead":200,"cacheWrite":0,"cost":{"total":0.002}}}}"#
            ),
            vec![
                HarnessEvent::Message("Done.".into()),
                HarnessEvent::Usage {
                    tokens: Tokens {
                        input_tokens: 1200,
                        cached_input_tokens: 200,
                        output_tokens: 40,
                        reasoning_tokens: 0
                    },
                    basis: UsageBasis::Request,
                },
                HarnessEvent::Cost {
                    usd: 0.002,
                    basis: UsageBasis::Request
                },
            ]
        );
    }

    #[test]
    fn a_run_whose_model_call_failed_fails_though_pi_exits_0() {
        let harness = pi();
        let mut memory = LineMemory::default();
        let events = harness.read_line(
            Stream::Stdout,
            r#"{"type":"agent_end","messages":[{"role":"user","content":"x"},{"role":"assistant","content":[],"stopReason":"error","errorMessage":"401 Incorrect API key provided."}]}"#,
            &mut memory,
        );
        let errors: Vec<(String, bool)> = events
            .into_iter()
            .filter_map(|e| match e {
                HarnessEvent::Error { message, blocked } => Some((message, blocked)),
                _ => None,
            })
            .collect();
        assert_eq!(
            errors,
            vec![("401 Incorrect API key provided.".to_string(), true)]
        );
        let stderr = Captured::default();
        let exit = |errors: &[(String, bool)]| {
            harness.ended(&ProcessExit {
                program: "pi",
                status: Some(std::process::ExitStatus::from_raw(0)),
                stderr: &stderr,
                errors,
                session: None,
            })
        };
        assert_eq!(
            exit(&errors),
            AttemptEnd::Blocked("401 Incorrect API key provided.".into())
        );
        assert_eq!(
            exit(&[("Connection error.".to_string(), false)]),
            AttemptEnd::Failed("pi: Connection error.".into())
        );
        assert_eq!(exit(&[]), AttemptEnd::ExitedSilent);
    }
}
