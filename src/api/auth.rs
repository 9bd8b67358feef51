//! Access: when a token is configured, operator endpoints (everything that writes: creating and
//! deleting libraries, sending documents, the crawl queue) need `Authorization: Bearer <token>`;
//! with `server.protect_reads`, reading endpoints need it too. `/healthz`, the web UI's files
//! and the OpenAPI document never do (they hold no data; the UI sends the token with its own
//! API calls), and a check is a reading endpoint (portals call it). Tokens are compared in
//! constant time.

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::metrics::Caller;
use super::{ApiError, AppState, ErrorCode};
use crate::clock::unix_now;
use crate::library::{Access, AuditEntry, Role};

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

/// The library a request's path names (`/api/v1/libraries/{id}…`), if any.
fn library_of(path: &str) -> Option<&str> {
    path.strip_prefix("/api/v1/libraries/")
        .map(|rest| rest.split('/').next().unwrap_or_default())
        .filter(|id| !id.is_empty())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// The credential of `Authorization: Bearer <credential>`, the scheme in any case.
fn bearer(request: &Request) -> Option<&str> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, credential) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credential.trim())
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
}

/// Access control and the audit log. With no token configured and no key created, the server
/// (bound to loopback) is open. Otherwise public routes stay open, reading routes and checks
/// are open unless `server.protect_reads`, and every other request needs a key whose role
/// allows it (401 without a valid key, 403 when its role or its libraries do not allow the
/// request). Every write that reaches a handler is appended to the audit log.
pub(super) async fn require_token(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let server = &state.catalog.config().server;
    let keys = state.catalog.keys();
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    let access = access_of(&method, &path);
    let identity = match bearer(&request) {
        Some(presented) => {
            let token = server
                .token
                .as_deref()
                .filter(|t| constant_time_eq(presented.as_bytes(), t.as_bytes()));
            match (token, keys.find(presented)) {
                (Some(_), _) => Some(Identity {
                    name: "token".to_string(),
                    role: Role::Admin,
                    libraries: None,
                }),
                (None, Some(key)) => Some(Identity {
                    name: key.name,
                    role: key.role,
                    libraries: key.libraries,
                }),
                (None, None) => None,
            }
            .ok_or(true)
        }
        None => Err(false),
    };
    let enforced = server.token.is_some() || keys.any();
    // Reports hold manuscripts: they need a key whenever keys are enforced.
    let needs_key = enforced
        && !is_public(&path)
        && (server.protect_reads
            || matches!(access, Access::Write | Access::Admin)
            || holds_reports(&path));
    let identity = match identity {
        Ok(identity) => Some(identity),
        Err(presented) if needs_key => {
            return if presented {
                // The presented credential itself is never logged.
                tracing::warn!(%method, %path, "refused: invalid bearer token");
                ApiError::new(ErrorCode::InvalidToken, "the bearer token is not valid")
                    .into_response()
            } else {
                ApiError::new(
                    ErrorCode::MissingToken,
                    "this endpoint needs `Authorization: Bearer <key>`",
                )
                .into_response()
            };
        }
        Err(_) => None,
    };
    if let Some(identity) = &identity
        && enforced
        && !is_public(&path)
    {
        if !identity.role.allows(access) && needs_key {
            return forbidden(format!(
                "the key `{}` ({}) may not make this request",
                identity.name,
                identity.role.as_str()
            ));
        }
        let outside = match library_of(&path) {
            Some(id) => !identity.may_touch(id),
            // A restricted key writes only under the libraries it names.
            None => identity.libraries.is_some() && access == Access::Write,
        };
        if outside && (needs_key || access == Access::Check) {
            return forbidden(format!(
                "the key `{}` may not touch this library",
                identity.name
            ));
        }
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
}
