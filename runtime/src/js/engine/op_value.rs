//! What an op gives back: its value (`OpValue`, from any `IntoOpValue`) or its error
//! (`OpError`, with the class of JS error it becomes).

use std::future::Future;
use std::pin::Pin;

use super::op_code::OpCode;

/// What an op gives back, before it becomes a JS value.
#[derive(Debug, PartialEq)]
pub enum OpValue {
    Undefined,
    Json(serde_json::Value),
    Bytes(Vec<u8>),
    /// An object whose properties are values of their own (JSON beside bytes).
    Fields(Vec<(&'static str, OpValue)>),
}

pub type OpResult = Result<OpValue, OpError>;
pub type OpFuture = Pin<Box<dyn Future<Output = OpResult> + Send>>;

/// Which JS error an `OpError` becomes when a sync op throws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// An `AwfError` with the op's `code` (what async ops reject with, too).
    Awf,
    /// A `TypeError`: the arguments were wrong.
    Type,
    /// Node's shape for operating-system errors (`code`, `errno`, `syscall`, `path`); a
    /// `TypeError` for the `ERR_INVALID_ARG_*` codes (host/system_error.rs makes these).
    System,
    /// An `InternalError`: awf itself went wrong, or `process.exit` unwinds.
    Internal,
}

/// Why an op failed: becomes a JS error of its `class` with this `code`.
#[derive(Debug, Clone, PartialEq)]
pub struct OpError {
    pub class: ErrorClass,
    pub code: String,
    pub message: String,
    /// Extra properties for the JS error (Node's `path`, `syscall`, ...); boxed, as most errors
    /// have none.
    pub data: Option<Box<serde_json::Value>>,
}

impl OpError {
    /// An `AwfError` with `code`, one of the table's (`OpCode`).
    pub fn new(code: OpCode, message: impl Into<String>) -> OpError {
        OpError {
            class: ErrorClass::Awf,
            code: code.as_str().to_string(),
            message: message.into(),
            data: None,
        }
    }

    /// A `TypeError`: an argument is not what the op takes.
    pub fn type_error(message: impl Into<String>) -> OpError {
        OpError {
            class: ErrorClass::Type,
            code: String::new(),
            message: message.into(),
            data: None,
        }
    }

    /// A `TypeError` from one of awf's typed problems: its text, and its hint (what to do) as the
    /// error's `hint`, printed after the user's frames.
    pub fn type_problem(problem: &(impl std::fmt::Display + crate::hint::Hint)) -> OpError {
        OpError::type_error(problem.to_string()).with_hint(problem.hint())
    }

    /// Sets the error's `hint`, when there is one.
    pub fn with_hint(mut self, hint: Option<String>) -> OpError {
        if let Some(hint) = hint {
            let mut data = match self.data.take().map(|d| *d) {
                Some(serde_json::Value::Object(map)) => map,
                _ => serde_json::Map::new(),
            };
            data.insert("hint".to_string(), serde_json::Value::String(hint));
            self.data = Some(Box::new(serde_json::Value::Object(data)));
        }
        self
    }

    /// An operating-system error in Node's shape; `data` holds `errno`, `syscall`, `path`, ...
    pub fn system(code: &str, message: impl Into<String>, data: serde_json::Value) -> OpError {
        OpError {
            class: ErrorClass::System,
            code: code.to_string(),
            message: message.into(),
            data: Some(Box::new(data)),
        }
    }

    /// An `InternalError`.
    pub fn internal(message: impl Into<String>) -> OpError {
        OpError {
            class: ErrorClass::Internal,
            code: OpCode::Internal.as_str().to_string(),
            message: message.into(),
            data: None,
        }
    }
}

/// A value an op can give back to JS.
pub trait IntoOpValue {
    fn into_op_value(self) -> OpValue;
}

impl IntoOpValue for OpValue {
    fn into_op_value(self) -> OpValue {
        self
    }
}

impl IntoOpValue for () {
    fn into_op_value(self) -> OpValue {
        OpValue::Undefined
    }
}

impl IntoOpValue for serde_json::Value {
    fn into_op_value(self) -> OpValue {
        OpValue::Json(self)
    }
}

/// Bytes go to JS as a `Uint8Array`.
impl IntoOpValue for Vec<u8> {
    fn into_op_value(self) -> OpValue {
        OpValue::Bytes(self)
    }
}

macro_rules! json_op_values {
    ($($t:ty),*) => {$(
        impl IntoOpValue for $t {
            fn into_op_value(self) -> OpValue {
                OpValue::Json(serde_json::Value::from(self))
            }
        }
    )*};
}
json_op_values!(bool, u32, u64, i64, f64, String, Vec<String>);

/// `None` is `null`.
impl<T: IntoOpValue> IntoOpValue for Option<T> {
    fn into_op_value(self) -> OpValue {
        match self {
            Some(value) => value.into_op_value(),
            None => OpValue::Json(serde_json::Value::Null),
        }
    }
}
