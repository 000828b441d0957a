//! Host APIs for workflow and handler code: each capability's Rust ops beside its TypeScript
//! twin (`fs.rs` <-> js/host/fs.ts), served to the built-ins through `awf:ops`.
//!
//! `permissions` is the one gate every file, network, process and environment access passes;
//! `system_error` turns OS errors into Node's error shape; `HostResources` holds what the ops
//! keep open between calls (child processes, HTTP exchanges), and closes it when the host drops.

mod child_process;
mod console;
mod crypto;
mod encoding;
mod fetch;
mod fs;
mod lazy_global;
mod os;
pub mod permissions;
mod process;
mod system_error;
mod timers;
mod url;

use rquickjs::{TypedArray, Value};

pub(crate) use super::engine::op_value_to_js;
use super::ops::OpDecl;

/// Every host API op.
pub fn ops() -> impl Iterator<Item = &'static OpDecl> {
    console::OPS
        .iter()
        .chain(process::OPS)
        .chain(timers::OPS)
        .chain(fs::OPS)
        .chain(child_process::OPS)
        .chain(fetch::OPS)
        .chain(url::OPS)
        .chain(encoding::OPS)
        .chain(crypto::OPS)
        .chain(os::OPS)
        .chain(lazy_global::OPS)
}

/// What host ops keep open between calls, per host. Dropping it stops every child process
/// group still running and closes every HTTP exchange.
#[derive(Default)]
pub struct HostResources {
    process_groups: child_process::ProcessGroups,
    exchanges: fetch::Exchanges,
}

/// A bytes argument (any typed array or ArrayBuffer view of bytes), copied at once; None for
/// undefined or null.
fn bytes_arg(value: &Value<'_>) -> rquickjs::Result<Option<Vec<u8>>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let array = TypedArray::<u8>::from_value(value.clone())?;
    // Copied before any JS runs that could detach the buffer.
    Ok(Some(
        unsafe { array.as_bytes() }
            .map(<[u8]>::to_vec)
            .unwrap_or_default(),
    ))
}
