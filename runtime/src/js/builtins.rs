//! The built-in modules: TypeScript under `js/`, embedded in the binary, served as `awf:<path>`.
//!
//! `awf:agentswf/workflow` is `js/agentswf/workflow.ts`. Authors reach the public ones by the
//! names in `PUBLIC_NAMES` (`agentswf`, `typebox`, `bun:test`, ...); the rest are private to
//! built-ins. Each is stripped of types the first time any host in the process loads it, and
//! kept for the other hosts (`awf test` starts one host per test file), as is its bytecode once
//! the first host has compiled it (loader.rs).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::source_map::PositionMap;
use super::transpile::{transpile, SourceKind, Transpiled};

macro_rules! builtins {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../../../js/", $path, ".ts")))),*]
    };
}

/// (path under js/ without `.ts`, TypeScript source).
const SOURCES: &[(&str, &str)] = builtins![
    "bootstrap",
    "core",
    "runner",
    "host/clone",
    "host/console",
    "host/inspect",
    "host/process",
    "host/stack",
    "host/timers",
    "agentswf/workflow",
    "workflow/context",
    "typebox",
    "test/bun_test",
    "test/expect",
    "test/file_runner",
];

/// Names authors import, and the built-in each one is.
pub const PUBLIC_NAMES: &[(&str, &str)] = &[
    ("agentswf", "awf:agentswf/workflow"),
    ("agentswf/workflow", "awf:agentswf/workflow"),
    ("typebox", "awf:typebox"),
    ("bun:test", "awf:test/bun_test"),
    ("awf:test", "awf:test/bun_test"),
];

/// The public name for `specifier`, if awf serves it.
pub fn public(specifier: &str) -> Option<&'static str> {
    PUBLIC_NAMES
        .iter()
        .find(|(name, _)| *name == specifier)
        .map(|(_, canonical)| *canonical)
}

pub fn exists(canonical: &str) -> bool {
    source(canonical).is_some()
}

fn source(canonical: &str) -> Option<&'static str> {
    let path = canonical.strip_prefix("awf:")?;
    SOURCES.iter().find(|(p, _)| *p == path).map(|(_, s)| *s)
}

/// A built-in's JS, ready for the engine.
pub struct BuiltinCode {
    pub code: String,
    pub map: Option<PositionMap>,
    pub source: &'static str,
    /// The module compiled by the first host that loaded it, for the next hosts to load.
    pub bytecode: OnceLock<Vec<u8>>,
}

/// The JS of a built-in module, transpiled once per process.
pub fn load(canonical: &str) -> Option<Result<Arc<BuiltinCode>, String>> {
    let source = source(canonical)?;
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<BuiltinCode>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().expect("builtin cache").get(canonical) {
        return Some(Ok(hit.clone()));
    }
    let built = match transpile(canonical, source, SourceKind::TypeScript) {
        Ok(Transpiled { code, map, .. }) => Arc::new(BuiltinCode {
            code,
            map,
            source,
            bytecode: OnceLock::new(),
        }),
        Err(e) => {
            return Some(Err(format!(
                "built-in module {canonical} does not parse at {}:{}: {}",
                e.pos.line, e.pos.col, e.message
            )))
        }
    };
    cache
        .lock()
        .expect("builtin cache")
        .insert(canonical.to_string(), built.clone());
    Some(Ok(built))
}

/// `awf:host/console` + `./inspect.ts` -> `awf:host/inspect`: built-ins import each other by
/// relative path, as the files sit under js/.
pub fn resolve_relative(base: &str, specifier: &str) -> Option<String> {
    let base_path = base.strip_prefix("awf:")?;
    let mut parts: Vec<&str> = base_path.split('/').collect();
    parts.pop();
    for segment in specifier.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    let path = joined.strip_suffix(".ts").unwrap_or(&joined);
    Some(format!("awf:{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses() {
        for (path, _) in SOURCES {
            let name = format!("awf:{path}");
            if let Some(Err(e)) = load(&name) {
                panic!("{e}");
            }
        }
    }

    #[test]
    fn relative_imports_between_builtins() {
        assert_eq!(
            resolve_relative("awf:host/console", "./inspect.ts").as_deref(),
            Some("awf:host/inspect")
        );
        assert_eq!(
            resolve_relative("awf:host/timers", "../core.ts").as_deref(),
            Some("awf:core")
        );
        assert_eq!(resolve_relative("awf:core", "../../x.ts"), None);
    }

    #[test]
    fn public_names_point_at_builtins() {
        for (_, canonical) in PUBLIC_NAMES {
            assert!(exists(canonical), "{canonical}");
        }
    }
}
