//! The `gemini` runtime: Google's Gemini CLI (`@google/gemini-cli`), one `gemini -p` per
//! attempt.
//!
//! First turn: `gemini --output-format stream-json --approval-mode default --policy <file>
//! --session-id <uuid> [-m MODEL] [ARGS] -p <prompt>`; later turns and check-ins `--resume <id>`
//! in place of `--session-id`. `GEMINI_CLI_TRUST_WORKSPACE=true` lets it work headless in the
//! agent's folder.
//!
//! Permissions, without `--approval-mode yolo` (which approves every tool call): headless gemini
//! offers its shell tool only when a policy allows some command, so awf writes a policy file
//! beside the agent's launcher with one rule: `run_shell_command` with the launcher as its
//! `commandPrefix` (no trailing space: gemini matches the prefix up to a space or quote) and
//! `allowRedirection` (a `<<'WF_JSON'` heredoc is a redirection; this also lets a launcher call
//! redirect its output to a file). Other commands follow the user's own gemini settings, and in
//! headless mode what would need approval is denied.
//!
//! Its stream: `init{session_id}`, `message` (the assistant's text comes in parts: `delta`),
//! `tool_use`/`tool_result` by `tool_id`, and a last `result{status, stats}`, this run's tokens.
//! A refused shell command still reads `status: "success"`: the exit code reaches the model but
//! not the event.

use std::sync::Arc;

use serde_json::Value;

use super::cli::{self, count, json_line, text, AgentCli, CliConfig, CliInfo, Flag, Readiness};
use super::{
    Can, Capabilities, Effort, Harness, HarnessEvent, Launch, LaunchError, LineMemory, Stream,
    Tokens, TurnLaunch, UsageBasis,
};

static CAPABILITIES: Capabilities = Capabilities {
    resume: Can::Yes("gemini --resume <session id>; awf chooses the id with --session-id"),
    fork: Can::No("gemini cannot copy a session headless: --resume continues the same one"),
    compact: Can::No(
        "gemini compresses its context only in its interactive session (/compress), not headless",
    ),
    set: Can::Yes("the next gemini --resume runs with the new -m (gemini takes no effort level)"),
    effort: Effort::None(
        "gemini takes no effort flag; set thinking in its settings.json (modelConfigs)",
    ),
    usage: Can::Yes("result.stats, this run's tokens"),
    shell_limit: "killed after 300 s without output",
};

pub static INFO: CliInfo = CliInfo {
    name: "gemini",
    program: "gemini",
    package: "@google/gemini-cli",
    tested: "0.61.0",
    capabilities: &CAPABILITIES,
    model_flag: Flag::Named("-m"),
    effort_flag: Flag::Absent,
    open: |config| Arc::new(Gemini { config }) as Arc<dyn Harness>,
    readiness,
    checks: cli::no_checks,
};

/// The policy file's name, in the agent's folder beside its launcher.
const POLICY_FILE: &str = "gemini-policy.toml";

/// An agent run by the Gemini CLI.
pub struct Gemini {
    config: CliConfig,
}

impl AgentCli for Gemini {
    const INFO: &'static CliInfo = &INFO;

    fn config(&self) -> &CliConfig {
        &self.config
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        let mut args: Vec<String> = vec!["--output-format".into(), "stream-json".into()];
        if turn.sandbox.is_some() {
            // Inside awf's sandbox the box is the gate: every tool call is approved.
            args.extend(["--approval-mode".into(), "yolo".into()]);
        } else {
            let policy = write_policy(turn.launcher)?;
            args.extend([
                "--approval-mode".into(),
                "default".into(),
                "--policy".into(),
                policy,
            ]);
        }
        match turn.resume {
            Some(session) => args.extend(["--resume".into(), session.to_string()]),
            None => args.extend(["--session-id".into(), cli::new_session_id()?]),
        }
        args.extend(INFO.chosen_args(&self.config));
        args.extend(["-p".into(), cli::prompt_argument(turn.prompt)?]);
        let trust = vec![("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into())];
        Ok(self.config.launch(turn, args, None, trust))
    }

    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent> {
        if stream == Stream::Stderr {
            return Vec::new();
        }
        json_line(line)
            .map(|event| read_event(&event, memory))
            .unwrap_or_default()
    }
}

/// Writes the agent's policy (once) and gives its path.
fn write_policy(launcher: &std::path::Path) -> Result<String, LaunchError> {
    let path = launcher.with_file_name(POLICY_FILE);
    if !path.is_file() {
        let prefix = launcher
            .display()
            .to_string()
            .replace('\\', "\\\\")
            .replace('"', "\\\"");
        let policy = format!(
            "# awf: this agent may run its own launcher; nothing else is widened.\n[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"{prefix}\"\nallowRedirection = true\ndecision = \"allow\"\npriority = 900\n"
        );
        std::fs::write(&path, policy).map_err(|source| LaunchError::Write {
            what: "gemini's policy file",
            path: path.clone(),
            source,
        })?;
    }
    Ok(path.display().to_string())
}

fn read_event(event: &Value, memory: &mut LineMemory) -> Vec<HarnessEvent> {
    let kind = text(event, "type");
    if kind == "message" && text(event, "role") == "assistant" {
        memory.text.push_str(text(event, "content"));
        if event["delta"] != Value::Bool(true) {
            return flush_message(memory).into_iter().collect();
        }
        return Vec::new();
    }
    // A message given in parts ends when something else comes.
    let mut events: Vec<HarnessEvent> = flush_message(memory).into_iter().collect();
    match kind {
        "init" if !text(event, "session_id").is_empty() => {
            events.push(HarnessEvent::Session(text(event, "session_id").to_string()))
        }
        "tool_use" if text(event, "tool_name") == "run_shell_command" => {
            let command = text(&event["parameters"], "command").to_string();
            memory
                .shells
                .insert(text(event, "tool_id").to_string(), command.clone());
            events.push(HarnessEvent::ShellStarted { command });
        }
        "tool_use" => events.push(HarnessEvent::ToolUsed {
            tool: text(event, "tool_name").to_string(),
            detail: event["parameters"].to_string(),
        }),
        "tool_result" => {
            if let Some(command) = memory.shells.remove(text(event, "tool_id")) {
                events.push(HarnessEvent::ShellFinished {
                    command,
                    exit_code: None,
                    output: event["output"].as_str().map(str::to_string),
                });
            }
        }
        "result" => {
            let stats = &event["stats"];
            let (input, output) = (count(stats, "input_tokens"), count(stats, "output_tokens"));
            let thoughts = count(stats, "total_tokens").saturating_sub(input + output);
            events.push(HarnessEvent::Usage {
                tokens: Tokens {
                    input_tokens: input,
                    cached_input_tokens: count(stats, "cached"),
                    output_tokens: output + thoughts,
                    reasoning_tokens: thoughts,
                },
                basis: UsageBasis::Run,
            });
            if text(event, "status") == "error" {
                let message = text(&event["error"], "message").to_string();
                events.push(HarnessEvent::Error {
                    blocked: cli::says_login_needed(&message),
                    message,
                });
            }
        }
        _ => {}
    }
    events
}

fn flush_message(memory: &mut LineMemory) -> Option<HarnessEvent> {
    let text = std::mem::take(&mut memory.text);
    (!text.trim().is_empty()).then_some(HarnessEvent::Message(text))
}

/// A key in the environment, Vertex AI, a Google login, or an auth type chosen in settings.
fn readiness() -> Readiness {
    if let Some(name) = cli::env_set(&[
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
    ]) {
        return Readiness::found(format!("{name} is set"));
    }
    let Some(home) = cli::home_dir("GEMINI_CLI_HOME", "") else {
        return Readiness::missing("no HOME or GEMINI_CLI_HOME to look for a login in");
    };
    let dir = home.join(".gemini");
    if dir.join("oauth_creds.json").is_file() {
        return Readiness::found(format!(
            "a Google login in {}",
            dir.join("oauth_creds.json").display()
        ));
    }
    Readiness::missing(format!(
        "no GEMINI_API_KEY or GOOGLE_API_KEY, and no login in {}; run `gemini` once and log in, or set GEMINI_API_KEY",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn gemini() -> Gemini {
        Gemini {
            config: CliConfig {
                program: "/usr/bin/gemini".into(),
                model: Some("gemini-2.5-flash".into()),
                effort: None,
                args: vec![],
            },
        }
    }

    #[test]
    fn launches_with_a_policy_that_allows_only_the_launcher() {
        let dir = std::env::temp_dir().join(format!("awf-gemini-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let launcher = dir.join("wfa");
        let turn = TurnLaunch {
            prompt: "Say hello.",
            resume: None,
            cwd: Path::new("/work"),
            launcher: &launcher,
            agent: "a",
            turn: "t1",
            n: 1,
            check_in: false,
            session_name: "a-a1",
            sandbox: None,
        };
        let launch = gemini().launch(&turn).unwrap();
        let policy = std::fs::read_to_string(dir.join(POLICY_FILE)).unwrap();
        assert!(
            policy.contains(&format!("commandPrefix = \"{}\"\n", launcher.display())),
            "{policy}"
        );
        assert!(policy.contains("allowRedirection = true"));
        assert!(!launch.args.iter().any(|a| a == "yolo"));
        assert_eq!(&launch.args[launch.args.len() - 2..], ["-p", "Say hello."]);
        assert!(launch.args.contains(&"--session-id".to_string()));
        let resumed = gemini()
            .launch(&TurnLaunch {
                resume: Some("d63e"),
                ..turn
            })
            .unwrap();
        assert!(resumed.args.windows(2).any(|w| w == ["--resume", "d63e"]));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reads_the_stream_gemini_prints() {
        let harness = gemini();
        let mut memory = LineMemory::default();
        let mut read = |line: &str| harness.read_line(Stream::Stdout, line, &mut memory);
        assert_eq!(
            read(r#"{"type":"init","session_id":"d63e","model":"m"}"#),
            vec![HarnessEvent::Session("d63e".into())]
        );
        assert_eq!(
            read(
                r#"{"type":"tool_use","tool_name":"run_shell_command","tool_id":"r1","parameters":{"command":"/tmp/a/wfa tool add --x '1'"}}"#
            ),
            vec![HarnessEvent::ShellStarted {
                command: "/tmp/a/wfa tool add --x '1'".into()
            }]
        );
        assert_eq!(
            read(
                r#"{"type":"tool_result","tool_id":"r1","status":"success","output":"Recorded; 1 so far."}"#
            ),
            vec![HarnessEvent::ShellFinished {
                command: "/tmp/a/wfa tool add --x '1'".into(),
                exit_code: None,
                output: Some("Recorded; 1 so far.".into())
            }]
        );
        assert_eq!(
            read(r#"{"type":"message","role":"assistant","content":"Do","delta":true}"#),
            vec![]
        );
        assert_eq!(
            read(r#"{"type":"message","role":"assistant","content":"ne.","delta":true}"#),
            vec![]
        );
        assert_eq!(
            read(
                r#"{"type":"result","status":"success","stats":{"total_tokens":4960,"input_tokens":4800,"output_tokens":128,"cached":800,"input":4000}}"#
            ),
            vec![
                HarnessEvent::Message("Done.".into()),
                HarnessEvent::Usage {
                    tokens: Tokens {
                        input_tokens: 4800,
                        cached_input_tokens: 800,
                        output_tokens: 160,
                        reasoning_tokens: 32
                    },
                    basis: UsageBasis::Run,
                },
            ]
        );
        let refused = read(
            r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":401,\"message\":\"API key not valid. Please pass a valid API key.\"}}]"},"stats":{}}"#,
        );
        assert!(
            matches!(
                refused.last(),
                Some(HarnessEvent::Error { blocked: true, .. })
            ),
            "{refused:?}"
        );
    }
}
