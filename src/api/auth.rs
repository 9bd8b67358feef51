//! Access: when a token is configured, operator endpoints (everything that writes: creating and
//! deleting libraries, sending documents, the crawl queue) need `Authorization: Bearer <token>`;
//! with `server.protect_reads`, reading endpoints need it too. `/healthz`, the web UI's files
//! and the OpenAPI document never do (they hold no data; the UI sends the token with its own
//! API calls), and a check is a reading endpoint (portals call it). Tokens are compared in
//! constant time.

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{ApiError, AppState, ErrorCode};

/// Whether a request writes (and so is an operator's).
pub(super) fn is_operator(method: &Method, path: &str) -> bool {
    !(method == Method::GET
        || method == Method::HEAD
        || (method == Method::POST && path == "/api/v1/check"))
}

/// Whether a path is open to everyone whatever the configuration.
fn is_public(path: &str) -> bool {
    path == "/healthz" || path == "/" || path == "/api/v1/openapi.json" || path.starts_with("/ui/")
}

/// Compares two byte strings in time that depends only on their lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// Middleware enforcing the configured token.
pub(super) async fn require_token(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let server = &state.catalog.config().server;
    let Some(token) = server.token.as_deref() else {
        return next.run(request).await;
    };
    let path = request.uri().path();
    let needs_token =
        !is_public(path) && (server.protect_reads || is_operator(request.method(), path));
    if !needs_token {
        return next.run(request).await;
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match presented {
        Some(presented) if constant_time_eq(presented.as_bytes(), token.as_bytes()) => {
            next.run(request).await
        }
        Some(_) => {
            // The presented token itself is never logged.
            tracing::warn!(method = %request.method(), path = %path, "refused: invalid bearer token");
            ApiError::new(ErrorCode::InvalidToken, "the bearer token is not valid").into_response()
        }
        None => ApiError::new(
            ErrorCode::MissingToken,
            "this endpoint needs `Authorization: Bearer <token>`",
        )
        .into_response(),
    }
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
