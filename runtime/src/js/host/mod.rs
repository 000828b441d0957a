//! Host APIs for workflow and handler code: each capability's Rust ops beside its TypeScript
//! twin (`fs.rs` <-> js/host/fs.ts), served to the built-ins through `awf:ops`.
//!
//! `permissions` is the one gate every file, network, process and environment access passes
//! (`programs`: what `--allow-run` grants, resolved at start);
//! `system_error` turns OS errors into Node's error shape; `HostResources` holds what the ops
//! keep open between calls (child processes, HTTP exchanges), and closes it when the host drops.
//! Both live in the host's store (`HostState::put`), not in the engine.

mod child_groups;
mod child_process;
mod confined;
mod console;
mod crypto;
mod encoding;
mod fetch;
mod fs;
mod os;
pub mod permissions;
mod process;
pub mod programs;
mod stack;
mod system_error;
mod url;

use std::cell::RefCell;
use std::rc::Rc;

use super::engine::{HostState, OpGroup};
use permissions::Permissions;

/// Every host API op, one slice per capability.
pub const OPS: OpGroup = &[
    console::OPS,
    process::OPS,
    stack::OPS,
    fs::OPS,
    child_process::OPS,
    fetch::OPS,
    url::OPS,
    encoding::OPS,
    crypto::OPS,
    os::OPS,
];

/// What host ops keep open between calls, per host. Dropping it stops every child process
/// group still running and closes every HTTP exchange.
#[derive(Default)]
pub struct HostResources {
    process_groups: child_process::ProcessGroups,
    exchanges: fetch::Exchanges,
}

/// Gives this host's ops `permissions` instead of allowing everything; set before workflow code
/// runs.
pub fn set_permissions(state: &HostState, permissions: Permissions) {
    state.put(Rc::new(permissions));
}

/// The gate of this host: everything allowed unless the host was given another.
pub(crate) fn gate(state: &HostState) -> Rc<Permissions> {
    match state.get::<Permissions>() {
        Some(gate) => gate,
        None => {
            let gate = Rc::new(Permissions::allow_all());
            state.put(gate.clone());
            gate
        }
    }
}

/// What this host's ops keep open.
fn resources(state: &HostState) -> Rc<RefCell<HostResources>> {
    state.get_or_default::<RefCell<HostResources>>()
}
