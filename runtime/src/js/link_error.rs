//! An import of a name its module does not export, said where the import is written.
//!
//! QuickJS links a module graph once it is loaded, and refuses a name no module exports with
//! `Could not find export 'x' in module 'awf:agentswf/index'`: the module that lacks the name,
//! not the import that asked for it, and an internal module name at that. `place` finds the
//! import among the files the loader registered (module_names.rs reads them again) and gives
//! awf's error instead: at the importing file's line and column, naming the module as the
//! import wrote it, with the closest name it does export as "did you mean".

use std::collections::HashSet;
use std::path::Path;

use super::builtins;
use super::engine::HostState;
use super::loader::{edit_distance, resolve_in};
use super::module_names::{exports, named_imports};
use crate::upcall::{JsError, Location};

/// How many of a module's names a hint lists before `...`.
const SHOWN_NAMES: usize = 12;

/// awf's error for QuickJS's "Could not find export" error, in the host `state` whose modules
/// it links; any other error as it is.
pub fn place(state: &HostState, error: JsError) -> JsError {
    let Some((name, module)) = missing_export(&error) else {
        return error;
    };
    let cwd = state.cwd();
    let files: Vec<(String, String)> = state
        .sources
        .borrow()
        .files()
        .map(|(file, source)| (file.to_string(), source.to_string()))
        .collect();
    let site = files.iter().find_map(|(file, source)| {
        named_imports(file, source)
            .into_iter()
            .find(|import| {
                import.name == name
                    && resolve_in(state, file, &import.specifier).as_deref() == Some(module)
            })
            .map(|import| (file.clone(), import))
    });
    let shown = match &site {
        Some((_, import)) => import.specifier.clone(),
        None => shown_module(module, &cwd),
    };
    let mut names = exported_names(state, module);
    names.sort();
    names.dedup();
    let message = match name {
        "default" => format!("\"{shown}\" has no default export"),
        _ => format!("\"{shown}\" has no export named \"{name}\""),
    };
    JsError {
        location: site.map(|(file, import)| Location {
            file,
            line: import.pos.line,
            col: import.pos.col,
        }),
        ..JsError::message("AwfError", &message)
            .with_code("export-not-found")
            .with_hint(&hint(name, &shown, &names))
    }
}

/// The name and the module of QuickJS's link error, when `error` is one.
fn missing_export(error: &JsError) -> Option<(&str, &str)> {
    if error.name != "SyntaxError" {
        return None;
    }
    let rest = error.message.strip_prefix("Could not find export '")?;
    let (name, module) = rest.split_once("' in module '")?;
    Some((name, module.strip_suffix('\'')?))
}

/// The values `module` exports, following `export * from` (which passes on no `default`).
fn exported_names(state: &HostState, module: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut seen = HashSet::new();
    let mut pending = vec![(module.to_string(), true)];
    while let Some((module, with_default)) = pending.pop() {
        if !seen.insert(module.clone()) {
            continue;
        }
        if module.ends_with(".json") {
            names.extend(with_default.then(|| "default".to_string()));
            continue;
        }
        let Some(source) = source_of(state, &module) else {
            continue;
        };
        let found = exports(&module, &source);
        names.extend(
            found
                .names
                .into_iter()
                .filter(|name| with_default || name != "default"),
        );
        for specifier in found.star_from {
            if let Some(next) = resolve_in(state, &module, &specifier) {
                pending.push((next, false));
            }
        }
    }
    names
}

/// A module's source: what the loader registered, else a built-in's own.
fn source_of(state: &HostState, module: &str) -> Option<String> {
    let sources = state.sources.borrow();
    if let Some(source) = sources.source(module) {
        return Some(source.to_string());
    }
    builtins::load(module)?
        .ok()
        .map(|built| built.source.to_string())
}

/// What to do: the closest name as "did you mean", and the names the module has.
fn hint(name: &str, module: &str, names: &[String]) -> String {
    let closest = names
        .iter()
        .filter(|candidate| *candidate != "default")
        .map(|candidate| (distance(name, candidate), candidate))
        .filter(|(d, candidate)| *d <= 3 && *d < candidate.chars().count().max(2))
        .min()
        .map(|(_, candidate)| candidate);
    let listed = if names.is_empty() {
        format!("\"{module}\" exports nothing by name")
    } else {
        let mut shown: Vec<&str> = names.iter().take(SHOWN_NAMES).map(String::as_str).collect();
        if names.len() > SHOWN_NAMES {
            shown.push("...");
        }
        format!("\"{module}\" exports {}", shown.join(", "))
    };
    match closest {
        Some(closest) => format!("did you mean \"{closest}\"? {listed}"),
        None => listed,
    }
}

/// Edit distance, with a change of case alone counted as one edit.
fn distance(a: &str, b: &str) -> usize {
    if a != b && a.eq_ignore_ascii_case(b) {
        return 1;
    }
    edit_distance(a, b)
}

/// A module named by QuickJS, as a person knows it: a built-in by its public name, a file
/// relative to the cwd.
fn shown_module(module: &str, cwd: &Path) -> String {
    if let Some((public, _)) = builtins::PUBLIC_NAMES
        .iter()
        .find(|(_, canonical)| *canonical == module)
    {
        return public.to_string();
    }
    Path::new(module)
        .strip_prefix(cwd)
        .map(|p| format!("./{}", p.display()))
        .unwrap_or_else(|_| module.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quickjs_link_errors_only() {
        let link = JsError::message(
            "SyntaxError",
            "Could not find export 'defineWorkflw' in module 'awf:agentswf/index'",
        );
        assert_eq!(
            missing_export(&link),
            Some(("defineWorkflw", "awf:agentswf/index"))
        );
        let other = JsError::message("SyntaxError", "unexpected token");
        assert_eq!(missing_export(&other), None);
        let thrown = JsError::message("Error", &link.message);
        assert_eq!(missing_export(&thrown), None);
    }

    #[test]
    fn hints_name_the_closest_export_and_list_them() {
        let names: Vec<String> = ["Type", "defineWorkflow", "tool", "typed"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            hint("defineWorkflw", "agentswf", &names),
            "did you mean \"defineWorkflow\"? \"agentswf\" exports Type, defineWorkflow, tool, typed"
        );
        assert_eq!(
            hint("type", "agentswf", &names),
            "did you mean \"Type\"? \"agentswf\" exports Type, defineWorkflow, tool, typed"
        );
        assert_eq!(
            hint("somethingElse", "./lib", &names),
            "\"./lib\" exports Type, defineWorkflow, tool, typed"
        );
        assert_eq!(
            hint("a", "./empty", &[]),
            "\"./empty\" exports nothing by name"
        );
        let many: Vec<String> = (0..20).map(|i| format!("name{i:02}")).collect();
        assert!(hint("x", "./many", &many).ends_with("name11, ..."));
    }

    #[test]
    fn modules_are_shown_by_their_public_name_or_relative_path() {
        let cwd = Path::new("/w");
        assert_eq!(shown_module("awf:agentswf/index", cwd), "agentswf");
        assert_eq!(shown_module("/w/lib/a.ts", cwd), "./lib/a.ts");
        assert_eq!(shown_module("/elsewhere/a.ts", cwd), "/elsewhere/a.ts");
    }
}
