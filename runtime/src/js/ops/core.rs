//! The host's own ops: the async-op door, timers, output, positions, JSON checks, process.

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{Ctx, IntoJs, Object, TypedArray, Value};

use super::{arg, number, string, type_error, Op, OpDecl};
use crate::js::convert;
use crate::js::engine::{HostState, JsFailure};
use crate::js::errors::JsError;
use crate::js::source_map::SourcePos;

pub const OPS: &[OpDecl] = &[
    OpDecl {
        name: "async_op",
        op: Op::Sync(async_op),
    },
    OpDecl {
        name: "set_callbacks",
        op: Op::Sync(set_callbacks),
    },
    OpDecl {
        name: "reply",
        op: Op::Sync(reply),
    },
    OpDecl {
        name: "source_position",
        op: Op::Sync(source_position),
    },
    OpDecl {
        name: "check_json",
        op: Op::Sync(check_json),
    },
];

fn async_op<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let name = string(ctx, &arg(ctx, &args, 0), "op name")?;
    let json = convert::to_json_or_throw(ctx, &arg(ctx, &args, 1))?;
    let bytes_arg = arg(ctx, &args, 2);
    let bytes = if bytes_arg.is_undefined() || bytes_arg.is_null() {
        None
    } else {
        let array = TypedArray::<u8>::from_value(bytes_arg)?;
        // Copied at once, before any JS runs that could detach the buffer.
        Some(
            unsafe { array.as_bytes() }
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
        )
    };
    match state.start_async(&name, json, bytes) {
        Ok(id) => Ok(Value::new_number(ctx.clone(), id as f64)),
        Err(error) => Err(crate::js::loader::throw_located(
            ctx,
            "Error",
            &error.code,
            &error.message,
            None,
            None,
        )),
    }
}

fn set_callbacks<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let object = Object::from_value(arg(ctx, &args, 0))?;
    state.set_callbacks(ctx, object)?;
    Ok(Value::new_undefined(ctx.clone()))
}

/// `reply(id, ok, value)`: JS's answer to a host request. A value that is not JSON is a failure
/// of the request, not an exception in JS: the requester decides what it means.
fn reply<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let id = number(&arg(ctx, &args, 0)) as u64;
    let ok = arg(ctx, &args, 1).as_bool().unwrap_or(false);
    let value = arg(ctx, &args, 2);
    let answer = if ok {
        convert::to_json(&value).map_err(|e| JsFailure::NotJson(e.to_string()))
    } else {
        Err(JsFailure::Threw(error_from_info(ctx, &value)))
    };
    state.reply(id, answer);
    Ok(Value::new_undefined(ctx.clone()))
}

/// Reads an `errorInfo` object (js/core.ts) back into a `JsError`.
fn error_from_info<'js>(ctx: &Ctx<'js>, info: &Value<'js>) -> JsError {
    match convert::to_json(info) {
        Ok(Some(json)) => {
            let text = |key: &str| json.get(key).and_then(|v| v.as_str()).map(str::to_string);
            JsError {
                name: text("name").unwrap_or_else(|| "Error".into()),
                message: text("message").unwrap_or_default(),
                stack: text("stack").unwrap_or_default(),
                code: text("code"),
                hint: text("hint"),
                location: None,
                unhandled: false,
            }
        }
        _ => JsError::from_value(ctx, info),
    }
}

fn source_position<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let file = string(ctx, &arg(ctx, &args, 0), "file")?;
    let generated = SourcePos {
        line: number(&arg(ctx, &args, 1)) as u32,
        col: number(&arg(ctx, &args, 2)) as u32,
    };
    match state.sources.borrow().to_source(&file, generated) {
        Some(pos) => vec![pos.line, pos.col].into_js(ctx),
        None => Ok(Value::new_null(ctx.clone())),
    }
}

fn check_json<'js>(
    ctx: &Ctx<'js>,
    _: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let value = arg(ctx, &args, 0);
    match convert::to_json(&value) {
        Ok(Some(json)) => convert::to_js(ctx, &json),
        Ok(None) => Ok(Value::new_undefined(ctx.clone())),
        Err(e) => Err(type_error(ctx, &e.to_string())),
    }
}
