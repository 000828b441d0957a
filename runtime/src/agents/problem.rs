//! Why `wf.agents.open(spec)` is refused (`OpenError`): the spec's own fields, its runtime and
//! tools (their own errors, named with the agent), a reopen that differs, and what awf could not
//! set up for the agent (its folder, launcher, socket). Each names the agent and the field.

use std::path::PathBuf;

use crate::channel::launcher::WfaNotFound;
use crate::harness::RuntimeError;
use crate::hint::Hint;
use crate::tools::ToolSetError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("wf.agents.open(spec): spec must be an object with key and runtime")]
    NotAnObject,
    /// Its hint names the closest option and lists them all (`spec::OPEN_OPTIONS`).
    #[error("wf.agents.open(spec): unknown option `{0}`")]
    UnknownOption(String),
    #[error("wf.agents.open(spec): agent \"{0}\": labels must be a JSON object")]
    NotLabels(String),
    /// `{0}` is the key as JSON.
    #[error("wf.agents.open(spec): key {0} is not a valid agent key; use 1 to 64 letters, digits, '.', '_', ':' or '-'")]
    BadKey(String),
    #[error("wf.agents.open(spec): key is missing; name the agent, e.g. key: \"reviewer\"")]
    NoKey,
    #[error("wf.agents.open(spec): agent \"{0}\" has no runtime; give runtime: {{ command: [\"./agent.sh\"] }}")]
    NoRuntime(String),
    #[error("wf.agents.open(spec): agent \"{key}\": {field} must be a string")]
    NotText { key: String, field: &'static str },
    #[error("wf.agents.open(spec): agent \"{key}\": {field} must be true or false")]
    NotBoolean { key: String, field: &'static str },
    #[error("wf.agents.open(spec): agent \"{key}\": {problem}")]
    Env { key: String, problem: EnvProblem },
    #[error("agent \"{key}\": {source}")]
    Tools { key: String, source: ToolSetError },
    #[error("agent \"{key}\": {source}")]
    Runtime { key: String, source: RuntimeError },
    #[error("agent \"{key}\": cwd {} is not a directory", .path.display())]
    Cwd { key: String, path: PathBuf },
    #[error("agent \"{key}\" is already open with a different {field} ({then} then, {now} now); open it with the same spec, or use another key")]
    Reopened {
        key: String,
        field: &'static str,
        then: String,
        now: String,
    },
    #[error("agent \"{0}\" was closed; open a new agent under another key")]
    Closed(String),
    /// `reason` is `" (why)"` or empty.
    #[error("agent \"{key}\" was stopped by wf.agents.stop{reason}; its key cannot be opened again in this run")]
    Stopped { key: String, reason: String },
    #[error("cannot create the run's control folder under /tmp: {0}")]
    ControlFolder(String),
    #[error("cannot {what} of agent \"{key}\": {error}")]
    Setup {
        key: String,
        what: &'static str,
        error: String,
    },
    #[error(transparent)]
    Wfa(#[from] WfaNotFound),
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
    /// A skill named in `skills` cannot be given to the agent.
    #[error("wf.agents.open(spec): agent \"{key}\": {source}")]
    Skills {
        key: String,
        source: Box<crate::skills::SkillError>,
    },
    /// The agent's runtime has no folder its skills could go in.
    #[error("wf.agents.open(spec): agent \"{key}\": skills need a runtime that reads skills (codex, claude, pi, gemini, opencode); {runtime} has none")]
    NoSkillsFolder { key: String, runtime: String },
    #[error(transparent)]
    Worktree(#[from] crate::worktree::WorktreeError),
    #[error("wf.agents.open(spec): agent \"{key}\": budget {problem}")]
    Budget { key: String, problem: String },
    #[error("agent.fork({{ key }}): an agent \"{0}\" is already open in this run")]
    ForkKeyTaken(String),
}

impl Hint for OpenError {
    fn hint(&self) -> Option<String> {
        match self {
            OpenError::Runtime { source, .. } => source.hint(),
            OpenError::Wfa(missing) => missing.hint(),
            OpenError::Worktree(problem) => problem.hint(),
            OpenError::Sandbox(problem) => problem.hint(),
            OpenError::Skills { source, .. } => source.hint(),
            OpenError::NoSkillsFolder { .. } => Some(
                "open the agent with an agent CLI as its runtime, or leave skills out and name the \
                 skill's folder in its instructions"
                    .into(),
            ),
            OpenError::UnknownOption(option) => {
                let options = super::spec::OPEN_OPTIONS;
                let listed = format!("it takes {}", options.join(", "));
                Some(match crate::hint::closest(option, options) {
                    Some(closest) => format!("did you mean `{closest}`? {listed}"),
                    None => listed,
                })
            }
            OpenError::NotLabels(_) => {
                Some("give labels as an object, e.g. labels: { team: \"review\" }".into())
            }
            OpenError::Stopped { .. } => {
                Some("open a new agent under another key, e.g. \"<key>-2\"".into())
            }
            OpenError::Budget { .. } => Some(
                "give the most the agent may spend, e.g. budget: { tokens: 200000 } or { usd: 5 }"
                    .into(),
            ),
            OpenError::ForkKeyTaken(_) => {
                Some("give the fork a key of its own, e.g. \"<parent>:fork-1\"".into())
            }
            _ => None,
        }
    }
}

/// What is wrong with an agent spec's `env`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvProblem {
    #[error("env must be an object of strings (with inherit and withhold, if given)")]
    NotAnObject,
    #[error("env.{0} must be a list of variable names, e.g. [\"GITHUB_TOKEN\", \"AWS_*\"]")]
    NotAList(String),
    #[error("env.{field}: {name} is not a variable name or a PREFIX* pattern")]
    NotAName { field: String, name: String },
    #[error("env.inherit must be true, false or a list of variable names")]
    BadInherit,
    #[error("env.{0} must be a string")]
    NotText(String),
}
