//! One call into JS: import a module, call one of its exports with JSON arguments, and run the
//! event loop until its promise settles; `CallEnd` says how it ended.

use std::rc::Rc;

use rquickjs::function::Rest;
use rquickjs::{CatchResultExt, Ctx, Function, Value};

use super::host::JsHost;
use super::host_state::HostState;
use crate::js::convert;
use crate::js::errors::JsError;

/// How a call into JS ended.
#[derive(Debug)]
pub enum CallEnd {
    /// The function's value, as JSON (`None` for undefined).
    Returned(Option<serde_json::Value>),
    Threw(JsError),
    /// `process.exit(code)` was called.
    Exited(i32),
    /// Nothing could ever settle the call.
    Stalled,
    /// The host was interrupted (deadline, cancellation) before the call settled.
    Interrupted,
}

impl CallEnd {
    /// The variant's name, for diagnostics.
    pub fn kind(&self) -> &'static str {
        match self {
            CallEnd::Returned(_) => "returned",
            CallEnd::Threw(_) => "threw",
            CallEnd::Exited(_) => "exited",
            CallEnd::Stalled => "stalled",
            CallEnd::Interrupted => "interrupted",
        }
    }
}

/// Starts one call: import the module, call its export, report the outcome through `settle`.
const START_CALL: &str = r#"(module, name, args, settle) => {
  import(module)
    .then((m) => m[name](args))
    .then((value) => settle(true, value), (error) => settle(false, error));
}"#;

impl JsHost {
    /// Calls `export` of the module `module` with `args` (JSON) and runs the event loop until the
    /// call settles, the code exits, or nothing could settle it any more.
    pub async fn call(&mut self, module: &str, export: &str, args: serde_json::Value) -> CallEnd {
        tracing::debug!(module, export, "call into JS");
        let started_at = std::time::Instant::now();
        let end = self.start_and_drive(module, export, args).await;
        tracing::debug!(module, export, elapsed = ?started_at.elapsed(), end = end.kind(), "call ended");
        end
    }

    async fn start_and_drive(
        &mut self,
        module: &str,
        export: &str,
        args: serde_json::Value,
    ) -> CallEnd {
        *self.state.settled.borrow_mut() = None;
        let started = self.context.with(|ctx| -> Result<(), JsError> {
            let mut options = rquickjs::context::EvalOptions::default();
            options.global = true;
            options.filename = Some("awf:call".into());
            let start: Function = ctx
                .eval_with_options(START_CALL, options)
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))?;
            let settle = settle_function(&ctx, self.state.clone())
                .map_err(|e| JsError::internal(&e.to_string()))?;
            let args =
                convert::to_js(&ctx, &args).map_err(|e| JsError::internal(&e.to_string()))?;
            start
                .call::<_, ()>((module, export, args, settle))
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))
        });
        if let Err(error) = started {
            return CallEnd::Threw(error);
        }
        self.run_event_loop().await
    }
}

/// The native function a call's promise settles through: its JSON value or its error.
fn settle_function<'js>(ctx: &Ctx<'js>, state: Rc<HostState>) -> rquickjs::Result<Function<'js>> {
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
        let arg = |i: usize| {
            args.0
                .get(i)
                .cloned()
                .unwrap_or_else(|| Value::new_undefined(ctx.clone()))
        };
        let result = if arg(0).as_bool().unwrap_or(false) {
            convert::to_json(&arg(1)).map_err(|e| {
                JsError::message(
                    "TypeError",
                    &format!("the call returned a value that is not JSON: {e}"),
                )
            })
        } else {
            Err(JsError::from_value(&ctx, &arg(1)))
        };
        *state.settled.borrow_mut() = Some(result);
    })
}
