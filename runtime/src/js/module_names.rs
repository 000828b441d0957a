//! The names a module's source imports and exports, read with swc when an error needs them.
//!
//! QuickJS knows both once it has linked a module graph, but says only which name a module
//! lacks; the import that asked for it, and the names that module has, are read here from the
//! sources the loader registered (link_error.rs). Only values count: `import type`, `export
//! interface` and the like are gone by the time QuickJS links.

use swc_core::common::{sync::Lrc, FileName, SourceMap, Span};
use swc_core::ecma::ast::{
    BindingIdent, Decl, ExportSpecifier, ImportSpecifier, Module, ModuleDecl, ModuleExportName,
    ModuleItem, Pat,
};
use swc_core::ecma::parser::{lexer::Lexer, Parser, StringInput};
use swc_core::ecma::visit::{Visit, VisitWith};

use super::source_map::SourcePos;
use super::transpile::SourceKind;

/// One name a module imports from another: `import { name } from "specifier"`, `import name
/// from` (`default`) or `export { name } from`, where the name is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedImport {
    pub specifier: String,
    pub name: String,
    pub pos: SourcePos,
}

/// What a module exports: its own names, and the modules it re-exports whole (`export * from`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exports {
    pub names: Vec<String>,
    pub star_from: Vec<String>,
}

/// The names `source` (the module `path`) imports by name; none when it does not parse.
pub fn named_imports(path: &str, source: &str) -> Vec<NamedImport> {
    let Some((cm, module)) = parse(path, source) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut add = |specifier: &str, name: &str, span: Span| {
        let loc = cm.lookup_char_pos(span.lo);
        found.push(NamedImport {
            specifier: specifier.to_string(),
            name: name.to_string(),
            pos: SourcePos {
                line: loc.line as u32,
                col: loc.col_display as u32 + 1,
            },
        });
    };
    for item in &module.body {
        match item {
            ModuleItem::ModuleDecl(ModuleDecl::Import(import)) if !import.type_only => {
                let from = import.src.value.to_string_lossy();
                for specifier in &import.specifiers {
                    match specifier {
                        ImportSpecifier::Named(named) if !named.is_type_only => {
                            match &named.imported {
                                Some(imported) => add(&from, &text(imported), span_of(imported)),
                                None => add(&from, &named.local.sym, named.local.span),
                            }
                        }
                        ImportSpecifier::Default(default) => {
                            add(&from, "default", default.local.span)
                        }
                        _ => {}
                    }
                }
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportNamed(export)) if !export.type_only => {
                let Some(src) = &export.src else { continue };
                let from = src.value.to_string_lossy();
                for specifier in &export.specifiers {
                    if let ExportSpecifier::Named(named) = specifier {
                        if !named.is_type_only {
                            add(&from, &text(&named.orig), span_of(&named.orig));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The values `source` (the module `path`) exports; none when it does not parse.
pub fn exports(path: &str, source: &str) -> Exports {
    let Some((_, module)) = parse(path, source) else {
        return Exports::default();
    };
    let mut out = Exports::default();
    for item in &module.body {
        let ModuleItem::ModuleDecl(decl) = item else {
            continue;
        };
        match decl {
            ModuleDecl::ExportDecl(export) => declared(&export.decl, &mut out.names),
            ModuleDecl::ExportNamed(export) if !export.type_only => {
                for specifier in &export.specifiers {
                    match specifier {
                        ExportSpecifier::Named(named) if !named.is_type_only => out
                            .names
                            .push(text(named.exported.as_ref().unwrap_or(&named.orig))),
                        ExportSpecifier::Namespace(namespace) => {
                            out.names.push(text(&namespace.name))
                        }
                        ExportSpecifier::Default(default) => {
                            out.names.push(default.exported.sym.to_string())
                        }
                        _ => {}
                    }
                }
            }
            ModuleDecl::ExportDefaultDecl(_) | ModuleDecl::ExportDefaultExpr(_) => {
                out.names.push("default".to_string())
            }
            ModuleDecl::ExportAll(all) if !all.type_only => out
                .star_from
                .push(all.src.value.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    out
}

/// The value names an exported declaration binds (types and interfaces bind none).
fn declared(decl: &Decl, names: &mut Vec<String>) {
    match decl {
        Decl::Class(class) => names.push(class.ident.sym.to_string()),
        Decl::Fn(function) => names.push(function.ident.sym.to_string()),
        Decl::Var(var) => {
            for declarator in &var.decls {
                bound_names(&declarator.name, names);
            }
        }
        Decl::TsEnum(en) if !en.declare => names.push(en.id.sym.to_string()),
        _ => {}
    }
}

/// Every name a binding pattern binds: `a`, `{ a, b: c }`, `[d, ...e]`.
fn bound_names(pattern: &Pat, names: &mut Vec<String>) {
    struct Bindings<'a>(&'a mut Vec<String>);
    impl Visit for Bindings<'_> {
        fn visit_binding_ident(&mut self, n: &BindingIdent) {
            self.0.push(n.id.sym.to_string());
        }
        // A default value's expression binds nothing of the pattern.
        fn visit_expr(&mut self, _: &swc_core::ecma::ast::Expr) {}
    }
    pattern.visit_with(&mut Bindings(names));
}

fn text(name: &ModuleExportName) -> String {
    name.atom().to_string()
}

fn span_of(name: &ModuleExportName) -> Span {
    match name {
        ModuleExportName::Ident(ident) => ident.span,
        ModuleExportName::Str(string) => string.span,
    }
}

fn parse(path: &str, source: &str) -> Option<(Lrc<SourceMap>, Module)> {
    let cm: Lrc<SourceMap> = Default::default();
    let file = cm.new_source_file(
        Lrc::new(FileName::Custom(path.to_string())),
        source.to_string(),
    );
    // awf's built-ins (`awf:agentswf/workflow`) are TypeScript, whatever their name ends with.
    let kind = match path.starts_with("awf:") {
        true => SourceKind::TypeScript,
        false => SourceKind::of_path(path),
    };
    let lexer = Lexer::new(
        kind.syntax(),
        swc_core::ecma::ast::EsVersion::latest(),
        StringInput::from(&*file),
        None,
    );
    let module = Parser::new_from(lexer).parse_module().ok()?;
    Some((cm, module))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_imports_are_listed_where_each_name_is_written() {
        let source = "import type { T } from \"./t\";\nimport { a, b as c, type D } from \"./a\";\nimport main from './m';\nimport * as all from \"./all\";\nexport { e as f } from \"./e\";\n";
        let found: Vec<_> = named_imports("/w/wf.ts", source)
            .into_iter()
            .map(|i| (i.specifier, i.name, i.pos.line, i.pos.col))
            .collect();
        assert_eq!(
            found,
            vec![
                ("./a".into(), "a".into(), 2, 10),
                ("./a".into(), "b".into(), 2, 13),
                ("./m".into(), "default".into(), 3, 8),
                ("./e".into(), "e".into(), 5, 10),
            ]
        );
    }

    #[test]
    fn exports_are_values_and_whole_modules_re_exported() {
        let source = "export interface I {}\nexport type T = 1;\nexport function f() {}\nexport class C {}\nexport const { a, b: [c, ...d] } = x, e = (g = 1) => g;\nexport enum E { A }\nconst h = 1;\nexport { h as i, h };\nexport * from \"./more\";\nexport * as ns from \"./ns\";\nexport default 1;\n";
        let found = exports("/w/lib.ts", source);
        assert_eq!(
            found.names,
            vec!["f", "C", "a", "c", "d", "e", "E", "i", "h", "ns", "default"]
        );
        assert_eq!(found.star_from, vec!["./more"]);
    }

    #[test]
    fn built_ins_are_read_as_typescript() {
        let source = "export interface I {}\nexport function f(x: number): number { return x; }\n";
        assert_eq!(exports("awf:agentswf/workflow", source).names, vec!["f"]);
    }

    #[test]
    fn a_source_that_does_not_parse_has_no_names() {
        assert_eq!(named_imports("/w/a.ts", "import {"), vec![]);
        assert_eq!(exports("/w/a.ts", "export const"), Exports::default());
    }
}
