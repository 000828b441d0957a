//! URL ops behind js/host/url.ts (`URL`): WHATWG parsing and setters by the `url` crate, so
//! awf's URLs are the ones browsers and Node make (IDNA, percent-encoding, special schemes).
//!
//! JS keeps the parsed parts and asks again for each change: `url_parse(input, base)` gives the
//! parts or null; `url_set(href, part, value)` gives the parts after the setter ran.

use std::rc::Rc;

use serde::Deserialize;
use serde_json::json;
use url::{quirks, Url};

use crate::js::engine::{sync_op, HostState, OpDecl, OpError};

pub const OPS: &[OpDecl] = &[sync_op!(url_parse), sync_op!(url_set)];

fn parts(url: &Url) -> serde_json::Value {
    json!({
        "href": quirks::href(url),
        "origin": quirks::origin(url),
        "protocol": quirks::protocol(url),
        "username": quirks::username(url),
        "password": quirks::password(url),
        "host": quirks::host(url),
        "hostname": quirks::hostname(url),
        "port": quirks::port(url),
        "pathname": quirks::pathname(url),
        "search": quirks::search(url),
        "hash": quirks::hash(url),
    })
}

fn parse(input: &str, base: Option<&str>) -> Option<Url> {
    match base {
        Some(base) => Url::parse(base).ok()?.join(input).ok(),
        None => Url::parse(input).ok(),
    }
}

#[derive(Deserialize)]
struct UrlParse(String, Option<String>);

/// `url_parse(input, base?)` -> the parts, or null when `input` is not a URL.
fn url_parse(
    _: &Rc<HostState>,
    UrlParse(input, base): UrlParse,
) -> Result<Option<serde_json::Value>, OpError> {
    Ok(parse(&input, base.as_deref()).map(|url| parts(&url)))
}

#[derive(Deserialize)]
struct UrlSet(String, String, String);

/// `url_set(href, part, value)` -> the parts after setting `part` as the URL standard says; a
/// value the setter refuses leaves the URL as it was (href alone throws, as `new URL` would).
fn url_set(
    _: &Rc<HostState>,
    UrlSet(href, part, value): UrlSet,
) -> Result<Option<serde_json::Value>, OpError> {
    let Ok(mut url) = Url::parse(&href) else {
        return Ok(None);
    };
    match part.as_str() {
        "href" => {
            if quirks::set_href(&mut url, &value).is_err() {
                return Ok(None);
            }
        }
        "protocol" => drop(quirks::set_protocol(&mut url, &value)),
        "username" => drop(quirks::set_username(&mut url, &value)),
        "password" => drop(quirks::set_password(&mut url, &value)),
        "host" => drop(quirks::set_host(&mut url, &value)),
        "hostname" => drop(quirks::set_hostname(&mut url, &value)),
        "port" => drop(quirks::set_port(&mut url, &value)),
        "pathname" => quirks::set_pathname(&mut url, &value),
        "search" => quirks::set_search(&mut url, &value),
        "hash" => quirks::set_hash(&mut url, &value),
        other => return Err(OpError::type_error(format!("no URL part {other}"))),
    }
    Ok(Some(parts(&url)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls_join_their_base() {
        let url = parse("../c?x=1#h", Some("http://example.com/a/b/")).unwrap();
        assert_eq!(url.as_str(), "http://example.com/a/c?x=1#h");
        assert!(parse("not a url", None).is_none());
    }

    #[test]
    fn parts_are_the_whatwg_ones() {
        let url = parse("HTTPS://user:pw@Example.COM:443/p%20q?s#f", None).unwrap();
        let p = parts(&url);
        assert_eq!(p["href"], "https://user:pw@example.com/p%20q?s#f");
        assert_eq!(p["port"], "");
        assert_eq!(p["origin"], "https://example.com");
        assert_eq!(p["search"], "?s");
    }
}
