//! The `builtin_namespace(name)` primitive behind js/host/lazy_global.ts: evaluates a built-in
//! module the first time one of its globals is read, so that `awf run` loads `fetch`, `URL` or
//! `Buffer` only when code uses them.
//!
//! A module served this way must have no top-level await (its evaluation finishes inside the
//! call). Evaluated here first, it is the module a later import finds (QuickJS reuses a loaded
//! module by name). Imported first, it is that module again: its namespace is taken through a
//! module of one line that imports it by name, which QuickJS resolves to the loaded one (it has
//! no call that finds a loaded module's namespace by name). js/workflow/context.ts loads the
//! parts of `wf` a run may never use this way too.

use std::rc::Rc;

use rquickjs::promise::PromiseState;
use rquickjs::{Ctx, Exception, Module, Promise, Value};

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
        let source = format!(
            "import * as namespace from {};\nexport {{ namespace }};\n",
            serde_json::Value::from(name.as_str())
        );
        let reexport = Module::declare(ctx.clone(), format!("awf:namespace-of/{name}"), source)?;
        let (module, evaluated) = reexport.eval()?;
        return settled(ctx, &name, &evaluated)
            .and_then(|()| module.namespace()?.get::<_, Value>("namespace"));
    }
    let (module, evaluated) = declare_builtin(ctx, state, &name)
        .ok_or_else(|| Exception::throw_internal(ctx, &format!("no built-in module {name}")))??
        .eval()?;
    settled(ctx, &name, &evaluated).and_then(|()| Ok(module.namespace()?.into_value()))
}

/// Whether the evaluation of `name` finished, and well.
fn settled<'js>(ctx: &Ctx<'js>, name: &str, evaluated: &Promise<'js>) -> rquickjs::Result<()> {
    match evaluated.state() {
        PromiseState::Resolved => Ok(()),
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
