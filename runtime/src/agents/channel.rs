//! An agent's channel router: each request that arrives on the agent's socket (or for it, over
//! the run's TCP listener) goes to the agent it belongs to, once the sender is found to be the
//! agent's own (`agent/authority.rs`). The connection and the agent's secret are the authority,
//! so the router holds its agent (weakly: a closed run frees it) and its secret, and never looks
//! at who the request says it is.

use std::sync::{Arc, Weak};

use super::agent::{refused, Agent};
use super::sending;
use crate::channel::refusal::Code;
use crate::channel::secret::Secret;
use crate::channel::server::{Caller, ChannelHandler, HandlerFuture};
use crate::channel::wire::{Request, Response};
use crate::tools::dispatch;

pub(super) struct AgentChannel {
    agent: Weak<Agent>,
    /// The agent's secret, as its launcher file holds it.
    secret: Secret,
}

impl AgentChannel {
    pub(super) fn new(agent: &Arc<Agent>, secret: Secret) -> AgentChannel {
        AgentChannel {
            agent: Arc::downgrade(agent),
            secret,
        }
    }
}

impl ChannelHandler for AgentChannel {
    fn authorize(&self, caller: &Caller, secret: Option<&str>) -> Result<(), Response> {
        match self.agent.upgrade() {
            Some(agent) => agent.authorize(caller, self.secret.judge(secret)),
            None => Err(refused(
                Code::ClosedTurn,
                "this agent is closed",
                vec![],
                None,
            )),
        }
    }

    fn handle(&self, request: Request) -> HandlerFuture {
        let agent = self.agent.upgrade();
        Box::pin(async move {
            let Some(agent) = agent else {
                return refused(Code::ClosedTurn, "this agent is closed", vec![], None);
            };
            match request {
                Request::Result { turn, args, stdin } => {
                    agent.submit_answer(&turn, &args, stdin.as_deref())
                }
                Request::ResultHelp { turn } => agent.answer_help(&turn),
                Request::Waiting {
                    turn,
                    reason,
                    timeout,
                } => agent
                    .refuse_while_calling()
                    .unwrap_or_else(|| agent.waiting(&turn, &reason, timeout.as_deref())),
                Request::Tools {} => dispatch::listing(&*agent),
                Request::ToolHelp { name } => dispatch::tool_help(&*agent, &name),
                Request::Expects { tool, turn } => agent.expects(tool.as_deref(), turn.as_deref()),
                Request::Tool { name, args, stdin } => {
                    dispatch::call(&*agent, name, args, stdin).await
                }
                Request::Send { text, data } => {
                    sending::send(&agent, text.as_deref(), data.as_deref()).await
                }
            }
        })
    }
}
