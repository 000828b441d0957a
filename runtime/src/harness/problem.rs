//! Why an agent's runtime is refused when it opens (`RuntimeError`, naming the field), why its
//! program cannot be used (`ProgramError`), and why an attempt could not be launched
//! (`LaunchError`). Each says what is wrong; `Hint` says what to do where that is not obvious.

use std::path::PathBuf;

use crate::hint::Hint;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    #[error("unknown runtime \"{name}\"; awf drives {known}")]
    UnknownName { name: String, known: String },
    /// `in_test`: the aliases are a test's (`testWorkflow({ runtimes })`), not the config files'.
    #[error("runtime.alias: unknown alias \"{name}\"; {} {known}", aliases_of(*.in_test))]
    UnknownAlias {
        name: String,
        known: String,
        in_test: bool,
    },
    #[error("runtime.{option} is not an option of an alias (it takes alias, harness, model, effort, placement, metered)")]
    AliasOption { option: String },
    #[error("runtime.harness: alias \"{alias}\" runs {runtime}, not {given}")]
    AliasHarness {
        alias: String,
        runtime: String,
        given: String,
    },
    #[error("runtime.placement \"pane\": awf runs every agent headless (a process per turn, followed in the live view); it has no terminal panes")]
    PanePlacement,
    #[error("runtime.placement must be \"headless\" (how awf runs every agent), not {0}")]
    UnknownPlacement(String),
    #[error("runtime.metered must be true or false, not {0}")]
    MeteredNotABoolean(String),
    #[error("runtime.harness must be a name ({known})")]
    HarnessNotAName { known: String },
    #[error("runtime.harness: unknown harness \"{name}\"; awf drives {known}")]
    UnknownHarness { name: String, known: String },
    #[error("runtime needs a harness or a command: {{ harness: \"codex\", model?, effort? }} ({known}), or {{ command: [\"./agent.sh\"] }}")]
    NeitherHarnessNorCommand { known: String },
    #[error("runtime must be a runtime name ({known}), {{ harness, model?, effort? }} or {{ command: [\"./agent.sh\", ...] }}")]
    NotARuntime { known: String },
    #[error("runtime.{0} is not an option of a command runtime (it takes only `command`)")]
    CommandOption(String),
    #[error("runtime.command must be an array of strings: [\"./agent.sh\", \"arg\"]")]
    CommandNotArray,
    #[error("runtime.command holds {0}, but every item must be a string")]
    CommandItem(String),
    #[error("runtime.command is empty; name the executable first: [\"./agent.sh\"]")]
    CommandEmpty,
    #[error("runtime.{option} is not an option of the {cli} runtime (it takes harness, model, effort, args)")]
    CliOption { cli: &'static str, option: String },
    #[error("runtime.{field} must be a non-empty string, not {value}")]
    NotAWord { field: &'static str, value: String },
    #[error("runtime.effort: \"{level}\" is not an effort level of {cli} (it has {})", .levels.join(", "))]
    NotAnEffortLevel {
        cli: &'static str,
        level: String,
        levels: &'static [&'static str],
    },
    #[error("runtime.effort: {cli} has no effort levels: {why}")]
    NoEffortLevels {
        cli: &'static str,
        why: &'static str,
    },
    #[error("runtime.args holds {0}, but every item must be a string")]
    ArgsItem(String),
    #[error("runtime.args must be an array of strings, not {0}")]
    ArgsNotArray(String),
    #[error("runtime: {cli} is not installed (no `{program}` on PATH)")]
    NotInstalled {
        cli: &'static str,
        program: &'static str,
        install: String,
    },
    #[error(transparent)]
    Program(#[from] ProgramError),
    #[error("the {harness} runtime cannot change its settings: {why}")]
    CannotSet {
        harness: &'static str,
        why: &'static str,
    },
}

/// Where an unknown alias was looked for, as the error says it.
fn aliases_of(in_test: bool) -> &'static str {
    if in_test {
        "the project's ./.awf/config.json and testWorkflow's runtimes option have"
    } else {
        "the config files have"
    }
}

impl Hint for RuntimeError {
    fn hint(&self) -> Option<String> {
        match self {
            RuntimeError::UnknownAlias {
                name,
                in_test: true,
                ..
            } => Some(format!(
                "define it in the project's ./.awf/config.json, or give it in testWorkflow's runtimes option: {{ runtimes: {{ \"{name}\": {{ runtime: \"claude\", model: \"haiku\" }} }} }} (a test never reads your own ~/.config/awf/config.json)"
            )),
            RuntimeError::UnknownAlias { name, .. } => Some(format!(
                "define it in ~/.config/awf/config.json or ./.awf/config.json: {{ \"runtimes\": {{ \"{name}\": {{ \"runtime\": \"claude\", \"model\": \"haiku\" }} }} }}; `awf doctor` lists the aliases"
            )),
            RuntimeError::UnknownName { name, .. } => Some(format!(
                "an alias is defined in ./.awf/config.json: {{ \"runtimes\": {{ \"{name}\": {{ \"runtime\": \"claude\" }} }} }}; an executable of your own is runtime: {{ command: [\"./agent.sh\"] }}; or map the name with `awf run --runtime {name}=<command>`"
            )),
            RuntimeError::NotInstalled { cli, install, .. } => Some(format!(
                "install the version awf is tested with: `{install}`; or run this workflow with `--runtime {cli}=<command>`"
            )),
            RuntimeError::Program(e) => e.hint(),
            RuntimeError::PanePlacement => Some(
                "write placement: \"headless\" or leave it out; `awf run` shows each agent's turns in its live view, and `awf logs --follow` follows them from another terminal"
                    .into(),
            ),
            RuntimeError::CannotSet { .. } => Some(
                "open another agent with the runtime you want (its own key), and give it the work"
                    .into(),
            ),
            _ => None,
        }
    }
}

/// Why `runtime.command`'s program cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    #[error("runtime.command: {} is not executable", .0.display())]
    NotExecutable(PathBuf),
    #[error("runtime.command: no file at {}", .0.display())]
    NoFile(PathBuf),
    #[error("runtime.command: \"{0}\" is not on PATH")]
    NotOnPath(String),
}

impl Hint for ProgramError {
    fn hint(&self) -> Option<String> {
        match self {
            ProgramError::NotExecutable(path) => Some(format!("run `chmod +x {}`", path.display())),
            ProgramError::NoFile(_) => Some(
                "a relative path is taken from the agent's cwd (the run's cwd unless the spec gives one); `${import.meta.dirname}/agent.sh` names a file beside the workflow"
                    .into(),
            ),
            ProgramError::NotOnPath(_) => None,
        }
    }
}

/// Why an attempt's process could not be launched.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("the turn's prompt is {bytes} bytes; this CLI takes its prompt as one argument, which Linux limits to {max} bytes: shorten the prompt (or its schema), or hand the agent a file to read")]
    PromptTooLong { bytes: usize, max: usize },
    #[error("cannot make a session id: {0}")]
    SessionId(String),
    #[error("cannot write {what} {}: {source}", .path.display())]
    Write {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is set but is not a JSON object; awf adds a rule to it so that the agent may run its launcher, so give it as JSON (or unset it)")]
    InlineConfigNotJson(&'static str),
    #[error("{0}: permission must be an object for awf to add the launcher's rule to it")]
    InlineConfigPermission(&'static str),
}
