//! The `command` runtime: any executable as an agent, in any language.
//!
//! Each turn runs the executable once, in the agent's cwd, with the composed prompt on stdin
//! and these variables (env.rs documents them): `AWF_WFA` (the agent's launcher), `AWF_TURN`,
//! `AWF_AGENT`, `AWF_TURN_NUMBER`, `AWF_SESSION` (stable for the agent), and `AWF_CHECK_IN=1` on
//! a check-in. It answers by running `$AWF_WFA result $AWF_TURN ...`, as the prompt says.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::process::Launch;
use crate::env;

/// What a turn's process needs to know.
pub struct TurnEnv<'a> {
    pub launcher: &'a Path,
    pub turn: &'a str,
    pub agent: &'a str,
    pub turn_number: u32,
    pub session: &'a str,
    pub check_in: bool,
}

/// The process for one turn (or its check-in).
pub fn launch(
    program: &Path,
    args: &[String],
    cwd: &Path,
    extra_env: &[(String, String)],
    turn: &TurnEnv<'_>,
    prompt: String,
) -> Launch {
    let mut vars = extra_env.to_vec();
    vars.push((env::AWF_WFA.into(), turn.launcher.display().to_string()));
    vars.push((env::AWF_TURN.into(), turn.turn.to_string()));
    vars.push((env::AWF_AGENT.into(), turn.agent.to_string()));
    vars.push((env::AWF_TURN_NUMBER.into(), turn.turn_number.to_string()));
    vars.push((env::AWF_SESSION.into(), turn.session.to_string()));
    vars.push((
        env::AWF_CHECK_IN.into(),
        if turn.check_in { "1" } else { "0" }.to_string(),
    ));
    Launch {
        program: program.to_path_buf(),
        args: args.to_vec(),
        cwd: cwd.to_path_buf(),
        env: vars,
        stdin: prompt,
    }
}

/// `./agent.sh` relative to the agent's cwd, `/abs/agent`, or a name on PATH; it must be an
/// executable file.
pub fn find_program(name: &str, cwd: &Path) -> Result<PathBuf, String> {
    let candidate = if name.contains('/') {
        Some(crate::paths::join_normalized(cwd, name))
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|p| is_executable(p))
        })
    };
    match candidate {
        Some(path) if is_executable(&path) => Ok(path),
        Some(path) if path.exists() => Err(format!(
            "runtime.command: {} is not executable; run `chmod +x {}`",
            path.display(),
            path.display()
        )),
        Some(path) => Err(format!("runtime.command: no file at {}", path.display())),
        None => Err(format!("runtime.command: \"{name}\" is not on PATH")),
    }
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
