//! `awf list [DIR]`: the workflows under a folder. Each `.ts`/`.mts`/`.js`/`.mjs` file (not a
//! test, not a `.d.ts`, not under `node_modules`, `.awf` or a hidden folder) is loaded in a JS
//! host of its own the way `awf run` loads it, without running it (js/runner.ts
//! `inspectWorkflow`): a file whose default export is a workflow is listed with its meta, one
//! that fails to load with its error, and any other module (a helper) is left out.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::js::{CallEnd, ConsoleTarget, HostConfig, JsError, JsHost};

/// One listed file: its workflow's facts, or why it did not load.
#[derive(Debug)]
pub struct Listed {
    pub file: PathBuf,
    pub workflow: Result<Value, JsError>,
}

impl Listed {
    pub fn to_json(&self, base: &Path) -> Value {
        let file = self.file.strip_prefix(base).unwrap_or(&self.file);
        match &self.workflow {
            Ok(meta) => json!({
                "file": file.display().to_string(),
                "name": meta["name"],
                "description": meta["description"],
                "whenToUse": meta.get("whenToUse").cloned().unwrap_or(Value::Null),
                "version": meta.get("version").cloned().unwrap_or(Value::Null),
            }),
            Err(e) => json!({ "file": file.display().to_string(), "error": e.render(base) }),
        }
    }
}

/// The workflow files under `dir`, in path order.
pub async fn list(dir: &Path) -> Vec<Listed> {
    let mut files = Vec::new();
    candidates(dir, &mut files);
    files.sort();
    let mut listed = Vec::new();
    for file in files {
        let workflow = match inspect(&file, dir).await {
            Ok(None) => continue,
            Ok(Some(meta)) => Ok(meta),
            Err(e) => Err(e),
        };
        listed.push(Listed { file, workflow });
    }
    listed
}

fn candidates(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !name.starts_with('.') && name != "node_modules" {
                candidates(&path, into);
            }
        } else if is_workflow_source(&name) {
            into.push(path);
        }
    }
}

fn is_workflow_source(name: &str) -> bool {
    let source = [".ts", ".mts", ".js", ".mjs"]
        .iter()
        .any(|ext| name.ends_with(ext));
    let excluded = [".d.ts", ".d.mts", ".test.", ".spec."]
        .iter()
        .any(|part| name.contains(part));
    source && !excluded
}

/// Loads `file` in a host of its own: its facts, `None` for a module that is not a workflow.
async fn inspect(file: &Path, cwd: &Path) -> Result<Option<Value>, JsError> {
    let config = HostConfig {
        cwd: cwd.to_path_buf(),
        argv: vec!["awf".to_string(), file.display().to_string()],
        console: ConsoleTarget::Stderr,
    };
    let mut host = JsHost::new(config)?;
    match host
        .call(
            "awf:runner",
            "inspectWorkflow",
            json!({ "file": file.display().to_string() }),
        )
        .await
    {
        CallEnd::Returned(meta) => Ok(meta.filter(|m| !m.is_null())),
        CallEnd::Threw(e) => Err(e),
        other => Err(JsError::message(
            "AwfError",
            &format!("loading it ended with {}", other.kind()),
        )
        .with_hint("a workflow file's top level should only define things; move work into run()")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_but_not_tests_or_declarations_are_candidates() {
        assert!(is_workflow_source("review.ts"));
        assert!(is_workflow_source("review.mjs"));
        assert!(!is_workflow_source("review.test.ts"));
        assert!(!is_workflow_source("review.spec.mts"));
        assert!(!is_workflow_source("agentswf.d.ts"));
        assert!(!is_workflow_source("notes.md"));
    }
}
