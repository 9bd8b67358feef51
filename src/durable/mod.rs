//! How the service keeps what it acknowledged: small files replaced whole and durably, appends
//! synced soon, and consistent copies of the embedded (redb) stores for backups.

mod files;
mod redb_copy;

pub(crate) use files::{sync_soon, write_atomically};
pub(crate) use redb_copy::{copy_database, copy_table};
