//! The built-in modules: TypeScript under `js/`, embedded in the binary, served as `awf:<path>`.
//!
//! `awf:agentswf/workflow` is `js/agentswf/workflow.ts`. Authors reach the public ones by the
//! names in `PUBLIC_NAMES` (`agentswf`, `typebox`, `bun:test`, ...); the rest are private to
//! built-ins. They are compiled to QuickJS bytecode at build time (runtime/build.rs, `COMPILED`);
//! the position map of each is written sorted into the binary at build time and borrowed from
//! there; what a load makes is kept for the other hosts (`awf test` starts one host per file).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use super::builtin_path::resolve_relative;
use super::source_map::{PositionMap, SourcePos};

/// A built-in as runtime/build.rs compiled it: its path under js/ without `.ts`, its QuickJS
/// bytecode, and its (JS, TS) position pairs, sorted by JS position.
type CompiledModule = (
    &'static str,
    &'static [u8],
    &'static [(SourcePos, SourcePos)],
);

/// The generated table's short name for a position.
const fn p(line: u32, col: u32) -> SourcePos {
    SourcePos { line, col }
}

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

macro_rules! builtins {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../../js/", $path, ".ts")))),*]
    };
}

/// (path under js/ without `.ts`, TypeScript source).
const SOURCES: &[(&str, &str)] = builtins![
    "bootstrap",
    "core",
    "errors",
    "runner",
    "host/abort",
    "host/async_context",
    "host/blob",
    "host/buffer",
    "host/child_process",
    "host/clone",
    "host/console",
    "host/crypto",
    "host/encoding",
    "host/event_target",
    "host/fetch",
    "host/form_data",
    "host/fs",
    "host/inspect",
    "host/lazy_global",
    "host/os",
    "host/process",
    "host/shared_objects",
    "host/stack",
    "host/text_codec",
    "host/timers",
    "host/url",
    "node/buffer",
    "node/child_process",
    "node/errors",
    "node/events",
    "node/fs",
    "node/fs/promises",
    "node/os",
    "node/path",
    "node/process",
    "node/util",
    "agentswf/session_records",
    "agentswf/index",
    "agentswf/script_player",
    "agentswf/scripts",
    "agentswf/test_run",
    "agentswf/testing",
    "agentswf/workflow",
    "workflow/agents",
    "workflow/ask",
    "workflow/context",
    "workflow/fork",
    "workflow/identity",
    "workflow/messages",
    "workflow/options",
    "workflow/parallel",
    "workflow/race",
    "workflow/scope",
    "workflow/tools",
    "workflow/stages",
    "workflow/timeout",
    "workflow/usage",
    "typebox",
    "typebox/check",
    "typebox/format",
    "typebox/value",
    "test/bun_test",
    "test/each_name",
    "test/events",
    "test/expect",
    "test/expect/asymmetric",
    "test/expect/asymmetric_matcher",
    "test/expect/diff",
    "test/expect/equality",
    "test/expect/extend",
    "test/expect/extended",
    "test/expect/format",
    "test/expect/matcher_table",
    "test/expect/matchers",
    "test/expect/mock_matchers",
    "test/expect/settled",
    "test/expect/stack",
    "test/failure",
    "test/fake_timers",
    "test/file_runner",
    "test/jest",
    "test/mock",
    "test/plan",
    "test/registration",
    "test/registry",
    "test/run",
    "test/snapshot",
    "test/snapshot/inline",
    "test/snapshot/serialize",
    "test/snapshot/snap_file",
];

/// Names authors import, and the built-in each one is.
pub const PUBLIC_NAMES: &[(&str, &str)] = &[
    ("agentswf", "awf:agentswf/index"),
    ("agentswf/workflow", "awf:agentswf/index"),
    ("agentswf/testing", "awf:agentswf/testing"),
    ("typebox", "awf:typebox"),
    ("typebox/value", "awf:typebox/value"),
    // Node's modules, by `node:` name and bare, as Node resolves them.
    ("node:buffer", "awf:node/buffer"),
    ("buffer", "awf:node/buffer"),
    ("node:child_process", "awf:node/child_process"),
    ("child_process", "awf:node/child_process"),
    ("node:events", "awf:node/events"),
    ("events", "awf:node/events"),
    ("node:fs", "awf:node/fs"),
    ("fs", "awf:node/fs"),
    ("node:fs/promises", "awf:node/fs/promises"),
    ("fs/promises", "awf:node/fs/promises"),
    ("node:os", "awf:node/os"),
    ("os", "awf:node/os"),
    ("node:path", "awf:node/path"),
    ("path", "awf:node/path"),
    ("node:path/posix", "awf:node/path"),
    ("path/posix", "awf:node/path"),
    ("node:process", "awf:node/process"),
    ("process", "awf:node/process"),
    ("node:util", "awf:node/util"),
    ("util", "awf:node/util"),
    ("bun:test", "awf:test/bun_test"),
    ("awf:test", "awf:test/bun_test"),
    ("@jest/globals", "awf:test/bun_test"),
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

/// A built-in, ready for the engine.
pub struct BuiltinCode {
    /// The module compiled at build time by this binary's own QuickJS (`Module::load` reads it).
    pub bytecode: &'static [u8],
    /// From positions in the stripped JS to positions in `source`, shared by every host.
    pub map: Arc<PositionMap>,
    /// The TypeScript, for code frames.
    pub source: &'static str,
}

/// A built-in module as compiled at build time, with its position map.
pub fn load(canonical: &str) -> Option<Result<Arc<BuiltinCode>, String>> {
    let source = source(canonical)?;
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<BuiltinCode>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().expect("builtin cache").get(canonical) {
        return Some(Ok(hit.clone()));
    }
    let path = canonical.strip_prefix("awf:")?;
    let Some((_, bytecode, pairs)) = COMPILED.iter().find(|(p, _, _)| *p == path) else {
        return Some(Err(format!(
            "built-in module {canonical} was not compiled at build time; rebuild awf"
        )));
    };
    let map = Arc::new(PositionMap::from_sorted(pairs));
    let built = Arc::new(BuiltinCode {
        bytecode,
        map,
        source,
    });
    cache
        .lock()
        .expect("builtin cache")
        .insert(canonical.to_string(), built.clone());
    Some(Ok(built))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_was_compiled_at_build_time() {
        for (path, source) in SOURCES {
            let name = format!("awf:{path}");
            let built = load(&name)
                .expect("served")
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(built.source, *source);
            assert!(!built.bytecode.is_empty(), "{name}");
        }
    }

    #[test]
    fn builtin_maps_are_sorted_without_repeats() {
        for (path, _, pairs) in COMPILED {
            let sorted = pairs.windows(2).all(|two| two[0].0 < two[1].0);
            assert!(
                sorted,
                "js/{path}.ts: its position pairs are not strictly sorted"
            );
        }
    }

    #[test]
    fn public_names_point_at_builtins() {
        for (_, canonical) in PUBLIC_NAMES {
            assert!(exists(canonical), "{canonical}");
        }
    }
}
