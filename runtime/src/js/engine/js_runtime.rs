//! `JsRuntime`: one QuickJS runtime with awf's loader and hooks, which hosts use one at a time.
//!
//! `awf run` makes one for its one host; `awf test` makes one per worker thread, with one host
//! in it for file after file while that host can be reset (reuse.rs), and a new one after a
//! file that leaves it unsure. The hooks are the runtime's, so they find the host through the context
//! that calls them (`HostState::of`): the module loader, the rejection tracker, and the
//! interrupt flag of the host started last.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rquickjs::{qjs, Runtime};

use super::call_stop::CallStop;
use super::host_state::HostState;
use crate::js::errors::JsError;
use crate::js::loader::{AwfLoader, AwfResolver};

/// Heap size at which a runtime first collects garbage; after each collection QuickJS sets the
/// next at 1.5 times what is still in use.
const GC_THRESHOLD: usize = 8 * 1024 * 1024;

/// Stack QuickJS lets JS use before it throws a RangeError.
const MAX_STACK: usize = 4 * 1024 * 1024;

/// A QuickJS runtime ready for hosts.
#[derive(Clone)]
pub struct JsRuntime {
    pub(super) runtime: Runtime,
    /// The interrupt flag and call stop of the host using the runtime now.
    interrupt: std::rc::Rc<RefCell<Interrupts>>,
}

/// What the interrupt handler reads: the host's flag (stop all its JS) and its `CallStop` (stop
/// one call's code).
#[derive(Default)]
struct Interrupts {
    host: Arc<AtomicBool>,
    call_stop: Arc<CallStop>,
}

impl JsRuntime {
    pub fn new() -> Result<JsRuntime, JsError> {
        let runtime = Runtime::new().map_err(|e| JsError::internal(&e.to_string()))?;
        runtime.set_max_stack_size(MAX_STACK);
        // QuickJS collects from 256 KiB on, which the built-ins alone pass: most hosts (a test
        // file, a short workflow) would collect several times for little.
        runtime.set_gc_threshold(GC_THRESHOLD);
        runtime.set_loader(AwfResolver, AwfLoader);
        let interrupt: std::rc::Rc<RefCell<Interrupts>> = std::rc::Rc::default();
        let watched = interrupt.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            let watched = watched.borrow();
            watched.host.load(Ordering::SeqCst) || watched.call_stop.should_interrupt()
        })));
        runtime.set_host_promise_rejection_tracker(Some(Box::new(
            move |ctx, promise, reason, handled| {
                let Some(state) = HostState::try_of(&ctx) else {
                    return;
                };
                let id = unsafe { qjs::JS_VALUE_GET_PTR(promise.as_raw()) } as usize;
                if handled {
                    state.unhandled.borrow_mut().retain(|(p, _)| *p != id);
                } else {
                    // Read before borrowing: reading the reason runs JS (getters, the stack).
                    let error = JsError::from_value(&ctx, &reason);
                    state.unhandled.borrow_mut().push((id, error));
                }
            },
        )));
        Ok(JsRuntime { runtime, interrupt })
    }

    /// Frees what the hosts dropped so far left behind: a dropped context's objects refer to
    /// each other (and to it), so only a collection frees them.
    pub fn collect_garbage(&self) {
        self.runtime.run_gc();
    }

    /// From now on, `flag` stops the JS this runtime runs, and `call_stop` a call's code in it.
    pub(super) fn watch_interrupt(&self, flag: Arc<AtomicBool>, call_stop: Arc<CallStop>) {
        *self.interrupt.borrow_mut() = Interrupts {
            host: flag,
            call_stop,
        };
    }
}
