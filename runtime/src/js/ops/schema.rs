//! Ops of `typed(schema)`: compile a JSON Schema once, check values against it.

use std::rc::Rc;
use std::sync::Arc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, IntoJs, Value};

use super::{arg, type_error, Op, OpDecl};
use crate::js::convert;
use crate::js::engine::HostState;
use crate::schema::Schema;

pub const OPS: &[OpDecl] = &[
    OpDecl {
        name: "schema_compile",
        op: Op::Sync(schema_compile),
    },
    OpDecl {
        name: "schema_check",
        op: Op::Sync(schema_check),
    },
];

/// `schema_compile(schema)`: a handle, or a TypeError saying what is wrong with the schema.
fn schema_compile<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let raw = convert::to_json_or_throw(ctx, &arg(ctx, &args, 0))?;
    let schema = Schema::compile(raw).map_err(|e| type_error(ctx, &e.to_string()))?;
    let mut schemas = state.schemas.borrow_mut();
    schemas.push(Arc::new(schema));
    Ok(Value::new_number(ctx.clone(), (schemas.len() - 1) as f64))
}

/// `schema_check(handle, value)`: the error lines, empty when the value fits.
fn schema_check<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let handle = arg(ctx, &args, 0).as_number().unwrap_or(-1.0);
    let schema = state
        .schemas
        .borrow()
        .get(handle as usize)
        .cloned()
        .ok_or_else(|| type_error(ctx, "unknown schema handle"))?;
    let lines: Vec<String> = match convert::to_json(&arg(ctx, &args, 1)) {
        Ok(Some(value)) => schema
            .check(&value)
            .iter()
            .map(ToString::to_string)
            .collect(),
        Ok(None) => vec!["value: required, missing (got undefined)".to_string()],
        Err(e) => vec![e.to_string()],
    };
    lines.into_js(ctx)
}
