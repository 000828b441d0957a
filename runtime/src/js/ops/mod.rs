//! The ops: native functions the built-in modules call, served to them as the module `awf:ops`.
//!
//! A sync op runs on the JS thread and returns a JS value. An async op runs its checks on the JS
//! thread (so order and errors are those of the call), then returns a `Send` future that the host
//! runs on tokio; its `OpValue` or `OpError` settles the JS promise `awf:core` made for it. Each
//! concern's ops live in their own file here and only convert values and call the concern.

mod agents;
mod core;
mod schema;
mod test_runs;
mod testing;
mod workflow;

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::module::{Declarations, Exports, ModuleDef};
use rquickjs::{Ctx, Function, Value};

use super::engine::HostState;

/// What an async op resolves with.
pub enum OpValue {
    Undefined,
    Json(serde_json::Value),
    Bytes(Vec<u8>),
}

/// Why an async op failed: becomes an `AwfError` with this code in JS.
#[derive(Debug, Clone, PartialEq)]
pub struct OpError {
    pub code: String,
    pub message: String,
    /// Extra properties for the JS error (Node's `path`, `syscall`, ...).
    pub data: Option<serde_json::Value>,
}

impl OpError {
    pub fn new(code: &str, message: impl Into<String>) -> OpError {
        OpError {
            code: code.to_string(),
            message: message.into(),
            data: None,
        }
    }
}

pub type OpResult = Result<OpValue, OpError>;
pub type OpFuture = Pin<Box<dyn Future<Output = OpResult> + Send>>;

/// A sync op: converts its arguments itself.
pub type SyncOp =
    for<'js> fn(&Ctx<'js>, &Rc<HostState>, Rest<Value<'js>>) -> rquickjs::Result<Value<'js>>;
/// An async op: its JSON arguments (and bytes, if any) in; checks, then a future to run.
pub type AsyncOp =
    fn(&Rc<HostState>, serde_json::Value, Option<Vec<u8>>) -> Result<OpFuture, OpError>;

pub enum Op {
    Sync(SyncOp),
    Async(AsyncOp),
}

pub struct OpDecl {
    pub name: &'static str,
    pub op: Op,
}

/// Every op, from every concern.
fn all() -> impl Iterator<Item = &'static OpDecl> {
    core::OPS
        .iter()
        .chain(super::host::ops())
        .chain(agents::OPS)
        .chain(schema::OPS)
        .chain(test_runs::OPS)
        .chain(testing::OPS)
        .chain(workflow::OPS)
}

pub fn find_async(name: &str) -> Option<AsyncOp> {
    all().find_map(|decl| match decl.op {
        Op::Async(op) if decl.name == name => Some(op),
        _ => None,
    })
}

/// The native module `awf:ops`: each sync op by name, plus the async-op door from `core`.
pub struct OpsModule;

impl ModuleDef for OpsModule {
    fn declare<'js>(decl: &Declarations<'js>) -> rquickjs::Result<()> {
        for op in all().filter(|d| matches!(d.op, Op::Sync(_))) {
            decl.declare(op.name)?;
        }
        Ok(())
    }

    fn evaluate<'js>(ctx: &Ctx<'js>, exports: &Exports<'js>) -> rquickjs::Result<()> {
        let state = HostState::of(ctx);
        for decl in all() {
            if let Op::Sync(op) = decl.op {
                let state = state.clone();
                let f =
                    Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
                        op(&ctx, &state, args)
                    })?
                    .with_name(decl.name)?;
                exports.export(decl.name, f)?;
            }
        }
        Ok(())
    }
}

/// Argument `i` of a sync op, or undefined.
pub fn arg<'js>(ctx: &Ctx<'js>, args: &Rest<Value<'js>>, i: usize) -> Value<'js> {
    args.0
        .get(i)
        .cloned()
        .unwrap_or_else(|| Value::new_undefined(ctx.clone()))
}

/// A number argument; anything else reads as 0.
pub fn number(value: &Value<'_>) -> f64 {
    value.as_number().unwrap_or(0.0)
}

/// A string argument, or a TypeError naming `what`.
pub fn string<'js>(ctx: &Ctx<'js>, value: &Value<'js>, what: &str) -> rquickjs::Result<String> {
    value
        .as_string()
        .and_then(|s| s.to_string().ok())
        .ok_or_else(|| type_error(ctx, &format!("{what} must be a string")))
}

/// Throws a TypeError from a sync op.
pub fn type_error(ctx: &Ctx<'_>, message: &str) -> rquickjs::Error {
    rquickjs::Exception::throw_type(ctx, message)
}
