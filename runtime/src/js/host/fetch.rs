//! HTTP ops behind js/host/fetch.ts (the `fetch` global): one exchange per `fetch()`, on hyper
//! with rustls (ring) for https.
//!
//! `fetch_send` sends the request and follows redirects itself, as the Fetch standard says
//! (at most 20; 301/302 turn POST into GET, 303 anything but HEAD; a body and its headers are
//! dropped when the method changes; `authorization` does not cross origins), asking the
//! permission gate before every hop. It resolves with the response head; the body stays here
//! and `fetch_read` hands it out chunk by chunk. `fetch_close` ends an exchange at any point
//! (abort, body read to its end, response collected): the request or read in flight stops at
//! once and the connection is dropped.
//!
//! Failures carry Node's codes where a system error is behind them (`connect ECONNREFUSED
//! 127.0.0.1:9`, `getaddrinfo ENOTFOUND host`); the TS twin wraps them in a `TypeError` whose
//! message starts `fetch failed`, as Node's does.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::watch;
use url::Url;

use super::permissions::Permissions;
use super::system_error::describe_errno;
use super::{gate, resources};
use crate::js::engine::{
    async_op, sync_op, Bytes as JsBytes, HostState, OpCode, OpDecl, OpError, OpFuture, OpValue,
};

pub const OPS: &[OpDecl] = &[
    async_op!(fetch_send),
    async_op!(fetch_read),
    sync_op!(fetch_close),
];

/// Most redirects one fetch follows (the Fetch standard's number).
const MAX_REDIRECTS: usize = 20;

type HttpClient = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;
type BodySlot = Arc<tokio::sync::Mutex<Option<Incoming>>>;

/// One host's HTTP client (made on first use) and its open exchanges, by the id JS gave them.
#[derive(Default)]
pub struct Exchanges {
    client: Option<HttpClient>,
    open: HashMap<u64, Exchange>,
}

struct Exchange {
    cancel: watch::Sender<bool>,
    body: BodySlot,
}

impl Exchanges {
    fn client(&mut self) -> Result<HttpClient, OpError> {
        if let Some(client) = &self.client {
            return Ok(client.clone());
        }
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| OpError::new(OpCode::ErrTls, format!("cannot set up TLS: {e}")))?
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(TokioExecutor::new()).build(https);
        self.client = Some(client.clone());
        Ok(client)
    }
}

/// What js/host/fetch.ts sends; the body comes beside it as bytes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FetchRequest {
    id: u64,
    url: String,
    method: String,
    headers: Vec<(String, String)>,
    redirect: Redirect,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Redirect {
    Follow,
    Manual,
    Error,
}

#[derive(Deserialize)]
struct FetchSend(FetchRequest, Option<JsBytes>);

/// `fetch_send(request, body?)` -> the response head once it arrives (redirects followed as
/// `redirect` says); its body is read with `fetch_read`.
fn fetch_send(
    state: &Rc<HostState>,
    FetchSend(request, body): FetchSend,
) -> Result<OpFuture, OpError> {
    let url = Url::parse(&request.url).map_err(|e| {
        OpError::new(
            OpCode::ErrInvalidUrl,
            format!("invalid URL {}: {e}", request.url),
        )
    })?;
    let permissions = gate(state);
    check_url(&url, &permissions)?;
    let method = Method::from_bytes(request.method.as_bytes()).map_err(|_| {
        OpError::new(
            OpCode::ErrInvalidArgValue,
            format!("invalid method {}", request.method),
        )
    })?;
    let resources = resources(state);
    let exchanges = &mut resources.borrow_mut().exchanges;
    let client = exchanges.client()?;
    let (cancel, cancelled) = watch::channel(false);
    let slot: BodySlot = Arc::default();
    exchanges.open.insert(
        request.id,
        Exchange {
            cancel,
            body: slot.clone(),
        },
    );
    let hop = Hop {
        url,
        method,
        headers: request.headers,
        body: body.map(|b| Bytes::from(b.0)),
    };
    let send = exchange(client, hop, request.redirect, (*permissions).clone(), slot);
    Ok(Box::pin(until_cancelled(cancelled, send)))
}

/// `fetch_read({ id })` -> the next chunk of the body, or undefined at its end.
#[derive(Deserialize)]
struct ExchangeId {
    id: u64,
}

fn fetch_read(state: &Rc<HostState>, ExchangeId { id }: ExchangeId) -> Result<OpFuture, OpError> {
    let resources = resources(state);
    let resources = resources.borrow();
    let Some(exchange) = resources.exchanges.open.get(&id) else {
        return Err(aborted());
    };
    let slot = exchange.body.clone();
    let read = async move {
        let mut body = slot.lock().await;
        let Some(incoming) = body.as_mut() else {
            return Ok(OpValue::Undefined);
        };
        loop {
            match incoming.frame().await {
                None => {
                    *body = None;
                    return Ok(OpValue::Undefined);
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        if !data.is_empty() {
                            return Ok(OpValue::Bytes(data.to_vec()));
                        }
                    }
                }
                Some(Err(e)) => return Err(http_error(&e, None)),
            }
        }
    };
    Ok(Box::pin(until_cancelled(exchange.cancel.subscribe(), read)))
}

/// `fetch_close(id)`: ends the exchange; what is in flight rejects, the connection is dropped.
fn fetch_close(state: &Rc<HostState>, id: u64) -> Result<(), OpError> {
    let exchange = resources(state).borrow_mut().exchanges.open.remove(&id);
    if let Some(exchange) = exchange {
        let _ = exchange.cancel.send(true);
    }
    Ok(())
}

fn aborted() -> OpError {
    OpError::new(OpCode::AbortErr, "the fetch was closed")
}

async fn until_cancelled(
    mut cancelled: watch::Receiver<bool>,
    work: impl std::future::Future<Output = Result<OpValue, OpError>>,
) -> Result<OpValue, OpError> {
    tokio::select! {
        result = work => result,
        _ = cancelled.wait_for(|closed| *closed) => Err(aborted()),
    }
}

/// One request on the way: where it goes now and what it carries.
struct Hop {
    url: Url,
    method: Method,
    headers: Vec<(String, String)>,
    body: Option<Bytes>,
}

fn check_url(url: &Url, permissions: &Permissions) -> Result<(), OpError> {
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(OpError::new(
                OpCode::ErrNotSupported,
                format!("{other}: URLs are not supported yet by fetch: use http: or https:"),
            ))
        }
    }
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    permissions.check_net(host.trim_start_matches('[').trim_end_matches(']'), port)?;
    Ok(())
}

/// Sends `hop`, following redirects as `redirect` says; leaves the body in `slot`.
async fn exchange(
    client: HttpClient,
    mut hop: Hop,
    redirect: Redirect,
    permissions: Permissions,
    slot: BodySlot,
) -> Result<OpValue, OpError> {
    let mut redirects = 0;
    loop {
        let response = client
            .request(build(&hop)?)
            .await
            .map_err(|e| http_error(&e, Some(&hop.url)))?;
        let status = response.status();
        let location = response
            .headers()
            .get(hyper::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if let (true, Some(location)) = (status.is_redirection(), location) {
            match redirect {
                Redirect::Manual => {}
                Redirect::Error => {
                    return Err(OpError::new(
                        OpCode::ErrRedirect,
                        format!("unexpected redirect to {location} (redirect: \"error\")"),
                    ))
                }
                Redirect::Follow => {
                    redirects += 1;
                    if redirects > MAX_REDIRECTS {
                        return Err(OpError::new(
                            OpCode::ErrRedirect,
                            format!("redirect count exceeded ({MAX_REDIRECTS})"),
                        ));
                    }
                    let next = hop.url.join(&location).map_err(|e| {
                        OpError::new(
                            OpCode::ErrInvalidUrl,
                            format!("invalid redirect location {location}: {e}"),
                        )
                    })?;
                    check_url(&next, &permissions)?;
                    redirected(&mut hop, status, next);
                    continue;
                }
            }
        }
        let reason = response
            .extensions()
            .get::<hyper::ext::ReasonPhrase>()
            .map(|r| String::from_utf8_lossy(r.as_bytes()).into_owned())
            .or_else(|| status.canonical_reason().map(str::to_string))
            .unwrap_or_default();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_string(), latin1(value.as_bytes())))
            .collect();
        let mut final_url = hop.url.clone();
        final_url.set_fragment(None);
        *slot.lock().await = Some(response.into_body());
        return Ok(OpValue::Json(json!({
            "status": status.as_u16(),
            "statusText": reason,
            "headers": headers,
            "url": final_url.as_str(),
            "redirected": redirects > 0,
        })));
    }
}

/// The next hop after a redirect with `status` to `next` (Fetch standard, "HTTP-redirect fetch").
fn redirected(hop: &mut Hop, status: StatusCode, next: Url) {
    let to_get = match status.as_u16() {
        301 | 302 => hop.method == Method::POST,
        303 => hop.method != Method::HEAD,
        _ => false,
    };
    if to_get {
        hop.method = Method::GET;
        hop.body = None;
        hop.headers.retain(|(name, _)| {
            !matches!(
                name.to_ascii_lowercase().as_str(),
                "content-encoding"
                    | "content-language"
                    | "content-location"
                    | "content-type"
                    | "content-length"
            )
        });
    }
    if next.origin() != hop.url.origin() {
        hop.headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
    }
    hop.url = next;
}

fn build(hop: &Hop) -> Result<Request<Full<Bytes>>, OpError> {
    let mut request = Request::builder()
        .method(hop.method.clone())
        .uri(hop.url.as_str());
    let has = |name: &str| {
        hop.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    let defaults = [
        ("accept", "*/*".to_string()),
        ("user-agent", format!("awf/{}", env!("CARGO_PKG_VERSION"))),
    ];
    for (name, value) in defaults {
        if !has(name) {
            request = request.header(name, value);
        }
    }
    for (name, value) in &hop.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            OpError::new(
                OpCode::ErrInvalidHttpToken,
                format!("invalid header name {name:?}"),
            )
        })?;
        let value = HeaderValue::from_bytes(&latin1_bytes(value)).map_err(|_| {
            OpError::new(
                OpCode::ErrInvalidChar,
                format!("invalid value for header {name}"),
            )
        })?;
        request = request.header(name, value);
    }
    request
        .body(Full::new(hop.body.clone().unwrap_or_default()))
        .map_err(|e| {
            OpError::new(
                OpCode::ErrInvalidArgValue,
                format!("cannot build the request: {e}"),
            )
        })
}

/// Header bytes as JS sees them (a ByteString: one char per byte).
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|b| *b as char).collect()
}

fn latin1_bytes(text: &str) -> Vec<u8> {
    text.chars().map(|c| c as u32 as u8).collect()
}

/// A failed exchange in Node's words: the system error behind it when there is one.
fn http_error(error: &(dyn std::error::Error + 'static), url: Option<&Url>) -> OpError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut chain = Vec::new();
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if let Some(errno) = io.raw_os_error() {
                return connect_error(errno, url);
            }
        }
        chain.push(e.to_string());
        cause = e.source();
    }
    let text = chain.join(": ");
    if text.contains("dns error") {
        let host = url.and_then(Url::host_str).unwrap_or_default();
        return OpError::system(
            "ENOTFOUND",
            format!("getaddrinfo ENOTFOUND {host}"),
            json!({ "syscall": "getaddrinfo", "hostname": host }),
        );
    }
    if chain
        .iter()
        .any(|c| c.contains("certificate") || c.contains("tls"))
    {
        return OpError::new(OpCode::ErrTls, text);
    }
    OpError::new(OpCode::UndErrSocket, text)
}

fn connect_error(errno: i32, url: Option<&Url>) -> OpError {
    let (code, _) = describe_errno(errno);
    let address = url.and_then(Url::host_str).unwrap_or_default().to_string();
    let port = url.and_then(Url::port_or_known_default).unwrap_or(0);
    OpError::system(
        code,
        format!("connect {code} {address}:{port}"),
        json!({
            "errno": -errno,
            "syscall": "connect",
            "address": address,
            "port": port,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(method: Method, url: &str) -> Hop {
        Hop {
            url: Url::parse(url).unwrap(),
            method,
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("authorization".into(), "Bearer x".into()),
            ],
            body: Some(Bytes::from_static(b"{}")),
        }
    }

    #[test]
    fn a_303_turns_post_into_get_without_its_body() {
        let mut h = hop(Method::POST, "http://127.0.0.1/a");
        redirected(
            &mut h,
            StatusCode::SEE_OTHER,
            Url::parse("http://127.0.0.1/b").unwrap(),
        );
        assert_eq!(h.method, Method::GET);
        assert!(h.body.is_none());
        assert_eq!(
            h.headers,
            vec![("authorization".to_string(), "Bearer x".to_string())]
        );
    }

    #[test]
    fn a_307_keeps_method_and_body_but_not_credentials_across_origins() {
        let mut h = hop(Method::POST, "http://127.0.0.1/a");
        redirected(
            &mut h,
            StatusCode::TEMPORARY_REDIRECT,
            Url::parse("http://localhost/b").unwrap(),
        );
        assert_eq!(h.method, Method::POST);
        assert!(h.body.is_some());
        assert!(h.headers.iter().all(|(n, _)| n != "authorization"));
    }

    #[test]
    fn other_schemes_and_denied_hosts_are_refused_before_sending() {
        let all = Permissions::allow_all();
        let file = check_url(&Url::parse("file:///etc/passwd").unwrap(), &all).unwrap_err();
        assert_eq!(file.code, "ERR_NOT_SUPPORTED");
        let denied = check_url(
            &Url::parse("http://127.0.0.1:8080/").unwrap(),
            &Permissions::deny_all(),
        )
        .unwrap_err();
        assert_eq!(denied.message, "net access to \"127.0.0.1:8080\" is denied");
    }

    #[test]
    fn refused_connections_read_as_in_node() {
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        let io = std::io::Error::from_raw_os_error(libc::ECONNREFUSED);
        let error = http_error(&io, Some(&url));
        assert_eq!(error.code, "ECONNREFUSED");
        assert_eq!(error.message, "connect ECONNREFUSED 127.0.0.1:9");
    }
}
