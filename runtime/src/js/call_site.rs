//! Where an author's call into awf was written, for errors awf's own functions throw.
//!
//! QuickJS gives a call's frame the position of the last expression evaluated before the call,
//! so an error thrown by `wf.agents.open({ ... })` whose object spans fifteen lines points at
//! its last lines. `locate` reads the source again (swc) and finds the call that was running:
//! the innermost call enclosing that position whose callee is named as the awf function that
//! threw (`open`, `tool`, `typed`), and gives where its callee is written; for an error that
//! names a JSON pointer into the call's argument (a schema's `/properties/b/type`), the key
//! written for it, when it can be found.

use swc_core::common::{sync::Lrc, BytePos, FileName, SourceMap, Span, Spanned};
use swc_core::ecma::ast::{
    CallExpr, Callee, EsVersion, Expr, MemberProp, ObjectLit, Prop, PropName, PropOrSpread,
};
use swc_core::ecma::parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};
use swc_core::ecma::visit::{Visit, VisitWith};

use super::source_map::SourcePos;

/// Where, in `source`, the call of `callee` enclosing `at` was written: its callee, or with
/// `pointer` the key its argument gives for that JSON pointer (falling back to the callee).
/// `None` when no such call encloses `at` (or the source does not parse).
pub fn locate(
    source: &str,
    at: SourcePos,
    callee: &str,
    pointer: Option<&str>,
) -> Option<SourcePos> {
    let cm: Lrc<SourceMap> = Default::default();
    let file = cm.new_source_file(Lrc::new(FileName::Anon), source.to_string());
    let syntax = Syntax::Typescript(TsSyntax {
        decorators: true,
        ..Default::default()
    });
    let lexer = Lexer::new(syntax, EsVersion::latest(), StringInput::from(&*file), None);
    let module = Parser::new_from(lexer).parse_module().ok()?;
    let mut finder = Innermost {
        at: file.start_pos + BytePos(byte_offset(source, at)? as u32),
        callee,
        pointer,
        best: None,
    };
    module.visit_with(&mut finder);
    let (_, found) = finder.best?;
    let loc = cm.lookup_char_pos(found.lo);
    Some(SourcePos {
        line: loc.line as u32,
        col: loc.col_display as u32 + 1,
    })
}

/// The byte offset of a 1-based line and column (columns count characters).
fn byte_offset(source: &str, at: SourcePos) -> Option<usize> {
    let line_start = if at.line <= 1 {
        0
    } else {
        source
            .match_indices('\n')
            .nth(at.line as usize - 2)
            .map(|(i, _)| i + 1)?
    };
    let line = source[line_start..].lines().next().unwrap_or("");
    let column: usize = line
        .chars()
        .take(at.col.saturating_sub(1) as usize)
        .map(char::len_utf8)
        .sum();
    Some(line_start + column)
}

/// Finds the innermost matching call enclosing `at`: (its span, what to point at).
struct Innermost<'a> {
    at: BytePos,
    callee: &'a str,
    pointer: Option<&'a str>,
    best: Option<(Span, Span)>,
}

impl Visit for Innermost<'_> {
    fn visit_call_expr(&mut self, call: &CallExpr) {
        let span = call.span;
        let encloses = span.lo <= self.at && self.at <= span.hi;
        let smaller = self
            .best
            .is_none_or(|(best, _)| span.hi - span.lo < best.hi - best.lo);
        if encloses && smaller && callee_is(call, self.callee) {
            if let Some(callee) = callee_span(call) {
                let key = self.pointer.and_then(|pointer| key_for(call, pointer));
                self.best = Some((span, key.unwrap_or(callee)));
            }
        }
        call.visit_children_with(self);
    }
}

/// Whether the call's callee is `name`, alone or as the last member (`wf.agents.open`).
fn callee_is(call: &CallExpr, name: &str) -> bool {
    match &call.callee {
        Callee::Expr(expr) => match &**expr {
            Expr::Ident(ident) => ident.sym == *name,
            Expr::Member(member) => {
                matches!(&member.prop, MemberProp::Ident(prop) if prop.sym == *name)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Where the callee's own name is written.
fn callee_span(call: &CallExpr) -> Option<Span> {
    match &call.callee {
        Callee::Expr(expr) => match &**expr {
            Expr::Member(member) => Some(member.prop.span()),
            other => Some(other.span()),
        },
        _ => None,
    }
}

/// The key the call's argument writes for `pointer` (`/properties/b/type`: the key `b`, then
/// `type` inside it; JSON Schema's structural words are not written as keys in a TypeBox
/// schema and are skipped). The deepest key found.
fn key_for(call: &CallExpr, pointer: &str) -> Option<Span> {
    let mut scope: Vec<&Expr> = call.args.iter().map(|arg| &*arg.expr).collect();
    let mut found = None;
    for key in pointer
        .split('/')
        .filter(|key| !key.is_empty() && !is_structural(key))
    {
        let Some((span, value)) = scope.iter().find_map(|expr| find_key(expr, key)) else {
            break;
        };
        found = Some(span);
        scope = vec![value];
    }
    found
}

/// JSON Schema words that hold sub-schemas rather than name a property.
fn is_structural(key: &str) -> bool {
    key.bytes().all(|b| b.is_ascii_digit())
        || matches!(
            key,
            "properties"
                | "items"
                | "prefixItems"
                | "anyOf"
                | "oneOf"
                | "allOf"
                | "not"
                | "additionalProperties"
                | "patternProperties"
        )
}

/// A property `key` of an object literal inside `expr` (outermost first, through calls such as
/// `Type.Object(...)`): its key's span and its value.
fn find_key<'a>(expr: &'a Expr, key: &str) -> Option<(Span, &'a Expr)> {
    match expr {
        Expr::Object(object) => own_key(object, key).or_else(|| {
            object.props.iter().find_map(|prop| match prop {
                PropOrSpread::Prop(prop) => match &**prop {
                    Prop::KeyValue(kv) => find_key(&kv.value, key),
                    _ => None,
                },
                PropOrSpread::Spread(_) => None,
            })
        }),
        Expr::Call(call) => call.args.iter().find_map(|arg| find_key(&arg.expr, key)),
        Expr::Paren(inner) => find_key(&inner.expr, key),
        Expr::TsAs(inner) => find_key(&inner.expr, key),
        Expr::TsConstAssertion(inner) => find_key(&inner.expr, key),
        Expr::TsSatisfies(inner) => find_key(&inner.expr, key),
        Expr::Array(array) => array
            .elems
            .iter()
            .flatten()
            .find_map(|item| find_key(&item.expr, key)),
        _ => None,
    }
}

fn own_key<'a>(object: &'a ObjectLit, key: &str) -> Option<(Span, &'a Expr)> {
    object.props.iter().find_map(|prop| {
        let PropOrSpread::Prop(prop) = prop else {
            return None;
        };
        let Prop::KeyValue(kv) = &**prop else {
            return None;
        };
        let name = match &kv.key {
            PropName::Ident(ident) => ident.sym.as_ref().to_string(),
            PropName::Str(text) => text.value.to_string_lossy().into_owned(),
            _ => return None,
        };
        (name == key).then(|| (kv.key.span(), &*kv.value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKFLOW: &str = r#"export default defineWorkflow({
  meta: { name: "pos", description: "Positions." },
  async run(wf) {
    const agent = await wf.agents.open({
      key: "a",
      runtime: "gpt",
      tools: {
        add: tool({
          description: "Add.",
          input: typed(Type.Object({ x: Type.Integer() })),
          handler: ({ x }) => x,
        }),
      },
    });
    return agent.key;
  },
});
"#;

    fn pos(line: u32, col: u32) -> SourcePos {
        SourcePos { line, col }
    }

    #[test]
    fn a_call_spanning_lines_is_found_by_the_function_that_threw() {
        // QuickJS puts the open's frame at the last thing evaluated: typed(...) on line 10.
        assert_eq!(
            locate(WORKFLOW, pos(10, 46), "open", None),
            Some(pos(4, 35))
        );
        assert_eq!(
            locate(WORKFLOW, pos(10, 46), "tool", None),
            Some(pos(8, 14))
        );
        assert_eq!(
            locate(WORKFLOW, pos(10, 46), "typed", None),
            Some(pos(10, 18))
        );
        assert_eq!(
            locate(WORKFLOW, pos(2, 5), "open", None),
            None,
            "no open encloses line 2"
        );
        assert_eq!(locate("this is not ) code", pos(1, 1), "open", None), None);
    }

    #[test]
    fn a_schema_error_points_at_the_property_it_names() {
        let source = "const Bad = typed(\n  Type.Object({\n    a: Type.String(),\n    b: { type: \"strang\" } as any,\n  }),\n);\n";
        assert_eq!(
            locate(source, pos(3, 13), "typed", Some("/properties/b/type")),
            Some(pos(4, 10))
        );
        assert_eq!(
            locate(source, pos(3, 13), "typed", Some("/properties/b")),
            Some(pos(4, 5))
        );
        assert_eq!(
            locate(source, pos(3, 13), "typed", Some("/properties/zz")),
            Some(pos(1, 13)),
            "not written: the callee"
        );
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(byte_offset("é = open(\n  x)", pos(1, 5)), Some(5));
        assert_eq!(byte_offset("a\nb", pos(2, 1)), Some(2));
        assert_eq!(byte_offset("a", pos(3, 1)), None);
    }
}
