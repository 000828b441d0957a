//! A skill's digest (sha256 over its files' relative paths and contents, in path order; symbolic
//! links are refused, so a copy never reaches outside the skill) and its installation: copied
//! into `<skills dir>/<name>`, the copy's digest checked against the source's.

use std::fs;
use std::path::{Path, PathBuf};

use ring::digest::{Context, SHA256};

use super::error::SkillError;
use super::manifest::read_manifest;
use super::source::SkillSource;

/// A skill as it was given to an agent: what events and `run.agentOf(key).skills` record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InstalledSkill {
    pub name: String,
    pub description: String,
    /// The author's source: a path, or `repo#skill@ref`.
    pub source: String,
    /// `sha256:<hex>` of the skill's files.
    pub digest: String,
    /// Where the agent's CLI reads it.
    pub path: PathBuf,
}

/// Lowercase hex sha256 of `bytes`.
pub(super) fn hex_sha256(bytes: &[u8]) -> String {
    hex(ring::digest::digest(&SHA256, bytes).as_ref())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `sha256:<hex>` over every file under `folder`: its path relative to `folder`, a NUL, its
/// length, a NUL, its bytes; files in path order.
pub fn digest(folder: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    list_files(folder, Path::new(""), &mut files)?;
    files.sort();
    let mut context = Context::new(&SHA256);
    for relative in files {
        let bytes = fs::read(folder.join(&relative))?;
        context.update(relative.to_string_lossy().as_bytes());
        context.update(&[0]);
        context.update(bytes.len().to_string().as_bytes());
        context.update(&[0]);
        context.update(&bytes);
    }
    Ok(format!("sha256:{}", hex(context.finish().as_ref())))
}

fn list_files(root: &Path, relative: &Path, into: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(root.join(relative))? {
        let entry = entry?;
        let path = relative.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            list_files(root, &path, into)?;
        } else if kind.is_file() {
            into.push(path);
        } else {
            return Err(std::io::Error::other(format!(
                "{} is a link or a special file; a skill holds files and folders only",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Checks each skill folder (already resolved) and copies it into `skills_dir/<name>`, checking
/// the copy's digest against the source's.
pub fn install(
    skills: &[(SkillSource, PathBuf)],
    skills_dir: &Path,
) -> Result<Vec<InstalledSkill>, SkillError> {
    let mut installed = check(skills)?;
    for skill in &mut installed {
        let folder = skill.path.clone();
        let target = skills_dir.join(&skill.name);
        let copy_error = |error: std::io::Error| SkillError::Copy {
            name: skill.name.clone(),
            target: target.clone(),
            reason: error.to_string(),
        };
        if target.exists() {
            fs::remove_dir_all(&target).map_err(copy_error)?;
        }
        copy_folder(&folder, &target).map_err(copy_error)?;
        let copied = digest(&target).map_err(copy_error)?;
        if copied != skill.digest {
            return Err(SkillError::DigestMismatch {
                name: skill.name.clone(),
                source_text: skill.source.clone(),
                target,
                expected: skill.digest.clone(),
                copied,
            });
        }
        skill.path = target;
    }
    Ok(installed)
}

/// Checks each skill folder (already resolved): its SKILL.md, its digest, one name per skill;
/// each skill's `path` is its own folder (nothing is copied).
pub fn check(skills: &[(SkillSource, PathBuf)]) -> Result<Vec<InstalledSkill>, SkillError> {
    let mut checked: Vec<InstalledSkill> = Vec::new();
    for (source, folder) in skills {
        let source_text = source.text();
        let manifest = read_manifest(folder, &source_text)?;
        if let Some(first) = checked.iter().find(|skill| skill.name == manifest.name) {
            return Err(SkillError::Duplicate {
                name: manifest.name,
                first: first.source.clone(),
                second: source_text,
            });
        }
        let digest = digest(folder).map_err(|error| SkillError::Unreadable {
            source_text: source_text.clone(),
            path: folder.clone(),
            reason: error.to_string(),
        })?;
        checked.push(InstalledSkill {
            name: manifest.name,
            description: manifest.description,
            source: source_text,
            digest,
            path: folder.clone(),
        });
    }
    Ok(checked)
}

fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_folder(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
