//! Ops of js/agentswf/workflow.ts: `typed(schema)` compiles a JSON Schema once and checks values
//! against it; `check_json` reads a value under the strict JSON rules (convert.rs).

use std::rc::Rc;
use std::sync::Arc;

use serde::Deserialize;

use crate::js::engine::{sync_op, HostState, Json, JsonCheck, OpDecl, OpError, OpValue};
use crate::schema::Schema;

pub const OPS: &[OpDecl] = &[
    sync_op!(schema_compile),
    sync_op!(schema_check),
    sync_op!(check_json),
];

/// `schema_compile(schema)`: a handle, or a TypeError saying what is wrong with the schema.
fn schema_compile(state: &Rc<HostState>, Json(raw): Json) -> Result<u64, OpError> {
    let schema = Schema::compile(raw.unwrap_or(serde_json::Value::Null))
        .map_err(|e| OpError::type_error(e.to_string()))?;
    Ok(state.add_handle(Arc::new(schema)))
}

#[derive(Deserialize)]
struct SchemaCheck(f64, JsonCheck);

/// `schema_check(handle, value)`: the error lines, empty when the value fits.
fn schema_check(
    state: &Rc<HostState>,
    SchemaCheck(handle, value): SchemaCheck,
) -> Result<Vec<String>, OpError> {
    let schema = state
        .handle::<Arc<Schema>>(handle as u64)
        .ok_or_else(|| OpError::type_error("unknown schema handle"))?;
    Ok(match value.0 {
        Ok(Some(value)) => schema
            .check(&value)
            .iter()
            .map(ToString::to_string)
            .collect(),
        Ok(None) => vec!["value: required, missing (got undefined)".to_string()],
        Err(not_json) => vec![not_json],
    })
}

/// `check_json(value)`: the value as strict JSON; a TypeError naming the path of what is not.
fn check_json(_: &Rc<HostState>, Json(value): Json) -> Result<OpValue, OpError> {
    Ok(value.map_or(OpValue::Undefined, OpValue::Json))
}
