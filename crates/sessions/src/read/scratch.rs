//! A private scratch directory under the system temp dir, removed with everything in it on drop.
//! Used when a file cannot be read in place without the reader writing beside it (see
//! `sqlite_open`): the copy, and whatever SQLite creates next to it, live here instead.
//! A process killed while holding one cannot run its drop, so the first scratch a process makes
//! also removes those of processes that are gone (its name carries the maker's pid).
use std::fs::{DirBuilder, File, Metadata, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

const PREFIX: &str = "agent-mux-";

#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Create a fresh directory only this user can enter (the copies are the user's sessions).
    pub fn new() -> std::io::Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        // A name clash (another process, a leftover) is retried with the next number; never
        // reuse an existing directory, which someone else may control.
        for _ in 0..16 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("{PREFIX}{}-{n}-{nanos:08x}", std::process::id()));
            let mut b = DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            match b.create(&dir) {
                Ok(()) => {
                    static CLEANED: Once = Once::new();
                    CLEANED.call_once(|| remove_stale(&base, &dir));
                    return Ok(Scratch { dir });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("no free scratch directory name"))
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Copy `from` into the directory as `name`, readable by this user only (0600), whatever
    /// the original's mode: these are copies of the user's sessions.
    pub fn copy_in(&self, from: &Path, name: &str) -> std::io::Result<PathBuf> {
        let to = self.dir.join(name);
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        std::io::copy(&mut File::open(from)?, &mut o.open(&to)?)?;
        Ok(to)
    }
}

/// Remove the scratch directories in `base` left by processes that are gone. Only real
/// directories named like ours and owned by the same user as `ours` (just made) are touched.
fn remove_stale(base: &Path, ours: &Path) {
    let Ok(ours) = std::fs::metadata(ours) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(maker_pid) else {
            continue;
        };
        let Ok(md) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if md.is_dir() && same_owner(&md, &ours) && maker_gone(pid, &md) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The pid in a scratch directory's name `agent-mux-<pid>-<n>-<8 hex digits>`.
fn maker_pid(name: &str) -> Option<u32> {
    let mut parts = name.strip_prefix(PREFIX)?.split('-');
    let (pid, n, nanos) = (parts.next()?, parts.next()?, parts.next()?);
    let ok = parts.next().is_none()
        && n.bytes().all(|b| b.is_ascii_digit())
        && nanos.len() == 8
        && nanos.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| pid.parse().ok()).flatten()
}

#[cfg(unix)]
fn same_owner(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.uid() == b.uid()
}

#[cfg(not(unix))]
fn same_owner(_: &Metadata, _: &Metadata) -> bool {
    true
}

/// Has the process that made a scratch directory ended? Linux says through /proc (a pid reused
/// since only delays the cleanup). Elsewhere a directory untouched for a day is taken as
/// abandoned: a scratch copy lives for one read.
fn maker_gone(pid: u32, md: &Metadata) -> bool {
    if pid == std::process::id() {
        return false;
    }
    if cfg!(target_os = "linux") {
        return !Path::new("/proc").join(pid.to_string()).exists();
    }
    md.modified()
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > std::time::Duration::from_secs(24 * 3600))
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_private_unique_and_removed_on_drop() {
        let a = Scratch::new().unwrap();
        let b = Scratch::new().unwrap();
        assert_ne!(a.path(), b.path());
        std::fs::write(a.path().join("f"), b"x").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        let p = a.path().to_path_buf();
        drop(a);
        assert!(!p.exists());
        assert!(b.path().is_dir());
    }

    #[test]
    fn copies_are_private_whatever_the_original() {
        let s = Scratch::new().unwrap();
        let src = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(src.path(), b"db").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(src.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let copy = s.copy_in(src.path(), "copy.db").unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), b"db");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&copy).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(
            s.copy_in(src.path(), "copy.db").is_err(),
            "never over an existing file"
        );
    }

    #[test]
    fn only_names_we_make_are_ours() {
        assert_eq!(maker_pid("agent-mux-123-0-0000abcd"), Some(123));
        for other in [
            "agent-mux-123-0",
            "agent-mux-x-0-0000abcd",
            "agent-mux-123-0-0000abcd-1",
            "agent-mux-123-0-abcd",
            "amux-123-0-0000abcd",
        ] {
            assert_eq!(maker_pid(other), None, "{other}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn leftovers_of_ended_processes_go_and_the_living_stay() {
        let base = tempfile::tempdir().unwrap();
        let ours = base
            .path()
            .join(format!("{PREFIX}{}-0-00000000", std::process::id()));
        std::fs::create_dir(&ours).unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let stale = base.path().join(format!("{PREFIX}{gone}-3-0000abcd"));
        std::fs::create_dir_all(stale.join("inner")).unwrap();
        std::fs::write(stale.join("copy.db-wal"), b"w").unwrap();
        // pid 1 never ends; a file and a symlink named like scratch dirs are not touched.
        let living = base.path().join(format!("{PREFIX}1-0-0000abcd"));
        std::fs::create_dir(&living).unwrap();
        let file = base.path().join(format!("{PREFIX}{gone}-4-0000abcd"));
        std::fs::write(&file, b"").unwrap();
        let target = tempfile::tempdir().unwrap();
        std::fs::write(target.path().join("keep"), b"").unwrap();
        let link = base.path().join(format!("{PREFIX}{gone}-5-0000abcd"));
        std::os::unix::fs::symlink(target.path(), &link).unwrap();
        remove_stale(base.path(), &ours);
        assert!(!stale.exists());
        assert!(ours.is_dir() && living.is_dir() && file.is_file());
        assert!(link.is_symlink() && target.path().join("keep").exists());
    }
}
