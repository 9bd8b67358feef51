//! A command that talks to a running server: `--server URL` (env `DUPFINDER_SERVER`) with
//! `--key KEY` (env `DUPFINDER_KEY`). Answers that are errors print the server's code and
//! message.

use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use dupfinder::error_code::ErrorCode;

/// A running server and the key to present.
pub(crate) struct Remote {
    base: String,
    key: Option<String>,
    client: Client,
}

impl Remote {
    pub(crate) fn new(server: &str, key: Option<String>) -> Result<Remote> {
        let base = server.trim_end_matches('/').to_string();
        let parsed = url::Url::parse(&base).with_context(|| format!("--server {server}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            bail!("--server {server}: use an http:// or https:// address");
        }
        let client = Client::builder()
            // Backups and big imports take long; the server bounds its own work.
            .timeout(Duration::from_secs(6 * 3600))
            .build()
            .context("starting the HTTP client")?;
        Ok(Remote { base, key, client })
    }

    /// A request to `path` (`/api/v1/…`), with the key.
    pub(crate) fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let request = self.client.request(method, format!("{}{path}", self.base));
        match &self.key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Sends `request`; a non-2xx answer becomes an error with the server's code and message.
    pub(crate) fn send(&self, request: RequestBuilder) -> Result<Response> {
        let response = request
            .send()
            .with_context(|| format!("cannot reach the server at {}", self.base))?;
        if response.status().is_success() {
            return Ok(response);
        }
        Err(answer_error(response))
    }

    /// Sends `request` and reads its JSON answer (`null` for 204).
    pub(crate) fn json(&self, request: RequestBuilder) -> Result<Value> {
        let response = self.send(request)?;
        if response.status() == StatusCode::NO_CONTENT {
            return Ok(Value::Null);
        }
        response.json().context("the server's answer is not JSON")
    }

    pub(crate) fn get(&self, path: &str) -> Result<Value> {
        self.json(self.request(Method::GET, path))
    }

    pub(crate) fn post(&self, path: &str, body: &Value) -> Result<Value> {
        self.json(self.request(Method::POST, path).json(body))
    }

    pub(crate) fn delete(&self, path: &str) -> Result<Value> {
        self.json(self.request(Method::DELETE, path))
    }
}

impl Remote {
    /// Follows the server's job `job` (as `POST …/reindex` or `…/dedup` answered it) with a
    /// progress bar until it ends; answers its last status.
    pub(crate) fn follow_job(&self, job: &Value, label: &str) -> Result<Value> {
        let id = job["job"].as_str().unwrap_or_default().to_string();
        let bar = indicatif::ProgressBar::new(job["total"].as_u64().unwrap_or(0)).with_style(
            super::output::progress_style("{msg} {bar:40} {pos}/{len} {rate}"),
        );
        bar.set_message(label.to_string());
        let finished = loop {
            let status = self.get(&format!("/api/v1/jobs/{}", segment(&id)))?;
            bar.set_length(status["total"].as_u64().unwrap_or(0));
            bar.set_position(status["done"].as_u64().unwrap_or(0));
            match status["state"].as_str() {
                Some("queued" | "running") => std::thread::sleep(Duration::from_millis(500)),
                _ => break status,
            }
        };
        bar.finish_and_clear();
        Ok(finished)
    }
}

/// An error answer of the server: its status, and the code and message of its error body.
#[derive(Debug, thiserror::Error)]
#[error("the server answered {} {code}: {message}", status.as_u16())]
pub(crate) struct ServerError {
    pub status: StatusCode,
    /// The code as the server spelled it (`error` when the body had none).
    pub code: String,
    pub message: String,
}

impl ServerError {
    /// Whether `error` is the server's answer with `code`.
    pub(crate) fn answered(error: &anyhow::Error, code: ErrorCode) -> bool {
        error
            .downcast_ref::<ServerError>()
            .is_some_and(|answer| answer.code == code.as_str())
    }
}

/// `401 invalid_token: the bearer token is not valid`, from the server's error body.
fn answer_error(response: Response) -> anyhow::Error {
    let status = response.status();
    let body: Option<Value> = response.json().ok();
    let error = body.as_ref().and_then(|b| b.get("error"));
    match error {
        Some(error) => ServerError {
            status,
            code: error["code"].as_str().unwrap_or("error").to_string(),
            message: error["message"].as_str().unwrap_or_default().to_string(),
        }
        .into(),
        None => anyhow!("the server answered {status}"),
    }
}

/// A path segment with `/`, `?`, `#`, `%` and spaces escaped.
pub(crate) fn segment(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}
