//! The module resolver: any import name from any importing module, against a small folder of
//! files. Never a panic; a file it resolves to exists, is absolute and has no `.` or `..` left
//! in it; a built-in it names is one awf serves, and `awf:ops` only to a built-in's import; the
//! hint for a name that resolves to nothing is never empty.
#![no_main]

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use awf_runtime::js::{resolve_name, unresolved_hint};
use libfuzzer_sys::fuzz_target;

/// A folder with a file, a TypeScript file named by `.js`, a folder with an index and a JSON file.
fn project() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("awf-fuzz-resolve-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib/deep")).unwrap();
        for file in ["main.ts", "a.ts", "b.mts", "lib/index.ts", "lib/deep/c.js", "data.json"] {
            std::fs::write(dir.join(file), "").unwrap();
        }
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (base_pick, name) = match text.split_once('\0') {
        Some((base, name)) => (base.to_string(), name.to_string()),
        None => (String::new(), text.to_string()),
    };
    let dir = project();
    // The importing module: a user file of the folder, a built-in, or whatever the input says.
    let base = match base_pick.as_str() {
        "" => dir.join("main.ts").display().to_string(),
        "b" => "awf:agentswf/workflow".to_string(),
        "d" => dir.join("lib/deep/c.js").display().to_string(),
        other => other.to_string(),
    };
    let from_builtin = base.starts_with("awf:") || !base.starts_with('/');
    match resolve_name(dir, &base, &name) {
        Some(found) if found.starts_with('/') => {
            let path = Path::new(&found);
            assert!(path.is_file(), "{name:?} from {base:?} resolved to {found}, not a file");
            assert!(
                path.components().all(|c| !matches!(c, Component::CurDir | Component::ParentDir)),
                "{found} is not normalized"
            );
        }
        Some(found) => {
            assert!(found.starts_with("awf:"), "{name:?} resolved to {found:?}");
            if found == "awf:ops" {
                assert!(from_builtin, "a user file reached awf:ops through {name:?}");
            }
        }
        None => {
            let hint = unresolved_hint(&name);
            assert!(hint.is_some_and(|h| !h.is_empty()), "no hint for {name:?}");
        }
    }
});
