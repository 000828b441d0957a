//! The JS engine door: QuickJS-NG through rquickjs, and nothing else in the crate names it.
//!
//! `JsHost::new` starts an engine (`engine/`) serving awf's ops: the host APIs (`host/`, the
//! Rust half of js/host/*.ts) and the concerns' ops (`ops/`, the Rust half of the other
//! built-ins), then loads js/bootstrap.ts (console, timers, process, the author globals). Beside
//! them: `loader` (module names to code), `compile_cache` (a user file's bytecode, kept from
//! run to run), `builtins` (the embedded TS), `transpile` and
//! `source_map` (TS to JS and back), `errors` (thrown values as `JsError`; `link_error` and
//! `module_names` say where an import of a name its module lacks is written) and `convert`
//! (JSON across the boundary).

// `JsError` (160 bytes: name, message, stack, code, hint, place) is what every engine call that
// can fail gives back; failing is the rare path, and boxing it at each of them would cost more
// in noise than moving it costs.
#![allow(clippy::result_large_err)]

mod async_context;
mod builtin_path;
mod builtins;
mod call_site;
mod compile_cache;
mod convert;
mod engine;
mod errors;
mod host;
mod link_error;
mod loader;
mod module_mocks;
mod module_names;
mod not_a_function;
mod ops;
mod source_map;
mod transpile;

pub use engine::{
    CallEnd, ConsoleTarget, HostConfig, HostState, JsHost, JsRequester, JsRuntime, OpError,
    OpResult, OpValue, OutputSink, OutputStream,
};
pub use errors::{JsError, Location};
/// The gate a host's file, network, process and environment access passes; put one with a host
/// (`host.state().put(Rc::new(gate))`) to narrow it, before the code it bounds runs.
pub use host::permissions::{Grant, Permissions, SandboxGrants};
pub use host::set_permissions;
pub use loader::{hint_for as unresolved_hint, resolve_name};

use engine::OpTable;

/// Every op a host serves: the host APIs, then the concerns'.
const OPS: OpTable = &[host::OPS, ops::OPS];

impl JsHost {
    /// A host serving all of awf's ops, with js/bootstrap.ts loaded, in a runtime of its own.
    pub fn new(config: HostConfig) -> Result<JsHost, JsError> {
        JsHost::start(config, OPS)
    }

    /// The same in `runtime`, which no other host uses now (`awf test` runs its files one after
    /// the other in one runtime per thread).
    pub fn new_in(runtime: &JsRuntime, config: HostConfig) -> Result<JsHost, JsError> {
        JsHost::start_in(runtime, config, OPS)
    }
}
