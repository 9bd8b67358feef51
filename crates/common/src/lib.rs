//! What every layer of dupfinder shares, depending on no other crate of the workspace:
//! - [`clock`]: the one clock, seconds since the Unix epoch.
//! - [`cancel`]: cancellation flags with parents.
//! - [`admission`]: places for heavy work (checks, file extractions) and a bounded waiting room.
//! - [`error_code`]: every error code of the service, with its HTTP status.
//! - [`durable`]: durable small files and consistent copies of the embedded stores.
//! - [`outbound`]: the network guard of the service's own requests (crawler, webhooks).

pub mod admission;
pub mod cancel;
pub mod clock;
pub mod durable;
pub mod error_code;
pub mod outbound;
