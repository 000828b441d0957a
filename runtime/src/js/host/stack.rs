//! The op behind js/host/stack.ts: a position in a loaded module's JS, mapped back to its
//! TypeScript, so that stack traces show .ts positions.

use std::rc::Rc;

use serde::Deserialize;

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};
use crate::js::source_map::SourcePos;

pub const OPS: &[OpDecl] = &[sync_op!(source_position)];

#[derive(Deserialize)]
struct SourcePosition(String, f64, f64);

/// `source_position(file, line, col)` -> `[line, col]` in the source, or null.
fn source_position(
    state: &Rc<HostState>,
    SourcePosition(file, line, col): SourcePosition,
) -> Result<Option<serde_json::Value>, OpError> {
    let generated = SourcePos {
        line: line as u32,
        col: col as u32,
    };
    let source = state.sources.borrow().to_source(&file, generated);
    Ok(source.map(|pos| serde_json::json!([pos.line, pos.col])))
}
