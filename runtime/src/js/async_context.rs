//! The `async_context` pass of transpile.rs: rewrites workflow code so that an async function
//! keeps the async context it was called in across its `await`s (see
//! runtime/src/js/engine/async_context.rs for the slot and why).
//!
//! In every async function (declaration, expression, arrow, method):
//! - the body starts with `const __awf_ctx = __awf_current();`, the context at the call (an
//!   arrow with an expression body gets a block that returns the expression);
//! - `await x` becomes `__awf_resume(__awf_ctx, await x)`: resumed, the function is back in
//!   its context before it goes on (in an async generator, `yield x` likewise);
//! - a `catch` or `finally` block starts with `__awf_resume(__awf_ctx);` (an `await` that
//!   rejects resumes there), and so do a `for await` loop's body and the statement after it.
//!
//! Top-level `await` is left alone: a module is evaluated outside any call. New nodes carry
//! the span of what they wrap (or none), so positions in stacks and the position map stay
//! those of the source.

use swc_core::common::{Span, SyntaxContext, DUMMY_SP};
use swc_core::ecma::ast::{
    ArrowExpr, ArrowFunctionBody, AwaitExpr, BindingIdent, BlockStmt, CallExpr, Callee,
    CatchClause, Decl, Expr, ExprOrSpread, ExprStmt, Function, FunctionBody, Ident, Pat,
    ReturnStmt, Stmt, TryStmt, VarDecl, VarDeclKind, VarDeclarator, YieldExpr,
};
use swc_core::ecma::visit::{VisitMut, VisitMutWith};

const CONTEXT: &str = "__awf_ctx";
const CURRENT: &str = "__awf_current";
const RESUME: &str = "__awf_resume";

/// The pass; run it on a program after its types are stripped.
#[derive(Default)]
pub struct AsyncContext {
    /// For each function we are in: `Some(is_generator)` for an async one, `None` otherwise.
    functions: Vec<Option<bool>>,
}

impl AsyncContext {
    fn in_async(&self) -> bool {
        matches!(self.functions.last(), Some(Some(_)))
    }

    fn in_async_generator(&self) -> bool {
        matches!(self.functions.last(), Some(Some(true)))
    }
}

fn ident(name: &str) -> Ident {
    Ident::new(name.into(), DUMMY_SP, SyntaxContext::empty())
}

fn call(span: Span, callee: &str, args: Vec<Expr>) -> Expr {
    Expr::Call(CallExpr {
        span,
        ctxt: SyntaxContext::empty(),
        callee: Callee::Expr(Box::new(Expr::Ident(ident(callee)))),
        args: args
            .into_iter()
            .map(|expr| ExprOrSpread {
                spread: None,
                expr: Box::new(expr),
            })
            .collect(),
        type_args: None,
    })
}

/// `const __awf_ctx = __awf_current();`
fn capture() -> Stmt {
    Stmt::Decl(Decl::Var(Box::new(VarDecl {
        span: DUMMY_SP,
        ctxt: SyntaxContext::empty(),
        kind: VarDeclKind::Const,
        declare: false,
        decls: vec![VarDeclarator {
            span: DUMMY_SP,
            name: Pat::Ident(BindingIdent {
                id: ident(CONTEXT),
                type_ann: None,
            }),
            init: Some(Box::new(call(DUMMY_SP, CURRENT, vec![]))),
            definite: false,
        }],
    })))
}

/// `__awf_resume(__awf_ctx);`
fn restore() -> Stmt {
    Stmt::Expr(ExprStmt {
        span: DUMMY_SP,
        expr: Box::new(call(DUMMY_SP, RESUME, vec![Expr::Ident(ident(CONTEXT))])),
    })
}

fn prepend(block: &mut BlockStmt) {
    block.stmts.insert(0, restore());
}

/// Whether `stmt` is a `for await` loop, labelled or not.
fn is_for_await(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::ForOf(f) => f.is_await,
        Stmt::Labeled(l) => is_for_await(&l.body),
        _ => false,
    }
}

/// The loop's body, made to start with a restore.
fn restore_in_loop(stmt: &mut Stmt) {
    match stmt {
        Stmt::ForOf(f) if f.is_await => {
            let body = std::mem::replace(
                &mut *f.body,
                Stmt::Empty(swc_core::ecma::ast::EmptyStmt { span: DUMMY_SP }),
            );
            *f.body = Stmt::Block(BlockStmt {
                span: DUMMY_SP,
                ctxt: SyntaxContext::empty(),
                stmts: vec![restore(), body],
            });
        }
        Stmt::Labeled(l) => restore_in_loop(&mut l.body),
        _ => {}
    }
}

impl VisitMut for AsyncContext {
    fn visit_mut_function(&mut self, node: &mut Function) {
        self.functions
            .push(node.is_async.then_some(node.is_generator));
        node.visit_mut_children_with(self);
        self.functions.pop();
        if node.is_async {
            if let Some(body) = &mut node.body {
                body.stmts.insert(0, capture());
            }
        }
    }

    fn visit_mut_arrow_expr(&mut self, node: &mut ArrowExpr) {
        self.functions.push(node.is_async.then_some(false));
        node.visit_mut_children_with(self);
        self.functions.pop();
        if !node.is_async {
            return;
        }
        match &mut *node.body {
            ArrowFunctionBody::FunctionBody(body) => body.stmts.insert(0, capture()),
            ArrowFunctionBody::Expr(expr) => {
                let span = swc_core::common::Spanned::span(&**expr);
                let value = std::mem::replace(&mut **expr, Expr::Invalid(Default::default()));
                *node.body = ArrowFunctionBody::FunctionBody(FunctionBody {
                    span,
                    stmts: vec![
                        capture(),
                        Stmt::Return(ReturnStmt {
                            span,
                            arg: Some(Box::new(value)),
                        }),
                    ],
                });
            }
        }
    }

    fn visit_mut_expr(&mut self, node: &mut Expr) {
        node.visit_mut_children_with(self);
        let wrap = match node {
            Expr::Await(AwaitExpr { span, .. }) if self.in_async() => Some(*span),
            Expr::Yield(YieldExpr { span, .. }) if self.in_async_generator() => Some(*span),
            _ => None,
        };
        if let Some(span) = wrap {
            let inner = std::mem::replace(node, Expr::Invalid(Default::default()));
            *node = call(span, RESUME, vec![Expr::Ident(ident(CONTEXT)), inner]);
        }
    }

    fn visit_mut_catch_clause(&mut self, node: &mut CatchClause) {
        node.visit_mut_children_with(self);
        if self.in_async() {
            prepend(&mut node.body);
        }
    }

    fn visit_mut_try_stmt(&mut self, node: &mut TryStmt) {
        node.visit_mut_children_with(self);
        if self.in_async() {
            if let Some(finalizer) = &mut node.finalizer {
                prepend(finalizer);
            }
        }
    }

    fn visit_mut_stmts(&mut self, stmts: &mut Vec<Stmt>) {
        stmts.visit_mut_children_with(self);
        if !self.in_async() || !stmts.iter().any(is_for_await) {
            return;
        }
        let mut out = Vec::with_capacity(stmts.len() + 1);
        for mut stmt in stmts.drain(..) {
            let after = is_for_await(&stmt);
            if after {
                restore_in_loop(&mut stmt);
            }
            out.push(stmt);
            if after {
                out.push(restore());
            }
        }
        *stmts = out;
    }
}

#[cfg(test)]
mod tests {
    use crate::js::source_map::SourcePos;
    use crate::js::transpile::{transpile, SourceKind};

    fn rewrite(source: &str) -> String {
        transpile("wf.ts", source, SourceKind::TypeScript, true)
            .expect("transpiles")
            .code
    }

    #[test]
    fn awaits_in_async_functions_resume_their_context() {
        let code = rewrite(
            "export async function f(x: Promise<number>) { const a = await x; return a; }\n",
        );
        assert!(
            code.contains("const __awf_ctx = __awf_current();"),
            "{code}"
        );
        assert!(code.contains("__awf_resume(__awf_ctx, await x)"), "{code}");
        let arrow = rewrite("export const g = async (p: Promise<number>) => (await p) + 1;\n");
        assert!(
            arrow.contains("const __awf_ctx = __awf_current();"),
            "{arrow}"
        );
        assert!(
            arrow.contains("return __awf_resume(__awf_ctx, await p) + 1"),
            "{arrow}"
        );
    }

    #[test]
    fn catch_finally_and_for_await_restore_it() {
        let code = rewrite(
            "export async function f(xs: AsyncIterable<number>) {\n  try { await 1; } catch (e) { g(); } finally { h(); }\n  for await (const x of xs) g(x);\n  h();\n}\n",
        );
        let restores = code.matches("__awf_resume(__awf_ctx);").count();
        assert_eq!(
            restores, 4,
            "catch, finally, loop body, after the loop:\n{code}"
        );
    }

    #[test]
    fn sync_code_and_top_level_await_are_left_alone() {
        let code = rewrite("function f() { try { g(); } catch { h(); } }\nconst v = await Promise.resolve(1);\nexport { f, v };\n");
        assert!(!code.contains("__awf"), "{code}");
        let js = transpile(
            "a.js",
            "export const a = 1;\n",
            SourceKind::JavaScript,
            true,
        )
        .unwrap();
        assert_eq!(js.code, "export const a = 1;\n");
        let js = transpile(
            "a.js",
            "export const a = async () => { await 1; };\n",
            SourceKind::JavaScript,
            true,
        )
        .unwrap();
        assert!(
            js.code.contains("__awf_resume(__awf_ctx, await 1)"),
            "{}",
            js.code
        );
    }

    #[test]
    fn positions_still_map_to_the_source() {
        let out = transpile(
            "wf.ts",
            "export async function f() {\n  await null;\n  throw new Error(\"boom\");\n}\n",
            SourceKind::TypeScript,
            true,
        )
        .unwrap();
        let map = out.map.expect("mapped");
        let (line, text) = out
            .code
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains("throw"))
            .expect("kept");
        let col = text.find("throw").unwrap() as u32 + 1;
        let source = map
            .lookup(SourcePos {
                line: line as u32 + 1,
                col,
            })
            .expect("mapped");
        assert_eq!(source, SourcePos { line: 3, col: 3 });
    }
}
