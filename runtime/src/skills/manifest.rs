//! SKILL.md's front matter: the `name` and `description` every CLI shows its model, read and
//! checked (a skill without them would be silently skipped by the CLI).

use std::path::Path;

use super::error::SkillError;

/// What SKILL.md says a skill is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub name: String,
    pub description: String,
}

/// Reads and checks `<folder>/SKILL.md`.
pub fn read_manifest(folder: &Path, source_text: &str) -> Result<Manifest, SkillError> {
    let path = folder.join("SKILL.md");
    let text = std::fs::read_to_string(&path).map_err(|error| SkillError::Unreadable {
        source_text: source_text.to_string(),
        path: path.clone(),
        reason: error.to_string(),
    })?;
    parse_manifest(&text).map_err(|reason| SkillError::Manifest { path, reason })
}

/// The name and description from front matter (`---` lines around `key: value` lines).
fn parse_manifest(text: &str) -> Result<Manifest, String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err("no front matter: the file must start with a --- line".into());
    }
    let mut name = None;
    let mut description = None;
    let mut closed = false;
    for line in lines.by_ref() {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = unquote(value.trim());
            match key.trim() {
                "name" => name = Some(value),
                "description" => description = Some(value),
                _ => {}
            }
        }
    }
    if !closed {
        return Err("the front matter is not closed by a --- line".into());
    }
    let name = name
        .filter(|n| !n.is_empty())
        .ok_or("the front matter has no `name:`")?;
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "the name {name:?} is not letters, digits, - and _ (it names the skill's folder)"
        ));
    }
    let description = description
        .filter(|d| !d.is_empty())
        .ok_or("the front matter has no `description:`")?;
    Ok(Manifest { name, description })
}

fn unquote(value: &str) -> String {
    let quoted = value.len() >= 2
        && ((value.starts_with('"') && value.ends_with('"'))
            || (value.starts_with('\'') && value.ends_with('\'')));
    if quoted {
        value[1..value.len() - 1].to_string()
    } else {
        value.to_string()
    }
}
