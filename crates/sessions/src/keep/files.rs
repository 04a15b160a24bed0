//! How the kept store writes: directories 0700, files 0600, every file written whole under
//! another name, fsynced and renamed, so that a reader (or a process killed midway) never sees
//! half of one; and a lock for the writers of the catalog.
use std::io::Write;
use std::path::Path;

pub use crate::read::fs::private_dir;

/// A new file 0600 for writing (truncated).
pub fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// Write `bytes` to `path` atomically: a temporary name beside it, fsynced, renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_renamed(path, bytes, true)
}

/// The same, without the fsync when `batched`: for the many files of one large batch (chunks,
/// manifests), which the batch makes durable at once (`sync_batch`) before anything names them.
/// Where there is no `syncfs`, each is fsynced.
pub fn write_batched(path: &Path, bytes: &[u8], batched: bool) -> std::io::Result<()> {
    write_renamed(path, bytes, !batched || !cfg!(target_os = "linux"))
}

/// Make every file of the store `dir` written so far durable: one `syncfs` rather than an fsync
/// per chunk (thousands, on a first keep).
pub fn sync_batch(dir: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let d = std::fs::File::open(dir)?;
        rustix::fs::syncfs(&d)?;
    }
    let _ = dir;
    Ok(())
}

fn write_renamed(path: &Path, bytes: &[u8], fsync: bool) -> std::io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = path.with_file_name(format!(".{name}.{}.{}.tmp", std::process::id(), unique()));
    let written = create_private(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        super::pause::at("before-fsync");
        match fsync {
            true => f.sync_all(),
            false => Ok(()),
        }
    });
    let renamed = written.and_then(|_| {
        super::pause::at("before-rename");
        std::fs::rename(&tmp, path)
    });
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// A number no other write of this process uses at the same time.
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The writers' lock of a kept store: held while the catalog and manifests are read, changed and
/// written, so that two processes keeping at once lose neither's versions.
pub struct Lock(#[allow(dead_code)] std::fs::File);

impl Lock {
    pub fn take(dir: &Path) -> std::io::Result<Lock> {
        let mut o = std::fs::OpenOptions::new();
        o.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        let f = o.open(dir.join("lock"))?;
        f.lock()?;
        Ok(Lock(f))
    }
}
