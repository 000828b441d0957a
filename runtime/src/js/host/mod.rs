//! Host APIs for workflow and handler code: each capability's Rust ops beside its TypeScript
//! twin (`console.rs` <-> js/host/console.ts), served to the built-ins through `awf:ops`.

mod console;
mod process;
mod timers;

use super::ops::OpDecl;

/// Every host API op.
pub fn ops() -> impl Iterator<Item = &'static OpDecl> {
    console::OPS.iter().chain(process::OPS).chain(timers::OPS)
}
