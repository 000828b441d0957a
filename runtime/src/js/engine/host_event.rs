//! What reaches a host's JS thread from other tasks: an async op's result, or a request from
//! Rust for JS to run something, with the channel its answer (`JsReply`) goes back on.

use tokio::sync::oneshot;

use super::op_value::OpResult;
use crate::js::errors::JsError;

pub(crate) enum HostEvent {
    OpDone {
        id: u64,
        result: OpResult,
    },
    Request {
        kind: String,
        payload: serde_json::Value,
        /// The tool call the request runs code for, which `CallStop` may stop.
        call: Option<String>,
        reply: oneshot::Sender<JsReply>,
    },
}

/// An answer from JS to a `JsRequester::request`.
pub type JsReply = Result<Option<serde_json::Value>, JsFailure>;

/// Why JS could not answer a request.
#[derive(Debug, Clone)]
pub enum JsFailure {
    /// The handler threw or its promise rejected.
    Threw(JsError),
    /// The handler's value is not JSON (`NotJson` text).
    NotJson(String),
    /// The host is gone (the run ended).
    HostGone,
}
