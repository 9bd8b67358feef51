//! Request bodies: read with the configured size limit and parsed so that every failure —
//! too large, not UTF-8, malformed JSON, a missing field — is an [`ApiError`] with its own code.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, FailedToBufferBody};
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use super::state::AppState;
use super::{ApiError, ErrorCode};
use dupfinder_service::config::Limits;
use dupfinder_service::library::check_json_depth;

/// The raw body, at most `limits.max_body_bytes`, checked to be UTF-8.
pub(super) struct TextBody {
    pub text: String,
    pub content_type: Option<String>,
}

impl FromRequest<AppState> for TextBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let limit = state.catalog.config().limits.max_body_bytes;
        let content_type = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.to_ascii_lowercase());
        let timeout_ms = state.catalog.config().limits.body_timeout_ms;
        // The router's `DefaultBodyLimit` makes this fail past `max_body_bytes`; a client that
        // trickles its body is given up after `body_timeout_ms`.
        let read = tokio::time::timeout(
            std::time::Duration::from_millis(timeout_ms.max(1)),
            Bytes::from_request(request, state),
        )
        .await
        .map_err(|_| {
            ApiError::new(
                ErrorCode::BodyTimeout,
                format!("the request body did not arrive within {timeout_ms} ms"),
            )
        })?;
        let bytes = read.map_err(|rejection| match rejection {
            BytesRejection::FailedToBufferBody(FailedToBufferBody::LengthLimitError(_)) => {
                ApiError::new(
                    ErrorCode::BodyTooLarge,
                    format!("the request body is larger than {limit} bytes"),
                )
            }
            other => ApiError::new(
                ErrorCode::InvalidBody,
                format!("could not read the request body: {other}"),
            ),
        })?;
        let text = String::from_utf8(bytes.to_vec()).map_err(|e| {
            ApiError::new(
                ErrorCode::InvalidUtf8,
                format!(
                    "the request body is not valid UTF-8 (at byte {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        Ok(TextBody { text, content_type })
    }
}

/// A JSON body of type `T`.
pub(super) struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let body = TextBody::from_request(request, state).await?;
        parse_json(&body.text, &state.catalog.config().limits).map(JsonBody)
    }
}

/// Refuses a JSON Lines body of more than `max` non-blank lines (`413 too_many_lines`), before
/// any line is parsed; `what` names its lines, `setting` the `[limits]` key that bounds them.
pub(super) fn check_line_count(
    text: &str,
    max: usize,
    what: &str,
    setting: &str,
) -> Result<(), ApiError> {
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > max {
        return Err(ApiError::new(
            ErrorCode::TooManyLines,
            format!("{lines} {what}; at most {max} per request ([limits] {setting})"),
        ));
    }
    Ok(())
}

/// Refuses JSON nested deeper than `limits.max_json_depth` (`json_too_deep`).
pub(super) fn check_depth(text: &str, limits: &Limits) -> Result<(), ApiError> {
    Ok(check_json_depth(text, limits.max_json_depth)?)
}

/// Parses JSON, telling a missing field apart from malformed JSON. JSON nested deeper than
/// `limits.max_json_depth` is refused before parsing (`json_too_deep`).
pub(super) fn parse_json<T: DeserializeOwned>(text: &str, limits: &Limits) -> Result<T, ApiError> {
    if text.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidJson,
            "the request body is empty; a JSON object is expected",
        ));
    }
    check_json_depth(text, limits.max_json_depth)?;
    serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        if let Some(rest) = message.strip_prefix("missing field `") {
            let field = rest.split('`').next().unwrap_or_default();
            ApiError::new(
                ErrorCode::MissingField,
                format!("the field `{field}` is required"),
            )
        } else {
            ApiError::new(ErrorCode::InvalidJson, format!("invalid JSON: {message}"))
        }
    })
}
