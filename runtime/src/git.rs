//! Running the `git` CLI (std::process::Command, never a git crate): one command in one folder,
//! its standard output on success, and why it failed otherwise (git missing, or git's own words).
//! A leaf: worktrees (`worktree/`) and skills fetched from a repository (`skills/`) both run git
//! through it. Never prompts (no terminal), and ignores a GIT_DIR etc. awf itself was run with.

use std::path::Path;
use std::process::{Command, Stdio};

/// Why a git command failed.
#[derive(Debug)]
pub(crate) enum GitFailure {
    /// `git` is not installed or not on PATH.
    Missing,
    /// git ran and refused; its standard error, trimmed.
    Refused(String),
}

impl std::fmt::Display for GitFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitFailure::Missing => f.write_str("git is not installed (or not on PATH)"),
            GitFailure::Refused(why) => f.write_str(why),
        }
    }
}

/// `git -C dir args...`, its standard output trimmed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<String, GitFailure> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .output()
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => GitFailure::Missing,
            _ => GitFailure::Refused(error.to_string()),
        })?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        Err(GitFailure::Refused(stderr))
    }
}

/// Whether `git -C dir args...` succeeds (for questions git answers by its exit code).
pub(crate) fn git_succeeds(dir: &Path, args: &[&str]) -> Result<bool, GitFailure> {
    match git(dir, args) {
        Ok(_) => Ok(true),
        Err(GitFailure::Refused(_)) => Ok(false),
        Err(GitFailure::Missing) => Err(GitFailure::Missing),
    }
}
