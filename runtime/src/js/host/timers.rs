//! Timer ops behind js/host/timers.ts: the host's timer wheel (engine.rs) seen from JS.

use std::rc::Rc;
use std::time::Duration;

use rquickjs::function::Rest;
use rquickjs::{Ctx, Value};

use crate::js::engine::HostState;
use crate::js::ops::{arg, number, Op, OpDecl};

pub const OPS: &[OpDecl] = &[
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
];

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
