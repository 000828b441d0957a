//! The engine: one QuickJS runtime and context, the state its ops share, and the event loop
//! that drives them. It knows no op beyond its own primitives: the host that builds it hands it
//! the op table (js/mod.rs), so nothing here imports `ops/` or `host/`.
//!
//! - `js_runtime`: `JsRuntime`, a QuickJS runtime with awf's loader and hooks, for one host at a
//!   time (one per `awf run`, one per test worker thread).
//! - `host`: `JsHost`, one context in it: start, bootstrap, drop order.
//! - `host_state`: what ops share (`HostState`), and the store and handles concerns keep there.
//! - `op`, `op_args`, `op_value`: the op contract, argument decoding, what ops give back.
//! - `ops_module`: the `awf:ops` module; `primitives`, `lazy_builtin`: the engine's own ops.
//! - `timers`: the timer wheel.
//! - `host_event`, `requester`: what reaches the JS thread; Rust tasks asking JS (`JsRequester`).
//! - `call_stop`: stopping one tool call's handler that never yields, not the whole host.
//! - `async_context`: which tool call and scope the running JS belongs to, across `await`.
//! - `callbacks`: the `awf:core` functions the engine calls into.
//! - `event_loop`, `call`: one call into JS, driven until it settles.
//! - `output`: where console text goes.
//! - `reuse`: one host for one user after another (`awf test`'s files on a worker): what stays,
//!   what is forgotten between users; `module_ledger` retires the modules a user loaded,
//!   `shared_objects` puts back the objects every user shares.
//!
//! Everything JS runs on the thread that calls `JsHost::call`. Drop order matters to QuickJS:
//! persistent values first, then the context, then the runtime.

mod async_context;
mod call;
mod call_stop;
mod callbacks;
mod event_loop;
mod host;
mod host_event;
mod host_state;
mod js_runtime;
mod lazy_builtin;
mod module_ledger;
mod op;
mod op_args;
mod op_code;
mod op_value;
mod ops_module;
mod output;
mod primitives;
mod requester;
mod reuse;
mod shared_objects;
#[cfg(test)]
pub(crate) mod testing;
mod timers;

pub use call::CallEnd;
pub use host::JsHost;
pub use host_state::{HostConfig, HostState};
pub use js_runtime::JsRuntime;
pub(crate) use op::{async_op, sync_op};
pub use op::{run_sync, start_async, OpDecl, OpGroup, OpKind, OpTable};
pub use op_args::{Bytes, Json, JsonCheck};
pub use op_code::OpCode;
pub use op_value::{OpError, OpFuture, OpResult, OpValue};
pub use output::{ConsoleTarget, OutputSink, OutputStream};
pub use requester::JsRequester;
