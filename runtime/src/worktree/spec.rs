//! An agent's `workspace` as the author writes it on `wf.agents.open`: `{ worktree: true }` or
//! `{ worktree: { branch?, from?, keep? } }`, checked field by field.

use serde_json::{json, Map, Value};

use super::WorktreeError;

/// When an agent's worktree is kept once the agent closes or the run ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Always kept.
    Always,
    /// Kept when the run failed (or was interrupted) or the tree holds uncommitted changes;
    /// removed otherwise. The default.
    OnFailure,
    /// Always removed, uncommitted changes with it.
    Never,
}

impl Keep {
    pub fn as_str(self) -> &'static str {
        match self {
            Keep::Always => "always",
            Keep::OnFailure => "on-failure",
            Keep::Never => "never",
        }
    }

    pub fn parse(text: &str) -> Option<Keep> {
        match text {
            "always" => Some(Keep::Always),
            "on-failure" => Some(Keep::OnFailure),
            "never" => Some(Keep::Never),
            _ => None,
        }
    }

    /// Whether a worktree ending so is kept.
    pub fn keeps(self, failed: bool, dirty: bool) -> bool {
        match self {
            Keep::Always => true,
            Keep::OnFailure => failed || dirty,
            Keep::Never => false,
        }
    }
}

/// What `workspace.worktree` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorktreeSpec {
    /// The branch to create; default `awf/<run id>/<key>`.
    pub branch: Option<String>,
    /// The ref the branch starts at; default HEAD of the cwd's repository (which must be clean).
    pub from: Option<String>,
    pub keep: Keep,
}

const WORKSPACE_OPTIONS: &[&str] = &["worktree"];
const WORKTREE_OPTIONS: &[&str] = &["branch", "from", "keep"];

impl WorktreeSpec {
    /// Reads an agent's `workspace` (`key` names the agent in errors); `None` when it asks for
    /// no worktree (`{}`, `{ worktree: false }`).
    pub fn from_workspace(key: &str, value: &Value) -> Result<Option<WorktreeSpec>, WorktreeError> {
        let place = format!("wf.agents.open(spec): agent \"{key}\": workspace");
        let bad = |why: String| WorktreeError::BadSpec {
            place: place.clone(),
            why,
        };
        let Some(workspace) = value.as_object() else {
            return Err(bad("must be an object, e.g. { worktree: true }".into()));
        };
        refuse_unknown(workspace, WORKSPACE_OPTIONS, "").map_err(&bad)?;
        let worktree = match workspace.get("worktree") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => return Ok(None),
            Some(Value::Bool(true)) => Map::new(),
            Some(Value::Object(options)) => options.clone(),
            Some(_) => {
                return Err(bad(
                    "worktree must be true, false or { branch?, from?, keep? }".into(),
                ))
            }
        };
        refuse_unknown(&worktree, WORKTREE_OPTIONS, "worktree.").map_err(&bad)?;
        let text = |field: &str| -> Result<Option<String>, WorktreeError> {
            match worktree.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("worktree.{field} must be a non-empty string"))),
            }
        };
        let keep = match text("keep")? {
            None => Keep::OnFailure,
            Some(word) => Keep::parse(&word).ok_or_else(|| {
                bad(format!(
                    "worktree.keep {word:?} is not one of \"always\", \"on-failure\", \"never\""
                ))
            })?,
        };
        Ok(Some(WorktreeSpec {
            branch: text("branch")?,
            from: text("from")?,
            keep,
        }))
    }

    /// The spec as records and reopen comparisons show it.
    pub fn to_json(&self) -> Value {
        let mut worktree = json!({ "keep": self.keep.as_str() });
        if let Some(branch) = &self.branch {
            worktree["branch"] = json!(branch);
        }
        if let Some(from) = &self.from {
            worktree["from"] = json!(from);
        }
        json!({ "worktree": worktree })
    }
}

fn refuse_unknown(object: &Map<String, Value>, known: &[&str], prefix: &str) -> Result<(), String> {
    match object.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(format!(
            "unknown option `{prefix}{unknown}` (known: {})",
            known
                .iter()
                .map(|k| format!("{prefix}{k}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(value: Value) -> Result<Option<WorktreeSpec>, String> {
        WorktreeSpec::from_workspace("a", &value).map_err(|e| e.to_string())
    }

    #[test]
    fn true_and_objects_read_with_defaults() {
        let spec = read(json!({"worktree": true})).unwrap().unwrap();
        assert_eq!(spec.keep, Keep::OnFailure);
        assert_eq!((spec.branch, spec.from), (None, None));
        let spec = read(json!({"worktree": {"branch": "b", "from": "main", "keep": "never"}}))
            .unwrap()
            .unwrap();
        assert_eq!(spec.branch.as_deref(), Some("b"));
        assert_eq!(spec.from.as_deref(), Some("main"));
        assert_eq!(spec.keep, Keep::Never);
        assert_eq!(read(json!({"worktree": false})).unwrap(), None);
        assert_eq!(read(json!({})).unwrap(), None);
    }

    #[test]
    fn mistakes_are_named() {
        assert!(read(json!(true)).unwrap_err().contains("must be an object"));
        assert!(read(json!({"worktre": true}))
            .unwrap_err()
            .contains("unknown option `worktre`"));
        assert!(read(json!({"worktree": {"keep": "sometimes"}}))
            .unwrap_err()
            .contains("\"sometimes\" is not one of"));
        assert!(read(json!({"worktree": {"base": "x"}}))
            .unwrap_err()
            .contains("unknown option `worktree.base` (known: worktree.branch"));
        assert!(read(json!({"worktree": {"branch": 3}}))
            .unwrap_err()
            .contains("worktree.branch must be a non-empty string"));
    }

    #[test]
    fn keep_rules() {
        assert!(Keep::Always.keeps(false, false));
        assert!(!Keep::Never.keeps(true, true));
        assert!(Keep::OnFailure.keeps(true, false));
        assert!(Keep::OnFailure.keeps(false, true));
        assert!(!Keep::OnFailure.keeps(false, false));
    }
}
