//! API keys with roles, and the audit log of writes, persisted in `<data>/keys.redb`.
//!
//! A key is shown once when it is created; only its SHA-256 is stored. Each key has a name (how
//! logs and the audit log call its holder), a [`Role`], and optionally the libraries it may
//! touch. Revoking a key deletes it: the next request presenting it is refused.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use parking_lot::RwLock;
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use dupfinder_common::clock::unix_now;

const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
const AUDIT: TableDefinition<u64, &[u8]> = TableDefinition::new("audit");

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Search and read.
    Reader,
    /// Check texts (and read).
    Checker,
    /// Libraries, documents, crawls and jobs (and check and read).
    Operator,
    /// Everything, keys and the audit log included.
    Admin,
}

/// What a request needs, by the kind of work it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    Read,
    Check,
    Write,
    Admin,
}

impl Role {
    /// Whether this role may make a request that needs `access`.
    pub fn allows(self, access: Access) -> bool {
        match self {
            Role::Admin => true,
            Role::Operator => access <= Access::Write,
            Role::Checker => access <= Access::Check,
            Role::Reader => access == Access::Read,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Checker => "checker",
            Role::Operator => "operator",
            Role::Admin => "admin",
        }
    }

    /// The role spelled `name`.
    pub fn parse(name: &str) -> Option<Role> {
        [Role::Reader, Role::Checker, Role::Operator, Role::Admin]
            .into_iter()
            .find(|r| r.as_str() == name)
    }
}

/// A key as it is listed: everything but its secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyInfo {
    pub name: String,
    pub role: Role,
    /// The libraries the key may touch; `None`: all.
    pub libraries: Option<Vec<String>>,
    pub created_at: u64,
}

impl KeyInfo {
    /// Whether the key may manage keys: an admin key not limited to libraries.
    pub fn manages_keys(&self) -> bool {
        self.role == Role::Admin && self.libraries.is_none()
    }
}

/// A key just created, with its secret (shown once).
#[derive(Debug, Clone, Serialize)]
pub struct NewKey {
    #[serde(flatten)]
    pub info: KeyInfo,
    pub key: String,
}

#[derive(Serialize, Deserialize)]
struct StoredKey {
    info: KeyInfo,
    /// Hex SHA-256 of the secret.
    hash: String,
}

/// One write, as the audit log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub seq: u64,
    /// Seconds since the Unix epoch.
    pub time: u64,
    /// The key's name, `token` for the configured token, `-` for an open server.
    pub key: String,
    /// The method and route, e.g. `DELETE /api/v1/libraries/{id}`.
    pub action: String,
    /// The path the write was made to.
    pub target: String,
    /// The status it was answered with.
    pub status: u16,
}

/// Why a key operation failed.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("key store {path}: {reason}")]
    Store { path: PathBuf, reason: String },
    #[error("a key named `{0}` exists")]
    Exists(String),
    #[error("no key is named `{0}`")]
    NotFound(String),
    #[error("invalid key name `{0}`: use 1 to 64 letters, digits, `-`, `_` or `.`")]
    InvalidName(String),
}

/// The key store and the audit log.
pub struct KeyStore {
    path: PathBuf,
    db: Database,
    /// Keys by the hash of their secret: every request looks its key up here.
    by_hash: RwLock<HashMap<String, KeyInfo>>,
}

impl KeyStore {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path) -> Result<KeyStore, KeyError> {
        let fail = |e: &dyn std::fmt::Display| KeyError::Store {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let db = Database::create(path).map_err(|e| fail(&e))?;
        let txn = db.begin_write().map_err(|e| fail(&e))?;
        txn.open_table(KEYS).map_err(|e| fail(&e))?;
        txn.open_table(AUDIT).map_err(|e| fail(&e))?;
        txn.commit().map_err(|e| fail(&e))?;
        let store = KeyStore {
            path: path.to_path_buf(),
            db,
            by_hash: RwLock::new(HashMap::new()),
        };
        let mut by_hash = HashMap::new();
        for stored in store.stored()? {
            by_hash.insert(stored.hash, stored.info);
        }
        *store.by_hash.write() = by_hash;
        Ok(store)
    }

    /// Copies the keys and the audit log, as of their last commit, into a new database at
    /// `dest`.
    pub fn copy_to(&self, dest: &Path) -> Result<(), KeyError> {
        dupfinder_common::durable::copy_database(&self.db, dest, |from, to| {
            dupfinder_common::durable::copy_table(from, to, KEYS)?;
            dupfinder_common::durable::copy_table(from, to, AUDIT)
        })
        .map_err(|e| self.fail(e))
    }

    fn fail(&self, e: impl std::fmt::Display) -> KeyError {
        KeyError::Store {
            path: self.path.clone(),
            reason: e.to_string(),
        }
    }

    fn stored(&self) -> Result<Vec<StoredKey>, KeyError> {
        let txn = self.db.begin_read().map_err(|e| self.fail(e))?;
        let table = txn.open_table(KEYS).map_err(|e| self.fail(e))?;
        let mut keys = Vec::new();
        for entry in table.iter().map_err(|e| self.fail(e))? {
            let (_, value) = entry.map_err(|e| self.fail(e))?;
            keys.push(serde_json::from_slice(value.value()).map_err(|e| self.fail(e))?);
        }
        Ok(keys)
    }

    /// Whether any key exists (then the server asks for one on protected routes).
    pub fn any(&self) -> bool {
        !self.by_hash.read().is_empty()
    }

    /// Whether a key that may manage keys exists.
    pub fn has_key_manager(&self) -> bool {
        self.by_hash.read().values().any(KeyInfo::manages_keys)
    }

    /// Whether revoking key `name` would leave keys but none that may manage them.
    pub fn revoking_leaves_no_manager(&self, name: &str) -> bool {
        let keys = self.by_hash.read();
        if !keys.values().any(|k| k.name == name) {
            return false;
        }
        let remaining = keys.values().filter(|k| k.name != name);
        let (mut any, mut manager) = (false, false);
        for key in remaining {
            any = true;
            manager |= key.manages_keys();
        }
        any && !manager
    }

    /// Creates a key and returns it with its secret.
    pub fn create(
        &self,
        name: &str,
        role: Role,
        libraries: Option<Vec<String>>,
    ) -> Result<NewKey, KeyError> {
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !valid || name == "token" || name == "-" {
            return Err(KeyError::InvalidName(name.to_string()));
        }
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| self.fail(e))?;
        let key = format!("dfk_{}", hex(&secret));
        let info = KeyInfo {
            name: name.to_string(),
            role,
            libraries,
            created_at: unix_now(),
        };
        let stored = StoredKey {
            info: info.clone(),
            hash: hash(&key),
        };
        let txn = self.db.begin_write().map_err(|e| self.fail(e))?;
        {
            let mut table = txn.open_table(KEYS).map_err(|e| self.fail(e))?;
            if table.get(name).map_err(|e| self.fail(e))?.is_some() {
                return Err(KeyError::Exists(name.to_string()));
            }
            let bytes = serde_json::to_vec(&stored).map_err(|e| self.fail(e))?;
            table
                .insert(name, bytes.as_slice())
                .map_err(|e| self.fail(e))?;
        }
        txn.commit().map_err(|e| self.fail(e))?;
        self.by_hash.write().insert(stored.hash, info.clone());
        Ok(NewKey { info, key })
    }

    /// Every key, by name.
    pub fn list(&self) -> Result<Vec<KeyInfo>, KeyError> {
        Ok(self.stored()?.into_iter().map(|k| k.info).collect())
    }

    /// Revokes the key `name`: refused from the next request on.
    pub fn revoke(&self, name: &str) -> Result<(), KeyError> {
        let txn = self.db.begin_write().map_err(|e| self.fail(e))?;
        let removed = {
            let mut table = txn.open_table(KEYS).map_err(|e| self.fail(e))?;
            let removed = table.remove(name).map_err(|e| self.fail(e))?;
            removed.map(|v| v.value().to_vec())
        };
        let Some(removed) = removed else {
            return Err(KeyError::NotFound(name.to_string()));
        };
        txn.commit().map_err(|e| self.fail(e))?;
        let stored: StoredKey = serde_json::from_slice(&removed).map_err(|e| self.fail(e))?;
        self.by_hash.write().remove(&stored.hash);
        Ok(())
    }

    /// The key whose secret is `secret`, if there is one.
    pub fn find(&self, secret: &str) -> Option<KeyInfo> {
        self.by_hash.read().get(&hash(secret)).cloned()
    }

    /// Appends a write to the audit log.
    pub fn audit(&self, mut entry: AuditEntry) -> Result<(), KeyError> {
        let txn = self.db.begin_write().map_err(|e| self.fail(e))?;
        {
            let mut table = txn.open_table(AUDIT).map_err(|e| self.fail(e))?;
            let last = table
                .last()
                .map_err(|e| self.fail(e))?
                .map_or(0, |(seq, _)| seq.value());
            entry.seq = last + 1;
            let bytes = serde_json::to_vec(&entry).map_err(|e| self.fail(e))?;
            table
                .insert(entry.seq, bytes.as_slice())
                .map_err(|e| self.fail(e))?;
        }
        txn.commit().map_err(|e| self.fail(e))
    }

    /// The audit log, newest first: `limit` entries after skipping `offset`, and the total.
    pub fn audit_log(
        &self,
        limit: usize,
        offset: usize,
    ) -> Result<(u64, Vec<AuditEntry>), KeyError> {
        let txn = self.db.begin_read().map_err(|e| self.fail(e))?;
        let table = txn.open_table(AUDIT).map_err(|e| self.fail(e))?;
        let total = table.len().map_err(|e| self.fail(e))?;
        let mut entries = Vec::new();
        for entry in table
            .iter()
            .map_err(|e| self.fail(e))?
            .rev()
            .skip(offset)
            .take(limit)
        {
            let (_, value) = entry.map_err(|e| self.fail(e))?;
            entries.push(serde_json::from_slice(value.value()).map_err(|e| self.fail(e))?);
        }
        Ok((total, entries))
    }
}

fn hash(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered_by_what_they_allow() {
        assert!(Role::Admin.allows(Access::Admin));
        assert!(!Role::Operator.allows(Access::Admin));
        assert!(Role::Operator.allows(Access::Write));
        assert!(!Role::Checker.allows(Access::Write));
        assert!(Role::Checker.allows(Access::Check));
        assert!(!Role::Reader.allows(Access::Check));
        assert!(Role::Reader.allows(Access::Read));
    }

    #[test]
    fn keys_are_stored_hashed_found_by_secret_and_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.redb");
        let secret = {
            let store = KeyStore::open(&path).unwrap();
            let created = store.create("portal", Role::Checker, None).unwrap();
            assert!(matches!(
                store.create("portal", Role::Reader, None),
                Err(KeyError::Exists(_))
            ));
            assert!(matches!(
                store.create("bad name", Role::Reader, None),
                Err(KeyError::InvalidName(_))
            ));
            created.key
        };
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the secret is stored in clear"
        );
        let store = KeyStore::open(&path).unwrap();
        assert_eq!(store.find(&secret).unwrap().role, Role::Checker);
        assert_eq!(store.find("dfk_other"), None);
        store.revoke("portal").unwrap();
        assert_eq!(store.find(&secret), None);
        assert!(matches!(store.revoke("portal"), Err(KeyError::NotFound(_))));
    }

    #[test]
    fn a_key_manager_is_an_admin_key_not_limited_to_libraries() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::open(&dir.path().join("keys.redb")).unwrap();
        assert!(!store.has_key_manager());
        store.create("portal", Role::Checker, None).unwrap();
        store
            .create("lib-admin", Role::Admin, Some(vec!["lib".into()]))
            .unwrap();
        assert!(!store.has_key_manager());
        store.create("admin", Role::Admin, None).unwrap();
        assert!(store.has_key_manager());
        assert!(store.revoking_leaves_no_manager("admin"));
        assert!(!store.revoking_leaves_no_manager("portal"));
        store.revoke("portal").unwrap();
        store.revoke("lib-admin").unwrap();
        // The last key of all may go: the server is then open, as before any key.
        assert!(!store.revoking_leaves_no_manager("admin"));
    }

    #[test]
    fn the_audit_log_pages_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::open(&dir.path().join("keys.redb")).unwrap();
        for i in 0..5 {
            store
                .audit(AuditEntry {
                    seq: 0,
                    time: i,
                    key: "k".into(),
                    action: "POST /x".into(),
                    target: format!("/x/{i}"),
                    status: 200,
                })
                .unwrap();
        }
        let (total, page) = store.audit_log(2, 1).unwrap();
        assert_eq!(total, 5);
        let targets: Vec<&str> = page.iter().map(|e| e.target.as_str()).collect();
        assert_eq!(targets, ["/x/3", "/x/2"]);
        assert_eq!(page[0].seq, 4);
    }
}
