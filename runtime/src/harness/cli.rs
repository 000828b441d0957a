//! What the five agent-CLI harnesses share: what an agent spec chose for its CLI (`CliConfig`),
//! the facts awf keeps about each CLI (`CliInfo`: its program, its npm package, the version the
//! live tests run, what it can do, how its command line names a model and an effort level), the
//! part of a harness every CLI writes alike (`AgentCli`: its name, record, capabilities and
//! settings come from its `CliInfo`), and small readers of their JSON lines.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use super::attempt::default_end;
use super::{
    cannot, AttemptEnd, BoxFuture, Capabilities, Compacted, Effort, Forked, Harness, HarnessEvent,
    Launch, LaunchError, LineMemory, OpEnd, ProcessExit, ProcessHarness, RuntimeError, SessionOp,
    Settings, Stream, TurnLaunch,
};

/// What an agent spec chose for an agent CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliConfig {
    /// The CLI's executable, found on PATH when the agent opened.
    pub program: PathBuf,
    pub model: Option<String>,
    pub effort: Option<String>,
    /// `runtime.args`: more arguments for every run of the CLI, before awf's own.
    pub args: Vec<String>,
}

impl CliConfig {
    /// The CLI's process for a turn: its program with `args`, in the agent's cwd, given `stdin`
    /// (the prompt, for a CLI that reads it there) and `env` beside what it inherits.
    pub fn launch(
        &self,
        turn: &TurnLaunch<'_>,
        args: Vec<String>,
        stdin: Option<String>,
        env: Vec<(String, String)>,
    ) -> Launch {
        Launch {
            program: self.program.clone(),
            args,
            cwd: turn.cwd.to_path_buf(),
            env,
            env_remove: Vec::new(),
            stdin,
            hold_stdin: false,
            container: None,
        }
    }

    /// What records say about the agent's runtime.
    pub fn describe(&self, harness: &str) -> Value {
        let mut described = json!({
            "kind": harness,
            "program": self.program.display().to_string(),
        });
        if let Some(model) = &self.model {
            described["model"] = json!(model);
        }
        if let Some(effort) = &self.effort {
            described["effort"] = json!(effort);
        }
        if !self.args.is_empty() {
            described["args"] = json!(self.args);
        }
        described
    }
}

/// What awf knows about one agent CLI.
pub struct CliInfo {
    /// The runtime name (`runtime: "codex"`).
    pub name: &'static str,
    /// The executable looked up on PATH.
    pub program: &'static str,
    /// The npm package it comes in.
    pub package: &'static str,
    /// The version awf's live tests run: known to work.
    pub tested: &'static str,
    pub capabilities: &'static Capabilities,
    /// How its command line is given the model (`-m`, `--model`) and the effort level.
    pub model_flag: Flag,
    pub effort_flag: Flag,
    /// The harness for an agent of this CLI.
    pub open: fn(CliConfig) -> Arc<dyn Harness>,
    /// Whether the CLI looks able to reach a model (a login or an endpoint), without a call.
    pub readiness: fn() -> Readiness,
    /// What else `awf doctor` checks, given the installed program.
    pub checks: fn(&Path) -> Vec<Check>,
}

impl CliInfo {
    /// How to install the tested version.
    pub fn install_hint(&self) -> String {
        format!("npm install -g {}@{}", self.package, self.tested)
    }

    /// The arguments that give the CLI the model `config` chose; none when it chose none.
    pub fn model_args(&self, config: &CliConfig) -> Vec<String> {
        self.model_flag.args(config.model.as_deref())
    }

    /// The arguments that give the CLI the effort level `config` chose; none when it chose none.
    pub fn effort_args(&self, config: &CliConfig) -> Vec<String> {
        self.effort_flag.args(config.effort.as_deref())
    }

    /// A fork into `session`: a new agent of this CLI with the same settings.
    pub fn forked(&self, config: &CliConfig, session: String) -> Forked {
        Forked {
            harness: (self.open)(config.clone()),
            session: Some(session),
        }
    }

    /// All `config` chose, as the CLI's arguments: the model, the effort level, `runtime.args`.
    pub fn chosen_args(&self, config: &CliConfig) -> Vec<String> {
        let mut args = self.model_args(config);
        args.extend(self.effort_args(config));
        args.extend(config.args.iter().cloned());
        args
    }
}

/// How a CLI's command line is given a value an agent's spec chose (a model, an effort level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// `<flag> <value>`: `--model sonnet`.
    Named(&'static str),
    /// A config override, `-c <key>="<value>"` (codex's `model_reasoning_effort`).
    Setting(&'static str),
    /// The CLI is given none (gemini's effort level: its `Capabilities::effort` says why).
    Absent,
}

impl Flag {
    /// The arguments that give `value`; none without one.
    fn args(self, value: Option<&str>) -> Vec<String> {
        match (self, value) {
            (Flag::Named(flag), Some(value)) => vec![flag.to_string(), value.to_string()],
            (Flag::Setting(key), Some(value)) => vec!["-c".into(), format!("{key}=\"{value}\"")],
            (Flag::Absent, _) | (_, None) => Vec::new(),
        }
    }
}

/// An agent CLI's own part of its harness: how a turn becomes its process, what its lines say,
/// how its end reads, and its session operations. The rest is the same for the five and written
/// once, by `ProcessHarness for T` below: the harness's name, what records say of it and what it
/// can do come from `INFO`, and new settings reopen the CLI with them (`reconfigure`).
pub trait AgentCli: Send + Sync {
    /// What awf knows about the CLI.
    const INFO: &'static CliInfo;
    /// What the agent's spec chose.
    fn config(&self) -> &CliConfig;
    /// As `ProcessHarness::launch`.
    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError>;
    /// As `ProcessHarness::read_line`.
    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent>;
    /// As `ProcessHarness::ended`.
    fn ended(&self, exit: &ProcessExit<'_>) -> AttemptEnd {
        default_end(exit)
    }
    /// As `ProcessHarness::hopeless`.
    fn hopeless(&self, event: &HarnessEvent) -> bool {
        let _ = event;
        false
    }
    /// As `ProcessHarness::fork`; by default the CLI cannot, for the reason its `INFO` gives.
    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        let _ = op;
        cannot(Self::INFO.capabilities.fork)
    }
    /// As `ProcessHarness::compact`; by default the CLI cannot, for the reason its `INFO` gives.
    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        let _ = (op, focus);
        cannot(Self::INFO.capabilities.compact)
    }
}

impl<T: AgentCli> ProcessHarness for T {
    fn name(&self) -> &'static str {
        T::INFO.name
    }

    fn describe(&self) -> Value {
        self.config().describe(T::INFO.name)
    }

    fn capabilities(&self) -> &'static Capabilities {
        T::INFO.capabilities
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        AgentCli::launch(self, turn)
    }

    fn read_line(&self, stream: Stream, line: &str, memory: &mut LineMemory) -> Vec<HarnessEvent> {
        AgentCli::read_line(self, stream, line, memory)
    }

    fn ended(&self, exit: &ProcessExit<'_>) -> AttemptEnd {
        AgentCli::ended(self, exit)
    }

    fn hopeless(&self, event: &HarnessEvent) -> bool {
        AgentCli::hopeless(self, event)
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        AgentCli::fork(self, op)
    }

    fn compact<'a>(&'a self, op: SessionOp<'a>, focus: &'a str) -> BoxFuture<'a, OpEnd<Compacted>> {
        AgentCli::compact(self, op, focus)
    }

    fn reconfigure(&self, settings: &Settings) -> Result<Arc<dyn Harness>, RuntimeError> {
        reconfigure(T::INFO, self.config(), settings)
    }
}

/// Whether `level` is an effort level of the CLI (at open, and for `agent.set`).
pub fn check_effort(info: &CliInfo, level: &str) -> Result<(), RuntimeError> {
    match info.capabilities.effort {
        Effort::Levels(levels) if !levels.contains(&level) => Err(RuntimeError::NotAnEffortLevel {
            cli: info.name,
            level: level.to_string(),
            levels,
        }),
        Effort::None(why) => Err(RuntimeError::NoEffortLevels {
            cli: info.name,
            why,
        }),
        _ => Ok(()),
    }
}

/// The CLI's harness with `settings` over `config`'s, for the agent's later turns (`agent.set`):
/// the next run of the CLI resumes the same session with the new `--model` or effort.
pub fn reconfigure(
    info: &CliInfo,
    config: &CliConfig,
    settings: &Settings,
) -> Result<Arc<dyn Harness>, RuntimeError> {
    if let Some(level) = &settings.effort {
        check_effort(info, level)?;
    }
    let mut config = config.clone();
    if let Some(model) = &settings.model {
        config.model = Some(model.clone());
    }
    if let Some(effort) = &settings.effort {
        config.effort = Some(effort.clone());
    }
    Ok((info.open)(config))
}

/// What `awf doctor` can tell about a CLI's access to a model without calling one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Readiness {
    pub ready: bool,
    /// What was found (or not), in words.
    pub how: String,
}

impl Readiness {
    pub fn found(how: impl Into<String>) -> Readiness {
        Readiness {
            ready: true,
            how: how.into(),
        }
    }

    pub fn missing(how: impl Into<String>) -> Readiness {
        Readiness {
            ready: false,
            how: how.into(),
        }
    }
}

/// One more thing `awf doctor` looks at for a CLI, besides its version and model access (codex:
/// the model it will ask for, its sandbox): what was found, and what to do when it is not right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// What is looked at (`model`, `sandbox`).
    pub name: &'static str,
    pub ok: bool,
    pub said: String,
    pub hint: Option<String>,
}

impl Check {
    pub fn ok(name: &'static str, said: String) -> Check {
        Check {
            name,
            ok: true,
            said,
            hint: None,
        }
    }

    pub fn failed(name: &'static str, said: String, hint: Option<String>) -> Check {
        Check {
            name,
            ok: false,
            said,
            hint,
        }
    }
}

/// For a CLI with nothing more to check.
pub fn no_checks(_: &Path) -> Vec<Check> {
    Vec::new()
}

/// The first of `names` set (non-empty) in the environment.
pub fn env_set(names: &[&'static str]) -> Option<&'static str> {
    names
        .iter()
        .copied()
        .find(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()))
}

/// A folder under the home folder, or the override a variable gives.
pub fn home_dir(variable: &str, default: &str) -> Option<PathBuf> {
    match std::env::var_os(variable) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(default)),
    }
}

/// A random UUID (version 4), as `--session-id` takes it.
pub fn new_session_id() -> Result<String, LaunchError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| LaunchError::SessionId(e.to_string()))?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// Longest prompt a CLI can be given as one argument: Linux takes at most 128 KiB per argument
/// (`MAX_ARG_STRLEN`, its final NUL included).
const MAX_PROMPT_ARGUMENT_BYTES: usize = 128 * 1024 - 1;

/// The prompt as a command-line argument, for a CLI that takes it only that way.
pub fn prompt_argument(prompt: &str) -> Result<String, LaunchError> {
    if prompt.len() > MAX_PROMPT_ARGUMENT_BYTES {
        return Err(LaunchError::PromptTooLong {
            bytes: prompt.len(),
            max: MAX_PROMPT_ARGUMENT_BYTES,
        });
    }
    Ok(prompt.to_string())
}

/// A line of a CLI's JSON stream; `None` for anything else (a warning, a blank line).
pub fn json_line(line: &str) -> Option<Value> {
    let line = line.trim();
    if !line.starts_with('{') {
        return None;
    }
    serde_json::from_str(line).ok()
}

/// A field as text, `""` when absent.
pub fn text<'a>(value: &'a Value, name: &str) -> &'a str {
    value.get(name).and_then(Value::as_str).unwrap_or("")
}

/// A field as a count, 0 when absent.
pub fn count(value: &Value, name: &str) -> u64 {
    value.get(name).and_then(Value::as_u64).unwrap_or(0)
}

/// Whether an error's words say the CLI has no (valid) login or key: a person must fix that,
/// so the turn is `blocked`, not `failed`.
pub fn says_login_needed(message: &str) -> bool {
    let lower = message.to_lowercase();
    [
        "401 unauthorized",
        "status 401",
        "status code 401",
        "\"code\":401",
        "403 forbidden",
        "unauthorized",
        "invalid api key",
        "incorrect api key",
        "invalid x-api-key",
        "api key not valid",
        "authentication",
        "not logged in",
        "please run /login",
        "login required",
        "no api key",
        "missing api key",
    ]
    .iter()
    .any(|sign| lower.contains(sign))
}

/// The command inside a shell wrapper the CLI reports (`/bin/bash -c "..."`, `bash -lc '...'`),
/// as the agent wrote it; anything else as it is.
pub fn unwrap_shell(command: &str) -> String {
    for prefix in [
        "/bin/bash -c ",
        "/bin/bash -lc ",
        "bash -c ",
        "bash -lc ",
        "/bin/sh -c ",
        "sh -c ",
    ] {
        if let Some(rest) = command.strip_prefix(prefix) {
            if let Some(inner) = unquote(rest) {
                return inner;
            }
        }
    }
    command.to_string()
}

/// A whole shell word in single or double quotes, unquoted; `None` if `word` is not one.
fn unquote(word: &str) -> Option<String> {
    let mut chars = word.chars();
    let quote = chars.next()?;
    if quote != '"' && quote != '\'' || !word.ends_with(quote) || word.len() < 2 {
        return None;
    }
    let inner = &word[1..word.len() - 1];
    if quote == '\'' {
        return (!inner.contains('\'')).then(|| inner.to_string());
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next @ ('"' | '\\' | '$' | '`')) => out.push(next),
                Some('\n') => {}
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            },
            '"' => return None,
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_wrappers_come_off() {
        assert_eq!(
            unwrap_shell("/bin/bash -c \"/tmp/a/wfa tool add --x '1'\""),
            "/tmp/a/wfa tool add --x '1'"
        );
        assert_eq!(
            unwrap_shell(
                "/bin/bash -c \"/tmp/a/wfa result t2 <<'WF_JSON'\n{\\\"a\\\": 1}\nWF_JSON\""
            ),
            "/tmp/a/wfa result t2 <<'WF_JSON'\n{\"a\": 1}\nWF_JSON"
        );
        assert_eq!(unwrap_shell("/bin/bash -lc 'ls -la'"), "ls -la");
        assert_eq!(unwrap_shell("ls -la"), "ls -la");
        assert_eq!(
            unwrap_shell("/bin/bash -c \"a\" \"b\""),
            "/bin/bash -c \"a\" \"b\""
        );
    }

    #[test]
    fn login_problems_are_told_from_other_errors() {
        assert!(says_login_needed(
            "unexpected status 401 Unauthorized: Incorrect API key provided"
        ));
        assert!(says_login_needed("Invalid API key · Please run /login"));
        assert!(!says_login_needed("stream disconnected before completion"));
        assert!(!says_login_needed("no rollout found for thread id 3882"));
    }

    #[test]
    fn session_ids_are_version_4_uuids() {
        let id = new_session_id().unwrap();
        assert_eq!(id.len(), 36);
        assert_eq!(id.matches('-').count(), 4);
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
        assert_ne!(id, new_session_id().unwrap());
    }

    #[test]
    fn a_prompt_too_long_for_one_argument_is_refused() {
        assert_eq!(prompt_argument("hi").unwrap(), "hi");
        let long = "x".repeat(MAX_PROMPT_ARGUMENT_BYTES + 1);
        assert!(prompt_argument(&long)
            .unwrap_err()
            .to_string()
            .contains("which Linux limits to 131071 bytes"));
    }

    #[test]
    fn json_lines_and_their_fields() {
        assert!(json_line("Reading additional input from stdin...").is_none());
        let line = json_line(" {\"type\":\"x\",\"n\":3} ").unwrap();
        assert_eq!(text(&line, "type"), "x");
        assert_eq!(count(&line, "n"), 3);
        assert_eq!(count(&line, "missing"), 0);
    }
}
