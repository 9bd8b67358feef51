//! Access: who presents which key, and what its role and its libraries allow. When a token is
//! configured or a key exists, writes need a key whose role allows them; with
//! `server.protect_reads`, reads and checks need one too. `/healthz`, the web UI's files and
//! the OpenAPI document never do (they hold no data; the UI sends the key with its own API
//! calls), and a check is a reading endpoint (portals call it). A presented credential that is
//! not valid is refused everywhere else, open routes included. Tokens are compared in constant
//! time; keys are found by the hash of what was presented.

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::metrics::Caller;
use super::{ApiError, AppState, ErrorCode};
use dupfinder_common::clock::unix_now;
use dupfinder_service::library::{Access, AuditEntry, Role};

/// Writes: everything but reading requests and checks.
pub(super) fn is_operator(method: &Method, path: &str) -> bool {
    !(method == Method::GET
        || method == Method::HEAD
        || (method == Method::POST && path == "/api/v1/check"))
}

fn is_public(path: &str) -> bool {
    path == "/healthz" || path == "/" || path == "/api/v1/openapi.json" || path.starts_with("/ui/")
}

/// What a request needs of its caller's role.
pub(super) fn access_of(method: &Method, path: &str) -> Access {
    if path.starts_with("/api/v1/keys")
        || path.starts_with("/api/v1/audit")
        || path == "/api/v1/backup"
        || path.starts_with("/api/v1/webhooks")
    {
        Access::Admin
    } else if (method == Method::POST && path == "/api/v1/check") || holds_reports(path) {
        // Reports are checkers' own: a checker sees and decides the reports it asked for.
        Access::Check
    } else if is_operator(method, path) {
        Access::Write
    } else {
        Access::Read
    }
}

/// Whether the path answers stored reports (a report, the list, a batch's summary): they hold
/// manuscripts, so they need a key whenever keys are enforced.
fn holds_reports(path: &str) -> bool {
    path.starts_with("/api/v1/reports")
        || (path.starts_with("/api/v1/jobs/") && path.ends_with("/reports"))
}

/// What a request is about, as far as a key's libraries go.
enum Scope<'a> {
    /// One library: paths under `/api/v1/libraries/{id}`, and `/api/v1/queue/{id}`.
    Library(&'a str),
    /// Reports, jobs and checks, which belong to the libraries they were made on: their
    /// handlers answer what is outside a key's libraries as missing, and checks run against
    /// the key's libraries only.
    Items,
    /// The server as a whole: listings (their handlers show a key its libraries' alone),
    /// creating libraries, the crawl queue, keys, the audit log, backups, webhooks, metrics.
    Server,
}

fn scope_of(path: &str) -> Scope<'_> {
    let library = path
        .strip_prefix("/api/v1/libraries/")
        .or_else(|| path.strip_prefix("/api/v1/queue/"))
        .map(|rest| rest.split('/').next().unwrap_or_default())
        .filter(|id| !id.is_empty());
    if let Some(id) = library {
        Scope::Library(id)
    } else if path == "/api/v1/check"
        || path.starts_with("/api/v1/reports")
        || path.starts_with("/api/v1/jobs/")
    {
        Scope::Items
    } else {
        Scope::Server
    }
}

/// Whether a key limited to libraries asks for something outside them: another library, a
/// write to what spans every library, or the metrics of every library.
fn outside_libraries(identity: &Identity, path: &str, access: Access) -> bool {
    let Some(allowed) = &identity.libraries else {
        return false;
    };
    match scope_of(path) {
        Scope::Library(id) => !allowed.iter().any(|l| l == id),
        Scope::Items => false,
        Scope::Server => access >= Access::Write || path == "/metrics",
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// What a request presents in `Authorization`.
#[derive(Debug, PartialEq)]
enum Presented<'a> {
    Nothing,
    /// The credential of `Bearer <credential>`, the scheme in any case.
    Bearer(&'a str),
    /// A header that is not a bearer credential (another scheme, not text).
    Malformed,
}

fn presented(request: &Request) -> Presented<'_> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Presented::Nothing;
    };
    let credential = value
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, credential)| credential.trim());
    match credential {
        Some(credential) => Presented::Bearer(credential),
        None => Presented::Malformed,
    }
}

/// Who presented what: the configured token is an admin key named `token`.
#[derive(Debug, Clone)]
pub(super) struct Identity {
    pub(super) name: String,
    pub(super) role: Role,
    /// The libraries the key may touch; `None`: all.
    pub(super) libraries: Option<Vec<String>>,
}

impl Identity {
    /// Whether the key may touch library `id`.
    pub(super) fn may_touch(&self, id: &str) -> bool {
        self.libraries
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|l| l == id))
    }

    /// Whether the key may see what was made on `libraries` (a report, a batch): every one of
    /// them must be the key's. What was made on no library is no limited key's.
    pub(super) fn may_see<'a>(&self, libraries: impl IntoIterator<Item = &'a str>) -> bool {
        self.libraries
            .as_deref()
            .is_none_or(|allowed| dupfinder_service::reports::made_within(allowed, libraries))
    }
}

/// The caller's identity when it is a key limited to libraries.
pub(super) fn limited(identity: &Option<axum::Extension<Identity>>) -> Option<&Identity> {
    identity
        .as_ref()
        .map(|axum::Extension(identity)| identity)
        .filter(|identity| identity.libraries.is_some())
}

/// Refuses (`403 forbidden`) a request whose parameters name library `id` when the caller's
/// key may not touch it, as a path under that library is refused.
pub(super) fn require_library(
    identity: &Option<axum::Extension<Identity>>,
    id: &str,
) -> Result<(), ApiError> {
    match limited(identity) {
        Some(key) if !key.may_touch(id) => Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("the key `{}` may not touch the library `{id}`", key.name),
        )),
        _ => Ok(()),
    }
}

/// The key (or the token) whose secret is `credential`.
fn identify(state: &AppState, credential: &str) -> Option<Identity> {
    let token = state.catalog.config().server.token.as_deref();
    if token.is_some_and(|t| constant_time_eq(credential.as_bytes(), t.as_bytes())) {
        return Some(Identity {
            name: "token".to_string(),
            role: Role::Admin,
            libraries: None,
        });
    }
    state.catalog.keys().find(credential).map(|key| Identity {
        name: key.name,
        role: key.role,
        libraries: key.libraries,
    })
}

/// Access control and the audit log. A credential presented and not valid (unknown, revoked,
/// not a bearer credential) is refused (`401 invalid_token`) on every route but the public
/// ones, which hold no data, whether or not the route needs a key: a revoked key is not served
/// as an anonymous caller. With no token configured and no key created, the server (bound to
/// loopback) is open. Otherwise public routes stay open, reading routes and checks are open
/// unless `server.protect_reads`, and every other request needs a key whose role allows it
/// (401 without a key, 403 when its role does not allow the request). A key limited to
/// libraries is held to them wherever it is presented (403 for another library's routes and
/// for what spans every library; reports and jobs of other libraries answer 404 in their
/// handlers). Every write that reaches a handler is appended to the audit log.
pub(super) async fn require_token(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    if is_public(&path) {
        request.extensions_mut().insert(Caller("-".to_string()));
        return next.run(request).await;
    }
    let server = &state.catalog.config().server;
    let method = request.method().clone();
    let access = access_of(&method, &path);
    let identity = match presented(&request) {
        Presented::Nothing => None,
        Presented::Bearer(credential) => match identify(&state, credential) {
            Some(identity) => Some(identity),
            None => return invalid_token(&method, &path),
        },
        Presented::Malformed => return invalid_token(&method, &path),
    };
    let enforced = server.token.is_some() || state.catalog.keys().any();
    // Reports hold manuscripts: they need a key whenever keys are enforced.
    let needs_key = enforced
        && (server.protect_reads
            || matches!(access, Access::Write | Access::Admin)
            || holds_reports(&path));
    match &identity {
        None if needs_key => {
            return ApiError::new(
                ErrorCode::MissingToken,
                "this endpoint needs `Authorization: Bearer <key>`",
            )
            .into_response();
        }
        Some(identity) => {
            if needs_key && !identity.role.allows(access) {
                return forbidden(format!(
                    "the key `{}` ({}) may not make this request",
                    identity.name,
                    identity.role.as_str()
                ));
            }
            if outside_libraries(identity, &path, access) {
                return forbidden(format!(
                    "the key `{}` may not touch this library, nor what spans every library",
                    identity.name
                ));
            }
        }
        None => {}
    }
    let caller = identity
        .as_ref()
        .map_or_else(|| "-".to_string(), |i| i.name.clone());
    request.extensions_mut().insert(Caller(caller.clone()));
    if let Some(identity) = identity {
        request.extensions_mut().insert(identity);
    }
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string());
    let response = next.run(request).await;
    if matches!(access, Access::Write | Access::Admin) && method != Method::GET {
        let entry = AuditEntry {
            seq: 0,
            time: unix_now(),
            key: caller,
            action: format!("{method} {}", route.as_deref().unwrap_or(&path)),
            target: path,
            status: response.status().as_u16(),
        };
        let catalog = state.catalog.clone();
        match tokio::task::spawn_blocking(move || catalog.keys().audit(entry)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "could not append to the audit log"),
            Err(e) => tracing::error!(error = %e, "could not append to the audit log"),
        }
    }
    response
}

fn invalid_token(method: &Method, path: &str) -> Response {
    // The presented credential itself is never logged.
    tracing::warn!(%method, %path, "refused: invalid bearer token");
    ApiError::new(
        ErrorCode::InvalidToken,
        "the bearer token is not valid (unknown, revoked, or not `Bearer <key>`); send a valid \
         key, or none where the server serves anonymous callers",
    )
    .into_response()
}

fn forbidden(message: String) -> Response {
    ApiError::new(ErrorCode::Forbidden, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_eq_compares_whole_strings() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }

    #[test]
    fn writes_are_operator_requests_and_checks_are_not() {
        assert!(is_operator(&Method::POST, "/api/v1/libraries"));
        assert!(is_operator(&Method::DELETE, "/api/v1/libraries/acl"));
        assert!(is_operator(&Method::POST, "/api/v1/queue"));
        assert!(!is_operator(&Method::POST, "/api/v1/check"));
        assert!(!is_operator(&Method::GET, "/api/v1/libraries"));
    }

    fn with_authorization(value: &[u8]) -> Request {
        Request::builder()
            .header(header::AUTHORIZATION, value)
            .body(axum::body::Body::empty())
            .unwrap()
    }

    #[test]
    fn any_authorization_header_is_a_presented_credential() {
        let request = Request::new(axum::body::Body::empty());
        assert_eq!(presented(&request), Presented::Nothing);
        let bearer = with_authorization(b"bEaReR dfk_0123");
        assert_eq!(presented(&bearer), Presented::Bearer("dfk_0123"));
        let empty = with_authorization(b"Bearer ");
        assert_eq!(presented(&empty), Presented::Bearer(""));
        for malformed in [&b"Basic dXNlcjpwYXNz"[..], b"dfk_0123", b"", b"Bearer \xff"] {
            let request = with_authorization(malformed);
            assert_eq!(presented(&request), Presented::Malformed, "{malformed:?}");
        }
    }

    fn key_of(libraries: Option<&[&str]>) -> Identity {
        Identity {
            name: "k".to_string(),
            role: Role::Admin,
            libraries: libraries.map(|l| l.iter().map(|id| id.to_string()).collect()),
        }
    }

    #[test]
    fn a_limited_key_sees_what_was_made_on_its_libraries_alone() {
        let limited = key_of(Some(&["a", "b"]));
        assert!(limited.may_see(["a"]));
        assert!(limited.may_see(["a", "b"]));
        assert!(!limited.may_see(["a", "c"]));
        assert!(!limited.may_see([]));
        let unlimited = key_of(None);
        assert!(unlimited.may_see(["c"]));
        assert!(unlimited.may_see([]));
    }

    #[test]
    fn a_limited_key_is_kept_from_other_libraries_and_from_what_spans_them_all() {
        let limited = key_of(Some(&["a"]));
        let outside = |path, access| outside_libraries(&limited, path, access);
        assert!(!outside("/api/v1/libraries/a/documents", Access::Write));
        assert!(outside("/api/v1/libraries/b", Access::Read));
        assert!(outside("/api/v1/queue/b", Access::Write));
        assert!(!outside("/api/v1/queue/a", Access::Write));
        // Listings are filtered by their handlers; writes and keys span every library.
        assert!(!outside("/api/v1/libraries", Access::Read));
        assert!(outside("/api/v1/libraries", Access::Write));
        assert!(outside("/api/v1/keys", Access::Admin));
        assert!(outside("/api/v1/backup", Access::Admin));
        assert!(outside("/metrics", Access::Read));
        // Reports, jobs and checks are judged by what they were made on.
        assert!(!outside("/api/v1/reports/r1", Access::Check));
        assert!(!outside("/api/v1/jobs/j1", Access::Write));
        assert!(!outside("/api/v1/check", Access::Check));
        let unlimited = key_of(None);
        assert!(!outside_libraries(
            &unlimited,
            "/api/v1/keys",
            Access::Admin
        ));
    }
}
