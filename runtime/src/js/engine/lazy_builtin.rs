//! The `builtin_namespace(name)` primitive behind js/host/lazy_global.ts: evaluates a built-in
//! module the first time one of its globals is read, so that `awf run` loads `fetch`, `URL` or
//! `Buffer` only when code uses them.
//!
//! A module served this way must have no top-level await (its evaluation finishes inside the
//! call). Evaluated here first, it is the module a later import finds (QuickJS reuses a loaded
//! module by name). Imported first, its getters must not run: a module both imported and behind
//! a lazy global replaces its globals as it is evaluated (agentswf/workflow does); any other is
//! refused with an internal error, which the built-in tests catch.

use std::rc::Rc;

use rquickjs::promise::PromiseState;
use rquickjs::{Ctx, Exception, Value};

use super::host_state::HostState;
use crate::js::loader::declare_builtin;

pub fn builtin_namespace<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    let name = args
        .first()
        .and_then(|v| v.as_string())
        .and_then(|s| s.to_string().ok())
        .ok_or_else(|| Exception::throw_type(ctx, "module must be a string"))?;
    if state.module_loaded(&name) {
        return Err(Exception::throw_internal(
            ctx,
            &format!("{name} is behind a lazy global but was already imported"),
        ));
    }
    let (module, evaluated) = declare_builtin(ctx, state, &name)
        .ok_or_else(|| Exception::throw_internal(ctx, &format!("no built-in module {name}")))??
        .eval()?;
    match evaluated.state() {
        PromiseState::Resolved => Ok(module.namespace()?.into_value()),
        // `result` throws the rejection's reason into the context.
        PromiseState::Rejected => match evaluated.result::<Value>() {
            Some(Err(e)) => Err(e),
            _ => Err(rquickjs::Error::Exception),
        },
        PromiseState::Pending => Err(Exception::throw_internal(
            ctx,
            &format!("{name} did not finish evaluating at once (top-level await?)"),
        )),
    }
}
