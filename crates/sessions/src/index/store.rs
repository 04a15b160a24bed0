//! The index database: one SQLite file in our cache directory, in WAL mode so readers never wait
//! for a writer (once its first build is written), with a short busy timeout so a second process
//! waits a little, then gives up (the caller then reads the stores instead).
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bumped whenever what is stored changes meaning; an index of another format is rebuilt. The
/// file name carries it too, so two versions of agent-mux on one machine keep their own files.
pub const FORMAT: i64 = 12;

/// How long a call waits for another process's write before reading the stores instead.
pub const BUSY: Duration = Duration::from_millis(1500);

pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(format!("index-v{FORMAT}.sqlite"))
}

/// Why the index could not be used.
#[derive(Debug)]
pub enum Fault {
    /// Damaged or of another format: removed, so the next call builds it afresh.
    Broken(String),
    /// Another process is writing it: left to that process.
    Busy(String),
    /// Anything else (a full or unwritable disk): left as it is.
    Unusable(String),
}

impl From<rusqlite::Error> for Fault {
    fn from(e: rusqlite::Error) -> Fault {
        use rusqlite::ErrorCode::*;
        match e.sqlite_error_code() {
            Some(DatabaseCorrupt | NotADatabase) => Fault::Broken(e.to_string()),
            Some(DatabaseBusy | DatabaseLocked) => Fault::Busy(e.to_string()),
            _ => Fault::Unusable(e.to_string()),
        }
    }
}

/// A column of another type than the schema's: the file is damaged.
impl From<rusqlite::types::FromSqlError> for Fault {
    fn from(e: rusqlite::types::FromSqlError) -> Fault {
        Fault::Broken(e.to_string())
    }
}

impl From<std::io::Error> for Fault {
    fn from(e: std::io::Error) -> Fault {
        Fault::Unusable(e.to_string())
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS source(
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL,
    path BLOB NOT NULL,
    -- what the summaries were read from (stamps and inode), NULL when not read
    list_key BLOB,
    summaries BLOB,
    list_error TEXT,
    -- when its latest session was last active (epoch ms), of the summaries read: a period's
    -- sessions are found without decoding the others' (index source_active)
    active INTEGER,
    -- the fingerprints of the sessions the summaries were read from (a database of many
    -- sessions: agents::ManySessions), NULL for other sources
    list_prints BLOB,
    -- what the documents were read from, NULL when not read
    search_key BLOB,
    -- the fingerprints of the sessions the documents were read from, as list_prints
    search_prints BLOB,
    -- sessions the source holds for search (0: unreadable)
    sessions INTEGER NOT NULL DEFAULT 0,
    -- 1: a restored kept copy, holding only the archived sessions it serves (index::archived)
    archived INTEGER NOT NULL DEFAULT 0,
    UNIQUE(agent, path)
);
-- what every call reads of every source to tell whether it changed (sync::compare), without
-- reading the rows themselves
CREATE INDEX IF NOT EXISTS source_fresh
    ON source(agent, archived, path, sessions, search_key, list_key);
CREATE INDEX IF NOT EXISTS source_active ON source(agent, active);
-- one searchable session: its summary as search reports it and its exact field lengths; its
-- terms are in the postings (`postings`), under this id
CREATE TABLE IF NOT EXISTS doc(
    id INTEGER PRIMARY KEY,
    source INTEGER NOT NULL,
    agent TEXT NOT NULL,
    summary BLOB NOT NULL,
    lengths BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS doc_by_source ON doc(source);
-- the generation of the postings that belong with this file: each write of documents commits
-- both under a new one, and a pair that differ is not read
CREATE TABLE IF NOT EXISTS postings(generation INTEGER NOT NULL);
INSERT INTO postings SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM postings);
";

/// Open (creating if needed) the index in `dir`.
pub fn open(dir: &Path) -> Result<Connection, Fault> {
    crate::read::fs::private_dir(dir)?;
    let path = path_in(dir);
    create_private(&path)?;
    let conn = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )?;
    conn.busy_timeout(BUSY)?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version != 0 && version != FORMAT {
        return Err(Fault::Broken(format!("index format {version}")));
    }
    // A new file's first build writes the whole index. In rollback-journal mode a page added
    // past the file's old end needs no copy in the journal, so each page is written once; WAL
    // writes it twice (the log, then the checkpoint), nearly doubling what a build writes.
    // `to_wal` switches the file once built.
    let journal = if version == 0 { "DELETE" } else { "WAL" };
    conn.pragma_update(None, "journal_mode", journal)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // A new file, or one made before an index was added to the schema.
    if version == 0 || !has_index(&conn, "source_fresh")? {
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE; {SCHEMA} {} PRAGMA user_version = {FORMAT}; COMMIT;",
            super::touches::SCHEMA
        ))?;
    }
    if version == 0 {
        // An upgrade's first index: the older format's file (often hundreds of MB) would
        // otherwise stay until `index clear`. An older agent-mux still in use rebuilds its own
        // once; a newer format's file is left alone. Failing to remove one is no fault.
        let _ = remove_formats(dir, |format| format < FORMAT as u64);
    }
    Ok(conn)
}

/// Put the file in WAL mode if it is not (a new file, just built): there readers never wait for
/// a writer. On a connection already in WAL this does nothing and takes no lock. Another process
/// holding the file past the busy timeout is no fault: the next `open` switches it, and a
/// connection still in rollback mode follows the file to WAL at its next transaction (SQLite
/// reads the mode from the file's header).
pub fn to_wal(conn: &Connection) {
    let _ = conn.pragma_update(None, "journal_mode", "WAL");
}

fn has_index(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// Create the database file readable by its owner only before SQLite opens it: SQLite gives its
/// `-wal` and `-shm` the database file's permissions.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path).map(drop)
}

/// Remove the index files of every format in `dir` (clearing the index is the user's word that
/// none is wanted, a newer version's included). Other files in `dir` are left alone.
pub fn remove_all(dir: &Path) -> std::io::Result<()> {
    remove_formats(dir, |_| true)
}

/// Remove the index files in `dir` of the formats `which` picks.
fn remove_formats(dir: &Path, which: impl Fn(u64) -> bool) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    for e in entries {
        let e = e?;
        if e.file_name()
            .to_str()
            .and_then(index_format)
            .is_some_and(&which)
        {
            remove_if_there(&e.path())?;
        }
    }
    Ok(())
}

/// Remove a file or the postings' directory; one already gone (another process cleared it first)
/// is no error.
fn remove_if_there(path: &Path) -> std::io::Result<()> {
    let removed = match path.is_dir() {
        true => std::fs::remove_dir_all(path),
        false => std::fs::remove_file(path),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The format of `index-v<format>.sqlite`, of its `-wal`, `-shm` and `-journal` (a first build
/// stopped midway leaves one) and of its `.postings` directory; `None` for other names.
fn index_format(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("index-v")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match &rest[digits..] {
        ".sqlite" | ".sqlite-wal" | ".sqlite-shm" | ".sqlite-journal" | ".postings" => {
            rest[..digits].parse().ok()
        }
        _ => None,
    }
}

/// Remove the index files in `dir` (this format's), if any.
pub fn remove(dir: &Path) -> std::io::Result<()> {
    remove_formats(dir, |format| format == FORMAT as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(conn: &Connection) -> String {
        conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_new_file_is_built_in_rollback_mode_then_put_in_wal() {
        let dir = tempfile::tempdir().unwrap();
        let building = open(dir.path()).unwrap();
        assert_eq!(journal(&building), "delete");
        to_wal(&building);
        assert_eq!(journal(&building), "wal");
        // The mode is the file's: a later open finds it in WAL.
        drop(building);
        assert_eq!(journal(&open(dir.path()).unwrap()), "wal");
    }

    #[test]
    fn a_building_connection_follows_the_file_another_open_put_in_wal() {
        let dir = tempfile::tempdir().unwrap();
        let building = open(dir.path()).unwrap();
        // Another process's call opens the file between two of the build's transactions.
        let other = open(dir.path()).unwrap();
        assert_eq!(journal(&other), "wal");
        building
            .execute("UPDATE postings SET generation = 5", [])
            .unwrap();
        assert_eq!(journal(&building), "wal");
        let generation: i64 = other
            .query_row("SELECT generation FROM postings", [], |r| r.get(0))
            .unwrap();
        assert_eq!(generation, 5);
        // A reader of the WAL file does not wait for the building connection's write.
        building.execute_batch("BEGIN IMMEDIATE").unwrap();
        building
            .execute("UPDATE postings SET generation = 6", [])
            .unwrap();
        let generation: i64 = other
            .query_row("SELECT generation FROM postings", [], |r| r.get(0))
            .unwrap();
        assert_eq!(generation, 5);
        building.execute_batch("COMMIT").unwrap();
    }
}
