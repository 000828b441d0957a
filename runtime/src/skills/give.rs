//! Giving an agent its skills when it opens: each source resolved (a repository fetched into the
//! user's cache), checked, and copied into the skills folder of the agent's own CLI home, which
//! then holds exactly these skills (a skill an earlier attempt left there and the spec no longer
//! names is removed; the CLI's own dot-folders, such as codex's `.system`, stay). An agent with
//! no skills folder (a scripted agent of `awf test`) gets them checked and recorded only.

use std::fs;
use std::path::{Path, PathBuf};

use super::copy::{check, install, InstalledSkill};
use super::error::SkillError;
use super::source::{resolve, SkillSource};

/// What `agent-opened` records of one skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkillRecord {
    pub name: String,
    /// The author's source: a path, or `repo#skill@ref`.
    pub source: String,
    /// `sha256:<hex>` of the skill's files.
    pub digest: String,
}

impl From<&InstalledSkill> for SkillRecord {
    fn from(skill: &InstalledSkill) -> SkillRecord {
        SkillRecord {
            name: skill.name.clone(),
            source: skill.source.clone(),
            digest: skill.digest.clone(),
        }
    }
}

/// Where repositories' skills are cached: `$AWF_CACHE_DIR/skills`, else
/// `$XDG_CACHE_HOME/awf/skills`, else `~/.cache/awf/skills`, else under the temp dir.
pub fn cache_dir(var: impl Fn(&str) -> Option<String>) -> PathBuf {
    let set = |name: &str| {
        var(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = set("AWF_CACHE_DIR") {
        return dir.join("skills");
    }
    if let Some(dir) = set("XDG_CACHE_HOME") {
        return dir.join("awf/skills");
    }
    match set("HOME") {
        Some(home) => home.join(".cache/awf/skills"),
        None => std::env::temp_dir().join("awf-skills"),
    }
}

/// Resolves, checks and (when `skills_dir` is given) installs `sources`, in order.
pub fn give(
    sources: &[SkillSource],
    cache: &Path,
    skills_dir: Option<&Path>,
) -> Result<Vec<InstalledSkill>, SkillError> {
    let mut resolved = Vec::new();
    for source in sources {
        let folder = resolve(source, cache)?;
        if !folder.is_dir() {
            return Err(SkillError::NoFolder {
                source_text: source.text(),
                path: folder,
            });
        }
        resolved.push((source.clone(), folder));
    }
    let Some(skills_dir) = skills_dir else {
        return check(&resolved);
    };
    fs::create_dir_all(skills_dir).map_err(|error| SkillError::SkillsFolder {
        path: skills_dir.to_path_buf(),
        reason: error.to_string(),
    })?;
    let installed = install(&resolved, skills_dir)?;
    remove_others(skills_dir, &installed)?;
    Ok(installed)
}

/// Removes from `skills_dir` every skill folder not among `kept` (dot-folders stay: the CLI's).
fn remove_others(skills_dir: &Path, kept: &[InstalledSkill]) -> Result<(), SkillError> {
    let failed = |error: std::io::Error| SkillError::SkillsFolder {
        path: skills_dir.to_path_buf(),
        reason: error.to_string(),
    };
    for entry in fs::read_dir(skills_dir).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || kept.iter().any(|skill| skill.name == name) {
            continue;
        }
        let path = entry.path();
        let removed = if entry.file_type().map_err(failed)?.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.map_err(failed)?;
    }
    Ok(())
}
