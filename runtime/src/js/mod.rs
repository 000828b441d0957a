//! The JS engine door: QuickJS-NG through rquickjs, and nothing else in the crate names it.
//!
//! `JsHost` starts an engine with awf's host installed (js/bootstrap.ts: console, timers,
//! process, the author globals) and calls into built-in modules, driving its event loop until
//! the call settles. Below it: `loader` (module names to code), `builtins` (the embedded TS),
//! `transpile` and `source_map` (TS to JS and back), `errors` (thrown values as `JsError`),
//! `convert` (JSON across the boundary) and `ops` (the native functions built-ins call).

mod builtin_path;
mod builtins;
mod convert;
mod engine;
mod errors;
mod host;
mod loader;
mod ops;
mod source_map;
mod transpile;

pub use engine::{
    CallEnd, ConsoleTarget, HostConfig, HostState, JsFailure, JsHost, JsReply, JsRequester,
    OutputSink, OutputStream,
};
pub use errors::{JsError, Location};
pub use ops::{OpError, OpFuture, OpResult, OpValue};
