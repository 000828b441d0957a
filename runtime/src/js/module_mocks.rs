//! `mock.module(specifier, factory)` of `bun:test` (js/test/mock.ts): which modules a test file
//! replaced, and the stand-in module each import of one gets from then on.
//!
//! A replaced module keeps its canonical name in this registry; the resolver (loader.rs) turns
//! every later import of that name from a user file into `awf-mock:<id>:<name>`, a module the
//! loader makes up: its exports are the factory's object's properties (read from the JS side's
//! table under `Symbol.for("awf:mocked-modules")`), its default export the object's `default`
//! or else the object itself. Modules already evaluated keep the bindings they were linked to:
//! QuickJS links an import once, so what imported the module before `mock.module` ran still
//! sees the original (bun patches those in place; awf cannot).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// The name prefix of a stand-in module.
pub const MOCK_PREFIX: &str = "awf-mock:";

/// The replaced modules of one host, by canonical name.
#[derive(Default)]
pub struct ModuleMocks {
    by_name: RefCell<HashMap<String, Replacement>>,
    next_id: Cell<u32>,
}

#[derive(Clone)]
struct Replacement {
    id: u32,
    /// The factory object's own string keys: the stand-in's named exports.
    keys: Vec<String>,
}

impl ModuleMocks {
    /// Replaces `canonical` for the imports that follow; gives the id the JS side files the
    /// factory's object under. A second call for the same module replaces the first.
    pub fn register(&self, canonical: &str, keys: Vec<String>) -> u32 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        self.by_name
            .borrow_mut()
            .insert(canonical.to_string(), Replacement { id, keys });
        id
    }

    /// The stand-in's module name for an import that resolved to `canonical`, if it is replaced.
    pub fn replacement(&self, canonical: &str) -> Option<String> {
        let replacement = self.by_name.borrow().get(canonical)?.clone();
        Some(format!("{MOCK_PREFIX}{}:{canonical}", replacement.id))
    }

    /// The source of the stand-in module `name` (an `awf-mock:` name this registry gave out).
    pub fn source(&self, name: &str) -> Option<String> {
        let rest = name.strip_prefix(MOCK_PREFIX)?;
        let (id, canonical) = rest.split_once(':')?;
        let replacement = self.by_name.borrow().get(canonical)?.clone();
        if replacement.id.to_string() != id {
            return None;
        }
        Some(stand_in_source(replacement.id, &replacement.keys))
    }
}

/// `const m = ...; export default ...; const e0 = m["a"]; export { e0 as a };`: named exports
/// for the keys that are identifiers (others stay reachable through the default export).
fn stand_in_source(id: u32, keys: &[String]) -> String {
    let mut source = format!(
        "const m = globalThis[Symbol.for(\"awf:mocked-modules\")].get({id});\nexport default (\"default\" in m ? m.default : m);\n"
    );
    let named: Vec<&String> = keys
        .iter()
        .filter(|key| key.as_str() != "default" && is_identifier(key))
        .collect();
    for (index, key) in named.iter().enumerate() {
        source.push_str(&format!(
            "const e{index} = m[{}];\n",
            serde_json::Value::String((*key).clone())
        ));
    }
    if !named.is_empty() {
        let list: Vec<String> = named
            .iter()
            .enumerate()
            .map(|(index, key)| format!("e{index} as {key}"))
            .collect();
        source.push_str(&format!("export {{ {} }};\n", list.join(", ")));
    }
    source
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !matches!(
            key,
            "await"
                | "break"
                | "case"
                | "catch"
                | "class"
                | "const"
                | "continue"
                | "debugger"
                | "delete"
                | "do"
                | "else"
                | "enum"
                | "export"
                | "extends"
                | "false"
                | "finally"
                | "for"
                | "function"
                | "if"
                | "import"
                | "in"
                | "instanceof"
                | "new"
                | "null"
                | "return"
                | "super"
                | "switch"
                | "this"
                | "throw"
                | "true"
                | "try"
                | "typeof"
                | "var"
                | "void"
                | "while"
                | "with"
                | "yield"
                | "let"
                | "static"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_module_resolves_to_its_latest_stand_in() {
        let mocks = ModuleMocks::default();
        assert_eq!(mocks.replacement("/p/dep.ts"), None);
        let first = mocks.register("/p/dep.ts", vec!["a".into()]);
        let name = mocks.replacement("/p/dep.ts").unwrap();
        assert_eq!(name, format!("awf-mock:{first}:/p/dep.ts"));
        let second = mocks.register("/p/dep.ts", vec!["b".into()]);
        assert_ne!(first, second);
        assert_eq!(mocks.source(&name), None, "an older stand-in is gone");
        let source = mocks
            .source(&mocks.replacement("/p/dep.ts").unwrap())
            .unwrap();
        assert!(source.contains("export { e0 as b };"), "{source}");
    }

    #[test]
    fn only_identifier_keys_become_named_exports() {
        let source = stand_in_source(
            1,
            &[
                "ok".into(),
                "not-one".into(),
                "default".into(),
                "class".into(),
            ],
        );
        assert!(source.contains("export { e0 as ok };"), "{source}");
        assert!(!source.contains("not-one\""), "{source}");
    }
}
