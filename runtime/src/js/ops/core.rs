//! The host's own ops: the async-op door, timers, output, positions, JSON checks, process.

use std::io::Write;
use std::rc::Rc;
use std::time::Duration;

use rquickjs::function::Rest;
use rquickjs::{Ctx, IntoJs, Object, TypedArray, Value};

use super::{arg, type_error, Op, OpDecl};
use crate::js::convert;
use crate::js::errors::JsError;
use crate::js::host::{ConsoleTarget, HostState, JsFailure};
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
        name: "timer_start",
        op: Op::Sync(timer_start),
    },
    OpDecl {
        name: "timer_clear",
        op: Op::Sync(timer_clear),
    },
    OpDecl {
        name: "timer_unref",
        op: Op::Sync(timer_unref),
    },
    OpDecl {
        name: "print",
        op: Op::Sync(print),
    },
    OpDecl {
        name: "source_position",
        op: Op::Sync(source_position),
    },
    OpDecl {
        name: "check_json",
        op: Op::Sync(check_json),
    },
    OpDecl {
        name: "process_info",
        op: Op::Sync(process_info),
    },
    OpDecl {
        name: "process_exit",
        op: Op::Sync(process_exit),
    },
    OpDecl {
        name: "process_chdir",
        op: Op::Sync(process_chdir),
    },
];

fn number(value: &Value<'_>) -> f64 {
    value.as_number().unwrap_or(0.0)
}

fn string<'js>(ctx: &Ctx<'js>, value: &Value<'js>, what: &str) -> rquickjs::Result<String> {
    value
        .as_string()
        .and_then(|s| s.to_string().ok())
        .ok_or_else(|| type_error(ctx, &format!("{what} must be a string")))
}

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

fn timer_start<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let ms = number(&arg(ctx, &args, 0)).max(0.0);
    let repeat = arg(ctx, &args, 1).as_bool().unwrap_or(false);
    let id = state.start_timer(Duration::from_secs_f64(ms / 1000.0), repeat);
    Ok(Value::new_number(ctx.clone(), id as f64))
}

fn timer_clear<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    state.clear_timer(number(&arg(ctx, &args, 0)) as u64);
    Ok(Value::new_undefined(ctx.clone()))
}

fn timer_unref<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let unref = arg(ctx, &args, 1).as_bool().unwrap_or(true);
    state.set_timer_ref(number(&arg(ctx, &args, 0)) as u64, !unref);
    Ok(Value::new_undefined(ctx.clone()))
}

fn print<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let fd = number(&arg(ctx, &args, 0)) as i32;
    let text = string(ctx, &arg(ctx, &args, 1), "text")?;
    let to_stdout = fd == 1 && state.config.console == ConsoleTarget::Split;
    // A closed pipe (`awf run wf.ts | head`) must not fail the workflow: output is best effort.
    if to_stdout {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    } else {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
    Ok(Value::new_undefined(ctx.clone()))
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

fn process_info<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    _: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let env: serde_json::Map<String, serde_json::Value> = std::env::vars()
        .map(|(k, v)| (k, serde_json::Value::String(v)))
        .collect();
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let info = serde_json::json!({
        "argv": state.config.argv,
        "cwd": state.cwd().display().to_string(),
        "env": env,
        "pid": std::process::id(),
        "platform": std::env::consts::OS,
        "arch": node_arch(),
        "execPath": exe,
        "version": env!("CARGO_PKG_VERSION"),
    });
    convert::to_js(ctx, &info)
}

/// Node's names for CPU architectures.
fn node_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        other => other,
    }
}

fn process_exit<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let code = number(&arg(ctx, &args, 0)) as i32;
    state.request_exit(code);
    Err(rquickjs::Exception::throw_internal(
        ctx,
        &format!("process.exit({code})"),
    ))
}

fn process_chdir<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: Rest<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let dir = string(ctx, &arg(ctx, &args, 0), "directory")?;
    let target = state.cwd().join(&dir);
    match std::fs::canonicalize(&target) {
        Ok(path) if path.is_dir() => {
            state.set_cwd(path);
            Ok(Value::new_undefined(ctx.clone()))
        }
        _ => Err(crate::js::loader::throw_located(
            ctx,
            "Error",
            "ENOENT",
            &format!("ENOENT: no such file or directory, chdir '{dir}'"),
            None,
            None,
        )),
    }
}
