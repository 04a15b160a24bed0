//! Streaming JSON Lines: one line in memory at a time, tolerant of a torn last line (the agent may
//! be writing it), blank lines, garbage lines and invalid UTF-8.
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// What a pass over a file saw, so callers can tell "empty" from "all garbage".
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LineStats {
    pub parsed: usize,
    pub bad: usize,
}

/// The longest line any reader holds: 64 MiB. Real transcripts' largest lines are a few MB (a
/// pasted file, a tool output, a base64 screenshot of some MB); a line of this size or more is
/// not a record anyone can use, and holding it (a 3 GB line inflated from a small `.zst`) is how
/// a store takes the process' memory. Such a line is skipped without being held: `f` gets an
/// empty slice in its place, which no parser accepts, so every reader counts it as a bad line.
pub const MAX_LINE: usize = 64 << 20;

/// The largest zstd window a `.zst` session may ask for (2^27 = 128 MiB, zstd's own default):
/// a frame that wants more is refused rather than allocated.
pub const MAX_ZSTD_WINDOW_LOG: u32 = 27;

/// Call `f` with the bytes of every non-blank line (without the newline). `f` returns `false` to
/// stop. A line of `MAX_LINE` bytes or more is passed as an empty slice (see there).
pub fn for_each_line(path: &Path, f: impl FnMut(&[u8]) -> bool) -> std::io::Result<()> {
    let file = File::open(path)?;
    if path.extension().is_some_and(|e| e == "zst") {
        // Codex compresses old rollouts: decompressed as it streams, never held whole, with the
        // line ceiling bounding what one inflated line can cost.
        let mut decoder = zstd::stream::read::Decoder::new(file)?;
        decoder.window_log_max(MAX_ZSTD_WINDOW_LOG)?;
        return for_each_line_in(decoder, f);
    }
    // Most sessions are far smaller than a chunk: a buffer the file's size (with room for a
    // line a writer appends meanwhile) is all that gets allocated and zeroed.
    let size = file.metadata().map_or(CHUNK as u64, |m| m.len());
    let first = usize::try_from(size).map_or(CHUNK, |s| (s + SLACK).min(CHUNK));
    for_each_line_sized(file, first, MAX_LINE, f)
}

const CHUNK: usize = 256 * 1024;
const SLACK: usize = 4096;

/// `for_each_line` over any reader. Lines are handed out as slices of one buffer (no copy per
/// line); the buffer grows only for a line longer than it, and never past `MAX_LINE`.
pub fn for_each_line_in(reader: impl Read, f: impl FnMut(&[u8]) -> bool) -> std::io::Result<()> {
    for_each_line_sized(reader, CHUNK, MAX_LINE, f)
}

fn for_each_line_sized(
    mut reader: impl Read,
    first: usize,
    max_line: usize,
    mut f: impl FnMut(&[u8]) -> bool,
) -> std::io::Result<()> {
    let mut buf = vec![0u8; first.clamp(1, max_line)];
    // Unconsumed bytes are buf[start..end]; buf[start..searched] holds no newline.
    let (mut start, mut end, mut searched) = (0usize, 0usize, 0usize);
    // Inside a line too long to hold: everything up to its newline is dropped unread.
    let mut skipping = false;
    loop {
        if skipping {
            if let Some(nl) = memchr::memchr(b'\n', &buf[..end]) {
                skipping = false;
                (start, searched) = (nl + 1, nl + 1);
                if !f(&[]) {
                    return Ok(());
                }
            } else {
                end = 0;
            }
        }
        if !skipping {
            while let Some(i) = memchr::memchr(b'\n', &buf[searched..end]) {
                let nl = searched + i;
                let line = trim_line(&buf[start..nl]);
                start = nl + 1;
                searched = start;
                if !line.is_empty() && !f(line) {
                    return Ok(());
                }
            }
            searched = end;
            // Keep the partial line and make room for more.
            if start > 0 {
                buf.copy_within(start..end, 0);
                (end, searched, start) = (end - start, searched - start, 0);
            }
            if end == buf.len() {
                if buf.len() >= max_line {
                    (skipping, end, searched) = (true, 0, 0);
                } else {
                    buf.resize((buf.len() * 2).min(max_line), 0);
                }
            }
        }
        let n = loop {
            match reader.read(&mut buf[end..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        if n == 0 {
            // The last line has no newline: the writer may be in the middle of it.
            let line = if skipping {
                &[][..]
            } else {
                trim_line(&buf[..end])
            };
            if skipping || !line.is_empty() {
                f(line);
            }
            return Ok(());
        }
        end += n;
    }
}

fn trim_line(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && matches!(buf[end - 1], b'\n' | b'\r' | b' ' | b'\t') {
        end -= 1;
    }
    let mut start = 0;
    while start < end && matches!(buf[start], b' ' | b'\t' | 0xEF | 0xBB | 0xBF) {
        start += 1; // leading blanks and a UTF-8 BOM
    }
    &buf[start..end]
}

/// Parse one line as `T`, repairing invalid UTF-8 (replacement characters) rather than losing it.
pub fn parse_line<T: DeserializeOwned>(line: &[u8]) -> Option<T> {
    match serde_json::from_slice(line) {
        Ok(v) => Some(v),
        Err(_) if std::str::from_utf8(line).is_err() => {
            serde_json::from_str(&String::from_utf8_lossy(line)).ok()
        }
        Err(_) => None,
    }
}

/// Parse one line into a typed struct that borrows from it (a cheap pass that skips what it does not
/// name). Invalid UTF-8 is repaired into `scratch` first, as `parse_line` does.
pub fn parse_borrowed<'a, T: serde::Deserialize<'a>>(
    line: &'a [u8],
    scratch: &'a mut String,
) -> Option<T> {
    match serde_json::from_slice(line) {
        Ok(v) => Some(v),
        Err(_) if std::str::from_utf8(line).is_err() => {
            *scratch = String::from_utf8_lossy(line).into_owned();
            serde_json::from_str(scratch).ok()
        }
        Err(_) => None,
    }
}

/// Deserialize every line as `T`, skipping lines that do not parse (torn, garbage, other shapes).
pub fn read_lines<T: DeserializeOwned>(
    path: &Path,
    mut f: impl FnMut(T) -> bool,
) -> std::io::Result<LineStats> {
    let mut stats = LineStats::default();
    for_each_line(path, |line| match parse_line::<T>(line) {
        Some(v) => {
            stats.parsed += 1;
            f(v)
        }
        None => {
            stats.bad += 1;
            true
        }
    })?;
    Ok(stats)
}

/// Feed every line that parses as JSON to `f`, with the line's bytes (for `raw`); `f` says
/// whether the value was a record of the agent's format. A file in which no line parses is a
/// `PARSE_ERROR` naming the path (`what` names its records in that message); so is one in which
/// no value was a record of `agent` (`Error::not_a_session`).
pub fn read_values(
    path: &Path,
    agent: &str,
    what: &str,
    mut f: impl FnMut(serde_json::Value, &[u8]) -> bool,
) -> crate::error::Result<()> {
    let mut stats = LineStats::default();
    let mut records = 0usize;
    for_each_line(path, |bytes| {
        match parse_line::<serde_json::Value>(bytes) {
            Some(v) => {
                stats.parsed += 1;
                records += f(v, bytes) as usize;
            }
            None => stats.bad += 1,
        }
        true
    })
    .map_err(|e| crate::error::Error::parse(path.display(), e))?;
    if stats.parsed > 0 && records == 0 {
        return Err(crate::error::Error::not_a_session(path.display(), agent));
    }
    if stats.parsed == 0 {
        let why = if stats.bad == 0 {
            "empty file".to_string()
        } else {
            format!("no JSON {what}")
        };
        return Err(crate::error::Error::parse(path.display(), why));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn torn_last_line_blank_lines_and_bad_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let mut bytes =
            b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":\"x\xffy\"}\ngarbage\n{\"c\":".to_vec();
        bytes.extend_from_slice(b"");
        std::fs::write(&p, bytes).unwrap();
        let mut seen = Vec::new();
        let stats = read_lines::<Value>(&p, |v| {
            seen.push(v);
            true
        })
        .unwrap();
        assert_eq!(stats, LineStats { parsed: 2, bad: 2 });
        assert_eq!(seen[0]["a"], 1);
        assert_eq!(seen[1]["b"], "x\u{fffd}y");
    }

    #[test]
    fn lines_longer_than_the_buffer_and_split_across_reads() {
        // A reader that hands out 7 bytes at a time, so every line straddles reads.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = out.len().min(7).min(self.0.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let long = "x".repeat(3 * CHUNK + 5);
        let text = format!("a\n\n{long}\r\nbb\n  \nlast");
        for input in [text.as_bytes().to_vec(), format!("{text}\n").into_bytes()] {
            // A first buffer far smaller than the lines (a file that grew after it was sized).
            let mut seen = Vec::new();
            for_each_line_sized(Trickle(&input), 3, MAX_LINE, |l| {
                seen.push(l.len());
                true
            })
            .unwrap();
            assert_eq!(seen, [1, long.len(), 2, 4]);
            let mut seen = Vec::new();
            for_each_line_in(Trickle(&input), |l| {
                seen.push(String::from_utf8(l.to_vec()).unwrap());
                true
            })
            .unwrap();
            assert_eq!(seen, ["a", long.as_str(), "bb", "last"]);
            let mut seen = Vec::new();
            for_each_line_in(&input[..], |l| {
                seen.push(l.len());
                true
            })
            .unwrap();
            assert_eq!(seen, [1, long.len(), 2, 4]);
        }
    }

    #[test]
    fn a_line_at_the_ceiling_is_skipped_without_being_held() {
        // With a ceiling of 16 bytes: lines of 15 are read, lines of 16 and more are handed on as
        // empty (unreadable) and the buffer never grows past the ceiling, whatever the reads.
        let long = "y".repeat(1000);
        let text = format!(
            "{}\n{}\nok\n{long}\n{long}\r\n{}\n{long}",
            "a".repeat(15),
            "b".repeat(16),
            "c".repeat(15)
        );
        for chunk in [1usize, 7, 4096] {
            struct Chunked<'a>(&'a [u8], usize, usize);
            impl Read for Chunked<'_> {
                fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                    self.2 = self.2.max(out.len());
                    let n = out.len().min(self.1).min(self.0.len());
                    out[..n].copy_from_slice(&self.0[..n]);
                    self.0 = &self.0[n..];
                    Ok(n)
                }
            }
            let mut reader = Chunked(text.as_bytes(), chunk, 0);
            let mut seen = Vec::new();
            for_each_line_sized(&mut reader, 4, 16, |l| {
                seen.push(String::from_utf8(l.to_vec()).unwrap());
                true
            })
            .unwrap();
            let a15 = "a".repeat(15);
            let c15 = "c".repeat(15);
            assert_eq!(
                seen,
                [a15.as_str(), "", "ok", "", "", c15.as_str(), ""],
                "chunk {chunk}"
            );
            assert!(reader.2 <= 16, "asked for {} bytes at once", reader.2);
        }
        // Readers count the skipped line as bad, and keep going after it.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, "{\"a\":1}\n\"\"\n{\"b\":2}\n").unwrap();
        let mut seen = Vec::new();
        for_each_line_sized(std::fs::File::open(&p).unwrap(), 4, 6, |l| {
            seen.push(parse_line::<Value>(l));
            true
        })
        .unwrap();
        assert_eq!(seen, [None, Some(Value::from("")), None]);
    }

    #[test]
    fn a_zstd_frame_asking_for_a_huge_window_is_refused() {
        // A frame header with window log 31 (2 GiB): the decoder must refuse, not allocate.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl.zst");
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, (31 - 10) << 3];
        frame.extend_from_slice(&[0x09, 0x00, 0x00, b'x']); // last block, RLE, 1 byte
        std::fs::write(&p, &frame).unwrap();
        let mut lines = 0;
        let r = for_each_line(&p, |_| {
            lines += 1;
            true
        });
        assert!(r.is_err(), "{r:?}");
        assert_eq!(lines, 0);
        // The same frame with a 128 KiB window reads.
        frame[5] = 7 << 3;
        std::fs::write(&p, &frame).unwrap();
        let mut seen = Vec::new();
        for_each_line(&p, |l| {
            seen.push(l.to_vec());
            true
        })
        .unwrap();
        assert_eq!(seen, [b"x".to_vec()]);
    }

    #[test]
    fn stops_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, "1\n2\n3\n").unwrap();
        let mut n = 0;
        read_lines::<Value>(&p, |_| {
            n += 1;
            n < 2
        })
        .unwrap();
        assert_eq!(n, 2);
    }
}
