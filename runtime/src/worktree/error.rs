//! Why an agent's worktree cannot be made (`WorktreeError`): each names the path or ref and says
//! what to do.

use std::path::PathBuf;

use crate::hint::Hint;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorktreeError {
    #[error("{place}: {why}")]
    BadSpec { place: String, why: String },
    #[error(
        "agent \"{key}\": workspace.worktree needs git, which is not installed or not on PATH"
    )]
    GitMissing { key: String },
    #[error("agent \"{key}\": workspace.worktree: cwd {} is not inside a git repository", .cwd.display())]
    NotARepo { key: String, cwd: PathBuf },
    #[error("agent \"{key}\": workspace.worktree: the repository at {} has uncommitted changes ({count} paths), and a worktree made from HEAD would not hold them", .repo.display())]
    Dirty {
        key: String,
        repo: PathBuf,
        count: usize,
    },
    #[error("agent \"{key}\": workspace.worktree.from {from:?} is not a commit in {}", .repo.display())]
    UnknownRef {
        key: String,
        repo: PathBuf,
        from: String,
    },
    #[error("agent \"{key}\": workspace.worktree.branch {branch:?} already exists in {}", .repo.display())]
    BranchExists {
        key: String,
        repo: PathBuf,
        branch: String,
    },
    #[error("agent \"{key}\": workspace.worktree.branch {branch:?} is not a valid branch name")]
    BadBranch { key: String, branch: String },
    #[error("agent \"{key}\": cwd {} is not in the worktree made from {from} (an untracked or ignored folder?)", .cwd.display())]
    CwdNotInTree {
        key: String,
        cwd: PathBuf,
        from: String,
    },
    #[error("agent \"{key}\": git could not make the worktree {}: {why}", .path.display())]
    Git {
        key: String,
        path: PathBuf,
        why: String,
    },
}

impl Hint for WorktreeError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            WorktreeError::GitMissing { .. } => "install git (`apt-get install git`), or open the agent without workspace".into(),
            WorktreeError::NotARepo { .. } => "run awf in a git repository (`git init`), give a cwd inside one, or open the agent without workspace".into(),
            WorktreeError::Dirty { .. } => "commit or stash the changes first, or give worktree: { from: \"HEAD\" } to start from the last commit without them".into(),
            WorktreeError::UnknownRef { .. } => "name a branch, tag or commit that exists (`git log --oneline`), or leave from out to start at HEAD".into(),
            WorktreeError::BranchExists { .. } => "name another branch, or delete it (`git branch -D <branch>`) if its work is done".into(),
            WorktreeError::BadBranch { .. } => "use letters, digits, '/', '-', '_' and '.', as `git check-ref-format --branch` allows".into(),
            WorktreeError::CwdNotInTree { .. } => "commit the folder, or give a cwd that the commit holds".into(),
            _ => return None,
        })
    }
}
