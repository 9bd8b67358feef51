//! What another web page could make the operator's browser send. A page may reach the server
//! under a name of its own that resolves to the server's address (DNS rebinding) and then read
//! what it answers; and it may send the server writes without asking first (the "simple"
//! requests of CORS: `text/plain`, form and multipart bodies, no headers of its own, sent
//! without a preflight). So every request must name the server by a host it answers for, a
//! write must not come from another origin, and a write without a key — a browser cannot add
//! one to another site's request — must be JSON, JSON Lines, multipart or bodiless.

use std::net::IpAddr;

use axum::body::HttpBody;
use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::documents::JSON_LINES_TYPES;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_service::config::ServerConfig;

/// The content types a write without a key may carry: what the API reads and a page of another
/// site cannot send as a simple request, and multipart, which the origin check covers.
const WRITE_TYPES: [&str; 2] = ["application/json", "multipart/form-data"];

/// The host names the server answers for: `localhost`, loopback addresses, the address it
/// listens on (any address when it listens on all of them), and `server.allowed_hosts`.
#[derive(Debug, Clone)]
pub(super) struct HostPolicy {
    listen: IpAddr,
    allowed: Vec<String>,
}

impl HostPolicy {
    /// The policy of a server's configuration.
    pub(super) fn of(server: &ServerConfig) -> HostPolicy {
        HostPolicy {
            listen: server.listen.ip(),
            allowed: server.allowed_hosts.iter().map(|h| normalize(h)).collect(),
        }
    }

    /// Whether the server answers for `host` (a name or an address, without a port).
    fn answers_for(&self, host: &str) -> bool {
        let host = normalize(host);
        if host == "localhost" || self.allowed.contains(&host) {
            return true;
        }
        // An address cannot be rebound: a page reached by it is the server's own (or that of
        // another server on the same address, which is another origin).
        match host.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == self.listen || self.listen.is_unspecified(),
            Err(_) => false,
        }
    }

    /// Whether a write from `origin` (an `Origin` header) may be taken by a request that named
    /// the server `host` (its `Host` header): the same scheme's host and port, or a host of
    /// `server.allowed_hosts` (a proxy that passes on its own upstream address as the host).
    fn admits_origin(&self, origin: &str, host: Option<&str>) -> bool {
        let Ok(origin) = url::Url::parse(origin) else {
            return false;
        };
        let (Some(origin_host), Some(origin_port)) =
            (origin.host_str(), origin.port_or_known_default())
        else {
            return false;
        };
        if !matches!(origin.scheme(), "http" | "https") {
            return false;
        }
        let origin_host = normalize(origin_host);
        if self.allowed.contains(&origin_host) {
            return true;
        }
        host.and_then(|host| split_host(host).ok())
            .is_some_and(|(host, port)| {
                normalize(&host) == origin_host && port.unwrap_or(origin_port) == origin_port
            })
    }
}

/// A host as compared: lower case, without the brackets of an IPv6 address or a final dot.
fn normalize(host: &str) -> String {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(inner) => inner.to_string(),
        None => host,
    }
}

/// A `Host` header's name and port.
fn split_host(value: &str) -> Result<(String, Option<u16>), ()> {
    let authority: axum::http::uri::Authority = value.parse().map_err(|_| ())?;
    if authority.as_str().contains('@') {
        return Err(());
    }
    Ok((authority.host().to_string(), authority.port_u16()))
}

/// The host the request names: its `Host` header, or the authority of its URI (HTTP/2).
fn requested_host(request: &Request) -> Option<String> {
    match request.headers().get(header::HOST) {
        Some(value) => Some(value.to_str().unwrap_or("\u{fffd}").to_string()),
        None => request.uri().authority().map(|a| a.as_str().to_string()),
    }
}

/// Whether the request may change something (every method but the reading ones).
fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Whether a write without a key carries a body a page of another site could not have sent:
/// a JSON, JSON Lines or multipart type, or no body and no type (an empty type is none).
fn acceptable_body(request: &Request) -> bool {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|value| {
            value
                .to_str()
                .unwrap_or("\u{fffd}")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|value| !value.is_empty());
    match content_type {
        Some(value) => {
            let essence = value.split(';').next().unwrap_or_default().trim();
            WRITE_TYPES.contains(&essence) || JSON_LINES_TYPES.contains(&essence)
        }
        None => request.body().size_hint().exact() == Some(0),
    }
}

/// Refuses a request for a host the server does not answer for (`403 host_not_allowed`), a
/// write from another origin (`403 foreign_origin`), and a write without a key whose body is
/// not JSON, JSON Lines or multipart (`415 unsupported_content_type`). Requests without a
/// `Host` (HTTP/1.0 clients) or an `Origin` (clients other than browsers) pass those checks:
/// browsers always send the first, and the second with every write to another origin.
pub(super) async fn refuse_other_sites(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let host = requested_host(&request);
    if let Some(host) = &host {
        let answered = split_host(host).is_ok_and(|(name, _)| state.hosts.answers_for(&name));
        if !answered {
            tracing::warn!(%host, path = %request.uri().path(), "refused: a host the server does not answer for");
            return ApiError::new(
                ErrorCode::HostNotAllowed,
                format!(
                    "this server does not answer for the host `{host}`: a name that is not its \
                     own may be another site's, resolving to it (DNS rebinding); if the server \
                     is reached by this name, add it to server.allowed_hosts \
                     (DUPFINDER_ALLOWED_HOSTS)"
                ),
            )
            .into_response();
        }
    }
    if changes_state(request.method()) {
        if let Some(origin) = request.headers().get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("null");
            if !state.hosts.admits_origin(origin, host.as_deref()) {
                tracing::warn!(%origin, path = %request.uri().path(), "refused: a write from another origin");
                return ApiError::new(
                    ErrorCode::ForeignOrigin,
                    format!(
                        "a write from the origin `{origin}`, which is not this server's, is \
                         refused: another web page may not change this server; if the server \
                         is reached by that name, add it to server.allowed_hosts \
                         (DUPFINDER_ALLOWED_HOSTS)"
                    ),
                )
                .into_response();
            }
        }
        let keyed = request.headers().contains_key(header::AUTHORIZATION);
        if !keyed && !acceptable_body(&request) {
            return ApiError::new(
                ErrorCode::UnsupportedContentType,
                "a write without a key must be sent as application/json, application/x-ndjson \
                 (JSON Lines) or multipart/form-data, with that Content-Type: other web pages \
                 can send other types to this server without asking first",
            )
            .into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(listen: &str, allowed: &[&str]) -> HostPolicy {
        HostPolicy::of(&ServerConfig {
            listen: listen.parse().unwrap(),
            allowed_hosts: allowed.iter().map(|h| h.to_string()).collect(),
            ..ServerConfig::default()
        })
    }

    #[test]
    fn a_loopback_server_answers_for_loopback_names_and_its_allowed_hosts_only() {
        let hosts = policy("127.0.0.1:8080", &["Dupfinder.Example.org."]);
        for host in [
            "localhost",
            "LocalHost.",
            "127.0.0.1",
            "127.8.9.1",
            "[::1]",
            "dupfinder.example.org",
        ] {
            assert!(hosts.answers_for(host), "{host}");
        }
        for host in [
            "attacker.example",
            "localhost.attacker.example",
            "10.0.0.5",
            "",
            "[::2]",
        ] {
            assert!(!hosts.answers_for(host), "{host}");
        }
    }

    #[test]
    fn a_server_listening_everywhere_answers_for_any_address_but_not_any_name() {
        let hosts = policy("0.0.0.0:8080", &[]);
        assert!(hosts.answers_for("10.0.0.5"));
        assert!(hosts.answers_for("[2001:db8::1]"));
        assert!(!hosts.answers_for("dupfinder.intranet"));
        let one = policy("10.0.0.5:8080", &[]);
        assert!(one.answers_for("10.0.0.5"));
        assert!(!one.answers_for("10.0.0.6"));
    }

    #[test]
    fn an_origin_is_admitted_when_it_is_the_requested_host_or_an_allowed_one() {
        let hosts = policy("127.0.0.1:8080", &["dupfinder.example.org"]);
        assert!(hosts.admits_origin("http://127.0.0.1:8080", Some("127.0.0.1:8080")));
        assert!(hosts.admits_origin("http://localhost", Some("LOCALHOST:80")));
        assert!(hosts.admits_origin("http://[::1]:8080", Some("[::1]:8080")));
        assert!(hosts.admits_origin("https://dupfinder.example.org", Some("127.0.0.1:8080")));
        // Another port is another origin: another local service's page.
        assert!(!hosts.admits_origin("http://127.0.0.1:3000", Some("127.0.0.1:8080")));
        assert!(!hosts.admits_origin("http://attacker.example", Some("127.0.0.1:8080")));
        assert!(!hosts.admits_origin("null", Some("127.0.0.1:8080")));
        assert!(!hosts.admits_origin("http://127.0.0.1:8080", None));
        assert!(!hosts.admits_origin("file:///tmp/page.html", Some("127.0.0.1:8080")));
    }

    #[test]
    fn a_write_without_a_key_is_json_json_lines_multipart_or_bodiless() {
        let request = |content_type: Option<&str>, body: &'static str| {
            let mut request = Request::builder().method(Method::POST);
            if let Some(content_type) = content_type {
                request = request.header(header::CONTENT_TYPE, content_type);
            }
            request.body(axum::body::Body::from(body)).unwrap()
        };
        for (content_type, body) in [
            (Some("application/json; charset=utf-8"), "{}"),
            (Some("Multipart/Form-Data; boundary=x"), "x"),
            (Some("application/x-ndjson"), "{}"),
            (None, ""),
            (Some(""), ""),
        ] {
            assert!(
                acceptable_body(&request(content_type, body)),
                "{content_type:?}"
            );
        }
        for (content_type, body) in [
            (Some("text/plain"), "{}"),
            (Some("text/plain;charset=UTF-8"), ""),
            (Some("application/x-www-form-urlencoded"), ""),
            (Some("application/jsonx"), "{}"),
            (None, "{}"),
            (Some(""), "{}"),
        ] {
            assert!(
                !acceptable_body(&request(content_type, body)),
                "{content_type:?}"
            );
        }
    }

    #[test]
    fn a_host_header_with_user_information_is_not_a_host() {
        assert!(split_host("127.0.0.1@attacker.example").is_err());
        assert_eq!(
            split_host("[::1]:8080").unwrap(),
            ("[::1]".to_string(), Some(8080))
        );
    }
}
