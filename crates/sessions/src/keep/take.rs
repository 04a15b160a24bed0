//! Taking a copy of one source: its file and side files cut into chunks and stored (only the
//! chunks not stored yet are compressed and written), as a new version of its manifest.
//!
//! A database is cut into chunks of a fixed size that is a multiple of every SQLite page size,
//! so a change rewrites only the chunks of the pages it touched. Any other file (a transcript,
//! a `-wal`) that only grew since it was kept keeps its chunks but the last, which is checked
//! against the file and cut again with what was added: a session that grows costs what it added.
use std::io::{Seek, SeekFrom};
use std::path::Path;

use super::chunks;
use super::manifest::{stamps_of, KeptFile, KeptSession, Manifest, Version};
use crate::agents::Source;
use crate::read::fs::read_full;

/// A database's chunks: 64 KiB, aligned to pages of any size SQLite allows.
const DB_CHUNK: usize = 64 << 10;
/// Any other file's: larger, for a better ratio; an append re-reads at most one.
const FILE_CHUNK: usize = 256 << 10;

/// A new version of `src` (stored), given the manifest as last kept; the compressed bytes written.
pub fn version(
    dir: &Path,
    src: &Source,
    prev: Option<&Manifest>,
    sessions: Vec<KeptSession>,
    now_ms: i64,
    batched: bool,
) -> std::io::Result<(Version, u64)> {
    let (files, wrote) = files(dir, src, prev, batched)?;
    Ok((of_files(src, files, sessions, now_ms), wrote))
}

/// The version of `src` made of `files` (stored by `files`).
pub fn of_files(
    src: &Source,
    files: Vec<Option<KeptFile>>,
    sessions: Vec<KeptSession>,
    now_ms: i64,
) -> Version {
    Version {
        kept_ms: now_ms,
        stamps: stamps_of(&src.stamps),
        files,
        sessions,
    }
}

/// The file and side files of `src` stored as chunks (`None`: a side file that does not exist),
/// given the manifest as last kept; the compressed bytes written.
pub fn files(
    dir: &Path,
    src: &Source,
    prev: Option<&Manifest>,
    batched: bool,
) -> std::io::Result<(Vec<Option<KeptFile>>, u64)> {
    let last = prev.and_then(|m| m.versions.last());
    let mut files = Vec::with_capacity(src.stamps.len());
    let mut wrote = 0;
    let paths = std::iter::once(&src.path).chain(&src.side_files);
    for (i, (path, stamp)) in paths.zip(&src.stamps).enumerate() {
        if *stamp == Default::default() {
            files.push(None); // a side file that does not exist
            continue;
        }
        let before = last.and_then(|v| {
            let same_file = v.stamps.get(i).is_some_and(|s| s.2 == stamp.inode);
            v.files.get(i)?.as_ref().filter(|_| same_file)
        });
        let (kept, n) = keep_file(dir, path, before, batched)?;
        wrote += n;
        files.push(Some(kept));
    }
    Ok((files, wrote))
}

/// `path` as chunks, reusing `before`'s when the file only grew since.
fn keep_file(
    dir: &Path,
    path: &Path,
    before: Option<&KeptFile>,
    batched: bool,
) -> std::io::Result<(KeptFile, u64)> {
    let mut f = std::fs::File::open(path)?;
    let mut head = [0u8; 16];
    let n = read_full(&mut f, &mut head)?;
    let db = head[..n] == *b"SQLite format 3\0";
    let size = if db { DB_CHUNK } else { FILE_CHUNK };
    let (mut chunks, mut offset) = (Vec::new(), 0u64);
    if let Some(b) = before.filter(|_| !db) {
        if let Some(kept) = grown_from(&mut f, b)? {
            chunks = kept;
            offset = chunks.iter().map(|c| c.1).sum();
        }
    }
    f.seek(SeekFrom::Start(offset))?;
    let mut wrote = 0;
    let mut buf = vec![0u8; size];
    loop {
        let n = read_full(&mut f, &mut buf)?;
        if n == 0 {
            break;
        }
        let (h, w) = chunks::put(dir, &buf[..n], batched)?;
        wrote += w;
        chunks.push((h, n as u64));
        offset += n as u64;
        if n < size {
            break;
        }
    }
    Ok((
        KeptFile {
            size: offset,
            chunks,
        },
        wrote,
    ))
}

/// The chunks of `before` that `f` still begins with, all but the last, when `f` holds at least
/// as much and its bytes at the last chunk's place are that chunk's: `None` when it was rewritten.
fn grown_from(
    f: &mut std::fs::File,
    before: &KeptFile,
) -> std::io::Result<Option<Vec<(String, u64)>>> {
    let Some((last_hash, last_len)) = before.chunks.last() else {
        return Ok(None);
    };
    if f.metadata()?.len() < before.size {
        return Ok(None);
    }
    let at = before.size - last_len;
    f.seek(SeekFrom::Start(at))?;
    let mut buf = vec![0u8; *last_len as usize];
    if read_full(f, &mut buf)? != buf.len() || chunks::hash(&buf) != *last_hash {
        return Ok(None);
    }
    Ok(Some(before.chunks[..before.chunks.len() - 1].to_vec()))
}
