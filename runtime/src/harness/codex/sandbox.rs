//! codex's own Linux sandbox (bubblewrap, then seccomp and Landlock) as awf meets it: the
//! settings awf starts every codex process with (`SANDBOX`), the words codex reports when its
//! sandbox cannot run a command, which end the turn `blocked` rather than leave it to look
//! unanswered, the hint awf adds to them, and the check `awf doctor` runs (codex's own `codex
//! sandbox -- true`, with those settings).
//!
//! Why it fails (reference/harnesses.md; openai/codex issues 15982, 23468, 46246):
//! - `bwrap: execvp codex-linux-sandbox: No such file or directory`: codex runs each command as
//!   `bwrap ... codex-linux-sandbox ...`. With its bundled bwrap it names itself by `--argv0`; a
//!   system bubblewrap older than 0.9 (Debian 12's 0.8.0) has no `--argv0`, so codex finds the
//!   helper on PATH, in `$CODEX_HOME/tmp/arg0/`, which it makes as it starts, but never when
//!   CODEX_HOME is under the temp dir ("Refusing to create helper binaries under temporary dir").
//! - `bwrap: No permissions to create a new namespace`, `bwrap: loopback: Failed RTM_NEWADDR`,
//!   `bwrap: Failed to make / slave`: a container without user namespaces or capabilities.
//! - Landlock or seccomp refused by the kernel.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::harness::cli::Check;
use crate::harness::probe::run_bounded;

/// What every codex process awf starts is configured with: no login shell, a workspace-write
/// sandbox with the network (exec turns, the app-server of forks and compactions, and the check).
pub const SANDBOX: [&str; 6] = [
    "-c",
    "allow_login_shell=false",
    "-c",
    "sandbox_mode=\"workspace-write\"",
    "-c",
    "sandbox_workspace_write.network_access=true",
];

/// What a codex process inside an awf sandbox is configured with instead: awf's box is the
/// gate, so codex's own sandbox is off (no nested bwrap) and it never asks for approval.
pub const IN_AWF_SANDBOX: [&str; 6] = [
    "-c",
    "allow_login_shell=false",
    "-c",
    "sandbox_mode=\"danger-full-access\"",
    "-c",
    "approval_policy=\"never\"",
];

/// The gate settings of a codex process: its own sandbox, or none inside awf's (`confined`).
pub fn gate(confined: bool) -> [&'static str; 6] {
    if confined {
        IN_AWF_SANDBOX
    } else {
        SANDBOX
    }
}

/// What codex prints (on stderr) when CODEX_HOME is under the temp dir.
const HOME_UNDER_TEMP: &str = "Refusing to create helper binaries under temporary dir";

/// The line of a command's output that says codex's sandbox could not run it, if one does.
pub fn refusal(output: &str) -> Option<&str> {
    output.lines().map(str::trim).find(|line| {
        line.starts_with("bwrap: ")
            || line.contains("codex-linux-sandbox")
            || line.contains("panicked at linux-sandbox/")
            || line.contains("error running landlock")
            || line.contains("Landlock was not able to fully enforce")
            || line.contains("seccomp setup error")
            || line.contains("seccomp backend error")
    })
}

/// How the detail of a turn whose command codex's sandbox refused begins.
const REFUSED: &str = "codex's sandbox could not run";

/// The detail of a turn whose command codex's sandbox refused (`None`: codex did not say which):
/// codex's words, then what to do.
pub fn refused(command: Option<&str>, words: &str) -> String {
    let what = match command {
        Some(command) => format!("the agent's command `{command}`"),
        None => "the agent's commands".to_string(),
    };
    format!("{REFUSED} {what}: {words}; hint: {}", hint(words, ""))
}

/// Whether an error's message is one `refused` wrote.
pub fn is_refusal(message: &str) -> bool {
    message.starts_with(REFUSED)
}

/// What to do about a sandbox that fails with `words`, codex's `stderr` as it started beside them.
fn hint(words: &str, stderr: &str) -> String {
    let general = "codex runs every command of the agent (wfa too) in its own sandbox, which \
                   does not work here; `awf doctor` runs codex's own check (`codex sandbox -- \
                   true`)";
    if stderr.contains(HOME_UNDER_TEMP) || words.contains("codex-linux-sandbox") {
        format!(
            "{general}. codex makes its codex-linux-sandbox helper in $CODEX_HOME/tmp/, and never \
             under the temp dir (/tmp): set CODEX_HOME to a folder outside it"
        )
    } else if words.starts_with("bwrap: ") {
        format!(
            "{general}. bubblewrap cannot make its namespaces here (a container without user \
             namespaces): let it (see codex's sandboxing prerequisites), or run awf where it can"
        )
    } else {
        general.to_string()
    }
}

/// `awf doctor`'s check: `codex sandbox -- true`, with the settings every agent gets, in the
/// current folder and environment (so CODEX_HOME and the PATH's bubblewrap are the user's).
pub fn check(program: &Path) -> Check {
    match run_check(program, &[]) {
        Err(why) => Check::failed("sandbox", why, None),
        Ok(None) => Check::ok("sandbox", "works (`codex sandbox -- true` ran)".to_string()),
        Ok(Some((words, stderr))) => Check::failed(
            "sandbox",
            format!("refuses commands: `codex sandbox -- true` failed: {words}"),
            Some(hint(&words, &stderr)),
        ),
    }
}

/// `codex sandbox -- true` with `env` set: `None` when it ran, else codex's words and stderr.
fn run_check(program: &Path, env: &[(&str, &str)]) -> Result<Option<(String, String)>, String> {
    let mut args: Vec<&str> = vec!["sandbox"];
    args.extend(SANDBOX);
    args.extend(["--", "true"]);
    let ran = run_bounded(program, &args, env)?;
    if ran.status.success() {
        return Ok(None);
    }
    let said = format!("{}\n{}", ran.stdout, ran.stderr);
    let words = refusal(&said)
        .or_else(|| said.lines().map(str::trim).rfind(|l| !l.is_empty()))
        .unwrap_or("it printed nothing")
        .to_string();
    Ok(Some((words, ran.stderr)))
}

/// What codex's check said of each program and CODEX_HOME, so a run asks once.
static CHECKED: Mutex<Vec<(PathBuf, String, Option<String>)>> = Mutex::new(Vec::new());

/// The detail that blocks a turn from its start, when codex warns on stderr that CODEX_HOME is
/// under the temp dir and its own check then fails: codex reports no item for a command its
/// sandbox cannot start, so its words would otherwise never reach awf (the turn would look
/// unanswered). A bubblewrap that can run codex by `--argv0` (its bundled one) needs no helper,
/// so the warning alone is not a refusal: codex's check, run once per program and home, says.
pub fn refused_at_start(program: &Path, stderr_line: &str) -> Option<String> {
    if !stderr_line.contains(HOME_UNDER_TEMP) {
        return None;
    }
    let home = codex_home_in(stderr_line)?;
    let mut checked = CHECKED.lock().ok()?;
    let known = checked
        .iter()
        .find(|(p, h, _)| p == program && *h == home)
        .map(|(_, _, said)| said.clone());
    let said = match known {
        Some(said) => said,
        None => {
            let said = run_check(program, &[("CODEX_HOME", &home)])
                .ok()
                .flatten()
                .map(|(words, _)| words);
            checked.push((program.to_path_buf(), home, said.clone()));
            said
        }
    };
    said.map(|words| {
        format!(
            "{REFUSED} the agent's commands (`codex sandbox -- true` failed): {words}; hint: {}",
            hint(&words, HOME_UNDER_TEMP)
        )
    })
}

/// The CODEX_HOME codex's warning names: `(codex_home: AbsolutePathBuf("/tmp/x"))`.
fn codex_home_in(line: &str) -> Option<String> {
    let after = line.split("codex_home: ").nth(1)?;
    let quoted = after.split('"').nth(1)?;
    Some(quoted.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_refusals_are_told_from_failing_commands() {
        assert_eq!(
            refusal("bwrap: execvp codex-linux-sandbox: No such file or directory\n"),
            Some("bwrap: execvp codex-linux-sandbox: No such file or directory")
        );
        assert_eq!(
            refusal("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted"),
            Some("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted")
        );
        assert!(refusal("error running landlock: Sandbox(LandlockRestrict)").is_some());
        assert!(
            refusal("thread 'main' panicked at linux-sandbox/src/linux_run_main.rs:1361:5:")
                .is_some()
        );
        assert_eq!(refusal("wfa: add: refused (invalid-input)\n"), None);
        assert_eq!(refusal("grep: bwrap.c: No such file or directory"), None);
    }

    #[test]
    fn the_home_codex_warns_about_is_read_from_its_warning() {
        assert_eq!(
            codex_home_in("WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir \"/tmp\" (codex_home: AbsolutePathBuf(\"/tmp/x/codex-home\"))"),
            Some("/tmp/x/codex-home".to_string())
        );
        assert_eq!(
            refused_at_start(Path::new("/no/codex"), "Reading prompt from stdin..."),
            None
        );
    }

    #[test]
    fn the_detail_gives_codexs_words_and_what_to_do() {
        let detail = refused(
            Some("/tmp/a/wfa tool add --x '1'"),
            "bwrap: execvp codex-linux-sandbox: No such file or directory",
        );
        assert!(detail.starts_with(
            "codex's sandbox could not run the agent's command `/tmp/a/wfa tool add --x '1'`: bwrap: execvp codex-linux-sandbox: No such file or directory; hint: "
        ), "{detail}");
        assert!(
            detail.contains("set CODEX_HOME to a folder outside it"),
            "{detail}"
        );
        assert!(is_refusal(&detail));
        assert!(!is_refusal("unexpected status 401 Unauthorized"));
        let namespaces = refused(None, "bwrap: No permissions to create a new namespace");
        assert!(namespaces.contains("user namespaces"), "{namespaces}");
    }
}
