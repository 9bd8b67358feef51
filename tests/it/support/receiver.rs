//! A webhook receiver on loopback, as a portal would run one: it verifies each request's
//! signature with the shared secret (HMAC-SHA256 over the raw body, computed here with the
//! `hmac` crate, not with dupfinder's code), records what arrived, and answers the statuses it
//! was told to (then 200).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) event: String,
    pub(crate) delivery: String,
    pub(crate) timestamp: String,
    /// Whether `X-Dupfinder-Signature` is the HMAC of the body with the receiver's secret.
    pub(crate) signature_valid: bool,
    pub(crate) body: Value,
    /// The status the receiver answered.
    pub(crate) answered: u16,
}

#[derive(Clone)]
struct Receiver {
    secret: String,
    script: Arc<Mutex<VecDeque<u16>>>,
    received: Arc<Mutex<Vec<Received>>>,
}

/// A running receiver.
pub(crate) struct WebhookReceiver {
    pub(crate) addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl WebhookReceiver {
    /// Starts a receiver on `addr` (port 0: any free port) that answers `script` first, then 200.
    pub(crate) async fn start(addr: SocketAddr, secret: &str, script: &[u16]) -> WebhookReceiver {
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let state = Receiver {
            secret: secret.to_string(),
            script: Arc::new(Mutex::new(script.iter().copied().collect())),
            received: received.clone(),
        };
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(receive))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        WebhookReceiver {
            addr,
            received,
            task,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits (up to two minutes) until `done` holds of what arrived; answers what arrived.
    pub(crate) async fn wait_for(&self, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        for _ in 0..1200 {
            let received = self.received();
            if done(&received) {
                return received;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!(
            "the receiver did not get what was awaited: {:#?}",
            self.received()
        );
    }
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn receive(State(state): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(state.secret.as_bytes()).unwrap();
    mac.update(&body);
    let expected: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let signature_valid = header("x-dupfinder-signature") == format!("sha256={expected}");
    let answered = if signature_valid {
        state.script.lock().unwrap().pop_front().unwrap_or(200)
    } else {
        401
    };
    state.received.lock().unwrap().push(Received {
        event: header("x-dupfinder-event"),
        delivery: header("x-dupfinder-delivery"),
        timestamp: header("x-dupfinder-timestamp"),
        signature_valid,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        answered,
    });
    StatusCode::from_u16(answered).unwrap()
}

/// Serves `catalog` with the real server (router, jobs, webhook worker) on a loopback port of
/// this process; answers its address. The server lives as long as the test's runtime.
pub(crate) async fn serve_in_process(catalog: Arc<dupfinder::library::Catalog>) -> SocketAddr {
    let (ready, addr) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
        dupfinder::api::serve(catalog, listen, move |addr| {
            let _ = ready.send(addr);
        })
        .await
        .unwrap();
    });
    addr.await.unwrap()
}
