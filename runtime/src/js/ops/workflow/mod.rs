//! Ops of a workflow's `wf`: js/workflow/context.ts, js/workflow/agents.ts and
//! js/workflow/stages.ts.

pub mod agents;
pub mod context;
pub mod stages;
