//! How the service keeps what it acknowledged: small files replaced whole and durably, appends
//! synced soon, and consistent copies of the embedded (redb) stores for backups.

mod files;
mod redb_copy;

pub use files::{sync_soon, write_atomically};
pub use redb_copy::{copy_database, copy_table};
