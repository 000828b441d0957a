//! Ops of a workflow's `wf`: js/workflow/context.ts and js/workflow/agents.ts.

pub mod agents;
pub mod context;
