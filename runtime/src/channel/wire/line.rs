//! A message as one line and back: encoding puts `version` first and bounds the size; decoding
//! checks, in order, the size, JSON, an object, `version`, then the shape, so each malformed line
//! gets the one refusal that says what is wrong first.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{DecodeError, Oversized, Request, Response, VERSION};

impl Request {
    /// The request as one line, newline included; `Err` when it is over `max_bytes`.
    pub fn encode(&self, max_bytes: usize) -> Result<Vec<u8>, Oversized> {
        encode_line(self, None, max_bytes)
    }

    /// The request as one line presenting the agent's `secret` (from its launcher file).
    pub fn encode_presenting(&self, secret: &str, max_bytes: usize) -> Result<Vec<u8>, Oversized> {
        encode_line(self, Some(secret), max_bytes)
    }

    /// Reads one request line (the trailing newline is optional). Checks, in order: size, JSON,
    /// an object, `version`, then the command's shape; the error's [`DecodeError::code`] is the
    /// refusal to send.
    pub fn decode(line: &[u8], max_bytes: usize) -> Result<Request, DecodeError> {
        Request::decode_presented(line, max_bytes).request
    }

    /// Reads one request line and the secret it presents: the secret is read even from a line
    /// that is not a valid request (past the size and JSON checks), so that the sender is judged
    /// before it is told what is wrong with its line.
    pub fn decode_presented(line: &[u8], max_bytes: usize) -> Presented {
        let mut secret = None;
        let request = decode_line(line, max_bytes, Some(&mut secret));
        Presented { secret, request }
    }
}

/// A request line as read: the secret it presents (none from a host agent's old launcher or
/// `--channel`), and the request or why it is not one.
#[derive(Debug)]
pub struct Presented {
    pub secret: Option<String>,
    pub request: Result<Request, DecodeError>,
}

impl Response {
    /// The response as one line, newline included; `Err` when it is over `max_bytes`.
    pub fn encode(&self, max_bytes: usize) -> Result<Vec<u8>, Oversized> {
        encode_line(self, None, max_bytes)
    }

    /// Reads one response line, with the checks of [`Request::decode`], and that the kind and
    /// the code agree.
    pub fn decode(line: &[u8], max_bytes: usize) -> Result<Response, DecodeError> {
        let response: Response = decode_line(line, max_bytes, None)?;
        match &response {
            Response::Refused { code, .. } if !code.is_refusal() => Err(DecodeError::Invalid(
                format!("kind `refused` with the failure code `{code}`"),
            )),
            Response::Failed { code, .. } if code.is_refusal() => Err(DecodeError::Invalid(
                format!("kind `failed` with the refusal code `{code}`"),
            )),
            _ => Ok(response),
        }
    }
}

/// A message with its `version` first, as it goes on the wire; a request may present the
/// agent's secret next.
#[derive(Serialize)]
struct Versioned<'a, T> {
    version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<&'a str>,
    #[serde(flatten)]
    body: &'a T,
}

fn encode_line<T: Serialize>(
    body: &T,
    secret: Option<&str>,
    max_bytes: usize,
) -> Result<Vec<u8>, Oversized> {
    let mut line = serde_json::to_vec(&Versioned {
        version: VERSION,
        secret,
        body,
    })
    .expect("wire messages hold only strings and lists of strings, which always serialize");
    if line.len() > max_bytes {
        return Err(Oversized {
            size: line.len(),
            max: max_bytes,
        });
    }
    line.push(b'\n');
    Ok(line)
}

/// Decodes in two steps so that the version is judged before the shape: a client of another
/// version gets `unsupported-version`, not a complaint about a field it has no reason to know.
/// (`#[serde(flatten)]` would also rule out `deny_unknown_fields`.) A request's `secret` is taken
/// into `secret` as soon as the line is a JSON object; other messages carry none.
fn decode_line<T: DeserializeOwned>(
    line: &[u8],
    max_bytes: usize,
    secret: Option<&mut Option<String>>,
) -> Result<T, DecodeError> {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    if text.len() > max_bytes {
        return Err(DecodeError::TooLarge(Oversized {
            size: text.len(),
            max: max_bytes,
        }));
    }
    if text.trim_ascii().is_empty() {
        return Err(DecodeError::Invalid(
            "empty line: expected one JSON object".to_owned(),
        ));
    }
    let value: Value = serde_json::from_slice(text)
        .map_err(|error| DecodeError::Invalid(format!("not JSON: {error}")))?;
    let Value::Object(mut fields) = value else {
        return Err(DecodeError::Invalid(format!(
            "expected a JSON object, got {}",
            json_kind(&value)
        )));
    };
    if let Some(secret) = secret {
        match fields.remove("secret") {
            Some(Value::String(presented)) => *secret = Some(presented),
            Some(other) => {
                return Err(DecodeError::Invalid(format!(
                    "field `secret` must be a string, got {}",
                    json_kind(&other)
                )))
            }
            None => {}
        }
    }
    match fields.remove("version") {
        Some(Value::Number(version)) if version.as_u64() == Some(VERSION) => {}
        Some(version) => return Err(DecodeError::UnsupportedVersion(version.to_string())),
        None => return Err(DecodeError::Invalid("missing field `version`".to_owned())),
    }
    serde_json::from_value(Value::Object(fields))
        .map_err(|error| DecodeError::Invalid(error.to_string()))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::super::Code;
    use super::*;

    const MAX: usize = 4096;

    fn decode_request(line: &str) -> Result<Request, DecodeError> {
        Request::decode(line.as_bytes(), MAX)
    }

    /// The code and message a malformed request is refused with.
    fn refusal(line: &str) -> (Code, String) {
        let error = decode_request(line).expect_err(line);
        (error.code(), error.to_string())
    }

    #[test]
    fn a_tool_call_is_encoded_as_the_protocol_shows() {
        let request = Request::Tool {
            name: "add_finding".to_owned(),
            args: ["--file", "src/a.ts", "--line", "41"]
                .map(String::from)
                .to_vec(),
            stdin: None,
        };
        let line = request.encode(MAX).unwrap();
        assert_eq!(
            String::from_utf8(line).unwrap(),
            r#"{"version":1,"command":"tool","name":"add_finding","args":["--file","src/a.ts","--line","41"],"stdin":null}"#.to_owned() + "\n"
        );
    }

    #[test]
    fn a_secret_is_presented_beside_the_version_and_read_even_from_a_bad_request() {
        let line = Request::Tools {}.encode_presenting("ab12", MAX).unwrap();
        assert_eq!(
            line,
            b"{\"version\":1,\"secret\":\"ab12\",\"command\":\"tools\"}\n"
        );
        let presented = Request::decode_presented(&line, MAX);
        assert_eq!(presented.secret.as_deref(), Some("ab12"));
        assert_eq!(presented.request, Ok(Request::Tools {}));
        let bad = Request::decode_presented(br#"{"version":9,"secret":"cd","command":"x"}"#, MAX);
        assert_eq!(bad.secret.as_deref(), Some("cd"));
        assert_eq!(bad.request.unwrap_err().code(), Code::UnsupportedVersion);
        let absent = Request::decode_presented(br#"{"version":1,"command":"tools"}"#, MAX);
        assert_eq!(absent.secret, None);
        assert_eq!(absent.request, Ok(Request::Tools {}));
        let (code, message) = refusal(r#"{"version":1,"secret":7,"command":"tools"}"#);
        assert_eq!(code, Code::InvalidRequest);
        assert_eq!(message, "field `secret` must be a string, got a number");
        // A response never carries one.
        let response = Response::decode(
            br#"{"version":1,"secret":"x","kind":"ok","stdout":""}"#,
            MAX,
        );
        assert_eq!(response.unwrap_err().code(), Code::InvalidRequest);
    }

    #[test]
    fn every_request_round_trips() {
        let requests = [
            Request::Tool {
                name: "label_item".to_owned(),
                args: Vec::new(),
                stdin: Some("{\"id\": \"b2\"}\n".to_owned()),
            },
            Request::Tools {},
            Request::Expects {
                tool: Some("label_item".to_owned()),
                turn: None,
            },
            Request::Result {
                turn: "t3".to_owned(),
                args: vec!["--verdict".to_owned(), "ok".to_owned()],
                stdin: None,
            },
            Request::ResultHelp {
                turn: "t3".to_owned(),
            },
            Request::Waiting {
                turn: "t3".to_owned(),
                reason: "tests still run".to_owned(),
                timeout: Some("2m".to_owned()),
            },
            Request::Send {
                text: Some("found 3".to_owned()),
                data: Some("{\"n\": 3}".to_owned()),
            },
        ];
        for request in requests {
            let line = request.encode(MAX).unwrap();
            assert_eq!(line.last(), Some(&b'\n'));
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(Request::decode(&line, MAX), Ok(request));
        }
        assert_eq!(
            Request::Tools {}.encode(MAX).unwrap(),
            b"{\"version\":1,\"command\":\"tools\"}\n"
        );
    }

    #[test]
    fn every_response_round_trips() {
        let responses = [
            Response::Ok {
                stdout: "Recorded; 1 so far.".to_owned(),
            },
            Response::Refused {
                code: Code::InvalidInput,
                message: "the input does not fit the tool's schema".to_owned(),
                details: vec!["/line: must be >= 1, got 0".to_owned()],
                hint: Some("call again with the input fixed".to_owned()),
            },
            Response::Failed {
                code: Code::HandlerFailed,
                message: "src/a.ts:3 is already recorded".to_owned(),
                hint: None,
            },
        ];
        for response in responses {
            let line = response.encode(MAX).unwrap();
            assert_eq!(Response::decode(&line, MAX), Ok(response));
        }
        assert_eq!(
            Response::Failed {
                code: Code::TimedOut,
                message: "no".to_owned(),
                hint: None
            }
            .encode(MAX)
            .unwrap(),
            b"{\"version\":1,\"kind\":\"failed\",\"code\":\"timed-out\",\"message\":\"no\",\"hint\":null}\n"
        );
    }

    #[test]
    fn the_newline_is_optional_and_an_absent_stdin_is_none() {
        let request = decode_request(r#"{"version":1,"command":"tool","name":"x","args":[]}"#);
        assert_eq!(
            request,
            Ok(Request::Tool {
                name: "x".to_owned(),
                args: Vec::new(),
                stdin: None
            })
        );
    }

    #[test]
    fn not_json_is_an_invalid_request() {
        let (code, message) = refusal("{\"version\":1,");
        assert_eq!(code, Code::InvalidRequest);
        assert!(message.starts_with("not JSON: "), "{message}");
        let (code, _) = refusal("wfa tool add_finding\n");
        assert_eq!(code, Code::InvalidRequest);
        let error = Request::decode(b"{\"version\":1,\"command\":\"tools\"}\xff", MAX).unwrap_err();
        assert_eq!(error.code(), Code::InvalidRequest);
    }

    #[test]
    fn an_empty_line_is_an_invalid_request() {
        for line in ["", "\n", "   \n"] {
            assert_eq!(
                refusal(line),
                (
                    Code::InvalidRequest,
                    "empty line: expected one JSON object".to_owned()
                )
            );
        }
    }

    #[test]
    fn anything_but_an_object_is_an_invalid_request() {
        assert_eq!(
            refusal("[1]"),
            (
                Code::InvalidRequest,
                "expected a JSON object, got an array".to_owned()
            )
        );
        assert_eq!(refusal("1").1, "expected a JSON object, got a number");
    }

    #[test]
    fn two_requests_on_one_line_are_an_invalid_request() {
        let line = r#"{"version":1,"command":"tools"}{"version":1,"command":"tools"}"#;
        let (code, message) = refusal(line);
        assert_eq!(code, Code::InvalidRequest);
        assert!(message.contains("trailing characters"), "{message}");
        assert_eq!(
            refusal("{\"version\":1,\"command\":\"tools\"}\n{}\n").0,
            Code::InvalidRequest
        );
    }

    #[test]
    fn a_wrong_version_is_unsupported_and_judged_before_the_rest() {
        for (line, shown) in [
            (r#"{"version":2,"command":"tools"}"#, "2"),
            (r#"{"version":0,"command":"tools"}"#, "0"),
            (r#"{"version":"1","command":"tools"}"#, "\"1\""),
            (r#"{"version":1.5,"command":"tools"}"#, "1.5"),
            (r#"{"version":null,"command":"tools"}"#, "null"),
            (r#"{"command":"frob","extra":true,"version":3}"#, "3"),
        ] {
            assert_eq!(
                refusal(line),
                (
                    Code::UnsupportedVersion,
                    format!(
                        "protocol version {shown} is not supported; this side speaks version 1"
                    )
                ),
                "{line}"
            );
        }
    }

    #[test]
    fn a_missing_version_is_an_invalid_request() {
        assert_eq!(
            refusal(r#"{"command":"tools"}"#),
            (Code::InvalidRequest, "missing field `version`".to_owned())
        );
    }

    #[test]
    fn an_unknown_or_missing_command_is_an_invalid_request() {
        let (code, message) = refusal(r#"{"version":1,"command":"peers"}"#);
        assert_eq!(code, Code::InvalidRequest);
        assert!(message.starts_with("unknown variant `peers`"), "{message}");
        let (code, message) = refusal(r#"{"version":1,"name":"x"}"#);
        assert_eq!(code, Code::InvalidRequest);
        assert!(message.contains("`command`"), "{message}");
    }

    #[test]
    fn an_unknown_field_is_an_invalid_request() {
        for (line, field) in [
            (
                r#"{"version":1,"command":"tool","name":"x","args":[],"stdin":null,"agent":"a1"}"#,
                "agent",
            ),
            (r#"{"version":1,"command":"tools","all":true}"#, "all"),
            (
                r#"{"version":1,"command":"waiting","turn":"t1","reason":"r","timeout":null,"timeoutMs":5}"#,
                "timeoutMs",
            ),
        ] {
            let (code, message) = refusal(line);
            assert_eq!(code, Code::InvalidRequest, "{line}");
            assert!(
                message.starts_with(&format!("unknown field `{field}`")),
                "{message}"
            );
        }
    }

    #[test]
    fn a_missing_field_is_an_invalid_request() {
        assert_eq!(
            refusal(r#"{"version":1,"command":"tool","args":[],"stdin":null}"#),
            (Code::InvalidRequest, "missing field `name`".to_owned())
        );
        assert_eq!(
            refusal(r#"{"version":1,"command":"waiting","turn":"t1"}"#),
            (Code::InvalidRequest, "missing field `reason`".to_owned())
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_is_an_invalid_request() {
        for line in [
            r#"{"version":1,"command":"tool","name":7,"args":[],"stdin":null}"#,
            r#"{"version":1,"command":"tool","name":"x","args":"--a 1","stdin":null}"#,
            r#"{"version":1,"command":"tool","name":"x","args":[1],"stdin":null}"#,
            r#"{"version":1,"command":"result","turn":"t1","args":[],"stdin":{"a":1}}"#,
            r#"{"version":1,"command":7}"#,
        ] {
            let (code, message) = refusal(line);
            assert_eq!(code, Code::InvalidRequest, "{line}");
            assert!(message.starts_with("invalid type"), "{line}: {message}");
        }
    }

    #[test]
    fn an_oversized_request_is_refused_as_too_large_before_it_is_parsed() {
        let fits = Request::Result {
            turn: "t1".to_owned(),
            args: Vec::new(),
            stdin: Some("x".repeat(100)),
        }
        .encode(usize::MAX)
        .unwrap();
        let exact = fits.len() - 1;
        assert!(Request::decode(&fits, exact).is_ok());
        assert_eq!(
            Request::decode(&fits, exact - 1),
            Err(DecodeError::TooLarge(Oversized {
                size: exact,
                max: exact - 1
            }))
        );
        let garbage = vec![b'x'; MAX + 1];
        let error = Request::decode(&garbage, MAX).unwrap_err();
        assert_eq!(error.code(), Code::RequestTooLarge);
        assert_eq!(
            error.to_string(),
            "the line is 4097 bytes, over the limit of 4096"
        );
    }

    #[test]
    fn encoding_over_the_limit_is_refused() {
        let request = Request::Tool {
            name: "x".to_owned(),
            args: Vec::new(),
            stdin: Some("y".repeat(MAX)),
        };
        let error = request.encode(MAX).unwrap_err();
        assert_eq!(error.max, MAX);
        assert!(error.size > MAX);
        let response = Response::Ok {
            stdout: "y".repeat(MAX),
        };
        assert!(response.encode(MAX).is_err());
    }

    #[test]
    fn a_response_whose_kind_and_code_disagree_is_invalid() {
        let refused_with_failure = r#"{"version":1,"kind":"refused","code":"timed-out","message":"m","details":[],"hint":null}"#;
        assert_eq!(
            Response::decode(refused_with_failure.as_bytes(), MAX),
            Err(DecodeError::Invalid(
                "kind `refused` with the failure code `timed-out`".to_owned()
            ))
        );
        let failed_with_refusal =
            r#"{"version":1,"kind":"failed","code":"busy","message":"m","hint":null}"#;
        assert!(Response::decode(failed_with_refusal.as_bytes(), MAX).is_err());
    }

    #[test]
    fn a_response_with_an_unknown_code_or_kind_is_invalid() {
        let unknown_code =
            r#"{"version":1,"kind":"failed","code":"internal-error","message":"m","hint":null}"#;
        let error = Response::decode(unknown_code.as_bytes(), MAX).unwrap_err();
        assert!(
            error.to_string().contains("unknown code `internal-error`"),
            "{error}"
        );
        let unknown_kind = r#"{"version":1,"kind":"accepted"}"#;
        assert!(Response::decode(unknown_kind.as_bytes(), MAX).is_err());
        let extra = r#"{"version":1,"kind":"ok","stdout":"","waitUntil":5}"#;
        assert!(Response::decode(extra.as_bytes(), MAX).is_err());
    }
}
