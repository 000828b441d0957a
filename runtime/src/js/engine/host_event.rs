//! What reaches a host's JS thread from other tasks: an async op's result, or a request from
//! Rust for JS to run something (an upcall, crate::upcall), with the channel its answer goes back on.

use tokio::sync::oneshot;

use super::op_value::OpResult;
use crate::upcall::Answer;

pub(crate) enum HostEvent {
    OpDone {
        id: u64,
        result: OpResult,
    },
    Request {
        kind: &'static str,
        payload: serde_json::Value,
        /// The tool call the request runs code for, which `CallStop` may stop.
        call: Option<String>,
        reply: oneshot::Sender<Answer>,
    },
}
