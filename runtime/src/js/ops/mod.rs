//! The ops of awf's concerns: the Rust half of the built-in of the same path under js/
//! (`agentswf/workflow.rs` <-> js/agentswf/workflow.ts), each converting what JS sends and
//! calling the concern (`schema`, `workflow`, `agents`, `testing`). Host APIs are `host/`'s.

mod agentswf;
mod test;
mod workflow;

use super::engine::OpGroup;

/// Every concern op, one slice per file.
pub const OPS: OpGroup = &[
    agentswf::workflow::OPS,
    agentswf::testing::OPS,
    workflow::context::OPS,
    workflow::agents::OPS,
    workflow::messages::OPS,
    workflow::ask::OPS,
    workflow::budget::OPS,
    workflow::sandboxes::OPS,
    workflow::cancel::OPS,
    workflow::fork::OPS,
    workflow::stages::OPS,
    test::file_runner::OPS,
    test::snapshot::OPS,
    test::module_mock::OPS,
];
