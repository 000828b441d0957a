//! The worktree concern against real git repositories in temporary folders.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::hint::Hint;

struct Repo {
    root: PathBuf,
}

impl Repo {
    fn new(name: &str) -> Repo {
        let root = std::env::temp_dir().join(format!("awf-wt-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("repo/src")).unwrap();
        fs::create_dir_all(root.join("run")).unwrap();
        let repo = Repo {
            root: fs::canonicalize(&root).unwrap(),
        };
        repo.git(&["init", "--quiet", "-b", "main"]);
        fs::write(repo.repo().join("src/file.txt"), "one\n").unwrap();
        repo.git(&["add", "."]);
        repo.git(&["commit", "--quiet", "-m", "first"]);
        repo
    }

    fn repo(&self) -> PathBuf {
        self.root.join("repo")
    }

    fn run(&self) -> PathBuf {
        self.root.join("run")
    }

    fn git(&self, args: &[&str]) -> String {
        git_in(&self.repo(), args)
    }

    fn open(&self, key: &str, cwd: &Path, spec: WorktreeSpec) -> Result<Worktree, WorktreeError> {
        Worktree::create(
            &spec,
            &Place {
                run_folder: &self.run(),
                run_id: "20261203-000000-abcd",
                key,
                cwd,
            },
        )
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn spec(keep: Keep) -> WorktreeSpec {
    WorktreeSpec {
        branch: None,
        from: None,
        keep,
    }
}

#[test]
fn a_worktree_on_its_own_branch_with_the_cwd_mapped() {
    let repo = Repo::new("made");
    let tree = repo
        .open("a:b", &repo.repo().join("src"), spec(Keep::Always))
        .unwrap();
    assert_eq!(tree.branch, "awf/20261203-000000-abcd/a-b");
    assert_eq!(tree.path, repo.run().join("worktrees/a:b"));
    assert_eq!(tree.cwd, tree.path.join("src"));
    assert_eq!(
        fs::read_to_string(tree.cwd.join("file.txt")).unwrap(),
        "one\n"
    );
    assert!(repo.git(&["worktree", "list"]).contains("a:b"));
    fs::write(tree.cwd.join("file.txt"), "two\n").unwrap();
    git_in(&tree.path, &["commit", "--quiet", "-am", "two"]);
    let ending = Ledger::of(&repo.run()).end("a:b", false).unwrap().1;
    assert!(ending.kept && !ending.dirty);
    assert_eq!(ending.head, Some(repo.git(&["rev-parse", &tree.branch])));
    assert_eq!(
        fs::read_to_string(repo.repo().join("src/file.txt")).unwrap(),
        "one\n"
    );
    // Ended once: a second end does nothing.
    assert!(Ledger::of(&repo.run()).end("a:b", false).is_none());
}

#[test]
fn keep_rules_decide_removal_and_the_branch_stays() {
    let repo = Repo::new("keep");
    let ledger = Ledger::of(&repo.run());
    let clean = repo
        .open("clean", &repo.repo(), spec(Keep::OnFailure))
        .unwrap();
    let dirty = repo
        .open("dirty", &repo.repo(), spec(Keep::OnFailure))
        .unwrap();
    let never = repo.open("never", &repo.repo(), spec(Keep::Never)).unwrap();
    fs::write(dirty.path.join("new.txt"), "x").unwrap();
    fs::write(never.path.join("new.txt"), "x").unwrap();
    let ended = ledger.end_all(false);
    assert_eq!(ended.len(), 3);
    assert!(
        !clean.path.exists(),
        "a clean tree of a run that succeeded goes"
    );
    assert!(dirty.path.exists(), "uncommitted work is kept");
    assert!(!never.path.exists(), "never removes even a dirty tree");
    assert!(repo
        .git(&["branch", "--list", &clean.branch])
        .contains(&clean.branch));
    let failed = repo
        .open("failed", &repo.repo(), spec(Keep::OnFailure))
        .unwrap();
    assert_eq!(sweep_run(&repo.run()), vec![failed.path.clone()]);
    assert!(failed.path.exists(), "a swept run counts as failed");
    let entry = fs::read_to_string(repo.run().join("worktrees/failed.json")).unwrap();
    assert!(entry.contains("\"state\":\"kept\""), "{entry}");
}

#[test]
fn an_earlier_attempts_worktree_is_taken_up_again() {
    let repo = Repo::new("again");
    let first = repo.open("a", &repo.repo(), spec(Keep::OnFailure)).unwrap();
    let again = repo.open("a", &repo.repo(), spec(Keep::OnFailure)).unwrap();
    assert_eq!(first, again);
}

#[test]
fn errors_name_the_path_or_ref() {
    let repo = Repo::new("errors");
    let plain = repo.root.join("plain");
    fs::create_dir_all(&plain).unwrap();
    let err = |r: Result<Worktree, WorktreeError>| {
        let e = r.unwrap_err();
        assert!(e.hint().is_some(), "{e}");
        e.to_string()
    };
    let e = err(repo.open("a", &plain, spec(Keep::Never)));
    assert!(
        e.contains("is not inside a git repository") && e.contains("plain"),
        "{e}"
    );
    let from = |f: &str| WorktreeSpec {
        from: Some(f.into()),
        ..spec(Keep::Never)
    };
    let e = err(repo.open("a", &repo.repo(), from("nope")));
    assert!(e.contains("from \"nope\" is not a commit"), "{e}");
    repo.git(&["branch", "taken"]);
    let taken = WorktreeSpec {
        branch: Some("taken".into()),
        ..spec(Keep::Never)
    };
    let e = err(repo.open("a", &repo.repo(), taken));
    assert!(e.contains("branch \"taken\" already exists"), "{e}");
    let bad = WorktreeSpec {
        branch: Some("a..b".into()),
        ..spec(Keep::Never)
    };
    assert!(err(repo.open("a", &repo.repo(), bad)).contains("not a valid branch name"));
    fs::write(repo.repo().join("src/file.txt"), "changed\n").unwrap();
    let e = err(repo.open("a", &repo.repo(), spec(Keep::Never)));
    assert!(e.contains("has uncommitted changes (1 paths)"), "{e}");
    // A named ref is a commit: the changes in the checkout do not matter.
    let tree = repo.open("b", &repo.repo(), from("HEAD")).unwrap();
    assert_eq!(
        fs::read_to_string(tree.path.join("src/file.txt")).unwrap(),
        "one\n"
    );
    assert!(
        !repo.run().join("worktrees/a.json").exists(),
        "refusals leave no entry"
    );
}

#[test]
fn a_worktree_grants_the_git_folders_a_commit_writes_and_not_hooks_or_config() {
    let repo = Repo::new("grants");
    let worktree = repo.open("impl", &repo.repo(), spec(Keep::Always)).unwrap();
    let git = fs::canonicalize(repo.repo().join(".git")).unwrap();
    fs::create_dir_all(git.join("logs")).unwrap();
    assert_eq!(
        worktree.git_dir_grants(),
        vec![
            worktree.path.clone(),
            git.join("objects"),
            git.join("refs"),
            git.join("logs"),
            git.join("worktrees/impl"),
        ]
    );
}
