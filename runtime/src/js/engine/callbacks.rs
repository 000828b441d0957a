//! The JS functions of `awf:core` the engine calls into: an async op's completion, a due timer,
//! a request from Rust. js/core.ts hands them over once (the `set_callbacks` primitive); they are
//! parked here between calls into the context and dropped before the runtime.

use rquickjs::{Function, Persistent};

pub struct Callbacks {
    pub complete: Persistent<Function<'static>>,
    pub fire_timer: Persistent<Function<'static>>,
    pub request: Persistent<Function<'static>>,
}
