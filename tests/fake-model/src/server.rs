//! The server: accept connections on 127.0.0.1, route each request to its API, answer it from the
//! script, and log it as `DIR/NNN-<api>.json` before the answer goes out.

use crate::engine::{self, Decision};
use crate::http::{self, Request, Response};
use crate::script::Script;
use crate::{anthropic, chat, gemini, responses};
use serde_json::{json, Map, Value};
use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The API a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Responses,
    Anthropic,
    Chat,
    Gemini,
}

impl Api {
    pub fn parse(name: &str) -> Option<Api> {
        Some(match name {
            "responses" => Api::Responses,
            "anthropic" => Api::Anthropic,
            "chat" => Api::Chat,
            "gemini" => Api::Gemini,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Api::Responses => "responses",
            Api::Anthropic => "anthropic",
            Api::Chat => "chat",
            Api::Gemini => "gemini",
        }
    }

    /// Whether a request is a model request of this API.
    fn is_model_request(self, request: &Request) -> bool {
        let path = request.path();
        request.method == "POST"
            && match self {
                Api::Responses => path.ends_with("/responses"),
                Api::Anthropic => path.ends_with("/v1/messages"),
                Api::Chat => path.ends_with("/chat/completions"),
                Api::Gemini => {
                    path.contains("/models/")
                        && (path.ends_with(":streamGenerateContent")
                            || path.ends_with(":generateContent"))
                }
            }
    }

    fn error(self, status: u16, message: &str) -> Response {
        match self {
            Api::Responses | Api::Chat => responses::error(status, message),
            Api::Anthropic => anthropic::error(status, message),
            Api::Gemini => gemini::error(status, message),
        }
    }

    fn auth_message(self) -> &'static str {
        match self {
            Api::Responses | Api::Chat => responses::AUTH_MESSAGE,
            Api::Anthropic => anthropic::AUTH_MESSAGE,
            Api::Gemini => gemini::AUTH_MESSAGE,
        }
    }

    fn decide_and_reply(
        self,
        script: &Script,
        request: &Request,
        body: &Value,
        n: usize,
    ) -> (Decision, Response) {
        let conversation = match self {
            Api::Responses => responses::conversation(body),
            Api::Anthropic => anthropic::conversation(body),
            Api::Chat => chat::conversation(body),
            Api::Gemini => gemini::conversation(body),
        };
        let decision = engine::decide(script, &conversation);
        let response = match self {
            Api::Responses => responses::reply(body, &decision, n),
            Api::Anthropic => anthropic::reply(body, &decision, n),
            Api::Chat => chat::reply(body, &decision, n),
            Api::Gemini => {
                let path = request.path();
                gemini::reply(
                    gemini::model_of(path),
                    path.ends_with(":streamGenerateContent"),
                    &decision,
                )
            }
        };
        (decision, response)
    }
}

/// What the server needs to answer requests.
pub struct Server {
    pub api: Api,
    pub script: Script,
    pub log_dir: PathBuf,
    /// Answer every model request with the API's 401.
    pub fail_auth: bool,
    count: AtomicUsize,
}

impl Server {
    pub fn new(api: Api, script: Script, log_dir: PathBuf, fail_auth: bool) -> Server {
        Server {
            api,
            script,
            log_dir,
            fail_auth,
            count: AtomicUsize::new(0),
        }
    }

    /// Answers one request and writes its log.
    pub fn answer(&self, request: &Request) -> Response {
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        let body: Option<Value> = serde_json::from_slice(&request.body).ok();
        let (outcome, response) = if !self.api.is_model_request(request) {
            (
                json!({"kind": "not-found"}),
                self.api.error(404, "fake-model: no such endpoint"),
            )
        } else if self.fail_auth {
            (
                json!({"kind": "fail-auth"}),
                self.api.error(401, self.api.auth_message()),
            )
        } else if let Some(body) = &body {
            let (decision, response) = self.api.decide_and_reply(&self.script, request, body, n);
            (decision.to_json(), response)
        } else {
            (
                json!({"kind": "bad-request"}),
                self.api.error(400, "fake-model: the body is not JSON"),
            )
        };
        eprintln!(
            "fake-model: {n:03} {} {} -> {} {}",
            request.method,
            request.target,
            response.status,
            summary(&outcome)
        );
        let log = json!({
            "method": request.method,
            "path": request.target,
            "headers": headers(request),
            "body": body.unwrap_or_else(|| json!(String::from_utf8_lossy(&request.body))),
            "status": response.status,
            "decision": outcome,
        });
        let file = self
            .log_dir
            .join(format!("{n:03}-{}.json", self.api.name()));
        let text = serde_json::to_string_pretty(&log).expect("a log is JSON");
        if let Err(e) = std::fs::write(&file, text) {
            eprintln!("fake-model: cannot write {}: {e}", file.display());
        }
        response
    }
}

fn summary(outcome: &Value) -> String {
    let field = |k: &str| {
        outcome
            .get(k)
            .filter(|v| !v.is_null())
            .map(Value::to_string)
    };
    let mut parts = vec![outcome["kind"].as_str().unwrap_or("").to_string()];
    for (key, label) in [
        ("prompt_index", "prompt"),
        ("step_index", "step"),
        ("command", ""),
        ("miss", ""),
    ] {
        if let Some(v) = field(key) {
            parts.push(if label.is_empty() {
                v
            } else {
                format!("{label} {v}")
            });
        }
    }
    parts.join(" ")
}

fn headers(request: &Request) -> Value {
    let mut map = Map::new();
    for (name, value) in &request.headers {
        let key = name.to_ascii_lowercase();
        let joined = match map.get(&key).and_then(Value::as_str) {
            Some(previous) => format!("{previous}, {value}"),
            None => value.clone(),
        };
        map.insert(key, json!(joined));
    }
    Value::Object(map)
}

/// Accepts connections until the process ends, one thread each.
pub fn serve(listener: TcpListener, server: Arc<Server>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let server = Arc::clone(&server);
        std::thread::spawn(move || handle(stream, &server));
    }
}

fn handle(mut stream: TcpStream, server: &Server) {
    // A client that stalls must not hold a thread for ever.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    let request = match http::read_request(&mut BufReader::new(reader)) {
        Ok(Some(request)) => request,
        Ok(None) => return,
        Err(e) => {
            eprintln!("fake-model: unreadable request: {e}");
            return;
        }
    };
    let response = server.answer(&request);
    if let Err(e) = http::write_response(&mut stream, &response) {
        eprintln!("fake-model: cannot answer: {e}");
    }
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Body;

    fn request(target: &str, body: Value) -> Request {
        Request {
            method: "POST".into(),
            target: target.into(),
            headers: vec![("Authorization".into(), "Bearer k".into())],
            body: body.to_string().into_bytes(),
        }
    }

    fn new_server(api: Api, fail_auth: bool) -> (Server, PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "fake-model-test-{}-{}-{fail_auth}",
            std::process::id(),
            api.name()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let script = Script::parse(
            r#"{"prompts": [{"steps": [{"shell": "{wfa} result {turn} --ok 'true'"}]}]}"#,
        )
        .unwrap();
        (Server::new(api, script, dir.clone(), fail_auth), dir)
    }

    #[test]
    fn a_model_request_is_answered_and_logged() {
        let (server, dir) = new_server(Api::Gemini, false);
        let body = json!({"contents": [{"role": "user", "parts": [{"text": "/x/wfa result t1 --ok"}]}],
                          "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]});
        let response = server.answer(&request(
            "/v1beta/models/g:streamGenerateContent?alt=sse",
            body,
        ));
        assert!(matches!(response.body, Body::Sse { .. }));
        let log: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("001-gemini.json")).unwrap())
                .unwrap();
        assert_eq!(
            log["path"],
            "/v1beta/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(log["headers"]["authorization"], "Bearer k");
        assert_eq!(log["decision"]["command"], "/x/wfa result t1 --ok 'true'");
        assert_eq!(log["decision"]["prompts"], json!(["/x/wfa result t1 --ok"]));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn fail_auth_other_paths_and_bad_bodies() {
        let (server, dir) = new_server(Api::Anthropic, true);
        let response = server.answer(&request("/v1/messages?beta=true", json!({})));
        assert_eq!(response.status, 401);
        let mut get = request("/v1/models", json!(null));
        get.method = "GET".into();
        assert_eq!(server.answer(&get).status, 404);
        let log: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("002-anthropic.json")).unwrap())
                .unwrap();
        assert_eq!(log["decision"]["kind"], "not-found");
        std::fs::remove_dir_all(dir).unwrap();
        let (server, dir) = new_server(Api::Chat, false);
        assert_eq!(
            server
                .answer(&Request {
                    body: b"{".to_vec(),
                    ..request("/v1/chat/completions", json!({}))
                })
                .status,
            400
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
