//! `JsHost`: one context in a `JsRuntime`, with the `HostState` its ops share, made and dropped
//! in the order QuickJS needs. `start_in` makes the context, attaches the state and the op
//! table, declares `awf:ops` and loads `awf:bootstrap`; dropping it aborts the ops in flight,
//! drops every JS value kept in Rust, lets the runtime go of the state, then drops the context
//! (and the runtime, when this host was its last user, unless the process is about to exit:
//! `leak_engine_at_exit`).

use std::mem::ManuallyDrop;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rquickjs::{CatchResultExt, CaughtError, Context, Module, Value};
use tokio::sync::mpsc;

use super::host_event::HostEvent;
use super::host_state::{HostConfig, HostState};
use super::js_runtime::JsRuntime;
use super::op::OpTable;
use super::ops_module::{OpsModule, ServedOps};
use super::requester::JsRequester;
use crate::js::errors::JsError;

/// A JS context with awf's host installed.
pub struct JsHost {
    pub(super) state: Rc<HostState>,
    pub(super) events: mpsc::UnboundedReceiver<HostEvent>,
    pub(super) context: ManuallyDrop<Context>,
    pub(super) runtime: ManuallyDrop<JsRuntime>,
    /// Leave the context and runtime to the process's exit (`leak_engine_at_exit`).
    leak: bool,
}

impl JsHost {
    /// Starts a host in a runtime of its own.
    pub fn start(config: HostConfig, ops: OpTable) -> Result<JsHost, JsError> {
        JsHost::start_in(&JsRuntime::new()?, config, ops)
    }

    /// Starts a host serving `ops` in `runtime` (which no other host uses now) and loads
    /// `awf:bootstrap`, which installs the globals.
    pub fn start_in(
        runtime: &JsRuntime,
        config: HostConfig,
        ops: OpTable,
    ) -> Result<JsHost, JsError> {
        let started_at = std::time::Instant::now();
        let context =
            Context::full(&runtime.runtime).map_err(|e| JsError::internal(&e.to_string()))?;
        let (events_tx, events) = mpsc::unbounded_channel();
        let state = Rc::new(HostState::new(config, events_tx));
        runtime.watch_interrupt(state.interrupt.clone(), state.call_stop.clone());
        let host = JsHost {
            state,
            events,
            context: ManuallyDrop::new(context),
            runtime: ManuallyDrop::new(runtime.clone()),
            leak: false,
        };
        host.context.with(|ctx| -> Result<(), JsError> {
            HostState::attach(&ctx, host.state.clone())?;
            ctx.store_userdata(ServedOps(ops))
                .map(|_| ())
                .map_err(|_| JsError::internal("the context already has its ops"))?;
            // Declared now, `awf:ops` is found by name: the loader never has to make it.
            host.state
                .modules
                .declare_anchor::<OpsModule>(&ctx)
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))?;
            Ok(())
        })?;
        host.bootstrap()?;
        tracing::debug!(elapsed = ?started_at.elapsed(), "JS host started");
        Ok(host)
    }

    /// The process exits once this host is dropped: leave the engine's memory to the operating
    /// system, which frees it faster than QuickJS frees it object by object. Everything else
    /// drop does (ops aborted, child processes stopped, JS values let go) still happens.
    pub fn leak_engine_at_exit(&mut self) {
        self.leak = true;
    }

    /// Loads `awf:bootstrap`, which installs the globals.
    fn bootstrap(&self) -> Result<(), JsError> {
        self.context.with(|ctx| {
            let promise = Module::import(&ctx, "awf:bootstrap")
                .catch(&ctx)
                .map_err(|e| JsError::from_caught(&ctx, e))?;
            while ctx.execute_pending_job() {}
            match promise.result::<Value>() {
                Some(Ok(_)) => Ok(()),
                Some(Err(e)) => Err(JsError::from_caught(&ctx, CaughtError::from_error(&ctx, e))),
                None => Err(JsError::internal("awf:bootstrap did not finish loading")),
            }
        })
    }

    pub fn state(&self) -> &Rc<HostState> {
        &self.state
    }

    pub fn requester(&self) -> JsRequester {
        self.state.requester()
    }

    /// Sends errors nobody caught (a rejection nobody handled, a throw out of a timer or op
    /// callback) to `handler`, and lets the call go on; by default such an error ends the call.
    pub fn report_uncaught(&self, handler: impl Fn(JsError) + 'static) {
        *self.state.uncaught.borrow_mut() = Some(Rc::new(handler));
    }

    /// A flag that, once set, stops running JS at its next check (deadline, cancellation).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.state.interrupt.clone()
    }
}

impl Drop for JsHost {
    fn drop(&mut self) {
        // Work the code started dies with it: an op's task (and a child it owns) is aborted.
        for (_, task) in self.state.op_tasks.borrow_mut().drain() {
            task.abort();
        }
        // Persistent values must not outlive the runtime (QuickJS asserts on it).
        self.state.clear();
        self.context.with(|ctx| HostState::detach(&ctx));
        if self.leak {
            return;
        }
        // SAFETY: dropped once, here, and never used after.
        unsafe {
            ManuallyDrop::drop(&mut self.context);
            ManuallyDrop::drop(&mut self.runtime);
        }
    }
}
