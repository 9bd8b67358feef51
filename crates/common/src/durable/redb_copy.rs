//! Consistent copies of the embedded stores: every table read in one read transaction and
//! written to a fresh database, so a copy taken while writes go on holds one commit's state.

use std::path::Path;

use redb::{
    Database, Key, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition, Value,
    WriteTransaction,
};

/// Copies `db`, as of one commit, into a new database at `dest`. `copy` names the tables, each
/// with [`copy_table`].
pub fn copy_database(
    db: &Database,
    dest: &Path,
    copy: impl FnOnce(&ReadTransaction, &WriteTransaction) -> Result<(), redb::Error>,
) -> Result<(), redb::Error> {
    let from = db.begin_read()?;
    let target = Database::create(dest)?;
    let to = target.begin_write()?;
    copy(&from, &to)?;
    to.commit()?;
    Ok(())
}

/// Copies every row of `table`.
pub fn copy_table<K: Key + 'static, V: Value + 'static>(
    from: &ReadTransaction,
    to: &WriteTransaction,
    table: TableDefinition<K, V>,
) -> Result<(), redb::Error> {
    let source = from.open_table(table)?;
    let mut target = to.open_table(table)?;
    for row in source.iter()? {
        let (key, value) = row?;
        target.insert(key.value(), value.value())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS: TableDefinition<(&str, u64), &[u8]> = TableDefinition::new("rows");

    #[test]
    fn a_copy_holds_every_row_of_the_commit_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::create(dir.path().join("a.redb")).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut table = txn.open_table(ROWS).unwrap();
            for i in 0..100u64 {
                table.insert(("x", i), i.to_le_bytes().as_slice()).unwrap();
            }
        }
        txn.commit().unwrap();
        let dest = dir.path().join("b.redb");
        copy_database(&db, &dest, |from, to| copy_table(from, to, ROWS)).unwrap();
        let copy = Database::open(&dest).unwrap();
        let read = copy.begin_read().unwrap();
        let table = read.open_table(ROWS).unwrap();
        assert_eq!(table.iter().unwrap().count(), 100);
        assert_eq!(
            table.get(("x", 42)).unwrap().unwrap().value(),
            42u64.to_le_bytes().as_slice()
        );
    }
}
