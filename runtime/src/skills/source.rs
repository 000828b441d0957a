//! Where a skill comes from: `{ path }` (an absolute path or a `file:` URL; a relative path is
//! refused, since it would depend on the run's cwd) or `{ repo, skill, ref? }` (a git URL or a
//! local repository, the skill's folder in it, a branch, tag or commit, HEAD by default). A
//! repository is fetched with the `git` CLI into `<cache>/<repo digest>/<commit>`, kept for the
//! next run that names the same commit.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::copy::hex_sha256;
use super::error::SkillError;

/// One skill as the author named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillSource {
    Path(PathBuf),
    Repo {
        repo: String,
        skill: String,
        reference: Option<String>,
    },
}

impl SkillSource {
    /// How events and errors name it: the path, or `repo#skill@ref`.
    pub fn text(&self) -> String {
        match self {
            SkillSource::Path(path) => path.display().to_string(),
            SkillSource::Repo {
                repo,
                skill,
                reference,
            } => {
                format!("{repo}#{skill}@{}", reference.as_deref().unwrap_or("HEAD"))
            }
        }
    }
}

/// `skills` as `agents.open` received it.
pub fn parse_sources(skills: &Value) -> Result<Vec<SkillSource>, SkillError> {
    let Value::Array(items) = skills else {
        return Err(SkillError::Spec {
            index: 0,
            reason: "skills must be an array".into(),
        });
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| parse_one(item).map_err(|reason| SkillError::Spec { index, reason }))
        .collect()
}

fn parse_one(item: &Value) -> Result<SkillSource, String> {
    let Value::Object(fields) = item else {
        return Err(format!("expected an object, got {item}"));
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match fields.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(format!("{key} must be a non-empty string, got {other}")),
        }
    };
    if let Some(unknown) = fields
        .keys()
        .find(|k| !["path", "repo", "skill", "ref"].contains(&k.as_str()))
    {
        return Err(format!(
            "unknown key {unknown:?} (a skill takes path, or repo, skill and ref)"
        ));
    }
    match (text("path")?, text("repo")?) {
        (Some(path), None) => {
            if fields.contains_key("skill") || fields.contains_key("ref") {
                return Err("skill and ref go with repo, not with path".into());
            }
            absolute_path(&path).map(SkillSource::Path)
        }
        (None, Some(repo)) => {
            let skill = text("skill")?
                .ok_or("a repo skill needs skill: the skill's folder in the repository")?;
            if Path::new(&skill).is_absolute() || skill.split('/').any(|part| part == "..") {
                return Err(format!(
                    "skill {skill:?} must be a folder inside the repository"
                ));
            }
            Ok(SkillSource::Repo {
                repo,
                skill,
                reference: text("ref")?,
            })
        }
        (Some(_), Some(_)) => Err("give path or repo, not both".into()),
        (None, None) => Err("give path (the skill's folder) or repo and skill".into()),
    }
}

/// An absolute path, or a `file:` URL's path; a relative path is refused.
fn absolute_path(path: &str) -> Result<PathBuf, String> {
    if path.starts_with("file:") {
        let url = url::Url::parse(path)
            .map_err(|error| format!("{path:?} is not a file: URL ({error})"))?;
        return url
            .to_file_path()
            .map_err(|()| format!("{path:?} is not a local file: URL"));
    }
    if path.contains("://") {
        return Err(format!(
            "{path:?}: only file: URLs are read as paths; for a git repository use repo and skill"
        ));
    }
    let path = PathBuf::from(path);
    if !path.is_absolute() {
        return Err(format!(
            "{:?} is relative; write an absolute path (from import.meta.dirname) or a file: URL",
            path.display()
        ));
    }
    Ok(path)
}

/// The folder on this machine that holds the skill (fetching a repository into `cache` first).
pub fn resolve(source: &SkillSource, cache: &Path) -> Result<PathBuf, SkillError> {
    match source {
        SkillSource::Path(path) => Ok(path.clone()),
        SkillSource::Repo {
            repo,
            skill,
            reference,
        } => {
            let fetch_error = |reason: String| SkillError::Fetch {
                source_text: source.text(),
                reason,
            };
            let checkout =
                fetch(repo, reference.as_deref().unwrap_or("HEAD"), cache).map_err(fetch_error)?;
            Ok(checkout.join(skill))
        }
    }
}

/// The repository's tree at `reference`, checked out (without .git) under `cache`.
fn fetch(repo: &str, reference: &str, cache: &Path) -> Result<PathBuf, String> {
    let folder = cache.join(&hex_sha256(repo.as_bytes())[..16]);
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let scratch = crate::paths::make_temp_dir(&folder, ".fetch-")
        .map_err(|e| format!("cannot create a folder in {}: {e}", folder.display()))?;
    let result = fetch_into(repo, reference, &folder, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn fetch_into(
    repo: &str,
    reference: &str,
    folder: &Path,
    scratch: &Path,
) -> Result<PathBuf, String> {
    git(scratch, &["init", "--quiet", "--bare", "git"])?;
    let git_dir = scratch.join("git");
    let commit = fetch_commit(&git_dir, repo, reference)?;
    let checkout = folder.join(&commit);
    if checkout.is_dir() {
        return Ok(checkout);
    }
    let tree = scratch.join("tree");
    std::fs::create_dir(&tree).map_err(|e| e.to_string())?;
    let work_tree = format!("--work-tree={}", tree.display());
    git(
        &git_dir,
        &[&work_tree, "checkout", "--quiet", &commit, "--", "."],
    )?;
    match std::fs::rename(&tree, &checkout) {
        Ok(()) => Ok(checkout),
        // Another run put the same commit there first: theirs is the same tree.
        Err(_) if checkout.is_dir() => Ok(checkout),
        Err(e) => Err(format!(
            "cannot move the checkout to {}: {e}",
            checkout.display()
        )),
    }
}

/// The commit `reference` names in `repo`, fetched into `git_dir`: a shallow fetch of the ref
/// itself, else every branch and tag and the ref looked up among them (an abbreviated commit).
fn fetch_commit(git_dir: &Path, repo: &str, reference: &str) -> Result<String, String> {
    if git(
        git_dir,
        &["fetch", "--quiet", "--depth=1", "--", repo, reference],
    )
    .is_ok()
    {
        return git(git_dir, &["rev-parse", "--verify", "FETCH_HEAD^{commit}"]);
    }
    git(
        git_dir,
        &[
            "fetch",
            "--quiet",
            "--",
            repo,
            "+refs/heads/*:refs/heads/*",
            "+refs/tags/*:refs/tags/*",
        ],
    )?;
    git(
        git_dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{reference}^{{commit}}"),
        ],
    )
    .map_err(|_| format!("{repo} has no branch, tag or commit {reference:?}"))
}

/// `git -C dir args...` (crate::git), its standard output trimmed, or why it failed in words.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    crate::git::git(dir, args).map_err(|failure| failure.to_string())
}
