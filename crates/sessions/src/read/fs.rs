//! Directory walking that stays inside a store: regular files only (no FIFOs or devices, which
//! would block a read), symlinked directories never followed (no loops, no escape).
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::context::{Context, SkipKind};

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

/// `stamp` of every path, in order, stat'ed in parallel. A run of paths in one directory is
/// stat'ed relative to that directory, opened once: the kernel then looks up one name per file,
/// not every component of its path again.
pub fn stamps(paths: &[&Path]) -> Vec<Option<Stamp>> {
    use rayon::prelude::*;
    #[cfg(unix)]
    {
        let mut dirs: Vec<Option<rustix::fd::OwnedFd>> = Vec::new();
        let mut dir_of = Vec::with_capacity(paths.len());
        let mut current: Option<&Path> = None;
        for p in paths {
            if p.parent() != current || dirs.is_empty() {
                current = p.parent();
                dirs.push(current.and_then(open_dir));
            }
            dir_of.push(dirs.len() - 1);
        }
        paths
            .par_iter()
            .zip(dir_of)
            .map(|(p, d)| match (&dirs[d], p.file_name()) {
                (Some(dir), Some(name)) => stamp_at(dir, name),
                _ => stamp(p),
            })
            .collect()
    }
    #[cfg(not(unix))]
    {
        paths.par_iter().map(|p| stamp(p)).collect()
    }
}

#[cfg(unix)]
fn open_dir(dir: &Path) -> Option<rustix::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    rustix::fs::open(dir, flags, Mode::empty()).ok()
}

/// `stamp` of the file `name` in the opened directory `dir` (a final symlink followed, as
/// `metadata` does; a time before 1970 is 0, as `stamp` reads it).
#[cfg(unix)]
fn stamp_at(dir: &rustix::fd::OwnedFd, name: &std::ffi::OsStr) -> Option<Stamp> {
    use rustix::fs::{AtFlags, FileType};
    let st = rustix::fs::statat(dir, name, AtFlags::empty()).ok()?;
    if FileType::from_raw_mode(st.st_mode as _) != FileType::RegularFile {
        return None;
    }
    let mtime_ns = match st.st_mtime {
        s if s < 0 => 0,
        s => s as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
    };
    Some(Stamp {
        size: st.st_size as u64,
        mtime_ns,
        inode: st.st_ino as u64,
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
    /// Entries that are neither (symlinks, FIFOs, sockets, devices), and after `files_named` the
    /// directories bearing a kept name: never read as files, but a caller can tell that it
    /// passed them over (`noted`).
    pub others: Vec<PathBuf>,
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
            _ => out.others.push(e.path()),
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
        let named = |p: &PathBuf| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep);
        self.files.retain(named);
        self.others.retain(named);
        // A directory bearing a file's name is passed over as well (and still walked into).
        self.others
            .extend(self.dirs.iter().filter(|d| named(d)).cloned());
        self
    }

    /// The listing after telling `ctx` of the entries passed over that bear a session file's
    /// name (`files_named` first): a symlink, a FIFO, a dangling link where a file was expected.
    pub fn noted(mut self, ctx: &Context) -> Listing {
        let others = std::mem::take(&mut self.others);
        if ctx.notes_wanted() {
            for p in others {
                ctx.note(&p, SkipKind::Unreadable, not_a_file(&p));
            }
        }
        self
    }
}

/// What stands at `path` instead of a regular file, as a note says it.
pub fn not_a_file(path: &Path) -> String {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => match fs::metadata(path) {
            Ok(_) => "a symlink (links are not followed)".to_string(),
            Err(_) => "a dangling symlink".to_string(),
        },
        Ok(m) if m.is_dir() => "a directory, not a file".to_string(),
        Ok(_) => "not a regular file (a FIFO, socket or device)".to_string(),
        Err(e) => format!("cannot be read: {e}"),
    }
}

/// `files`, telling `ctx` of the entries bearing such a name that are not regular files.
pub fn files_noted(ctx: &Context, dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    list(dir).files_named(keep).noted(ctx).files
}

/// Regular files (not symlinks, FIFOs or devices) directly in `dir` whose name satisfies `keep`.
pub fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    list(dir).files_named(keep).files
}

/// Regular files under `root` down to `max_depth` levels of real directories whose name satisfies
/// `keep`. Symlinked directories are not entered, so loops and links out of the store are harmless.
/// Entries bearing such a name that are not regular files are told to `ctx` (`Listing::noted`).
pub fn walk_files(
    ctx: &Context,
    root: &Path,
    max_depth: usize,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk_into(ctx, root, max_depth, keep, &mut out);
    out
}

/// `walk_files` appending to `out`: one vector for the whole walk, not one per directory moved
/// into its parent's (Codex's date tree is hundreds of directories).
fn walk_into(
    ctx: &Context,
    root: &Path,
    max_depth: usize,
    keep: &dyn Fn(&str) -> bool,
    out: &mut Vec<PathBuf>,
) {
    // One listing gives both the files and the directories to enter.
    let Listing { files, dirs, .. } = list(root).files_named(keep).noted(ctx);
    out.extend(files);
    if max_depth > 0 {
        for d in dirs {
            walk_into(ctx, &d, max_depth - 1, keep, out);
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

/// Read into `buf` until it is full or the file ends: the bytes read (fewer only at the end).
pub fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match std::io::Read::read(f, &mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Create `dir` (and its parents) owner-only if it does not exist: what we write there holds
/// session text.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The umask may have taken bits away, never added any; set exactly 0700.
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stat'ed together, relative to their directories, the files read as one at a time: a
    /// final symlink followed, anything but a regular file (or nothing) `None`, runs of one
    /// directory interrupted by another, a directory that cannot be opened.
    #[cfg(unix)]
    #[test]
    fn stamps_read_each_file_as_stamp_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/sub")).unwrap();
        fs::create_dir_all(root.join("b")).unwrap();
        fs::write(root.join("a/one.jsonl"), "{}\n").unwrap();
        fs::write(root.join("a/two.jsonl"), "{\"x\":1}\n").unwrap();
        fs::write(root.join("b/three.jsonl"), "").unwrap();
        std::os::unix::fs::symlink(root.join("a/two.jsonl"), root.join("b/link.jsonl")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("b/dirlink")).unwrap();
        let old = std::time::UNIX_EPOCH - std::time::Duration::from_secs(86_400);
        let before_1970 = root.join("b/old.jsonl");
        fs::write(&before_1970, "old").unwrap();
        let f = fs::File::options().write(true).open(&before_1970).unwrap();
        f.set_modified(old).unwrap();
        let paths: Vec<PathBuf> = [
            "a/one.jsonl",
            "a/two.jsonl",
            "b/three.jsonl",
            "a/sub",
            "a/gone.jsonl",
            "b/link.jsonl",
            "b/dirlink",
            "b/old.jsonl",
            "nowhere/x.jsonl",
            "a/one.jsonl",
        ]
        .iter()
        .map(|p| root.join(p))
        .chain([PathBuf::from("/")])
        .collect();
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let want: Vec<Option<Stamp>> = refs.iter().map(|p| stamp(p)).collect();
        assert_eq!(stamps(&refs), want);
        let found = want.iter().filter(|s| s.is_some()).count();
        assert_eq!(found, 6, "{want:?}");
        assert_eq!(want[7].unwrap().mtime_ns, 0);
    }

    #[cfg(unix)]
    #[test]
    fn walk_skips_symlink_loops_and_fifos() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/x.jsonl"), "{}\n").unwrap();
        fs::create_dir_all(root.join("a/d.jsonl")).unwrap();
        std::os::unix::fs::symlink(root, root.join("a/loop")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("a/out.jsonl")).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(root.join("a/fifo.jsonl"))
            .status()
            .unwrap();
        assert!(status.success());
        let (ctx, notes) = Context::with_env(crate::env::Env::default()).noting();
        let found = walk_files(&ctx, root, 5, &|n: &str| n.ends_with(".jsonl"));
        assert_eq!(found, vec![root.join("a/b/x.jsonl")]);
        // What bears a session file's name and was passed over is told, and why; the loop,
        // named otherwise, is not.
        let mut noted: Vec<(PathBuf, String)> = (notes.taken().into_iter())
            .map(|n| (n.path, n.detail))
            .collect();
        noted.sort();
        assert_eq!(
            noted,
            vec![
                (root.join("a/d.jsonl"), "a directory, not a file".into()),
                (
                    root.join("a/fifo.jsonl"),
                    not_a_file(&root.join("a/fifo.jsonl"))
                ),
                (
                    root.join("a/out.jsonl"),
                    "a symlink (links are not followed)".into()
                ),
            ]
        );
        assert!(noted[1].1.contains("FIFO"));
    }
}
