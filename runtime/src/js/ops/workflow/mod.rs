//! Ops of a workflow's `wf`: js/workflow/context.ts, js/workflow/agents.ts, js/workflow/ask.ts,
//! js/workflow/fork.ts, js/workflow/messages.ts, js/workflow/scope.ts and js/workflow/stages.ts.

pub mod agents;
pub mod ask;
pub mod budget;
pub mod cancel;
pub mod context;
pub mod fork;
pub mod messages;
pub mod sandboxes;
pub mod stages;
