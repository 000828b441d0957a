//! Where an agent ran, as `awf logs` says it: its sandbox (provider, key, a container's image,
//! write and network grants, narrowed reads) on `agent-opened`, its worktree (path, branch, base,
//! keep rule) on `agent-workspace`, and how the worktree ended (head, dirty or clean, kept or
//! removed) on `worktree-ended`.

use serde_json::Value;

use super::values::fold;

/// ` in bwrap sandbox "agent:a": writes /p; network: none` for an `agent-opened` event's
/// `sandbox` (the operator's names its file: `sandbox "operator" from --agent-sandbox F`);
/// empty when the agent was not sandboxed.
pub(super) fn sandbox(sandbox: Option<&Value>) -> String {
    let Some(sandbox) = sandbox.filter(|s| s.is_object()) else {
        return String::new();
    };
    let text = |name: &str| sandbox.get(name).and_then(Value::as_str).unwrap_or("");
    let from = match text("from") {
        "" => String::new(),
        file => format!(" from --agent-sandbox {file}"),
    };
    let image = match sandbox.pointer("/container/image").and_then(Value::as_str) {
        Some(image) => format!(" (image {image})"),
        None => String::new(),
    };
    let mut said = format!(
        " in {} sandbox \"{}\"{image}{from}: writes {}; network: {}",
        text("provider"),
        text("key"),
        paths(sandbox.get("write")).unwrap_or_else(|| "nothing".into()),
        network(sandbox.get("network"))
    );
    if let Some(read) = paths(sandbox.get("read")) {
        said += &format!("; reads only {read}");
    }
    said
}

/// What the sandbox's `network` grant lets through besides the model's API.
fn network(grant: Option<&Value>) -> String {
    match grant {
        Some(Value::Bool(true)) => "all".into(),
        Some(Value::Array(hosts)) if !hosts.is_empty() => hosts
            .iter()
            .map(|h| {
                h.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| h.to_string())
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => "none".into(),
    }
}

/// A list of paths, comma-separated; `None` when absent (`read: null`) or empty.
fn paths(list: Option<&Value>) -> Option<String> {
    let list = list?.as_array().filter(|l| !l.is_empty())?;
    Some(
        list.iter()
            .map(|p| {
                p.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| p.to_string())
            })
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// An `agent-workspace` event: the worktree made, or (in `awf test`, where none is made) the
/// workspace as asked.
pub(super) fn workspace(event: &Value) -> String {
    let Some(worktree) = event.get("worktree").filter(|w| w.is_object()) else {
        return format!("workspace {} (no worktree made)", fold(&event["workspace"]));
    };
    let text = |name: &str| worktree.get(name).and_then(Value::as_str).unwrap_or("");
    format!(
        "worktree {} on branch {} (from {}, keep {})",
        text("path"),
        text("branch"),
        short(text("base")),
        text("keep")
    )
}

/// A `worktree-ended` event: where the branch ended and what became of the worktree.
pub(super) fn worktree_ended(event: &Value) -> String {
    let text = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or("");
    let head = match text("head") {
        "" => "an unknown commit".to_string(),
        head => short(head).to_string(),
    };
    let state = if event["dirty"] == Value::Bool(true) {
        "with uncommitted changes"
    } else {
        "clean"
    };
    let fate = if event["kept"] == Value::Bool(true) {
        format!("kept at {}", text("path"))
    } else {
        "removed (the branch stays)".to_string()
    };
    format!(
        "worktree ended: branch {} at {head}, {state}; {fate}",
        text("branch")
    )
}

/// A commit's first 12 hex digits.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::super::line;
    use serde_json::json;

    const AT: &str = "2026-11-29T18:30:58.000Z";

    #[test]
    fn a_sandboxed_agent_says_where_it_ran_and_what_it_was_granted() {
        let opened = json!({"at": AT, "event": "agent-opened", "agent": "impl", "runtime": {"kind": "codex", "program": "codex"}, "cwd": "/p", "launcher": "/c/wfa", "tracking": "cgroup",
            "sandbox": {"key": "agent:impl", "provider": "bwrap", "cwd": "/p", "read": null, "write": ["/p", "/p/../out"], "network": ["api.github.com", "*.npmjs.org"], "spec": {}}});
        assert_eq!(
            line(&opened),
            "18:30:58.000  impl  opened (codex) in bwrap sandbox \"agent:impl\": writes /p, /p/../out; network: api.github.com, *.npmjs.org"
        );
        let narrowed = json!({"at": AT, "event": "agent-opened", "agent": "b", "runtime": {"kind": "pi", "program": "pi"}, "cwd": "/p",
            "sandbox": {"key": "team", "provider": "bwrap", "read": ["/src/lib"], "write": [], "network": true}});
        assert_eq!(
            line(&narrowed),
            "18:30:58.000  b  opened (pi) in bwrap sandbox \"team\": writes nothing; network: all; reads only /src/lib"
        );
        let none = json!({"at": AT, "event": "agent-opened", "agent": "c", "runtime": {"kind": "pi", "program": "pi"}, "cwd": "/p",
            "sandbox": {"key": "agent:c", "provider": "bwrap", "read": null, "write": ["/p"], "network": false}});
        assert!(line(&none).ends_with("writes /p; network: none"));
        let operator = json!({"at": AT, "event": "agent-opened", "agent": "e", "runtime": {"kind": "pi", "program": "pi"}, "cwd": "/p",
            "sandbox": {"key": "operator", "provider": "bwrap", "read": null, "write": ["/p"], "network": false, "from": "/ops/box.json"}});
        assert_eq!(
            line(&operator),
            "18:30:58.000  e  opened (pi) in bwrap sandbox \"operator\" from --agent-sandbox /ops/box.json: writes /p; network: none"
        );
        let contained = json!({"at": AT, "event": "agent-opened", "agent": "f", "runtime": {"kind": "command", "program": "/p/a.sh"}, "cwd": "/p",
            "sandbox": {"key": "agent:f", "provider": "podman", "read": null, "write": ["/p"], "network": false, "container": {"engine": "podman", "image": "awf-agents", "args": []}}});
        assert_eq!(
            line(&contained),
            "18:30:58.000  f  opened (command /p/a.sh) in podman sandbox \"agent:f\" (image awf-agents): writes /p; network: none"
        );
        let free = json!({"at": AT, "event": "agent-opened", "agent": "d", "runtime": {"kind": "pi", "program": "pi"}, "cwd": "/p"});
        assert_eq!(line(&free), "18:30:58.000  d  opened (pi)");
    }

    #[test]
    fn a_worktree_is_named_when_made_and_when_it_ends() {
        let made = json!({"at": AT, "event": "agent-workspace", "agent": "a", "workspace": {"worktree": {"keep": "on-failure"}},
            "worktree": {"path": "/p/.awf/runs/r1/worktrees/a", "branch": "awf/r1/a", "repo": "/p", "base": "0123456789abcdef0123", "keep": "on-failure"}});
        assert_eq!(
            line(&made),
            "18:30:58.000  a  worktree /p/.awf/runs/r1/worktrees/a on branch awf/r1/a (from 0123456789ab, keep on-failure)"
        );
        let scripted = json!({"at": AT, "event": "agent-workspace", "agent": "a", "workspace": {"worktree": {"keep": "always"}}});
        assert_eq!(
            line(&scripted),
            "18:30:58.000  a  workspace {\"worktree\":{\"keep\":\"always\"}} (no worktree made)"
        );
        let kept = json!({"at": AT, "event": "worktree-ended", "agent": "a", "path": "/w/a", "branch": "fix/a", "head": "fedcba9876543210", "dirty": true, "kept": true});
        assert_eq!(
            line(&kept),
            "18:30:58.000  a  worktree ended: branch fix/a at fedcba987654, with uncommitted changes; kept at /w/a"
        );
        let removed = json!({"at": AT, "event": "worktree-ended", "agent": "a", "path": "/w/a", "branch": "fix/a", "head": null, "dirty": false, "kept": false});
        assert_eq!(
            line(&removed),
            "18:30:58.000  a  worktree ended: branch fix/a at an unknown commit, clean; removed (the branch stays)"
        );
    }
}
