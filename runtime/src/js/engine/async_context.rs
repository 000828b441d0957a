//! The async context: which tool call and which cancellation scope the running JS belongs to,
//! carried across `await` (QuickJS has none of its own).
//!
//! The value is opaque here (js/workflow/identity.ts and scope.ts make it). It lives in one
//! slot per host: `context_current()` reads it, `context_resume(value, result)` sets it and
//! gives back `result`. Workflow code is rewritten when it is loaded (transpile's
//! `async_context` pass) so that every `await x` in an async function reads
//! `__awf_resume(ctx, await x)`, `ctx` being what was current when the function was called: on
//! resume the function's context is back. The event loop empties the slot after every job and
//! every callback it runs (`clear`), so code that was not rewritten sees no context rather than
//! a stale one; timers and `.then` callbacks capture the context when they are registered
//! (js/host/async_context.ts).

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{Ctx, Persistent, Value};

use super::host_state::HostState;

/// The slot of a host.
#[derive(Default)]
pub struct AsyncContext(RefCell<Option<Persistent<Value<'static>>>>);

impl AsyncContext {
    /// No context from now on (after each job and callback, and when the host drops).
    pub fn clear(&self) {
        if self.0.borrow().is_some() {
            self.0.borrow_mut().take();
        }
    }
}

fn arg<'js>(ctx: &Ctx<'js>, args: &[Value<'js>], i: usize) -> Value<'js> {
    args.get(i)
        .cloned()
        .unwrap_or_else(|| Value::new_undefined(ctx.clone()))
}

/// `context_current()`: the current context, or undefined.
pub fn context_current<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    _args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    match state.async_context.0.borrow().as_ref() {
        Some(value) => value.clone().restore(ctx),
        None => Ok(Value::new_undefined(ctx.clone())),
    }
}

/// `context_resume(context, result)`: makes `context` current (undefined: none) and returns
/// `result`.
pub fn context_resume<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    let context = arg(ctx, args, 0);
    // The engine's `CallStop` must know whose code runs, to stop a handler that spins past its
    // call's time after an `await`: a context with a call (`{ call: { id } }`) names it.
    match call_of(&context) {
        Some(call) => state.call_stop.enter(&call),
        None => state.call_stop.leave(),
    }
    let saved = (!context.is_undefined()).then(|| Persistent::save(ctx, context));
    *state.async_context.0.borrow_mut() = saved;
    Ok(arg(ctx, args, 1))
}

/// The id of the tool call a context belongs to, if it names one.
fn call_of(context: &Value<'_>) -> Option<String> {
    let call: Value = context.as_object()?.get("call").ok()?;
    call.as_object()?.get::<_, String>("id").ok()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call_js, host};
    use super::super::CallEnd;

    #[test]
    fn a_context_set_before_an_await_is_gone_in_the_next_job_unless_resumed() {
        let mut host = host();
        let end = call_js(
            &mut host,
            "export const main = async () => {
               __awf_resume({ name: 'a' });
               const ctx = __awf_current();
               await null;
               const lost = __awf_current();
               const back = __awf_resume(ctx, 7);
               return [lost === undefined, back, __awf_current().name];
             };",
        );
        match end {
            CallEnd::Returned(Some(value)) => {
                assert_eq!(value, serde_json::json!([true, 7, "a"]))
            }
            other => panic!("{other:?}"),
        }
    }
}
