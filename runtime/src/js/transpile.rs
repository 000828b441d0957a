//! TypeScript to JavaScript: parse with swc, strip types, print JS with a position map.
//!
//! awf never type-checks (that is the editor's job); it removes types, fast, and keeps enough of
//! a source map to print `.ts` positions in stacks and errors (see `source_map.rs`). This file
//! also lists each module's import specifiers with their positions, so that the loader can say
//! where an import that cannot be resolved was written. A workflow's own files
//! (`keep_context`) also get the `async_context` pass, so that their async functions keep
//! the tool call and scope they run for across `await`.

use swc_core::common::{
    comments::SingleThreadedComments, sync::Lrc, BytePos, FileName, Globals, LineCol, Mark,
    SourceMap, Span, Spanned, GLOBALS,
};
use swc_core::ecma::ast::{
    CallExpr, Callee, Decorator, EsVersion, ExportAll, Expr, ImportDecl, Lit, Module, NamedExport,
    Program,
};
use swc_core::ecma::codegen::{text_writer::JsWriter, Emitter, Node};
use swc_core::ecma::parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};
use swc_core::ecma::transforms::base::{fixer::fixer, hygiene::hygiene, resolver};
use swc_core::ecma::transforms::typescript::{typescript, Config as TsConfig};
use swc_core::ecma::visit::{Visit, VisitMutWith, VisitWith};

use super::async_context::AsyncContext;
use super::source_map::{PositionMap, SourcePos};

/// What kind of source a module file holds, from its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    TypeScript,
    JavaScript,
}

impl SourceKind {
    pub fn of_path(path: &str) -> SourceKind {
        if path.ends_with(".ts") || path.ends_with(".mts") || path.ends_with(".cts") {
            SourceKind::TypeScript
        } else {
            SourceKind::JavaScript
        }
    }

    /// How swc parses a module of this kind.
    pub fn syntax(self) -> Syntax {
        match self {
            SourceKind::TypeScript => Syntax::Typescript(TsSyntax {
                decorators: true,
                ..Default::default()
            }),
            SourceKind::JavaScript => Syntax::Es(Default::default()),
        }
    }
}

/// A module's JS, ready for the engine.
#[derive(Debug)]
pub struct Transpiled {
    pub code: String,
    /// Generated position -> source position; `None` when the code is the source itself.
    pub map: Option<PositionMap>,
    /// Each import specifier written in the module, with where it was written.
    pub imports: Vec<ImportSite>,
}

/// One `import ... from "x"`, `export ... from "x"` or `import("x")` in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportSite {
    pub specifier: String,
    pub pos: SourcePos,
}

/// A source that does not parse: its first error, at a 1-based source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub pos: SourcePos,
}

/// Turns one module source into JS. `name` only labels positions. With `keep_context` (a
/// workflow's own files, not the built-ins) its async functions also keep their async context
/// across `await` (async_context.rs).
pub fn transpile(
    name: &str,
    source: &str,
    kind: SourceKind,
    keep_context: bool,
) -> Result<Transpiled, SyntaxError> {
    let cm: Lrc<SourceMap> = Default::default();
    let file = cm.new_source_file(
        Lrc::new(FileName::Custom(name.to_string())),
        source.to_string(),
    );
    let comments = SingleThreadedComments::default();
    let lexer = Lexer::new(
        kind.syntax(),
        EsVersion::latest(),
        StringInput::from(&*file),
        Some(&comments),
    );
    let mut parser = Parser::new_from(lexer);
    let parsed = parser.parse_module();
    // The TS parser reports some errors as recoverable; any of them means the file is wrong.
    let first_recoverable = parser.take_errors().into_iter().next();
    let module = match (parsed, first_recoverable) {
        (Err(e), _) | (Ok(_), Some(e)) => {
            return Err(SyntaxError {
                message: e.kind().msg().to_string(),
                pos: position(&cm, e.span().lo),
            })
        }
        (Ok(module), None) => module,
    };
    if let Some(span) = first_decorator(&module) {
        // QuickJS cannot run them, and a SyntaxError from the engine would point nowhere useful.
        return Err(SyntaxError {
            message: "decorators are not supported: awf's engine (QuickJS) cannot run them; \
                      call the decorating function on the class or method instead"
                .to_string(),
            pos: position(&cm, span.lo),
        });
    }
    let imports = import_sites(&cm, &module);
    // Plain JS without async functions needs nothing done.
    let rewrite = keep_context && source.contains("async");
    if kind == SourceKind::JavaScript && !rewrite {
        return Ok(Transpiled {
            code: source.to_string(),
            map: None,
            imports,
        });
    }
    let (code, mappings) = GLOBALS.set(&Globals::new(), || {
        let unresolved = Mark::new();
        let top_level = Mark::new();
        let mut program = Program::Module(module);
        program.mutate(resolver(
            unresolved,
            top_level,
            kind == SourceKind::TypeScript,
        ));
        if kind == SourceKind::TypeScript {
            program.mutate(typescript(
                TsConfig {
                    // Keep `import x from "y"` when x is only used as a type out of the
                    // output, as tsc does; an import kept for its side effects has no
                    // specifiers.
                    ..Default::default()
                },
                unresolved,
                top_level,
            ));
        }
        if rewrite {
            program.visit_mut_with(&mut AsyncContext::default());
        }
        program.mutate(hygiene());
        program.mutate(fixer(Some(&comments)));
        emit(&cm, &program)
    });
    let map = PositionMap::from_pairs(mappings.into_iter().map(|(pos, generated)| {
        let source = position(&cm, pos);
        (
            SourcePos {
                line: generated.line + 1,
                col: generated.col + 1,
            },
            source,
        )
    }));
    Ok(Transpiled {
        code,
        map: Some(map),
        imports,
    })
}

fn emit(cm: &Lrc<SourceMap>, program: &Program) -> (String, Vec<(BytePos, LineCol)>) {
    let mut out = Vec::new();
    let mut mappings = Vec::new();
    {
        let writer = JsWriter::new(cm.clone(), "\n", &mut out, Some(&mut mappings));
        let mut emitter = Emitter {
            cfg: swc_core::ecma::codegen::Config::default().with_target(EsVersion::latest()),
            cm: cm.clone(),
            comments: None,
            wr: writer,
        };
        program
            .emit_with(&mut emitter)
            .expect("writing JS into memory cannot fail");
    }
    let code = String::from_utf8(out).expect("swc emits UTF-8");
    (code, mappings)
}

/// 1-based line and column (in characters) of a byte position.
fn position(cm: &SourceMap, pos: BytePos) -> SourcePos {
    let loc = cm.lookup_char_pos(pos);
    SourcePos {
        line: loc.line as u32,
        col: loc.col.0 as u32 + 1,
    }
}

fn import_sites(cm: &SourceMap, module: &Module) -> Vec<ImportSite> {
    let mut collector = ImportCollector {
        cm,
        sites: Vec::new(),
    };
    module.visit_with(&mut collector);
    collector.sites
}

struct ImportCollector<'a> {
    cm: &'a SourceMap,
    sites: Vec<ImportSite>,
}

impl ImportCollector<'_> {
    fn add(&mut self, specifier: &str, span: Span) {
        self.sites.push(ImportSite {
            specifier: specifier.to_string(),
            pos: position(self.cm, span.lo),
        });
    }
}

impl Visit for ImportCollector<'_> {
    fn visit_import_decl(&mut self, n: &ImportDecl) {
        self.add(&n.src.value.to_string_lossy(), n.src.span);
    }

    fn visit_export_all(&mut self, n: &ExportAll) {
        self.add(&n.src.value.to_string_lossy(), n.src.span);
    }

    fn visit_named_export(&mut self, n: &NamedExport) {
        if let Some(src) = &n.src {
            self.add(&src.value.to_string_lossy(), src.span);
        }
    }

    fn visit_call_expr(&mut self, n: &CallExpr) {
        if let Callee::Import(_) = n.callee {
            if let Some(arg) = n.args.first() {
                if let Expr::Lit(Lit::Str(s)) = &*arg.expr {
                    self.add(&s.value.to_string_lossy(), s.span);
                }
            }
        }
        n.visit_children_with(self);
    }
}

/// Where the first decorator (`@name`) is written, if any.
fn first_decorator(module: &Module) -> Option<Span> {
    struct Finder(Option<Span>);
    impl Visit for Finder {
        fn visit_decorator(&mut self, n: &Decorator) {
            self.0.get_or_insert(n.span);
        }
    }
    let mut finder = Finder(None);
    module.visit_with(&mut finder);
    finder.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(source: &str) -> Transpiled {
        transpile("test.ts", source, SourceKind::TypeScript, false).expect("transpiles")
    }

    #[test]
    fn strips_types_and_keeps_values() {
        let out = ts("interface A { x: number }\ntype B = string;\nconst a: A = { x: 1 } as A;\nexport const b = a!.x satisfies number;\n");
        assert!(!out.code.contains("interface"), "{}", out.code);
        assert!(!out.code.contains("satisfies"), "{}", out.code);
        assert!(out.code.contains("export const b = a.x"), "{}", out.code);
    }

    #[test]
    fn enums_and_parameter_properties_become_code() {
        let out = ts("enum Color { Red, Green = 4 }\nclass P { constructor(public x: number) {} }\nexport { Color, P };\n");
        assert!(
            out.code.contains("Color[Color[\"Red\"] = 0] = \"Red\""),
            "{}",
            out.code
        );
        assert!(out.code.contains("this.x = x"), "{}", out.code);
    }

    #[test]
    fn type_only_imports_are_removed() {
        let out = ts("import type { T } from \"./t\";\nimport { U } from \"./u\";\nexport type { T };\nlet v: U;\nexport const w = 1;\n");
        assert!(!out.code.contains("./t"), "{}", out.code);
        assert!(!out.code.contains("./u"), "{}", out.code);
    }

    #[test]
    fn lists_import_sites_with_positions() {
        let out = ts(
            "import { a } from \"./a\";\nexport * from './b';\nconst c = await import(\"./c\");\n",
        );
        let sites: Vec<_> = out
            .imports
            .iter()
            .map(|s| (s.specifier.as_str(), s.pos.line, s.pos.col))
            .collect();
        assert_eq!(sites, vec![("./a", 1, 19), ("./b", 2, 15), ("./c", 3, 24)]);
    }

    #[test]
    fn syntax_error_has_its_position() {
        let err = transpile(
            "bad.ts",
            "const x = 1;\nconst y = ;\n",
            SourceKind::TypeScript,
            false,
        )
        .expect_err("does not parse");
        assert_eq!(err.pos, SourcePos { line: 2, col: 11 });
        assert!(
            err.message.contains("Expression expected"),
            "{}",
            err.message
        );
    }

    #[test]
    fn decorators_are_refused_where_written() {
        let err = transpile(
            "deco.ts",
            "class A {\n  @logged m() {}\n}\n",
            SourceKind::TypeScript,
            false,
        )
        .expect_err("refused");
        assert_eq!(err.pos, SourcePos { line: 2, col: 3 });
        assert!(
            err.message.starts_with("decorators are not supported"),
            "{}",
            err.message
        );
    }

    #[test]
    fn maps_generated_positions_back_to_source() {
        let out = ts("type T = { a: number };\n\n\nexport function f(x: T): number {\n  throw new Error(\"boom\");\n}\n");
        let map = out.map.expect("a TS module has a map");
        let line = out
            .code
            .lines()
            .position(|l| l.contains("throw"))
            .expect("throw is kept") as u32
            + 1;
        let col = out
            .code
            .lines()
            .nth(line as usize - 1)
            .unwrap()
            .find("throw")
            .unwrap() as u32
            + 1;
        let source = map.lookup(SourcePos { line, col }).expect("mapped");
        assert_eq!(source, SourcePos { line: 5, col: 3 });
    }

    #[test]
    fn javascript_is_kept_as_written() {
        let out = transpile(
            "a.js",
            "export const a = 1;\n",
            SourceKind::JavaScript,
            false,
        )
        .unwrap();
        assert_eq!(out.code, "export const a = 1;\n");
        assert!(out.map.is_none());
    }
}
