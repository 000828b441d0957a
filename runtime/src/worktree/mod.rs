//! Agent worktrees (`workspace: { worktree }` on `wf.agents.open`): a git worktree per agent under
//! the run's folder (`<run>/worktrees/<key>`), on a branch of its own (`awf/<run id>/<key>` unless
//! named), made from `from` (default HEAD of the cwd's repository, which must then be clean). The
//! agent's cwd maps to the same subfolder of the worktree. When the agent closes or the run ends
//! the worktree is kept or removed as `keep` says (the branch always stays); what each ended as
//! is recorded. The ledger (`ledger.rs`) is what lets a later awf finish the worktrees of a run
//! whose awf died (the sweep). `crate::git` runs the git CLI; `spec.rs` reads what the author wrote.

mod error;
pub mod ledger;
pub mod spec;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::git::{git, git_succeeds, GitFailure};
pub use error::WorktreeError;
pub use ledger::{sweep_run, Ledger};
pub use spec::{Keep, WorktreeSpec};

/// Where a worktree is made: the run and the agent it is for.
pub struct Place<'a> {
    /// The run's folder; worktrees go under `<run>/worktrees/`.
    pub run_folder: &'a Path,
    pub run_id: &'a str,
    pub key: &'a str,
    /// The agent's cwd as it would be without a worktree (absolute, canonical).
    pub cwd: &'a Path,
}

/// One agent's worktree, made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worktree {
    pub path: PathBuf,
    pub branch: String,
    /// The main checkout's top folder.
    pub repo: PathBuf,
    /// The commit it started at.
    pub base: String,
    pub keep: Keep,
    /// The agent's cwd inside it.
    pub cwd: PathBuf,
}

/// How a worktree ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The branch's commit at the end.
    pub head: Option<String>,
    /// Whether the tree held uncommitted changes.
    pub dirty: bool,
    pub kept: bool,
}

impl Worktree {
    /// Makes the worktree `spec` asks for; an earlier attempt's worktree of this run and key
    /// (`awf run --continue`) is taken up again instead.
    pub fn create(spec: &WorktreeSpec, at: &Place) -> Result<Worktree, WorktreeError> {
        let key = at.key.to_string();
        let fail = |failure: GitFailure, otherwise: WorktreeError| match failure {
            GitFailure::Missing => WorktreeError::GitMissing { key: key.clone() },
            GitFailure::Refused(_) => otherwise,
        };
        let not_a_repo = || WorktreeError::NotARepo {
            key: key.clone(),
            cwd: at.cwd.to_path_buf(),
        };
        let top =
            git(at.cwd, &["rev-parse", "--show-toplevel"]).map_err(|f| fail(f, not_a_repo()))?;
        let repo = std::fs::canonicalize(&top).map_err(|_| not_a_repo())?;
        let ledger = Ledger::of(at.run_folder);
        if let Some(earlier) = ledger.earlier(at.key, &repo) {
            return Ok(earlier);
        }
        let base_ref = match &spec.from {
            Some(from) => from.clone(),
            None => {
                let status = git(
                    &repo,
                    &["status", "--porcelain", "--untracked-files=normal"],
                )
                .map_err(|f| fail(f, not_a_repo()))?;
                let count = status.lines().filter(|l| !l.is_empty()).count();
                if count > 0 {
                    return Err(WorktreeError::Dirty { key, repo, count });
                }
                "HEAD".to_string()
            }
        };
        let unknown_ref = || WorktreeError::UnknownRef {
            key: key.clone(),
            repo: repo.clone(),
            from: base_ref.clone(),
        };
        let base = git(
            &repo,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{base_ref}^{{commit}}"),
            ],
        )
        .map_err(|f| fail(f, unknown_ref()))?;
        let branch = spec
            .branch
            .clone()
            .unwrap_or_else(|| default_branch(at.run_id, at.key));
        let bad_branch = || WorktreeError::BadBranch {
            key: key.clone(),
            branch: branch.clone(),
        };
        git(&repo, &["check-ref-format", "--branch", &branch])
            .map_err(|f| fail(f, bad_branch()))?;
        let exists = git_succeeds(
            &repo,
            &[
                "show-ref",
                "--verify",
                "--quiet",
                &format!("refs/heads/{branch}"),
            ],
        )
        .map_err(|f| fail(f, bad_branch()))?;
        if exists {
            return Err(WorktreeError::BranchExists { key, repo, branch });
        }
        let path = ledger.dir().join(at.key);
        let git_error = |why: String| WorktreeError::Git {
            key: key.clone(),
            path: path.clone(),
            why,
        };
        std::fs::create_dir_all(ledger.dir()).map_err(|e| git_error(e.to_string()))?;
        let path_text = path.to_string_lossy().to_string();
        git(
            &repo,
            &[
                "worktree", "add", "--quiet", "-b", &branch, &path_text, &base,
            ],
        )
        .map_err(|f| match f {
            GitFailure::Missing => WorktreeError::GitMissing { key: key.clone() },
            GitFailure::Refused(why) => git_error(why),
        })?;
        let relative = at.cwd.strip_prefix(&repo).unwrap_or(Path::new(""));
        let worktree = Worktree {
            cwd: path.join(relative),
            path,
            branch,
            repo,
            base,
            keep: spec.keep,
        };
        if !worktree.cwd.is_dir() {
            let cwd = worktree.cwd.clone();
            worktree.remove();
            return Err(WorktreeError::CwdNotInTree {
                key,
                cwd,
                from: base_ref,
            });
        }
        ledger.write_open(at.key, &worktree);
        Ok(worktree)
    }

    /// Ends the worktree: its head and whether it is dirty, then kept or removed as `keep`
    /// says given whether the agent's run `failed`; the ledger records the ending.
    pub fn end(&self, ledger: &Ledger, key: &str, failed: bool) -> Ending {
        let head = git(&self.path, &["rev-parse", "HEAD"]).ok();
        let dirty = git(&self.path, &["status", "--porcelain"]).is_ok_and(|s| !s.is_empty());
        let kept = self.keep.keeps(failed, dirty) || !self.remove();
        let ending = Ending { head, dirty, kept };
        ledger.write_ended(key, self, &ending);
        ending
    }

    /// Removes the worktree (uncommitted changes with it; the branch stays); whether it went.
    fn remove(&self) -> bool {
        let path = self.path.to_string_lossy().to_string();
        git(&self.repo, &["worktree", "remove", "--force", &path]).is_ok() || !self.path.exists()
    }

    /// What git writes when the agent commits on its branch: the worktree (the agent's own, even
    /// when its cwd is a subfolder), the repository's `objects`, `refs` and `logs`, and the
    /// worktree's folder in the common git dir (`worktrees/<name>`: its HEAD, index and
    /// reflog). An inline sandbox adds these to its
    /// write grants. Not the repository's `hooks` or `config`, so an agent in a box cannot make
    /// the user's next git command run its code. Those git cannot name, or that do not exist,
    /// are left out.
    pub fn git_dir_grants(&self) -> Vec<PathBuf> {
        let dir = |flag: &str| {
            git(&self.path, &["rev-parse", flag])
                .ok()
                .and_then(|found| std::fs::canonicalize(self.path.join(found)).ok())
        };
        let mut grants = vec![self.path.clone()];
        if let Some(common) = dir("--git-common-dir") {
            grants.extend(
                ["objects", "refs", "logs"]
                    .iter()
                    .map(|part| common.join(part)),
            );
        }
        grants.extend(dir("--git-dir"));
        grants.retain(|grant| grant.is_dir());
        grants
    }

    /// The worktree as `agent-opened` records it.
    pub fn describe(&self) -> Value {
        json!({
            "path": self.path,
            "branch": self.branch,
            "repo": self.repo,
            "base": self.base,
            "keep": self.keep.as_str(),
        })
    }
}

impl Ending {
    /// The ending as `worktree-ended` records it.
    pub fn describe(&self, worktree: &Worktree) -> Value {
        json!({
            "path": worktree.path,
            "branch": worktree.branch,
            "head": self.head,
            "dirty": self.dirty,
            "kept": self.kept,
        })
    }
}

/// `awf/<run id>/<key>`, with the characters of a key that a branch name cannot hold (`:`) as `-`.
pub fn default_branch(run_id: &str, key: &str) -> String {
    format!("awf/{run_id}/{}", key.replace(':', "-"))
}

#[cfg(test)]
mod tests;
