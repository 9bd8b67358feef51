//! Query parameters of searches and listings: parsed into coded 400s, never axum's plain-text
//! rejections; page bounds.

use serde::de::DeserializeOwned;

use super::{ApiError, ErrorCode};

pub(super) fn page_limit(limit: Option<usize>, default: usize) -> Result<usize, ApiError> {
    match limit.unwrap_or(default) {
        limit @ 1..=100 => Ok(limit),
        _ => Err(ApiError::new(
            ErrorCode::InvalidLimit,
            "`limit` must be between 1 and 100",
        )),
    }
}

pub(super) fn page_offset(offset: Option<usize>, max: usize) -> Result<usize, ApiError> {
    match offset.unwrap_or(0) {
        offset if offset <= max => Ok(offset),
        _ => Err(ApiError::new(
            ErrorCode::InvalidOffset,
            format!("`offset` must be at most {max}"),
        )),
    }
}

/// Parses query parameters, answering a coded 400 instead of axum's plain-text rejection.
/// Numbers are recognized for every parameter but `q`, so a non-numeric `limit` is refused.
pub(super) fn query_params<T: DeserializeOwned>(raw: &str) -> Result<T, ApiError> {
    let value = serde_json::Value::Object(
        url::form_urlencoded::parse(raw.as_bytes())
            .into_owned()
            .map(|(k, v)| {
                let v = match v.parse::<u64>() {
                    Ok(n) if k != "q" => serde_json::Value::from(n),
                    _ => serde_json::Value::String(v),
                };
                (k, v)
            })
            .collect(),
    );
    serde_json::from_value(value).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidParameter,
            format!("invalid query parameter: {e}"),
        )
    })
}
