//! The engine's own functions in `awf:ops`, which js/core.ts builds on: `set_callbacks` (the JS
//! functions the engine calls into), `reply` (JS's answer to a request from Rust), and the
//! timer primitives `timer_start`, `timer_clear`, `timer_unref`. `builtin_namespace` is in
//! lazy_builtin.rs. The first two handle JS values themselves; the timers are typed ops.

use std::rc::Rc;
use std::time::Instant;

use rquickjs::{Ctx, Function, Object, Persistent, Value};
use serde::Deserialize;

use super::callbacks::Callbacks;
use super::host_state::HostState;
use super::op::{sync_op, OpDecl};
use super::op_value::OpError;
use crate::js::convert;
use crate::js::errors::JsError;
use crate::upcall::UpcallFailure;

/// A primitive that handles JS values itself.
pub type Primitive =
    for<'js> fn(&Ctx<'js>, &Rc<HostState>, &[Value<'js>]) -> rquickjs::Result<Value<'js>>;

fn arg<'js>(ctx: &Ctx<'js>, args: &[Value<'js>], i: usize) -> Value<'js> {
    args.get(i)
        .cloned()
        .unwrap_or_else(|| Value::new_undefined(ctx.clone()))
}

/// `set_callbacks({ complete, fire_timer, request })`.
pub fn set_callbacks<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    let object = Object::from_value(arg(ctx, args, 0))?;
    let get = |name: &str| -> rquickjs::Result<Persistent<Function<'static>>> {
        Ok(Persistent::save(ctx, object.get::<_, Function>(name)?))
    };
    *state.callbacks.borrow_mut() = Some(Callbacks {
        complete: get("complete")?,
        fire_timer: get("fire_timer")?,
        request: get("request")?,
    });
    Ok(Value::new_undefined(ctx.clone()))
}

/// `reply(id, ok, value)`: JS's answer to a host request. A value that is not JSON is a failure
/// of the request, not an exception in JS: the requester decides what it means.
pub fn reply<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    let id = arg(ctx, args, 0).as_number().unwrap_or(0.0) as u64;
    let ok = arg(ctx, args, 1).as_bool().unwrap_or(false);
    let value = arg(ctx, args, 2);
    let answer = if ok {
        convert::to_json(&value).map_err(|e| UpcallFailure::NotJson(e.to_string()))
    } else {
        Err(UpcallFailure::Threw(error_from_info(ctx, &value)))
    };
    state.replies.answer(id, answer);
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
                location: json
                    .get("location")
                    .and_then(|at| serde_json::from_value(at.clone()).ok()),
                unhandled: false,
            }
        }
        _ => JsError::from_value(ctx, info),
    }
}

/// The timer primitives.
pub const TIMER_OPS: &[OpDecl] = &[
    sync_op!(timer_start),
    sync_op!(timer_clear),
    sync_op!(timer_unref),
];

#[derive(Deserialize)]
struct TimerStart(f64, bool);

/// `timer_start(delayMs, repeat)` -> the timer's id.
fn timer_start(state: &Rc<HostState>, TimerStart(ms, repeat): TimerStart) -> Result<u64, OpError> {
    let id = state.next_id();
    // A delay past awf's longest duration (or NaN) must not overflow: clamped, as JS clamps.
    let delay = crate::duration::clamp_millis(ms);
    state
        .timers
        .borrow_mut()
        .start(id, Instant::now(), delay, repeat);
    Ok(id)
}

fn timer_clear(state: &Rc<HostState>, id: u64) -> Result<(), OpError> {
    state.timers.borrow_mut().clear(id);
    Ok(())
}

#[derive(Deserialize)]
struct TimerUnref(u64, bool);

/// `timer_unref(id, unref)`.
fn timer_unref(state: &Rc<HostState>, TimerUnref(id, unref): TimerUnref) -> Result<(), OpError> {
    state.timers.borrow_mut().set_ref(id, !unref);
    Ok(())
}
