//! The native module `awf:ops`: the engine's primitives and the ops of the table the host was
//! built with, each a function under its declared name. Only built-ins can import it (the loader
//! refuses it from user files).
//!
//! A sync op's value is the call's; its `OpError` is thrown as the JS error of its class. An
//! async op's call returns the op's id, once its checks passed; the future runs on tokio and
//! settles the promise js/core.ts made for that id (`complete`), with the value or with
//! `{ code, message, data }`, which core.ts throws as an `AwfError`.

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::module::{Declarations, Exports, ModuleDef};
use rquickjs::promise::PromiseState;
use rquickjs::{Ctx, Exception, Function, Object, TypedArray, Value};

use rquickjs::JsLifetime;

use super::async_context;
use super::host_state::HostState;
use super::lazy_builtin;
use super::op::{OpDecl, OpKind, OpTable};
use super::op_args::OpArgs;
use super::op_value::{ErrorClass, OpError, OpValue};
use super::primitives::{self, Primitive};
use super::reuse;
use crate::js::convert;

const PRIMITIVES: &[(&str, Primitive)] = &[
    ("set_callbacks", primitives::set_callbacks),
    ("reply", primitives::reply),
    ("builtin_namespace", lazy_builtin::builtin_namespace),
    ("context_current", async_context::context_current),
    ("context_resume", async_context::context_resume),
    ("keep_for_reuse", reuse::keep_for_reuse),
    ("promise_state", promise_state),
];

/// The table a context's host was built with, kept with the context for `awf:ops`.
pub struct ServedOps(pub OpTable);

unsafe impl<'js> JsLifetime<'js> for ServedOps {
    type Changed<'to> = ServedOps;
}

/// The engine's own typed ops, then the table's.
fn ops(ctx: &Ctx<'_>) -> Vec<&'static OpDecl> {
    let table = ctx
        .userdata::<ServedOps>()
        .map(|served| served.0)
        .unwrap_or(&[]);
    primitives::TIMER_OPS
        .iter()
        .chain(
            table
                .iter()
                .flat_map(|group| group.iter())
                .flat_map(|ops| ops.iter()),
        )
        .collect()
}

pub struct OpsModule;

impl ModuleDef for OpsModule {
    fn declare<'js>(decl: &Declarations<'js>) -> rquickjs::Result<()> {
        for (name, _) in PRIMITIVES {
            decl.declare(*name)?;
        }
        for op in ops(decl.module().ctx()) {
            decl.declare(op.name)?;
        }
        Ok(())
    }

    fn evaluate<'js>(ctx: &Ctx<'js>, exports: &Exports<'js>) -> rquickjs::Result<()> {
        let state = HostState::of(ctx);
        for &(name, primitive) in PRIMITIVES {
            let state = state.clone();
            let f = Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
                primitive(&ctx, &state, &args.0)
            })?
            .with_name(name)?;
            exports.export(name, f)?;
        }
        for op in ops(ctx) {
            exports.export(op.name, op_function(ctx, &state, op)?)?;
        }
        Ok(())
    }
}

/// `promise_state(value)`: `{ state: "fulfilled", value }`, `{ state: "rejected", reason }` or
/// `{ state: "pending" }` for a promise, undefined for anything else. bun:test's
/// `expect.resolvesTo` / `rejectsTo` (js/test/expect/settled.ts) read a promise this way where
/// bun's own equality reads it, synchronously, in the middle of a comparison.
fn promise_state<'js>(
    ctx: &Ctx<'js>,
    _state: &Rc<HostState>,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    let Some(promise) = args.first().and_then(|value| value.as_promise()) else {
        return Ok(Value::new_undefined(ctx.clone()));
    };
    let out = Object::new(ctx.clone())?;
    match promise.state() {
        PromiseState::Pending => out.set("state", "pending")?,
        PromiseState::Resolved => {
            out.set("state", "fulfilled")?;
            if let Some(value) = promise.result::<Value>() {
                out.set("value", value?)?;
            }
        }
        PromiseState::Rejected => {
            out.set("state", "rejected")?;
            // `result` throws the reason into the context; take it back out.
            if let Some(Err(_)) = promise.result::<Value>() {
                out.set("reason", ctx.catch())?;
            }
        }
    }
    Ok(out.into_value())
}

fn op_function<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    op: &'static OpDecl,
) -> rquickjs::Result<Function<'js>> {
    let state = state.clone();
    let f = match op.kind {
        OpKind::Sync(run) => Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| match run(
                &state,
                OpArgs::new(&ctx, &args.0),
            ) {
                Ok(value) => op_value_to_js(&ctx, value),
                Err(error) => Err(throw(&ctx, &error)),
            },
        )?,
        OpKind::Async(start) => Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Rest<Value<'js>>| match start(
                &state,
                OpArgs::new(&ctx, &args.0),
            ) {
                Ok(future) => {
                    let id = state.spawn_op(op.name, future);
                    Ok(Value::new_number(ctx.clone(), id as f64))
                }
                Err(error) => Err(throw(&ctx, &error)),
            },
        )?,
    };
    f.with_name(op.name)
}

pub fn op_value_to_js<'js>(ctx: &Ctx<'js>, value: OpValue) -> rquickjs::Result<Value<'js>> {
    match value {
        OpValue::Undefined => Ok(Value::new_undefined(ctx.clone())),
        OpValue::Json(json) => convert::to_js(ctx, &json),
        OpValue::Bytes(bytes) => Ok(TypedArray::<u8>::new(ctx.clone(), bytes)?.into_value()),
        OpValue::Fields(fields) => {
            let object = Object::new(ctx.clone())?;
            for (key, value) in fields {
                object.set(key, op_value_to_js(ctx, value)?)?;
            }
            Ok(object.into_value())
        }
    }
}

/// What an async op rejects with: `{ code, message, data }` (js/core.ts makes the error).
pub fn op_error_to_js<'js>(ctx: &Ctx<'js>, error: &OpError) -> rquickjs::Result<Value<'js>> {
    let object = Object::new(ctx.clone())?;
    object.set("code", error.code.as_str())?;
    object.set("message", error.message.as_str())?;
    if let Some(data) = error.data.as_deref() {
        object.set("data", convert::to_js(ctx, data)?)?;
    }
    Ok(object.into_value())
}

/// Throws a sync op's error as the JS error of its class.
fn throw<'js>(ctx: &Ctx<'js>, error: &OpError) -> rquickjs::Error {
    if error.class == ErrorClass::Internal {
        return Exception::throw_internal(ctx, &error.message);
    }
    let build = || -> rquickjs::Result<Value<'js>> {
        let class = match error.class {
            ErrorClass::Type => "TypeError",
            ErrorClass::System if error.code.starts_with("ERR_INVALID_ARG") => "TypeError",
            _ => "Error",
        };
        let ctor: Function = ctx.globals().get(class)?;
        let object: Object = ctor.call((error.message.as_str(),))?;
        if error.class == ErrorClass::Awf {
            // awf's own errors print without a class name (see `JsError::headline`).
            object.set("name", "AwfError")?;
        }
        let data = error.data.as_deref().and_then(|d| d.as_object());
        // Node's order: errno, then code, then the rest.
        if let Some(errno) = data.and_then(|d| d.get("errno")) {
            object.set("errno", convert::to_js(ctx, errno)?)?;
        }
        if !error.code.is_empty() {
            object.set("code", error.code.as_str())?;
        }
        for (key, value) in data.into_iter().flatten() {
            if key != "errno" {
                object.set(key.as_str(), convert::to_js(ctx, value)?)?;
            }
        }
        Ok(object.into_value())
    };
    match build() {
        Ok(value) => ctx.throw(value),
        Err(e) => e,
    }
}
