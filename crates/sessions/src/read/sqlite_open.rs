//! Read-only SQLite opening that never creates or changes a file in the agent's directory (no
//! `-wal`, no `-shm`, no journal, no byte of an existing `-shm`) and still sees every committed
//! row of a WAL database, whether the agent is writing it now or exited without closing it.
//!
//! Every connection goes through the `ro_vfs` VFS, which cannot create, write or delete a `-wal`
//! or journal: what SQLite would otherwise do when the agent removes its `-wal` while we open.
//! What is beside the database decides how it is opened:
//! - rollback-journal database: `mode=ro`, shared locks only, creates nothing.
//! - WAL database without a `-wal` (or with an empty one and no `-shm`): everything is in the main
//!   file; `immutable=1` takes no locks, so SQLite never creates a `-wal` or `-shm` for it.
//! - `-wal` and `-shm` both present: `mode=ro&readonly_shm=1`. SQLite opens the `-shm` read-only:
//!   with a live writer it reads the writer's wal-index (taking only advisory locks); after a crash
//!   (stale `-shm`, nobody holding it) it rebuilds the index in its own heap from the `-wal`. Plain
//!   `mode=ro` would instead open the `-shm` read-write: write read-marks into it, and after a crash
//!   truncate and rebuild it in place.
//! - `-wal` without `-shm` (the agent exited uncleanly and the `-shm` was removed, or the store was
//!   copied without it): SQLite cannot read the `-wal` without a `-shm` and would create one. The
//!   database and its `-wal` are copied into a private scratch directory and the copy is opened;
//!   the copy is removed when the connection is dropped. No live writer can exist (it would hold
//!   a `-shm`), so the files are stable; a writer starting during the copy is detected by
//!   comparing sizes and times before and after, and the open starts over.
//!
//! Every connection holds one read transaction from its open to its drop: all of a call's queries
//! see the same snapshot (a session and its messages from the same commit), and a read-only
//! reader of a live WAL database meets SQLite's transient "cannot use the wal-index now" errors
//! (SQLITE_READONLY_CANTINIT/RECOVERY, SQLITE_BUSY) only while opening, where they are retried
//! after a short wait, never in the middle of a read.
use rusqlite::{Connection, OpenFlags};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::scratch::Scratch;
use crate::error::{Error, Result};

/// A read-only connection, and the private copy it reads when the database could not be read in
/// place (declared after `conn` so the connection closes before the copy is removed).
#[derive(Debug)]
pub struct ReadOnlyDb {
    conn: Connection,
    _copy: Option<Scratch>,
}

impl ReadOnlyDb {
    /// Was the database read from a private copy rather than in place?
    pub fn is_copy(&self) -> bool {
        self._copy.is_some()
    }
}

impl Deref for ReadOnlyDb {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// How to open one database, decided from its header and the files beside it.
#[derive(Debug, PartialEq)]
enum Plan {
    InPlace(&'static str),
    Copy,
}

const ATTEMPTS: u32 = 5;
/// How long SQLite waits for a writer holding a lock before a read fails.
const BUSY: Duration = Duration::from_millis(2000);

/// Open `path` read-only as described above. Errors name the path and say why.
pub fn open_read_only(path: &Path) -> Result<ReadOnlyDb> {
    let header = read_header(path).map_err(|e| Error::parse(path.display(), e))?;
    if &header[..16] != b"SQLite format 3\0" {
        return Err(Error::parse(path.display(), "not a SQLite database"));
    }
    let wal_mode = header[18] == 2 || header[19] == 2;
    let mut last: Option<String> = None;
    let began = Instant::now();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            // Give the writer time to finish what made the files unusable: 5, 10, 20, 40 ms.
            std::thread::sleep(Duration::from_millis(5 << (attempt - 1)));
        }
        let attempt = match plan(path, wal_mode) {
            Plan::InPlace(params) => match open_uri(path, params) {
                Ok(conn) => Ok(Some(no_copy(conn))),
                // A lock held past the busy wait is a writer's long transaction, not a race:
                // asking again would make the caller wait that long at each attempt.
                Err(e) if retryable(&e) && !(busy(&e) && began.elapsed() >= BUSY) => {
                    last = Some(e.to_string());
                    Ok(None)
                }
                Err(e) => Err(Error::parse(path.display(), e)),
            },
            Plan::Copy => open_copy(path),
        };
        match attempt {
            Ok(Some(db)) => return Ok(db),
            // The files changed under us (a writer started, or its -shm came or went): decide again.
            Ok(None) => {}
            Err(e) => return Err(e),
        }
    }
    let why = last.unwrap_or_else(|| "kept changing while being read".to_string());
    Err(Error::parse(path.display(), why))
}

fn no_copy(conn: Connection) -> ReadOnlyDb {
    ReadOnlyDb { conn, _copy: None }
}

fn plan(path: &Path, wal_mode: bool) -> Plan {
    if !wal_mode {
        return Plan::InPlace("mode=ro");
    }
    let wal = file_len(&sidecar(path, "-wal"));
    let shm = sidecar(path, "-shm").is_file();
    match wal {
        None => Plan::InPlace("immutable=1"),
        Some(_) if shm => Plan::InPlace("mode=ro&readonly_shm=1"),
        Some(0) => Plan::InPlace("immutable=1"),
        Some(_) => Plan::Copy,
    }
}

/// A race with the agent (its `-shm` appeared or vanished between our look and SQLite's, or no
/// read-mark was free for a read-only reader) is worth deciding again; anything else is final.
fn retryable(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::{CannotOpen, DatabaseBusy, ReadOnly};
    matches!(
        e.sqlite_error_code(),
        Some(CannotOpen | ReadOnly | DatabaseBusy)
    )
}

fn busy(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
}

fn open_uri(path: &Path, params: &str) -> rusqlite::Result<Connection> {
    let uri = format!("file:{}?{params}", encode_uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let vfs = super::ro_vfs::ensure_registered().map_err(|rc| {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rc),
            Some("cannot register the read-only VFS".into()),
        )
    })?;
    let conn = Connection::open_with_flags_and_vfs(&uri, flags, vfs)?;
    // Closing never checkpoints (it could not write anyway; this makes it not even try).
    let _ = conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    );
    // A writer holding a lock briefly should not fail a read.
    let _ = conn.busy_timeout(BUSY);
    // Start the connection's one read transaction and touch the schema now, so a file that is
    // not a database (or a -wal that cannot be read) fails here, with its path.
    conn.execute_batch("BEGIN")?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })?;
    Ok(conn)
}

/// Copy the database and its `-wal` into a scratch directory and open the copy; `Ok(None)` when
/// the originals changed while being copied.
fn open_copy(path: &Path) -> Result<Option<ReadOnlyDb>> {
    let fail =
        |e: &dyn std::fmt::Display| Error::parse(path.display(), format!("private copy: {e}"));
    let before = stamp(path);
    let scratch = Scratch::new().map_err(|e| fail(&e))?;
    let copied = scratch.copy_in(path, "copy.db").and_then(|copy| {
        scratch.copy_in(&sidecar(path, "-wal"), "copy.db-wal")?;
        Ok(copy)
    });
    let copy = match copied {
        Ok(copy) => copy,
        // The agent removed its -wal (it checkpointed and closed) after we looked: decide again.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail(&e)),
    };
    if stamp(path) != before {
        return Ok(None);
    }
    let conn = open_uri(&copy, "mode=ro").map_err(|e| Error::parse(path.display(), e))?;
    Ok(Some(ReadOnlyDb {
        conn,
        _copy: Some(scratch),
    }))
}

/// Size and modification time of the database and its `-wal`, and whether a `-shm` exists.
type Stamp = [(Option<u64>, Option<SystemTime>); 2];
fn stamp(path: &Path) -> (Stamp, bool) {
    let one = |p: &Path| match std::fs::metadata(p) {
        Ok(m) => (Some(m.len()), m.modified().ok()),
        Err(_) => (None, None),
    };
    (
        [one(path), one(&sidecar(path, "-wal"))],
        sidecar(path, "-shm").exists(),
    )
}

fn file_len(p: &Path) -> Option<u64> {
    std::fs::metadata(p)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

fn read_header(path: &Path) -> std::io::Result<[u8; 100]> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut buf = [0u8; 100];
    f.read_exact(&mut buf)
        .map_err(|_| std::io::Error::other("too short to be a SQLite database"))?;
    Ok(buf)
}

pub(super) fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Percent-encode the characters that are special in a SQLite URI path.
fn encode_uri_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' | '?' | '#' | ' ' => out.push_str(&format!("%{:02X}", c as u32)),
            '\\' => out.push('/'),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    /// Name and hash of the bytes of every file in `dir`: equal before and after proves nothing
    /// was created, removed or written.
    fn snapshot(dir: &Path) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let mut h = DefaultHasher::new();
                std::fs::read(e.path()).unwrap().hash(&mut h);
                (e.file_name().to_string_lossy().into_owned(), h.finish())
            })
            .collect();
        v.sort();
        v
    }

    fn names(dir: &Path) -> Vec<String> {
        snapshot(dir).into_iter().map(|(n, _)| n).collect()
    }

    fn count(c: &Connection) -> i64 {
        c.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap()
    }

    /// A WAL database as an agent leaves it when it exits without closing: `-wal` (and, when
    /// `with_shm`, a stale `-shm`) beside the main file, no process holding it. Built by copying
    /// the files of an open writer, so the three committed rows live only in the `-wal`.
    fn crashed_wal_db(dir: &Path, with_shm: bool) -> PathBuf {
        let live = tempfile::tempdir().unwrap();
        let src = live.path().join("state.db");
        let w = Connection::open(&src).unwrap();
        // The (empty) table reaches the main file; the rows stay in the -wal.
        w.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x);
             PRAGMA wal_checkpoint(TRUNCATE);",
        )
        .unwrap();
        for i in 0..3 {
            w.execute("INSERT INTO t VALUES (?1)", [i]).unwrap();
        }
        let db = dir.join("state.db");
        let mut suffixes = vec!["", "-wal"];
        if with_shm {
            suffixes.push("-shm");
        }
        for s in suffixes {
            std::fs::copy(sidecar(&src, s), sidecar(&db, s)).unwrap();
        }
        drop(w);
        assert_eq!(
            Connection::open_with_flags(
                format!("file:{}?immutable=1", db.display()),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI
            )
            .and_then(|c| c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0)))
            .unwrap(),
            0,
            "the main file alone holds none of the rows"
        );
        db
    }

    #[test]
    fn closed_wal_db_opens_without_creating_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("state db?.db");
        {
            let c = Connection::open(&db).unwrap();
            c.execute_batch(
                "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);",
            )
            .unwrap();
        }
        let before = snapshot(dir.path());
        let c = open_read_only(&db).unwrap();
        assert_eq!(count(&c), 1);
        assert!(!c.is_copy());
        drop(c);
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn rollback_journal_db_opens_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("plain.db");
        Connection::open(&db)
            .unwrap()
            .execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
            .unwrap();
        let before = snapshot(dir.path());
        let c = open_read_only(&db).unwrap();
        assert_eq!((count(&c), c.is_copy()), (2, false));
        drop(c);
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn sees_the_rows_committed_when_it_opened() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("live.db");
        let w = Connection::open(&db).unwrap();
        w.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x);")
            .unwrap();
        w.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let before = names(dir.path());
        let r = open_read_only(&db).unwrap();
        w.execute("INSERT INTO t VALUES (2)", []).unwrap();
        // One snapshot per connection: the open saw one row; a new open sees both.
        assert_eq!(count(&r), 1);
        assert!(!r.is_copy());
        assert_eq!(count(&open_read_only(&db).unwrap()), 2);
        assert_eq!(names(dir.path()), before);
    }

    #[test]
    fn crashed_wal_without_shm_is_read_from_a_private_copy() {
        let dir = tempfile::tempdir().unwrap();
        let db = crashed_wal_db(dir.path(), false);
        let before = snapshot(dir.path());
        let c = open_read_only(&db).unwrap();
        assert_eq!(count(&c), 3, "the rows committed only in the -wal are seen");
        assert!(c.is_copy());
        assert_eq!(snapshot(dir.path()), before, "no -shm created while open");
        let copy = c.path().map(PathBuf::from).unwrap();
        assert!(!copy.starts_with(dir.path()));
        drop(c);
        assert_eq!(snapshot(dir.path()), before);
        assert!(!copy.exists(), "the private copy is removed on drop");
        assert!(!copy.parent().unwrap().exists());
    }

    /// The -wal the plan saw is gone when it is copied (its writer checkpointed and closed):
    /// the copy is given up to decide again, and the open then reads the database in place.
    #[test]
    fn a_wal_gone_before_its_copy_is_decided_again() {
        let dir = tempfile::tempdir().unwrap();
        let db = crashed_wal_db(dir.path(), false);
        assert!(open_copy(&db).unwrap().is_some());
        std::fs::remove_file(sidecar(&db, "-wal")).unwrap();
        assert!(open_copy(&db).unwrap().is_none());
        let c = open_read_only(&db).unwrap();
        assert!(!c.is_copy());
    }

    #[test]
    fn crashed_wal_with_stale_shm_leaves_the_shm_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let db = crashed_wal_db(dir.path(), true);
        let before = snapshot(dir.path());
        let c = open_read_only(&db).unwrap();
        assert_eq!(count(&c), 3);
        assert!(!c.is_copy(), "read in place, wal-index rebuilt in our heap");
        drop(c);
        assert_eq!(snapshot(dir.path()), before, "-shm bytes unchanged");
    }

    /// A read-only directory and read-only files. Root ignores these permissions, so there this
    /// proves the same as the tests above; as any other user it proves nothing needs to be created.
    #[cfg(unix)]
    #[test]
    fn read_only_directory_and_read_only_shm() {
        use std::os::unix::fs::PermissionsExt;
        let ro =
            |p: &Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode));
        for with_shm in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let db = crashed_wal_db(dir.path(), with_shm);
            for s in ["", "-wal", "-shm"] {
                let _ = ro(&sidecar(&db, s), 0o444);
            }
            ro(dir.path(), 0o555).unwrap();
            let before = snapshot(dir.path());
            let c = open_read_only(&db).unwrap();
            assert_eq!((count(&c), c.is_copy()), (3, !with_shm));
            drop(c);
            assert_eq!(snapshot(dir.path()), before, "with_shm={with_shm}");
            ro(dir.path(), 0o755).unwrap();
        }
    }

    /// A writer in another process (Python's sqlite3), as an agent would be: the reader sees its
    /// committed rows, and neither creates a file nor writes a byte of the writer's `-shm` (plain
    /// `mode=ro` would store a read-mark in it).
    #[test]
    fn live_writer_in_another_process() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("state.db");
        let script = r#"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("CREATE TABLE t(x)")
for line in sys.stdin:
    n = int(line)
    for i in range(n):
        c.execute("INSERT INTO t VALUES (?)", (i,))
    print("ok", flush=True)
"#;
        let child = Command::new("python3")
            .args(["-c", script])
            .arg(&db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("skipping: python3 not available");
            return;
        };
        let mut input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let mut step = |n: usize| {
            writeln!(input, "{n}").unwrap();
            let mut line = String::new();
            output.read_line(&mut line).unwrap();
            assert_eq!(line.trim(), "ok");
        };
        step(3);
        let before = snapshot(dir.path());
        assert_eq!(
            names(dir.path()),
            ["state.db", "state.db-shm", "state.db-wal"]
        );
        let r = open_read_only(&db).unwrap();
        assert_eq!((count(&r), r.is_copy()), (3, false));
        assert_eq!(
            snapshot(dir.path()),
            before,
            "no byte written by the reader"
        );
        step(2);
        assert_eq!(count(&r), 3, "one snapshot for the connection's life");
        drop(r);
        let r = open_read_only(&db).unwrap();
        assert_eq!(count(&r), 5, "a later commit is seen by the next open");
        drop(r);
        assert_eq!(
            names(dir.path()),
            ["state.db", "state.db-shm", "state.db-wal"]
        );
        drop(input); // end of input: the writer closes its connection and exits
        assert!(child.wait().unwrap().success());
    }

    /// The race an agent closing its database causes: the `-wal` is gone by the time SQLite opens
    /// it. SQLite would create it (read-only connections open it with O_CREAT); through the
    /// read-only VFS the open fails, as a retryable error, and nothing is created.
    #[test]
    fn a_wal_that_vanished_before_sqlite_opened_it_is_not_recreated() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("state.db");
        Connection::open(&db)
            .unwrap()
            .execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
        let before = snapshot(dir.path());
        assert_eq!(names(dir.path()), ["state.db"]);
        for params in ["mode=ro&readonly_shm=1", "mode=ro"] {
            let e = open_uri(&db, params).unwrap_err();
            assert!(retryable(&e), "{params}: {e}");
            assert_eq!(snapshot(dir.path()), before, "{params}");
        }
        // open_read_only itself decides again and reads the main file
        assert_eq!(count(&open_read_only(&db).unwrap()), 1);
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn not_a_database_is_a_parse_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("junk.db");
        std::fs::write(&db, b"hello").unwrap();
        let e = open_read_only(&db).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::ParseError);
        assert!(e.message.contains("junk.db"));
    }
}
