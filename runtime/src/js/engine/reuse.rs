//! One host for one user after another (`awf test`'s files on one worker thread): what is kept
//! from user to user, and what is forgotten or put back between them.
//!
//! Once what every user shares is loaded (js/test/file_runner.ts, once the test framework is),
//! the JS side calls the `keep_for_reuse(objects)` primitive: the modules loaded then, the state
//! of `objects` (shared_objects.rs) and what the host's store holds then stay. Between users,
//! `JsHost::reset_for_next_user` forgets the rest: op tasks in flight, timers, requests and
//! events waiting, errors nobody handled, the async context, what concerns put in the store
//! since, the working directory. It puts the shared objects back and retires the modules loaded
//! since (module_ledger.rs), so the next user imports fresh ones. What JS keeps in its own
//! modules' state (js/core.ts's tables, the framework's registries) its reset hooks forget
//! (`resetHost` in js/core.ts), which the user's last call runs.

use std::rc::Rc;

use rquickjs::{Array, Ctx, Exception, Value};

use super::host::JsHost;
use super::host_state::HostState;
use super::shared_objects::SharedObjects;

/// `keep_for_reuse(objects)`: keeps the modules loaded now, the state of `objects` and the
/// store's contents for every later user of the host. Gives whether the host can be reused.
pub fn keep_for_reuse<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    let objects = args
        .first()
        .and_then(|value| value.as_array())
        .ok_or_else(|| Exception::throw_type(ctx, "keep_for_reuse takes an array of objects"))?;
    let objects: Vec<Value> = Array::iter(objects).collect::<rquickjs::Result<_>>()?;
    let kept = state.modules.keep_loaded(ctx);
    if kept {
        let shared = SharedObjects::capture(ctx, &objects);
        tracing::debug!(objects = shared.len(), "host kept for its next users");
        *state.shared.borrow_mut() = Some(shared);
        state.keep_store();
    }
    Ok(Value::new_bool(ctx.clone(), kept))
}

impl JsHost {
    /// Makes the host ready for its next user, as if it had just been started and kept. False
    /// when it cannot be: it was never kept, its JS was interrupted or exited, work is still
    /// queued, or a shared object could not be put back; drop it then.
    pub fn reset_for_next_user(&mut self) -> bool {
        let state = self.state.clone();
        if !state.modules.keeps() || state.interrupted() || state.exit_code().is_some() {
            return false;
        }
        for (_, task) in state.op_tasks.borrow_mut().drain() {
            task.abort();
        }
        state.timers.borrow_mut().clear_all();
        while self.events.try_recv().is_ok() {}
        state.replies.clear();
        state.unhandled.borrow_mut().clear();
        state.uncaught.borrow_mut().take();
        state.settled.borrow_mut().take();
        state.clear_async_context();
        state.forget_unkept_store();
        state.set_cwd(state.config.cwd.clone());
        state.set_argv(state.config.argv.clone());
        if self.runtime.runtime.is_job_pending() {
            return false;
        }
        self.context.with(|ctx| {
            let restored = state
                .shared
                .borrow()
                .as_ref()
                .is_some_and(|shared| shared.restore(&ctx));
            for name in state.modules.retire_unkept(&ctx) {
                state.sources.borrow_mut().remove(&name);
                state.import_sites.borrow_mut().remove(&name);
            }
            restored
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call_js, host};
    use super::*;
    use crate::js::CallEnd;

    /// Keeps `host` for reuse as the test runner does, with no objects beyond the global ones.
    fn keep(host: &JsHost) -> bool {
        let state = host.state.clone();
        host.context.with(|ctx| {
            let none = Array::new(ctx.clone()).unwrap().into_value();
            keep_for_reuse(&ctx, &state, &[none])
                .unwrap()
                .as_bool()
                .unwrap()
        })
    }

    fn returned(end: CallEnd) -> serde_json::Value {
        match end {
            CallEnd::Returned(Some(value)) => value,
            other => panic!("the call did not return a value: {other:?}"),
        }
    }

    #[test]
    fn the_next_user_imports_fresh_modules_but_keeps_those_loaded_before() {
        let dir = std::env::temp_dir().join(format!("awf-reuse-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let counter = dir.join("counter.js");
        std::fs::write(
            &counter,
            "export let n = 0;\nexport const bump = () => ++n;\n",
        )
        .unwrap();
        let main = format!(
            "import {{ bump }} from {:?};\nexport const main = () => [bump(), bump(), typeof console.log];",
            counter.display().to_string()
        );
        let mut host = host();
        assert!(keep(&host));
        assert_eq!(
            returned(call_js(&mut host, &main)),
            serde_json::json!([1, 2, "function"])
        );
        assert!(host.reset_for_next_user());
        assert_eq!(
            returned(call_js(&mut host, &main)),
            serde_json::json!([1, 2, "function"])
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn globals_prototypes_and_built_ins_are_put_back() {
        let mut host = host();
        assert!(keep(&host));
        let change = r#"export function main() {
  globalThis.leftBehind = 1;
  Array.prototype.extra = 2;
  Math.max = () => 0;
  delete JSON.stringify;
  Object.defineProperty(Object.prototype, "hidden", { get: () => 3, configurable: true });
  [].push.call(Array.prototype, "x");
  Object.setPrototypeOf(Math, null);
  return Math.max(1, 2);
}"#;
        assert_eq!(returned(call_js(&mut host, change)), serde_json::json!(0));
        assert!(host.reset_for_next_user());
        let check = r#"export function main() {
  return [typeof globalThis.leftBehind, [].extra, Math.max(1, 2), JSON.stringify([1]), ({}).hidden,
    Array.prototype.length, Object.getPrototypeOf(Math) === Object.prototype];
}"#;
        assert_eq!(
            returned(call_js(&mut host, check)),
            serde_json::json!(["undefined", null, 2, "[1]", null, 0, true])
        );
    }

    #[test]
    fn a_host_is_not_reused_when_a_shared_object_cannot_be_put_back() {
        let mut host = host();
        assert!(keep(&host));
        let freeze = "export function main() { Object.freeze(Array.prototype); return 1; }";
        assert_eq!(returned(call_js(&mut host, freeze)), serde_json::json!(1));
        assert!(!host.reset_for_next_user());
    }

    #[test]
    fn a_host_that_exited_or_was_never_kept_is_not_reused() {
        let mut never_kept = host();
        assert_eq!(
            returned(call_js(&mut never_kept, "export const main = () => 1;")),
            serde_json::json!(1)
        );
        assert!(!never_kept.reset_for_next_user());
        let mut exited = host();
        assert!(keep(&exited));
        let end = call_js(&mut exited, "export const main = () => process.exit(3);");
        assert!(matches!(end, CallEnd::Exited(3)), "{end:?}");
        assert!(!exited.reset_for_next_user());
    }

    #[test]
    fn what_a_user_left_running_is_dropped() {
        let mut host = host();
        assert!(keep(&host));
        let leave = r#"export function main() {
  setTimeout(() => { globalThis.fired = true; }, 0);
  setInterval(() => {}, 1);
  return 1;
}"#;
        assert_eq!(returned(call_js(&mut host, leave)), serde_json::json!(1));
        assert!(host.reset_for_next_user());
        assert!(host.state.timers.borrow().next_at().is_none());
        let check = "export const main = () => new Promise((resolve) => setTimeout(() => resolve(typeof globalThis.fired), 5));";
        assert_eq!(
            returned(call_js(&mut host, check)),
            serde_json::json!("undefined")
        );
    }
}
