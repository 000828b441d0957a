//! Why a line is not a message of this protocol ([`DecodeError`], [`Oversized`]), the code a
//! request refused for it carries, and the refusal the server sends back.

use std::fmt;

use super::{Code, Response, VERSION};

/// A line longer than its limit; sizes in bytes, not counting the newline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversized {
    pub size: usize,
    pub max: usize,
}

impl fmt::Display for Oversized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes, over the limit of {}", self.size, self.max)
    }
}

/// Why a line is not a message of this protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    TooLarge(Oversized),
    /// `version` is present but not 1; holds it as it was sent, as JSON text.
    UnsupportedVersion(String),
    /// Not JSON, not an object, no `version`, or not one of the shapes above.
    Invalid(String),
}

impl DecodeError {
    /// The code a request refused for this reason carries.
    pub fn code(&self) -> Code {
        match self {
            DecodeError::TooLarge(_) => Code::RequestTooLarge,
            DecodeError::UnsupportedVersion(_) => Code::UnsupportedVersion,
            DecodeError::Invalid(_) => Code::InvalidRequest,
        }
    }

    /// The refusal the server sends for a request that failed to decode.
    pub fn into_response(self) -> Response {
        let hint = match self {
            DecodeError::UnsupportedVersion(_) => Some(
                "this wfa comes from another awf than the run; use the launcher named in your \
                 current prompt"
                    .to_owned(),
            ),
            DecodeError::TooLarge(_) | DecodeError::Invalid(_) => None,
        };
        Response::Refused {
            code: self.code(),
            message: self.to_string(),
            details: Vec::new(),
            hint,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::TooLarge(oversized) => write!(f, "the line is {oversized}"),
            DecodeError::UnsupportedVersion(version) => write!(
                f,
                "protocol version {version} is not supported; this side speaks version {VERSION}"
            ),
            DecodeError::Invalid(why) => f.write_str(why),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decode_error_becomes_the_refusal_the_server_sends() {
        let error = DecodeError::UnsupportedVersion("2".to_owned());
        match error.into_response() {
            Response::Refused {
                code,
                hint: Some(_),
                ..
            } => assert_eq!(code, Code::UnsupportedVersion),
            other => panic!("{other:?}"),
        }
    }
}
