//! The `command` runtime: any executable as an agent, in any language.
//!
//! Each attempt runs the executable once, in the agent's cwd, with the composed prompt on stdin
//! and the turn's variables (env.rs documents them): `AWF_WFA` (the agent's launcher),
//! `AWF_TURN`, `AWF_AGENT`, `AWF_TURN_NUMBER`, `AWF_SESSION` (stable for the agent), and
//! `AWF_CHECK_IN=1` on a check-in. It answers by running `$AWF_WFA result $AWF_TURN ...`, as
//! the prompt says. Its output is kept for the records, not read: an executable has no event
//! stream. A fork of a command agent is a new agent with a new `AWF_SESSION` and
//! `AWF_FORKED_FROM` = the parent's `AWF_SESSION`: the executable copies its own state.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use super::{
    BoxFuture, Can, Capabilities, Effort, Forked, HarnessEvent, Launch, LaunchError, LineMemory,
    OpEnd, ProcessHarness, ProgramError, SessionOp, Stream, TurnLaunch,
};

/// An executable and its arguments, found when the agent opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// A fork's parent's `AWF_SESSION`, given as `AWF_FORKED_FROM`.
    pub forked_from: Option<String>,
}

pub(super) static CAPABILITIES: Capabilities = Capabilities {
    resume: Can::No(
        "an executable keeps its own state; AWF_SESSION names the agent's session for it",
    ),
    fork: Can::Yes("a new agent with its own AWF_SESSION, and AWF_FORKED_FROM naming the parent's: the executable copies its own state"),
    compact: Can::No("an executable has no context awf can compact"),
    set: Can::No("an executable has no model or effort awf can switch"),
    effort: Effort::None(
        "an executable takes no effort level; pass what it needs in runtime.command",
    ),
    usage: Can::No("an executable reports no tokens"),
    shell_limit: "none: awf starts the executable itself",
};

impl ProcessHarness for Command {
    fn name(&self) -> &'static str {
        "command"
    }

    fn describe(&self) -> Value {
        let mut described = json!({ "kind": "command", "program": self.program.display().to_string(), "args": self.args });
        if let Some(parent) = &self.forked_from {
            described["forkedFrom"] = json!(parent);
        }
        described
    }

    fn capabilities(&self) -> &'static Capabilities {
        &CAPABILITIES
    }

    fn launch(&self, turn: &TurnLaunch<'_>) -> Result<Launch, LaunchError> {
        Ok(Launch {
            program: self.program.clone(),
            args: self.args.clone(),
            cwd: turn.cwd.to_path_buf(),
            env: self
                .forked_from
                .iter()
                .map(|parent| (crate::env::AWF_FORKED_FROM.to_string(), parent.clone()))
                .collect(),
            env_remove: Vec::new(),
            stdin: Some(turn.prompt.to_string()),
            hold_stdin: false,
            container: None,
        })
    }

    fn fork<'a>(&'a self, op: SessionOp<'a>) -> BoxFuture<'a, OpEnd<Forked>> {
        let harness = Command {
            forked_from: Some(op.session_name.to_string()),
            ..self.clone()
        };
        Box::pin(async move {
            OpEnd::Done(Forked {
                harness: Arc::new(harness),
                session: None,
            })
        })
    }

    fn read_line(&self, _: Stream, _: &str, _: &mut LineMemory) -> Vec<HarnessEvent> {
        Vec::new()
    }
}

/// `./agent.sh` relative to the agent's cwd, `/abs/agent`, or a name on PATH; it must be an
/// executable file.
pub fn find_program(name: &str, cwd: &Path) -> Result<PathBuf, ProgramError> {
    let candidate = if name.contains('/') {
        Some(crate::paths::join_normalized(cwd, name))
    } else {
        find_on_path(name)
    };
    match candidate {
        Some(path) if is_executable(&path) => Ok(path),
        Some(path) if path.exists() => Err(ProgramError::NotExecutable(path)),
        Some(path) => Err(ProgramError::NoFile(path)),
        None => Err(ProgramError::NotOnPath(name.to_string())),
    }
}

/// The first executable `name` in a PATH folder.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| is_executable(p))
    })
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::test_turn;
    use crate::hint::Hint;

    #[test]
    fn the_prompt_goes_on_stdin_and_the_program_runs_in_the_agents_cwd() {
        let command = Command {
            program: "/bin/agent".into(),
            args: vec!["--fast".into()],
            forked_from: None,
        };
        let launch = command.launch(&test_turn(None)).unwrap();
        assert_eq!(launch.program, PathBuf::from("/bin/agent"));
        assert_eq!(launch.args, vec!["--fast"]);
        assert_eq!(launch.cwd, PathBuf::from("/work"));
        assert_eq!(launch.stdin.as_deref(), Some("Say hello."));
    }

    #[test]
    fn programs_are_found_or_refused_with_what_to_do() {
        assert!(find_program("sh", Path::new("/")).unwrap().ends_with("sh"));
        assert!(find_program("./no-such-agent.sh", Path::new("/"))
            .unwrap_err()
            .to_string()
            .contains("no file at /no-such-agent.sh"));
        assert!(find_program("no-such-agent-on-path", Path::new("/"))
            .unwrap_err()
            .to_string()
            .contains("not on PATH"));
        let dir = std::env::temp_dir().join(format!("awf-command-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("agent.sh"), "#!/bin/sh\n").unwrap();
        let refused = find_program("./agent.sh", &dir).unwrap_err();
        assert!(
            refused.to_string().ends_with("agent.sh is not executable"),
            "{refused}"
        );
        assert!(refused.hint().unwrap().starts_with("run `chmod +x "));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
