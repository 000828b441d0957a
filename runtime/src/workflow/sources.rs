//! The workflow's source files as an attempt records them: the entry file and every file it
//! imports from disk (relative imports, JSON data), each with the SHA-1 of its text, so that a
//! continued run can say which files changed since the attempt before.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use sha1::{Digest, Sha1};

/// `{ path: sha1 }` of the files loaded, paths relative to the entry's folder where they are
/// under it (absolute otherwise).
pub fn hashes<'a>(entry: &Path, files: impl Iterator<Item = (&'a str, &'a str)>) -> Value {
    let base = entry.parent().unwrap_or(Path::new("/"));
    let map: serde_json::Map<String, Value> = files
        .map(|(name, text)| {
            let path = Path::new(name);
            let shown = path
                .strip_prefix(base)
                .unwrap_or(path)
                .display()
                .to_string();
            let digest = Sha1::digest(text.as_bytes());
            let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            (shown, Value::String(hex))
        })
        .collect::<BTreeMap<_, _>>()
        .into_iter()
        .collect();
    Value::Object(map)
}

/// What changed from `before` to `now`: `path` (changed), `path (new)`, `path (gone)`.
pub fn changes(before: &Value, now: &Value) -> Vec<String> {
    let (Some(before), Some(now)) = (before.as_object(), now.as_object()) else {
        return Vec::new();
    };
    let mut changed = Vec::new();
    for (path, hash) in now {
        match before.get(path) {
            Some(old) if old == hash => {}
            Some(_) => changed.push(path.clone()),
            None => changed.push(format!("{path} (new)")),
        }
    }
    for path in before.keys().filter(|p| !now.contains_key(*p)) {
        changed.push(format!("{path} (gone)"));
    }
    // The same list whatever order the maps keep.
    changed.sort();
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_are_named_from_the_entry_folder_and_changes_are_named() {
        let entry = Path::new("/p/wf.ts");
        let before = hashes(
            entry,
            [("/p/wf.ts", "a"), ("/p/lib/x.ts", "b"), ("/p/old.ts", "c")].into_iter(),
        );
        assert_eq!(
            before["wf.ts"],
            json!("86f7e437faa5a7fce15d1ddcb9eaeaea377667b8")
        );
        let now = hashes(
            entry,
            [("/p/wf.ts", "a"), ("/p/lib/x.ts", "B"), ("/q/new.ts", "d")].into_iter(),
        );
        assert_eq!(
            changes(&before, &now),
            ["/q/new.ts (new)", "lib/x.ts", "old.ts (gone)"]
        );
        assert!(changes(&now, &now).is_empty());
    }
}
