//! Ops of the `agentswf` modules: js/agentswf/workflow.ts and js/agentswf/testing.ts.

pub mod testing;
pub mod workflow;
