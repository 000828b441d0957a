//! Module names to module code: built-ins by their public names, files by path.
//!
//! The resolver turns what an `import` wrote into a canonical name: `awf:<path>` for built-ins
//! (`agentswf` -> `awf:agentswf/index`), an absolute path for files (tried as written, then
//! with `.ts`, `.mts`, `.js`, `.mjs`, `.json`, then as a folder's `index.*`). `awf:ops` resolves
//! only from a built-in. A name that resolves to nothing throws an error saying where it was
//! written, as `cannot resolve "x" from wf.ts:3:20`, with a hint when one is likely. A file
//! passes the read gate first (`check_import`: under `awf run --sandbox`, outside the entry's
//! folder only what `--allow-read` grants is imported).
//!
//! The loader reads files, strips TypeScript and keeps async functions in their async context
//! (`transpile.rs`), registers each module's position
//! map and import sites, and turns JSON files into a module whose default export is the data.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use rquickjs::loader::{ImportAttributes, Loader, Resolver};
use rquickjs::module::{Declared, WriteOptions};
use rquickjs::{Ctx, Exception, Module, Object, Value};

use super::builtins;
use super::compile_cache;
use super::engine::HostState;
use super::module_mocks::{ModuleMocks, MOCK_PREFIX};
use super::transpile::{transpile, ImportSite, SourceKind};

const EXTENSIONS: &[&str] = &["ts", "mts", "js", "mjs", "json"];

/// Resolves for whichever host's context asks (hosts share a runtime in `awf test`).
pub struct AwfResolver;

impl Resolver for AwfResolver {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        let resolved = resolve_in(&HostState::of(ctx), base, name)
            .ok_or_else(|| unresolved(ctx, base, name))?;
        check_import(ctx, base, name, &resolved)?;
        Ok(resolved)
    }
}

/// A file passes the read gate before it is imported (`awf run --sandbox`); a refusal is placed
/// where the import was written, as the gate's other refusals read.
fn check_import(ctx: &Ctx<'_>, base: &str, name: &str, resolved: &str) -> rquickjs::Result<()> {
    if !resolved.starts_with('/') {
        return Ok(());
    }
    let state = HostState::of(ctx);
    let Err(denied) = super::host::gate(&state).check_import(Path::new(resolved)) else {
        return Ok(());
    };
    let site = state.import_site(base, name);
    let location = site.map(|pos| (base.to_string(), pos.line, pos.col));
    Err(throw_located(
        ctx,
        "Error",
        "ERR_ACCESS_DENIED",
        &denied.to_string(),
        location,
        Some(&denied.hint),
    ))
}

/// The module `name`, imported from `base`, is in the host `state`: what `resolve_name` says,
/// or the stand-in a test put in its place; `None` when it refers to nothing.
pub(super) fn resolve_in(state: &HostState, base: &str, name: &str) -> Option<String> {
    // A module a test replaced with `mock.module` is its stand-in for user files' imports;
    // one that does not exist (a virtual module) is found by the name it was mocked under.
    let mocks = base
        .starts_with('/')
        .then(|| state.get::<ModuleMocks>())
        .flatten();
    let cwd = state.cwd();
    let Some(resolved) = resolve_name(&cwd, base, name) else {
        let virtual_name = virtual_module_name(&cwd, base, name);
        return mocks.and_then(|mocks| mocks.replacement(&virtual_name));
    };
    if let Some(stand_in) = mocks.and_then(|mocks| mocks.replacement(&resolved)) {
        return Some(stand_in);
    }
    Some(resolved)
}

/// The canonical name of what `name`, imported from the module `base`, refers to: `awf:<path>`
/// for a built-in, an absolute path for a file; `None` when it refers to nothing.
pub fn resolve_name(cwd: &Path, base: &str, name: &str) -> Option<String> {
    // The host itself imports from scripts it evaluates (no file base); user files are
    // absolute paths and may reach only the public names.
    let from_builtin = base.starts_with("awf:") || !base.starts_with('/');
    if name == "awf:ops" && from_builtin {
        return Some(name.to_string());
    }
    if from_builtin && (name.starts_with("./") || name.starts_with("../")) {
        if let Some(canonical) =
            builtins::resolve_relative(base, name).filter(|c| builtins::exists(c))
        {
            return Some(canonical);
        }
    }
    if let Some(canonical) = builtins::public(name) {
        return Some(canonical.to_string());
    }
    if from_builtin && builtins::exists(name) {
        return Some(name.to_string());
    }
    if is_path(name) {
        if let Some(found) = resolve_file(cwd, base, name) {
            return Some(found.display().to_string());
        }
    }
    None
}

/// What `import name` written in `base` resolves to, for `mock.module`: a public built-in, a
/// file, or else (a module that does not exist, mocked into being) its virtual name.
pub(crate) fn resolve_for_mock(cwd: &Path, base: &str, name: &str) -> String {
    if let Some(canonical) = builtins::public(name) {
        return canonical.to_string();
    }
    if is_path(name) {
        if let Some(found) = resolve_file(cwd, base, name) {
            return found.display().to_string();
        }
    }
    virtual_module_name(cwd, base, name)
}

/// The name a module that does not exist goes by: a path made absolute against the importing
/// file's folder, or a bare name as it is written.
fn virtual_module_name(cwd: &Path, base: &str, name: &str) -> String {
    if !is_path(name) {
        return name.to_string();
    }
    let dir = match Path::new(base).parent() {
        Some(dir) if base.starts_with('/') => dir.to_path_buf(),
        _ => cwd.to_path_buf(),
    };
    crate::paths::normalize(&dir.join(name.strip_prefix("file://").unwrap_or(name)))
        .display()
        .to_string()
}

/// The error of an import that resolves to nothing, placed where it was written.
fn unresolved<'js>(ctx: &Ctx<'js>, base: &str, name: &str) -> rquickjs::Error {
    let state = HostState::of(ctx);
    let site = state.import_site(base, name);
    let cwd = state.cwd();
    let from = match &site {
        Some(pos) => format!("{}:{}:{}", shown_path(base, &cwd), pos.line, pos.col),
        None => shown_path(base, &cwd),
    };
    let message = format!("cannot resolve \"{name}\" from {from}");
    let hint = hint_for(name);
    let location = site.map(|pos| (base.to_string(), pos.line, pos.col));
    throw_located(
        ctx,
        "Error",
        "module-not-found",
        &message,
        location,
        hint.as_deref(),
    )
}

/// Loads for whichever host's context asks, into that host's source registry.
pub struct AwfLoader;

impl Loader for AwfLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        let state = HostState::of(ctx);
        if let Some(module) = declare_builtin(ctx, &state, name) {
            return module;
        }
        if name.starts_with(MOCK_PREFIX) {
            let source = state
                .get::<ModuleMocks>()
                .and_then(|mocks| mocks.source(name))
                .ok_or_else(|| Exception::throw_internal(ctx, &format!("no module mock {name}")))?;
            let module = Module::declare(ctx.clone(), name, source)?;
            state.note_module_loaded(name);
            return Ok(module);
        }
        let source = std::fs::read_to_string(name)
            .map_err(|e| Exception::throw_message(ctx, &format!("cannot read {name}: {e}")))?;
        if name.ends_with(".json") {
            return load_json(ctx, &state, name, &source);
        }
        // Import sites and source go in before the module is made: QuickJS resolves a module's
        // imports as it compiles or reads it, and an import that resolves to nothing is placed
        // by its site.
        if let Some(cached) = compile_cache::load(name, &source) {
            state.record_imports(name, cached.imports);
            state.sources.borrow_mut().insert(name, source, cached.map);
            // SAFETY: this executable wrote the bytecode, for this very source (compile_cache.rs
            // checks both, and the bytes' checksum).
            let module = unsafe { Module::load(ctx.clone(), &cached.bytecode) }?;
            state.note_module_loaded(name);
            set_import_meta(&module, name)?;
            return Ok(module);
        }
        let transpiled = match transpile(name, &source, SourceKind::of_path(name), true) {
            Ok(t) => t,
            Err(e) => {
                let location = Some((name.to_string(), e.pos.line, e.pos.col));
                return Err(throw_located(
                    ctx,
                    "SyntaxError",
                    "syntax-error",
                    &e.message,
                    location,
                    None,
                ));
            }
        };
        state.record_imports(name, transpiled.imports.clone());
        let map = transpiled.map.map(Arc::new);
        state
            .sources
            .borrow_mut()
            .insert(name, source.clone(), map.clone());
        let module = Module::declare(ctx.clone(), name, transpiled.code)?;
        state.note_module_loaded(name);
        if let Ok(bytecode) = module.write(WriteOptions::default()) {
            compile_cache::store(
                name,
                &source,
                &bytecode,
                map.as_deref(),
                &transpiled.imports,
            );
        }
        set_import_meta(&module, name)?;
        Ok(module)
    }
}

/// The built-in `name`, from the bytecode compiled at build time (parsing the built-ins was most
/// of a host's start-up), with its TypeScript and position map registered for stack traces and
/// code frames; `None` when awf has no built-in of that name.
pub fn declare_builtin<'js>(
    ctx: &Ctx<'js>,
    state: &HostState,
    name: &str,
) -> Option<rquickjs::Result<Module<'js, Declared>>> {
    let built = match builtins::load(name)? {
        Ok(built) => built,
        Err(e) => return Some(Err(Exception::throw_internal(ctx, &e))),
    };
    if !state.sources.borrow().contains(name) {
        state
            .sources
            .borrow_mut()
            .insert(name, built.source, Some(built.map.clone()));
    }
    tracing::trace!(
        module = name,
        bytes = built.bytecode.len(),
        "built-in loaded"
    );
    // SAFETY: runtime/build.rs wrote these bytes with this binary's own QuickJS (one rquickjs
    // from Cargo.lock for both), from the module of this name.
    let module = unsafe { Module::load(ctx.clone(), built.bytecode) };
    if module.is_ok() {
        state.note_module_loaded(name);
    }
    Some(module)
}

/// A JSON file as a module whose default export is its data.
fn load_json<'js>(
    ctx: &Ctx<'js>,
    state: &HostState,
    name: &str,
    source: &str,
) -> rquickjs::Result<Module<'js, Declared>> {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(source) {
        let location = Some((name.to_string(), e.line() as u32, e.column() as u32));
        // The position goes in front of the message (see `JsError::render`), not after it.
        let text = e.to_string();
        let problem = text.split(" at line ").next().unwrap_or(&text);
        let message = format!("not valid JSON: {problem}");
        return Err(throw_located(
            ctx,
            "SyntaxError",
            "syntax-error",
            &message,
            location,
            None,
        ));
    }
    state
        .sources
        .borrow_mut()
        .insert(name, source.to_string(), None);
    let module = Module::declare(ctx.clone(), name, format!("export default {source};"))?;
    state.note_module_loaded(name);
    Ok(module)
}

impl HostState {
    pub(super) fn record_imports(&self, module: &str, sites: Vec<ImportSite>) {
        self.import_sites
            .borrow_mut()
            .insert(module.to_string(), sites);
    }

    pub(super) fn import_site(
        &self,
        module: &str,
        specifier: &str,
    ) -> Option<super::source_map::SourcePos> {
        let sites = self.import_sites.borrow();
        sites
            .get(module)?
            .iter()
            .find(|s| s.specifier == specifier)
            .map(|s| s.pos)
    }
}

/// `import.meta.url`, `.filename` and `.dirname`, as Node and Bun give them.
fn set_import_meta(module: &Module<'_, Declared>, file: &str) -> rquickjs::Result<()> {
    let meta = module.meta()?;
    meta.set("url", format!("file://{file}"))?;
    meta.set("filename", file)?;
    let dir = Path::new(file)
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    meta.set("dirname", dir)?;
    Ok(())
}

fn is_path(name: &str) -> bool {
    name.starts_with("./")
        || name.starts_with("../")
        || name.starts_with('/')
        || name.starts_with("file://")
}

/// The file `name` names, relative to the importing module `base` (or to `cwd` for the entry).
fn resolve_file(cwd: &Path, base: &str, name: &str) -> Option<PathBuf> {
    let name = name.strip_prefix("file://").unwrap_or(name);
    let dir = if base.starts_with('/') {
        Path::new(base)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cwd.to_path_buf())
    } else {
        cwd.to_path_buf()
    };
    let wanted = crate::paths::normalize(&dir.join(name));
    candidates(&wanted).into_iter().find(|p| p.is_file())
}

/// Where to look for `wanted`, in order.
fn candidates(wanted: &Path) -> Vec<PathBuf> {
    let mut out = vec![wanted.to_path_buf()];
    let text = wanted.display().to_string();
    // TypeScript's ESM convention: `import "./a.js"` names the file a.ts.
    for (js, ts) in [(".js", ".ts"), (".mjs", ".mts")] {
        if let Some(stem) = text.strip_suffix(js) {
            out.push(PathBuf::from(format!("{stem}{ts}")));
        }
    }
    for ext in EXTENSIONS {
        out.push(PathBuf::from(format!("{text}.{ext}")));
    }
    for ext in EXTENSIONS {
        out.push(wanted.join(format!("index.{ext}")));
    }
    out
}

fn shown_path(file: &str, cwd: &Path) -> String {
    Path::new(file)
        .strip_prefix(cwd)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| file.to_string())
}

/// What to do about an import of `name` that resolves to nothing.
pub fn hint_for(name: &str) -> Option<String> {
    let served: Vec<&str> = builtins::PUBLIC_NAMES.iter().map(|(n, _)| *n).collect();
    if is_path(name) {
        return Some(format!(
            "no file {name}, nor with .ts, .mts, .js, .mjs or .json added, nor {name}/index.ts exists"
        ));
    }
    let closest = served
        .iter()
        .map(|s| (edit_distance(s, name), *s))
        .min()
        .filter(|(d, _)| *d <= 3)
        .map(|(_, s)| s);
    // Each of awf's own modules once, by its first name (`agentswf`, not also its alias).
    let mut own: Vec<&str> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (name, canonical) in builtins::PUBLIC_NAMES {
        if !canonical.starts_with("awf:node/") && !seen.contains(canonical) {
            seen.push(canonical);
            own.push(name);
        }
    }
    let list = format!(
        "{} and Node's modules (node:fs, node:path, ...)",
        own.join(", ")
    );
    Some(match closest {
        Some(s) => format!("did you mean \"{s}\"? awf serves {list}"),
        None => format!("awf serves {list}; other packages are not installed for workflows, import files by relative path"),
    })
}

pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// Throws an Error of class `class` with awf's `code`, `location` and `hint` fields.
pub fn throw_located<'js>(
    ctx: &Ctx<'js>,
    class: &str,
    code: &str,
    message: &str,
    location: Option<(String, u32, u32)>,
    hint: Option<&str>,
) -> rquickjs::Error {
    let build = || -> rquickjs::Result<Value<'js>> {
        let ctor: rquickjs::Function = ctx.globals().get(class)?;
        let error: Object = ctor.call((message,))?;
        if class == "Error" {
            // awf's own errors print without a class name (see `JsError::headline`).
            error.set("name", "AwfError")?;
        }
        error.set("code", code)?;
        if let Some((file, line, col)) = location {
            let at = Object::new(ctx.clone())?;
            at.set("file", file)?;
            at.set("line", line)?;
            at.set("col", col)?;
            error.set("location", at)?;
        }
        if let Some(hint) = hint {
            error.set("hint", hint)?;
        }
        Ok(error.into_value())
    };
    match build() {
        Ok(error) => ctx.throw(error),
        Err(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_resolve_with_or_without_extension_and_as_folders() {
        let dir = std::env::temp_dir().join(format!("awf-loader-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("a.ts"), "").unwrap();
        std::fs::write(dir.join("lib/index.ts"), "").unwrap();
        std::fs::write(dir.join("data.json"), "{}").unwrap();
        let base = dir.join("main.ts").display().to_string();
        let found = |name: &str| {
            resolve_file(&dir, &base, name)
                .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
        };
        assert_eq!(found("./a").as_deref(), Some("a.ts"));
        assert_eq!(found("./a.ts").as_deref(), Some("a.ts"));
        assert_eq!(found("./a.js").as_deref(), Some("a.ts"));
        assert_eq!(found("./lib").as_deref(), Some("lib/index.ts"));
        assert_eq!(found("./lib/../data.json").as_deref(), Some("data.json"));
        assert_eq!(found("./missing"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn only_built_ins_reach_the_ops_module() {
        let cwd = Path::new("/tmp");
        assert_eq!(resolve_name(cwd, "/tmp/wf.ts", "awf:ops"), None);
        assert_eq!(
            resolve_name(cwd, "awf:agentswf/workflow", "awf:ops").as_deref(),
            Some("awf:ops")
        );
        assert_eq!(
            resolve_name(cwd, "/tmp/wf.ts", "agentswf").as_deref(),
            Some("awf:agentswf/index")
        );
        assert_eq!(
            resolve_name(cwd, "/tmp/wf.ts", "awf:agentswf/workflow"),
            None
        );
    }

    #[test]
    fn hints_name_the_closest_served_module() {
        let hint = hint_for("agentswf/workfow").unwrap();
        assert!(
            hint.starts_with(
                "did you mean \"agentswf/workflow\"? awf serves agentswf, agentswf/testing, "
            ),
            "{hint}"
        );
        assert!(
            hint.ends_with(
                "typebox, typebox/value, bun:test and Node's modules (node:fs, node:path, ...)"
            ),
            "{hint}"
        );
        assert!(hint_for("lodash").unwrap().starts_with("awf serves"));
    }
}
