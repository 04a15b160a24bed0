//! What was kept of one source: its versions, oldest first, each the chunks of its file and side
//! files and the sessions it held. One file per source, written whole and renamed (`files`),
//! closed by a checksum line so that a damaged or half-written manifest is told from a good one.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files;
use crate::read::fs::Stamp;

/// The format this build writes and reads; a manifest of another is left as it is, unserved.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub agent: String,
    pub path: PathBuf,
    pub side_files: Vec<PathBuf>,
    /// Oldest first; the last is what the source held when last kept.
    pub versions: Vec<Version>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Version {
    /// When it was kept (epoch milliseconds).
    pub kept_ms: i64,
    /// The source's stamps when it was read: `(size, mtime_ns, inode)`, main file first.
    pub stamps: Vec<(u64, i128, u64)>,
    /// The main file, then each side file (`None`: it did not exist).
    pub files: Vec<Option<KeptFile>>,
    /// The sessions this version holds.
    pub sessions: Vec<KeptSession>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptFile {
    pub size: u64,
    /// `(hash, length)` of each chunk, in order.
    pub chunks: Vec<(String, u64)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptSession {
    pub id: String,
    /// Its `updatedAt` (epoch milliseconds), for `forget --before`.
    pub updated_ms: i64,
}

pub fn stamps_of(stamps: &[Stamp]) -> Vec<(u64, i128, u64)> {
    stamps
        .iter()
        .map(|s| (s.size, s.mtime_ns, s.inode))
        .collect()
}

/// The name of a source's manifest: the hash of its agent and path.
pub fn name_of(agent: &str, path: &Path) -> String {
    let key = format!("{agent}\0{}", path.display());
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(key.as_bytes()))
}

pub fn path_of(dir: &Path, name: &str) -> PathBuf {
    dir.join("sources").join(format!("{name}.json"))
}

impl Manifest {
    /// Which versions stay: the newest, and each older one that is the newest to hold a session
    /// no newer version holds (a session deleted inside a database is served from the last
    /// version that had it).
    pub fn retain(&mut self) {
        let mut held = std::collections::HashSet::new();
        let mut keep = vec![false; self.versions.len()];
        for (i, v) in self.versions.iter().enumerate().rev() {
            let newest = i + 1 == self.versions.len();
            let adds = v.sessions.iter().any(|s| !held.contains(&s.id));
            if newest || adds {
                keep[i] = true;
                held.extend(v.sessions.iter().map(|s| s.id.clone()));
            }
        }
        let mut it = keep.into_iter();
        self.versions.retain(|_| it.next().unwrap_or(false));
        // A version left holding nothing (every session forgotten) is not kept either.
        self.versions.retain(|v| !v.sessions.is_empty());
    }
}

/// The length of the checksum line `encode` ends with: `\nxxh3:`, 32 hex digits, `\n`.
pub const SUM_LINE: usize = 6 + 32 + 1;

/// Serialised with its checksum line.
pub fn encode<T: Serialize>(v: &T) -> Vec<u8> {
    let mut body = serde_json::to_vec(v).unwrap_or_default();
    let sum = format!("\nxxh3:{:032x}\n", xxhash_rust::xxh3::xxh3_128(&body));
    body.extend_from_slice(sum.as_bytes());
    body
}

/// Read back what `encode` wrote: an error naming what is wrong when the checksum or the JSON
/// does not hold.
pub fn decode<T: for<'a> Deserialize<'a>>(bytes: &[u8]) -> Result<T, String> {
    let at = memchr::memmem::rfind(bytes, b"\nxxh3:").ok_or("no checksum (truncated?)")?;
    let (body, sum) = (&bytes[..at], &bytes[at + 6..]);
    let want = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(body));
    if sum.strip_suffix(b"\n") != Some(want.as_bytes()) {
        return Err("checksum does not match (damaged)".into());
    }
    serde_json::from_slice(body).map_err(|e| format!("not understood ({e})"))
}

/// The manifest named `name`; `Ok(None)` when there is none.
pub fn read(dir: &Path, name: &str) -> Result<Option<Manifest>, String> {
    let p = path_of(dir, name);
    let bytes = match std::fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", p.display())),
    };
    let m: Manifest = decode(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    if m.format != FORMAT {
        return Err(format!(
            "{}: format {} (this build reads {FORMAT})",
            p.display(),
            m.format
        ));
    }
    Ok(Some(m))
}

/// `batched`: see `files::write_batched`.
pub fn write(dir: &Path, name: &str, m: &Manifest, batched: bool) -> std::io::Result<()> {
    let p = path_of(dir, name);
    if let Some(parent) = p.parent() {
        files::private_dir(parent)?;
    }
    super::pause::at("manifest");
    files::write_batched(&p, &encode(m), batched)
}

pub fn remove(dir: &Path, name: &str) -> std::io::Result<()> {
    match std::fs::remove_file(path_of(dir, name)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(ids: &[&str]) -> Version {
        Version {
            kept_ms: 0,
            stamps: Vec::new(),
            files: Vec::new(),
            sessions: (ids.iter())
                .map(|id| KeptSession {
                    id: id.to_string(),
                    updated_ms: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn a_version_stays_while_it_is_the_newest_to_hold_a_session() {
        let mut m = Manifest {
            format: FORMAT,
            agent: "opencode".into(),
            path: "/db".into(),
            side_files: Vec::new(),
            versions: vec![
                version(&["a", "b", "c"]),
                version(&["a", "b", "c"]),
                version(&["a", "b"]),
                version(&["a"]),
            ],
        };
        m.retain();
        let left: Vec<usize> = m.versions.iter().map(|v| v.sessions.len()).collect();
        assert_eq!(
            left,
            vec![3, 2, 1],
            "the newest holder of c, of b, and the newest"
        );
    }

    #[test]
    fn a_damaged_or_truncated_manifest_is_refused() {
        let m = version(&["a"]);
        let bytes = encode(&m);
        assert_eq!(decode::<Version>(&bytes).unwrap(), m);
        assert!(decode::<Version>(&bytes[..bytes.len() - 5]).is_err());
        let mut bad = bytes.clone();
        bad[3] ^= 1;
        assert!(decode::<Version>(&bad).is_err());
    }
}
