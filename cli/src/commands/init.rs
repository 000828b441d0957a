//! `awf init [DIR]`: a starter project that runs offline and is tested from the first minute: a
//! workflow with one tool and a command agent (a shell script), its test with the agent
//! scripted, the typings and a tsconfig.json for an editor, a README with the two commands.
//! Nothing is overwritten: a file already there stops it, naming the file.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use awf_runtime::records::status::shell_word;

use super::typings;
use crate::args::InitArgs;
use crate::failure::Failure;

/// The starter's files, by path in the project, from cli/templates/starter. `{{name}}` becomes
/// the workflow's name.
const STARTER: &[(&str, &str)] = &[
    (
        "workflow.ts",
        include_str!("../../templates/starter/workflow.ts"),
    ),
    (
        "workflow.test.ts",
        include_str!("../../templates/starter/workflow.test.ts"),
    ),
    (
        "agents/helper.sh",
        include_str!("../../templates/starter/agents/helper.sh"),
    ),
    (
        "tsconfig.json",
        include_str!("../../templates/starter/tsconfig.json"),
    ),
    (
        "README.md",
        include_str!("../../templates/starter/README.md"),
    ),
    (
        ".gitignore",
        include_str!("../../templates/starter/gitignore"),
    ),
];

/// Where the typings go in the project (tsconfig.json names them there).
const TYPINGS_DIR: &str = "typings";

pub fn run(args: InitArgs) -> i32 {
    match init(&args.dir) {
        Ok(written) => {
            println!("created {} in {}:", written.len(), args.dir.display());
            for path in written {
                println!("  {path}");
            }
            let cd = if args.dir == Path::new(".") {
                String::new()
            } else {
                format!("cd {} && ", shell_word(&args.dir.display().to_string()))
            };
            println!("\nnext: {cd}awf run workflow.ts -- \"a topic\"   then   awf test");
            0
        }
        Err(failure) => failure.report(),
    }
}

fn init(dir: &Path) -> Result<Vec<String>, Failure> {
    let absolute = std::path::absolute(dir)
        .with_context(|| format!("cannot read {}", dir.display()))
        .map_err(Failure::usage)?;
    let name = workflow_name(&absolute);
    let mut paths: Vec<String> = STARTER.iter().map(|(p, _)| p.to_string()).collect();
    paths.extend(
        typings::TYPINGS
            .iter()
            .map(|(file, _)| format!("{TYPINGS_DIR}/{file}")),
    );
    let taken: Vec<&String> = paths.iter().filter(|p| dir.join(p).exists()).collect();
    if let Some(first) = taken.first() {
        let list = taken
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(Failure::usage(anyhow!(
            "{}: already has {list}; awf init overwrites nothing",
            dir.display()
        ))
        .with_hint(format!(
            "init another folder (`awf init new-folder`), or move {first} away first"
        )));
    }
    for (path, text) in STARTER {
        let target = dir.join(path);
        write(&target, &text.replace("{{name}}", &name))?;
        if path.ends_with(".sh") {
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("cannot make {} executable", target.display()))
                .map_err(Failure::failed)?;
        }
    }
    typings::write(&dir.join(TYPINGS_DIR))?;
    Ok(paths)
}

fn write(path: &PathBuf, text: &str) -> Result<(), Failure> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))
            .map_err(Failure::failed)?;
    }
    std::fs::write(path, text)
        .with_context(|| format!("cannot write {}", path.display()))
        .map_err(Failure::failed)
}

/// The workflow's `meta.name`, from the (absolute) folder's name: letters, digits, `.`, `_`
/// and `-` (anything else becomes `-`), or `starter` for a folder without a usable name.
fn workflow_name(absolute: &Path) -> String {
    let folder = absolute
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = folder
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(128)
        .collect();
    let name = name.trim_matches(|c| c == '-' || c == '.').to_string();
    if name.is_empty() {
        "starter".to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_folder() {
        assert_eq!(workflow_name(Path::new("/tmp/my notes")), "my-notes");
        assert_eq!(workflow_name(Path::new("/tmp/review.v2")), "review.v2");
        assert_eq!(workflow_name(Path::new("/")), "starter");
    }

    #[test]
    fn every_template_is_listed() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/starter");
        let mut on_disk = Vec::new();
        for entry in walk(&dir) {
            let relative = entry.strip_prefix(&dir).unwrap().display().to_string();
            on_disk.push(if relative == "gitignore" {
                ".gitignore".into()
            } else {
                relative
            });
        }
        on_disk.sort();
        let mut listed: Vec<String> = STARTER.iter().map(|(p, _)| p.to_string()).collect();
        listed.sort();
        assert_eq!(listed, on_disk);
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }
}
