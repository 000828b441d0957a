//! [`SkillError`]: why a skill could not be given to an agent, said with the skill's source and
//! a hint.

use std::path::PathBuf;

use crate::hint::Hint;

/// Why a skill could not be given to an agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkillError {
    /// `skills[i]` is not `{ path }` or `{ repo, skill, ref? }`.
    #[error("skills[{index}]: {reason}")]
    Spec { index: usize, reason: String },
    /// The skill folder (or its SKILL.md) cannot be read.
    #[error("skill {source_text}: cannot read {}: {reason}", path.display())]
    Unreadable {
        source_text: String,
        path: PathBuf,
        reason: String,
    },
    /// The skill's folder does not exist (a wrong path, or no such folder in the repository).
    #[error("skill {source_text}: there is no folder {}", path.display())]
    NoFolder { source_text: String, path: PathBuf },
    /// SKILL.md has no front matter, or it lacks a name or a description.
    #[error("{}: {reason}", path.display())]
    Manifest { path: PathBuf, reason: String },
    /// `git` failed fetching the repository or its ref.
    #[error("skill {source_text}: git could not fetch it: {reason}")]
    Fetch { source_text: String, reason: String },
    /// Two skills of one agent have the same name.
    #[error("two skills are named {name:?} ({first} and {second})")]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    /// The copy's digest is not the source's: the source changed while it was copied.
    #[error("skill {name:?}: the copy in {} has digest {copied}, its source {source_text} has {expected}", target.display())]
    DigestMismatch {
        name: String,
        source_text: String,
        target: PathBuf,
        expected: String,
        copied: String,
    },
    /// The agent's skills folder cannot be made or cleared.
    #[error("cannot prepare the agent's skills folder {}: {reason}", path.display())]
    SkillsFolder { path: PathBuf, reason: String },
    /// Writing the copy failed.
    #[error("skill {name:?}: cannot copy it into {}: {reason}", target.display())]
    Copy {
        name: String,
        target: PathBuf,
        reason: String,
    },
}

impl Hint for SkillError {
    fn hint(&self) -> Option<String> {
        Some(match self {
            SkillError::Spec { .. } => "write each skill as { path: \"/abs/folder\" } (or a file: URL) or { repo: \"https://...git\" or \"/abs/repo\", skill: \"folder/in/repo\", ref?: \"main\" }".into(),
            SkillError::NoFolder { .. } => "a skill is a folder holding SKILL.md: give the folder's absolute path (import.meta.dirname + \"/skills/<name>\"), or for a repository the folder's path inside it".into(),
            SkillError::Unreadable { .. } => "a skill is a folder holding SKILL.md; check the path and its permissions".into(),
            SkillError::Manifest { .. } => "SKILL.md starts with front matter between --- lines holding `name:` and `description:`".into(),
            SkillError::Fetch { .. } => "check the repository address and the ref (a branch, tag or commit that exists); run the same `git fetch` by hand to see git's full answer".into(),
            SkillError::Duplicate { .. } => "give each skill of an agent its own name in its SKILL.md".into(),
            SkillError::DigestMismatch { .. } => "something changed the skill's files while awf copied them; run again once they are stable".into(),
            SkillError::SkillsFolder { .. } | SkillError::Copy { .. } => "check that the agent's home folder is writable and the disk is not full".into(),
        })
    }
}
