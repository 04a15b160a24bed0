//! Directory walking that stays inside a store: regular files only (no FIFOs or devices, which
//! would block a read), symlinked directories never followed (no loops, no escape).
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Size, modification time and inode of one file: what the caches key on (a file replaced by
/// another of the same size and time is still another file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i128,
    /// 0 where the platform has none.
    pub inode: u64,
}

/// `Stamp` of a regular file (following a final symlink to a regular file inside the same tree is
/// the caller's choice; this reports what `metadata` sees), `None` for anything else.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let md = fs::metadata(path).ok()?;
    if !md.is_file() {
        return None;
    }
    let mtime_ns = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0);
    Some(Stamp {
        size: md.len(),
        mtime_ns,
        inode: inode(&md),
    })
}

#[cfg(unix)]
fn inode(md: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(md)
}

#[cfg(not(unix))]
fn inode(_: &fs::Metadata) -> u64 {
    0
}

/// A file's modification time: the last resort for session dates when no record has one.
pub fn mtime(path: &Path) -> Option<crate::model::Timestamp> {
    let s = stamp(path)?;
    Some(chrono::DateTime::from_timestamp_nanos(s.mtime_ns as i64))
}

/// Is `path` a regular file reached without a symlink at the last step?
pub fn is_plain_file(path: &Path) -> bool {
    fs::symlink_metadata(path)
        .map(|m| m.file_type().is_file())
        .unwrap_or(false)
}

/// A directory's regular files and real directories (symlinks, FIFOs and devices left out),
/// each sorted, from one read of it: the entry types come with the listing, nothing is stat'ed.
#[derive(Default)]
pub struct Listing {
    pub files: Vec<PathBuf>,
    pub dirs: Vec<PathBuf>,
}

pub fn list(dir: &Path) -> Listing {
    let mut out = Listing::default();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    for e in rd.filter_map(|e| e.ok()) {
        match e.file_type() {
            Ok(t) if t.is_file() => out.files.push(e.path()),
            Ok(t) if t.is_dir() => out.dirs.push(e.path()),
            _ => {}
        }
    }
    // The paths share `dir`, so their bytes sort as their names: the same order as comparing
    // paths (component by component), without splitting tens of thousands of them each time.
    out.files
        .sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    out.dirs
        .sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    out
}

/// Entries of a directory that are real directories (symlinks to directories are skipped).
pub fn subdirs(dir: &Path) -> Vec<PathBuf> {
    list(dir).dirs
}

impl Listing {
    /// The listing with only the files whose name satisfies `keep`.
    pub fn files_named(mut self, keep: impl Fn(&str) -> bool) -> Listing {
        self.files
            .retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep));
        self
    }
}

/// Regular files (not symlinks, FIFOs or devices) directly in `dir` whose name satisfies `keep`.
pub fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    list(dir).files_named(keep).files
}

/// Regular files under `root` down to `max_depth` levels of real directories whose name satisfies
/// `keep`. Symlinked directories are not entered, so loops and links out of the store are harmless.
pub fn walk_files(root: &Path, max_depth: usize, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk_into(root, max_depth, keep, &mut out);
    out
}

/// `walk_files` appending to `out`: one vector for the whole walk, not one per directory moved
/// into its parent's (Codex's date tree is hundreds of directories).
fn walk_into(root: &Path, max_depth: usize, keep: &dyn Fn(&str) -> bool, out: &mut Vec<PathBuf>) {
    // One listing gives both the files and the directories to enter.
    let Listing { files, dirs } = list(root).files_named(keep);
    out.extend(files);
    if max_depth > 0 {
        for d in dirs {
            walk_into(&d, max_depth - 1, keep, out);
        }
    }
}

/// `found` without the files that `shadowed` says another file of `found` stands in for (a
/// compressed or legacy copy beside the one to read), in order; the paths are moved, not copied.
pub fn without_shadowed(
    found: Vec<PathBuf>,
    shadowed: impl Fn(&Path, &[PathBuf]) -> bool,
) -> impl Iterator<Item = PathBuf> {
    let drop: Vec<bool> = found.iter().map(|p| shadowed(p, &found)).collect();
    found
        .into_iter()
        .zip(drop)
        .filter_map(|(p, drop)| (!drop).then_some(p))
}

/// Read a whole small file (JSON documents, metadata) with a size cap so a hostile store cannot
/// make us allocate without bound.
pub fn read_capped(path: &Path, max_bytes: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let f = fs::File::open(path)?;
    let mut buf = Vec::new();
    f.take(max_bytes + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > max_bytes {
        return Err(std::io::Error::other(format!(
            "{} is larger than {max_bytes} bytes",
            path.display()
        )));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn walk_skips_symlink_loops_and_fifos() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/x.jsonl"), "{}\n").unwrap();
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("a/out.jsonl")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("a/fifo.jsonl"))
            .status()
            .unwrap();
        assert!(status.success());
        let found = walk_files(root, 5, &|n: &str| n.ends_with(".jsonl"));
        assert_eq!(found, vec![root.join("a/b/x.jsonl")]);
    }
}
