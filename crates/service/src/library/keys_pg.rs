//! The keys and the audit log in the database (`api_keys`, `audit_log`), shared by every server
//! process: each request looks its key up there, so a key revoked through one process is
//! refused by every other from the next request on.

use std::path::Path;

use dupfinder_storage::postgres::PgDatabase;

use super::keys::{
    AuditEntry, KeyError, KeyInfo, KeyStore, NewKey, Role, hash, leaves_no_manager, new_key,
};
use crate::pg::{DbFail, run};

/// The keys and the audit log of a PostgreSQL database.
pub struct PgKeys {
    db: PgDatabase,
}

fn fail(e: DbFail) -> KeyError {
    KeyError::Store {
        path: "the database".into(),
        reason: e.0,
    }
}

impl PgKeys {
    pub fn new(db: PgDatabase) -> PgKeys {
        PgKeys { db }
    }

    /// Every key; a failure is logged and answered as `failed` says.
    fn all_or(&self, failed: bool) -> Result<Vec<KeyInfo>, bool> {
        self.list().map_err(|e| {
            tracing::error!(error = %e, "the keys could not be read");
            failed
        })
    }
}

impl KeyStore for PgKeys {
    /// A database that cannot be read asks for a key (and refuses every one).
    fn any(&self) -> bool {
        let found = run(&self.db, async |client| {
            let row = client
                .query_one("SELECT EXISTS (SELECT 1 FROM api_keys)", &[])
                .await?;
            Ok(row.get::<_, bool>(0))
        });
        found.unwrap_or_else(|e| {
            tracing::error!(error = %e, "the keys could not be read");
            true
        })
    }

    fn has_key_manager(&self) -> bool {
        self.all_or(true).map_or_else(
            |failed| failed,
            |keys| keys.iter().any(KeyInfo::manages_keys),
        )
    }

    fn revoking_leaves_no_manager(&self, name: &str) -> bool {
        self.all_or(true)
            .map_or_else(|failed| failed, |keys| leaves_no_manager(&keys, name))
    }

    fn create(
        &self,
        name: &str,
        role: Role,
        libraries: Option<Vec<String>>,
    ) -> Result<NewKey, KeyError> {
        let (new, hash) = new_key(name, role, libraries)?;
        let info = serde_json::to_string(&new.info).map_err(|e| fail(e.into()))?;
        let inserted = run(&self.db, async |client| {
            Ok(client
                .execute(
                    "INSERT INTO api_keys (name, hash, info) VALUES ($1, $2, $3)
                     ON CONFLICT (name) DO NOTHING",
                    &[&name, &hash, &info],
                )
                .await?)
        })
        .map_err(fail)?;
        if inserted == 0 {
            return Err(KeyError::Exists(name.to_string()));
        }
        Ok(new)
    }

    fn list(&self) -> Result<Vec<KeyInfo>, KeyError> {
        run(&self.db, async |client| {
            let rows = client
                .query("SELECT info FROM api_keys ORDER BY name", &[])
                .await?;
            let mut keys = Vec::new();
            for row in rows {
                keys.push(serde_json::from_str(row.get::<_, &str>(0))?);
            }
            Ok(keys)
        })
        .map_err(fail)
    }

    fn revoke(&self, name: &str) -> Result<(), KeyError> {
        let removed = run(&self.db, async |client| {
            Ok(client
                .execute("DELETE FROM api_keys WHERE name = $1", &[&name])
                .await?)
        })
        .map_err(fail)?;
        match removed {
            0 => Err(KeyError::NotFound(name.to_string())),
            _ => Ok(()),
        }
    }

    /// A database that cannot be read finds no key (the request is refused, and the failure
    /// logged).
    fn find(&self, secret: &str) -> Option<KeyInfo> {
        let hash = hash(secret);
        let found = run(&self.db, async |client| {
            let row = client
                .query_opt("SELECT info FROM api_keys WHERE hash = $1", &[&hash])
                .await?;
            match row {
                Some(row) => Ok(Some(serde_json::from_str(row.get::<_, &str>(0))?)),
                None => Ok(None),
            }
        });
        found.unwrap_or_else(|e| {
            tracing::error!(error = %e, "a key could not be looked up");
            None
        })
    }

    fn audit(&self, mut entry: AuditEntry) -> Result<(), KeyError> {
        run(&self.db, async |client| {
            let tx = client.transaction().await?;
            let seq: i64 = tx
                .query_one("SELECT nextval('audit_log_seq_seq')", &[])
                .await?
                .get(0);
            entry.seq = seq as u64;
            let encoded = serde_json::to_string(&entry)?;
            tx.execute(
                "INSERT INTO audit_log (seq, entry) VALUES ($1, $2)",
                &[&seq, &encoded],
            )
            .await?;
            Ok(tx.commit().await?)
        })
        .map_err(fail)
    }

    fn audit_log(&self, limit: usize, offset: usize) -> Result<(u64, Vec<AuditEntry>), KeyError> {
        let (limit, offset) = (limit.min(i64::MAX as usize) as i64, offset as i64);
        run(&self.db, async |client| {
            let total: i64 = client
                .query_one("SELECT count(*) FROM audit_log", &[])
                .await?
                .get(0);
            let rows = client
                .query(
                    "SELECT entry FROM audit_log ORDER BY seq DESC LIMIT $1 OFFSET $2",
                    &[&limit, &offset],
                )
                .await?;
            let mut entries = Vec::new();
            for row in rows {
                entries.push(serde_json::from_str(row.get::<_, &str>(0))?);
            }
            Ok((total as u64, entries))
        })
        .map_err(fail)
    }

    fn copy_to(&self, _dest: &Path) -> Result<(), KeyError> {
        Err(fail(DbFail(
            "the keys live in the database; back it up with pg_dump".to_string(),
        )))
    }
}
