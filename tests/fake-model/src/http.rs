//! Just enough HTTP/1.1: read one request (a `Content-Length` or chunked body), write one response
//! (JSON or server-sent events, always with a length), and the connection closes after it.

use serde_json::Value;
use std::io::{self, BufRead, Write};

/// One request as read from the socket.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: String,
    /// The path with its query, as sent.
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The target without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// A header's value (names compare without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One server-sent event: an optional `event:` name and its JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub name: Option<&'static str>,
    pub data: Value,
}

/// What a response carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Json(Value),
    /// Events, then a final `data: [DONE]` line when `done` is set (Chat Completions).
    Sse {
        events: Vec<Event>,
        done: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub body: Body,
}

impl Response {
    pub fn json(status: u16, value: Value) -> Response {
        Response {
            status,
            body: Body::Json(value),
        }
    }

    pub fn sse(events: Vec<Event>) -> Response {
        Response {
            status: 200,
            body: Body::Sse {
                events,
                done: false,
            },
        }
    }
}

/// Reads one request; `None` when the peer closed before sending one.
pub fn read_request(reader: &mut impl BufRead) -> io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let (Some(method), Some(target)) = (words.next(), words.next()) else {
        return Err(invalid(format!("bad request line {line:?}")));
    };
    let (method, target) = (method.to_string(), target.to_string());
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(invalid("the headers did not end".into()));
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| invalid(format!("bad header {header:?}")))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut request = Request {
        method,
        target,
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    if chunked {
        request.body = read_chunked(reader)?;
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .parse()
            .map_err(|_| invalid(format!("bad content-length {length:?}")))?;
        request.body = vec![0; length];
        reader.read_exact(&mut request.body)?;
    }
    Ok(Some(request))
}

fn read_chunked(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size = line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| invalid(format!("bad chunk size {line:?}")))?;
        if size == 0 {
            // trailers, up to the empty line
            loop {
                line.clear();
                if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                    return Ok(body);
                }
            }
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?;
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Writes a whole response, `connection: close`.
pub fn write_response(writer: &mut impl Write, response: &Response) -> io::Result<()> {
    let (content_type, payload) = match &response.body {
        Body::Json(value) => ("application/json", value.to_string()),
        Body::Sse { events, done } => {
            let mut text = String::new();
            for event in events {
                if let Some(name) = event.name {
                    text.push_str(&format!("event: {name}\n"));
                }
                text.push_str(&format!("data: {}\n\n", event.data));
            }
            if *done {
                text.push_str("data: [DONE]\n\n");
            }
            ("text/event-stream", text)
        }
    };
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
        response.status,
        reason(response.status),
        payload.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(payload.as_bytes())?;
    writer.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_with_a_length() {
        let raw = b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
        let request = read_request(&mut &raw[..]).unwrap().unwrap();
        assert_eq!(request.method, "POST");
        assert_eq!(request.path(), "/v1/messages");
        assert_eq!(request.target, "/v1/messages?beta=true");
        assert_eq!(request.header("content-length"), Some("7"));
        assert_eq!(request.body, b"{\"a\":1}");
    }

    #[test]
    fn a_chunked_request() {
        let raw = b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;ext\r\n\":1}\r\n0\r\n\r\n";
        let request = read_request(&mut &raw[..]).unwrap().unwrap();
        assert_eq!(request.body, b"{\"a\":1}");
    }

    #[test]
    fn nothing_sent_is_none_and_garbage_is_an_error() {
        assert!(read_request(&mut &b""[..]).unwrap().is_none());
        assert!(read_request(&mut &b"GET\r\n\r\n"[..]).is_err());
    }

    #[test]
    fn events_are_framed_with_a_length() {
        let mut out = Vec::new();
        let response = Response {
            status: 200,
            body: Body::Sse {
                events: vec![
                    Event {
                        name: Some("message_stop"),
                        data: json!({"type": "message_stop"}),
                    },
                    Event {
                        name: None,
                        data: json!({}),
                    },
                ],
                done: true,
            },
        };
        write_response(&mut out, &response).unwrap();
        let text = String::from_utf8(out).unwrap();
        let body = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\ndata: {}\n\ndata: [DONE]\n\n";
        assert!(
            text.starts_with("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!("content-length: {}\r\n", body.len())),
            "{text}"
        );
        assert!(text.ends_with(&format!("\r\n\r\n{body}")), "{text}");
    }
}
