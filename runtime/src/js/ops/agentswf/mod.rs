//! Ops of the `agentswf` modules: js/agentswf/workflow.ts and js/agentswf/testing.ts.

mod scripted;
pub mod testing;
pub mod workflow;
