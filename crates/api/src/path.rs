//! Path parameters: axum's `Path` with its rejection (a segment that is not UTF-8 once
//! percent-decoded, or that does not parse) answered in the JSON error envelope as
//! `400 invalid_path`, never as axum's plain text.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::{ApiError, ErrorCode};

/// The request path's parameters, deserialized as axum's `Path` does.
pub(super) struct Path<T>(pub(super) T);

impl<T, S> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(rejection) => Err(ApiError::new(
                ErrorCode::InvalidPath,
                format!("the request path is not valid: {}", rejection.body_text()),
            )),
        }
    }
}
