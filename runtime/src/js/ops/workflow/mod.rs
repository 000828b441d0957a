//! Ops of a workflow's `wf`: js/workflow/context.ts, js/workflow/agents.ts,
//! js/workflow/fork.ts and js/workflow/stages.ts.

pub mod agents;
pub mod context;
pub mod fork;
pub mod stages;
