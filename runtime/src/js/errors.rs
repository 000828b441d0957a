//! Thrown values read into Rust: `JsError` (runtime/src/upcall/js_error.rs, plain data) made from
//! what QuickJS caught, placed at the author's call of awf's own functions (call_site.rs) and at
//! an import QuickJS could not link (link_error.rs); a bare "not a function" names what the
//! author called (not_a_function.rs).

use rquickjs::{CaughtError, Ctx, Object, Value};

use super::call_site;
use super::engine::HostState;
use super::link_error;
use super::source_map::SourcePos;
use crate::upcall::Frame;
pub use crate::upcall::{JsError, Location};

impl JsError {
    pub fn from_caught<'js>(ctx: &Ctx<'js>, caught: CaughtError<'js>) -> JsError {
        match caught {
            CaughtError::Error(e) => JsError::internal(&e.to_string()),
            CaughtError::Exception(e) => JsError::from_value(ctx, &e.into_value()),
            CaughtError::Value(v) => JsError::from_value(ctx, &v),
        }
    }

    /// Reads any thrown value: an Error's fields, or a description of something else.
    pub fn from_value<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> JsError {
        let Some(object) = value.as_object().filter(|_| value.is_error()) else {
            return JsError::message(
                "Error",
                &format!("a non-error value was thrown: {}", describe(ctx, value)),
            );
        };
        let text =
            |key: &str| -> Option<String> { object.get::<_, Option<String>>(key).ok().flatten() };
        let stack = text("stack").unwrap_or_default();
        let frames: Vec<&str> = stack
            .lines()
            .filter(|l| l.trim_start().starts_with("at "))
            .collect();
        let error = JsError {
            name: text("name").unwrap_or_else(|| "Error".to_string()),
            message: text("message").unwrap_or_default(),
            stack: frames.join("\n"),
            code: text("code"),
            hint: text("hint"),
            location: location(object),
            unhandled: false,
        }
        .at_call_site();
        let error = super::not_a_function::name_the_callee(error);
        // QuickJS's error for an import of a name its module does not export, as awf says it.
        match HostState::try_of(ctx) {
            Some(state) => link_error::place(&state, error),
            None => error,
        }
    }

    /// An error one of awf's own functions threw (its stack starts in awf's built-ins) at the
    /// author's call of it: located where that call is written, which may be lines above the
    /// position QuickJS gives its frame (call_site.rs), or at the property of its argument the
    /// message names by JSON pointer.
    fn at_call_site(mut self) -> JsError {
        if self.location.is_some() {
            return self;
        }
        let mut callee = None;
        let mut user = None;
        for frame in self.stack.lines().filter_map(Frame::parse) {
            if frame.file.starts_with("awf:") {
                callee = frame.function;
            } else if frame.file != "native" {
                user = Some(frame);
                break;
            }
        }
        let (Some(callee), Some(user)) = (callee, user) else {
            return self;
        };
        let Ok(source) = std::fs::read_to_string(user.file) else {
            return self;
        };
        let pointer = self
            .message
            .split(" at /")
            .nth(1)
            .and_then(|rest| rest.split([':', ' ']).next())
            .map(|path| format!("/{path}"));
        let at = SourcePos {
            line: user.line,
            col: user.col,
        };
        if let Some(found) = call_site::locate(&source, at, callee, pointer.as_deref()) {
            self.location = Some(Location {
                file: user.file.to_string(),
                line: found.line,
                col: found.col,
            });
        }
        self
    }
}

fn describe<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> String {
    if let Some(s) = value.as_string().and_then(|s| s.to_string().ok()) {
        return serde_json::Value::String(s).to_string();
    }
    ctx.json_stringify(value.clone())
        .ok()
        .flatten()
        .and_then(|s| s.to_string().ok())
        .unwrap_or_else(|| value.type_name().to_string())
}

fn location(object: &Object<'_>) -> Option<Location> {
    let at: Object = object.get("location").ok()?;
    Some(Location {
        file: at.get("file").ok()?,
        line: at.get("line").ok()?,
        col: at.get("col").ok()?,
    })
}
