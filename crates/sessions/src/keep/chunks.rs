//! The kept bytes: chunks compressed with zstd, each named by the hash of what it holds, so that
//! identical content is stored once, and checked against that name on every read (a damaged
//! chunk is reported, never served).
//!
//! A chunk file is `AMK1` followed by one zstd frame. The hash is XXH3-128 (already the index's
//! fingerprint): the store holds only what this user's own agents wrote.
use std::io::Write;
use std::path::{Path, PathBuf};

use super::files;

const MAGIC: &[u8; 4] = b"AMK1";
/// zstd's level: its default, a good ratio at several hundred MB/s.
const LEVEL: i32 = 3;

/// The name of a chunk: the hash of its bytes, as 32 hex digits.
pub fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// Where the chunk named `hash` lives under the store `dir`.
pub fn path(dir: &Path, hash: &str) -> PathBuf {
    let fan = hash.get(..2).unwrap_or("00");
    dir.join("chunks").join(fan).join(hash)
}

/// Store `bytes` under their hash, unless a chunk of that name is there; the hash and the
/// compressed size written (0 when it was there).
pub fn put(dir: &Path, bytes: &[u8]) -> std::io::Result<(String, u64)> {
    let h = hash(bytes);
    let p = path(dir, &h);
    if p.is_file() {
        return Ok((h, 0));
    }
    let compressed = zstd::bulk::compress(bytes, LEVEL)?;
    if let Some(parent) = p.parent() {
        files::private_dir(parent)?;
    }
    let mut out = Vec::with_capacity(MAGIC.len() + compressed.len());
    out.write_all(MAGIC)?;
    out.write_all(&compressed)?;
    files::write_batched(&p, &out)?;
    Ok((h, out.len() as u64))
}

/// The bytes of the chunk named `hash`, `len` long: an error when it is missing, unreadable or
/// does not hash to its name.
pub fn get(dir: &Path, hash: &str, len: u64) -> Result<Vec<u8>, String> {
    let p = path(dir, hash);
    let raw = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let body = raw
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| format!("{}: not a kept chunk", p.display()))?;
    let bytes = zstd::bulk::decompress(body, len as usize)
        .map_err(|e| format!("{}: damaged ({e})", p.display()))?;
    if bytes.len() as u64 != len || self::hash(&bytes) != hash {
        return Err(format!(
            "{}: damaged (its content does not match its hash)",
            p.display()
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_is_stored_once_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"{\"type\":\"user\"}\n".repeat(1000);
        let (h, wrote) = put(dir.path(), &text).unwrap();
        assert!(wrote > 0 && wrote < text.len() as u64 / 10, "{wrote}");
        assert_eq!(
            put(dir.path(), &text).unwrap(),
            (h.clone(), 0),
            "stored once"
        );
        assert_eq!(get(dir.path(), &h, text.len() as u64).unwrap(), text);
        let p = path(dir.path(), &h);
        let mut raw = std::fs::read(&p).unwrap();
        let last = raw.len() - 1;
        raw[last] ^= 0x55;
        std::fs::write(&p, &raw).unwrap();
        assert!(get(dir.path(), &h, text.len() as u64).is_err());
        std::fs::write(&p, b"garbage").unwrap();
        assert!(get(dir.path(), &h, text.len() as u64).is_err());
    }
}
