//! Files sent as `multipart/form-data` (parts named `file`, for a check also `options`): read
//! under the body's size and time limits, then extracted through the process's
//! [`Extractions`](dupfinder_text::extract::Extractions) — on the blocking pool, under `[extract]`'s
//! bounds and time, in one of its places — so that a hostile file never holds up the async
//! runtime or other requests, and stops when its client leaves.

use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::{HeaderMap, StatusCode, header};

use super::{ApiError, AppState, ErrorCode};
use dupfinder_text::extract::ExtractedDocument;

/// One uploaded file: its name as the client gave it (without any folder) and its bytes.
pub(super) struct UploadedFile {
    pub name: String,
    pub bytes: Bytes,
}

/// The parts of a multipart request.
pub(super) struct Upload {
    pub files: Vec<UploadedFile>,
    /// The `options` part, as text.
    pub options: Option<String>,
}

/// Whether the request carries `multipart/form-data`.
pub(super) fn is_multipart(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"))
}

/// Reads every part; `allowed` names the parts besides `file` that the route accepts.
pub(super) async fn read_upload(
    request: Request,
    state: &AppState,
    allowed: &[&str],
) -> Result<Upload, ApiError> {
    let limits = &state.catalog.config().limits;
    let timeout_ms = limits.body_timeout_ms;
    let limit = limits.max_body_bytes;
    let read = async {
        let mut multipart = Multipart::from_request(request, state)
            .await
            .map_err(|e| ApiError::new(ErrorCode::InvalidBody, e.body_text()))?;
        let mut upload = Upload {
            files: Vec::new(),
            options: None,
        };
        while let Some(field) = multipart
            .next_field()
            .await
            .map_err(|e| part_error(&e, limit))?
        {
            let part = field.name().unwrap_or_default().to_string();
            match part.as_str() {
                "file" => {
                    let name = field
                        .file_name()
                        .map(base_name)
                        .filter(|n| !n.is_empty())
                        .unwrap_or_else(|| format!("file{}", upload.files.len() + 1));
                    let bytes = field.bytes().await.map_err(|e| part_error(&e, limit))?;
                    upload.files.push(UploadedFile { name, bytes });
                }
                other if allowed.contains(&other) => {
                    let text = field.text().await.map_err(|e| part_error(&e, limit))?;
                    upload.options = Some(text);
                }
                other => {
                    return Err(ApiError::new(
                        ErrorCode::InvalidBody,
                        format!(
                            "unknown part `{other}`; send the file as `file`{}",
                            if allowed.is_empty() {
                                ""
                            } else {
                                " and options as `options`"
                            }
                        ),
                    ));
                }
            }
        }
        if upload.files.is_empty() {
            return Err(ApiError::new(
                ErrorCode::MissingFile,
                "the multipart body has no part named `file`",
            ));
        }
        Ok(upload)
    };
    tokio::time::timeout(std::time::Duration::from_millis(timeout_ms.max(1)), read)
        .await
        .map_err(|_| {
            ApiError::new(
                ErrorCode::BodyTimeout,
                format!("the request body did not arrive within {timeout_ms} ms"),
            )
        })?
}

fn part_error(error: &axum::extract::multipart::MultipartError, limit: usize) -> ApiError {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("the request body is larger than {limit} bytes"),
        )
    } else {
        ApiError::new(
            ErrorCode::InvalidBody,
            format!("could not read the multipart body: {}", error.body_text()),
        )
    }
}

/// The last component of a client's file name (browsers may send a path).
fn base_name(name: &str) -> String {
    name.rsplit(['/', '\\'])
        .next()
        .unwrap_or(name)
        .trim()
        .to_string()
}

/// Extracts a file's text; dropping the future (the client left, the request's time ran out)
/// stops the extraction at its next step.
pub(super) async fn extract_file(
    state: &AppState,
    file: &UploadedFile,
) -> Result<ExtractedDocument, ApiError> {
    let extractions = state.catalog.extractions();
    extractions.extract(file.bytes.clone()).await.map_err(|e| {
        let mut error = ApiError::from(e);
        error.message = format!("{}: {}", file.name, error.message);
        error
    })
}
