//! What can go wrong with webhooks.

/// A webhook refused or a store failure.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("invalid webhook URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("webhook URL `{url}` reaches {ip}, a private, loopback or link-local address")]
    PrivateAddress { url: String, ip: std::net::IpAddr },
    #[error("unknown event `{0}`; events are `report.completed` and `duplicate.found`")]
    InvalidEvent(String),
    #[error("the secret must be 16 to 256 characters")]
    InvalidSecret,
    #[error("no webhook `{0}`")]
    NotFound(String),
    #[error("webhook store: {0}")]
    Store(String),
}

impl WebhookError {
    pub(super) fn store(e: impl std::fmt::Display) -> WebhookError {
        WebhookError::Store(e.to_string())
    }
}
