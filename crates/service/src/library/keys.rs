//! API keys with roles, and the audit log of writes: a [`KeyStore`], kept in `<data>/keys.redb`
//! ([`EmbeddedKeys`]) or, with `[storage] backend = "postgres"`, in the database every server
//! process shares (`keys_pg.rs`).
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

/// The keys and the audit log, wherever they are kept. Every request looks its key up here.
pub trait KeyStore: Send + Sync {
    /// Whether any key exists (then the server asks for one on protected routes).
    fn any(&self) -> bool;

    /// Whether a key that may manage keys exists.
    fn has_key_manager(&self) -> bool;

    /// Whether revoking key `name` would leave keys but none that may manage them.
    fn revoking_leaves_no_manager(&self, name: &str) -> bool;

    /// Creates a key and returns it with its secret.
    fn create(
        &self,
        name: &str,
        role: Role,
        libraries: Option<Vec<String>>,
    ) -> Result<NewKey, KeyError>;

    /// Every key, by name.
    fn list(&self) -> Result<Vec<KeyInfo>, KeyError>;

    /// Revokes the key `name`: refused from the next request on.
    fn revoke(&self, name: &str) -> Result<(), KeyError>;

    /// The key whose secret is `secret`, if there is one.
    fn find(&self, secret: &str) -> Option<KeyInfo>;

    /// Appends a write to the audit log.
    fn audit(&self, entry: AuditEntry) -> Result<(), KeyError>;

    /// The audit log, newest first: `limit` entries after skipping `offset`, and the total.
    fn audit_log(&self, limit: usize, offset: usize) -> Result<(u64, Vec<AuditEntry>), KeyError>;

    /// Copies the keys and the audit log, as of their last commit, into a new redb database at
    /// `dest` (a backup of the data directory; only where they are kept there).
    fn copy_to(&self, dest: &Path) -> Result<(), KeyError>;
}

/// A new key named `name`, with its secret and the hash kept of it; refuses an invalid name.
pub(super) fn new_key(
    name: &str,
    role: Role,
    libraries: Option<Vec<String>>,
) -> Result<(NewKey, String), KeyError> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid || name == "token" || name == "-" {
        return Err(KeyError::InvalidName(name.to_string()));
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| KeyError::Store {
        path: PathBuf::from("keys"),
        reason: e.to_string(),
    })?;
    let key = format!("dfk_{}", hex(&secret));
    let info = KeyInfo {
        name: name.to_string(),
        role,
        libraries,
        created_at: unix_now(),
    };
    let hash = hash(&key);
    Ok((NewKey { info, key }, hash))
}

/// Whether revoking `name` among `keys` would leave keys but none that may manage them.
pub(super) fn leaves_no_manager<'a>(
    keys: impl IntoIterator<Item = &'a KeyInfo>,
    name: &str,
) -> bool {
    let (mut found, mut any, mut manager) = (false, false, false);
    for key in keys {
        if key.name == name {
            found = true;
            continue;
        }
        any = true;
        manager |= key.manages_keys();
    }
    found && any && !manager
}

/// The key store and the audit log of a data directory.
pub struct EmbeddedKeys {
    path: PathBuf,
    db: Database,
    /// Keys by the hash of their secret: every request looks its key up here.
    by_hash: RwLock<HashMap<String, KeyInfo>>,
}

impl EmbeddedKeys {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path) -> Result<EmbeddedKeys, KeyError> {
        let fail = |e: &dyn std::fmt::Display| KeyError::Store {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let db = Database::create(path).map_err(|e| fail(&e))?;
        let txn = db.begin_write().map_err(|e| fail(&e))?;
        txn.open_table(KEYS).map_err(|e| fail(&e))?;
        txn.open_table(AUDIT).map_err(|e| fail(&e))?;
        txn.commit().map_err(|e| fail(&e))?;
        let store = EmbeddedKeys {
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
}

impl KeyStore for EmbeddedKeys {
    fn copy_to(&self, dest: &Path) -> Result<(), KeyError> {
        dupfinder_common::durable::copy_database(&self.db, dest, |from, to| {
            dupfinder_common::durable::copy_table(from, to, KEYS)?;
            dupfinder_common::durable::copy_table(from, to, AUDIT)
        })
        .map_err(|e| self.fail(e))
    }

    fn any(&self) -> bool {
        !self.by_hash.read().is_empty()
    }

    fn has_key_manager(&self) -> bool {
        self.by_hash.read().values().any(KeyInfo::manages_keys)
    }

    fn revoking_leaves_no_manager(&self, name: &str) -> bool {
        leaves_no_manager(self.by_hash.read().values(), name)
    }

    fn create(
        &self,
        name: &str,
        role: Role,
        libraries: Option<Vec<String>>,
    ) -> Result<NewKey, KeyError> {
        let (new, hash) = new_key(name, role, libraries)?;
        let stored = StoredKey {
            info: new.info.clone(),
            hash,
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
        self.by_hash.write().insert(stored.hash, new.info.clone());
        Ok(new)
    }

    fn list(&self) -> Result<Vec<KeyInfo>, KeyError> {
        Ok(self.stored()?.into_iter().map(|k| k.info).collect())
    }

    fn revoke(&self, name: &str) -> Result<(), KeyError> {
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

    fn find(&self, secret: &str) -> Option<KeyInfo> {
        self.by_hash.read().get(&hash(secret)).cloned()
    }

    fn audit(&self, mut entry: AuditEntry) -> Result<(), KeyError> {
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

    fn audit_log(&self, limit: usize, offset: usize) -> Result<(u64, Vec<AuditEntry>), KeyError> {
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

pub(super) fn hash(secret: &str) -> String {
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
            let store = EmbeddedKeys::open(&path).unwrap();
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
        let store = EmbeddedKeys::open(&path).unwrap();
        assert_eq!(store.find(&secret).unwrap().role, Role::Checker);
        assert_eq!(store.find("dfk_other"), None);
        store.revoke("portal").unwrap();
        assert_eq!(store.find(&secret), None);
        assert!(matches!(store.revoke("portal"), Err(KeyError::NotFound(_))));
    }

    #[test]
    fn a_key_manager_is_an_admin_key_not_limited_to_libraries() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedKeys::open(&dir.path().join("keys.redb")).unwrap();
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
        let store = EmbeddedKeys::open(&dir.path().join("keys.redb")).unwrap();
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
