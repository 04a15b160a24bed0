//! What the store holds, read at each call: every kept source with the stamps it was last kept
//! at and the sessions it serves. Made from the manifests, which are the truth: a catalog that
//! is missing, damaged or behind (a process killed between a manifest and the catalog) is made
//! again from them, or a source found stale is kept once more.
//!
//! Two files: the whole catalog (`catalog.json`, closed by its checksum), and a log of the
//! entries changed since (`catalog.log`), so that keeping one grown source writes one line rather
//! than the whole catalog. The log's first line names the checksum of the catalog it follows;
//! each further line is one changed entry with its own checksum. Past a bound the log is folded
//! into a new catalog (written whole and renamed, then a new log for it), so a log that names
//! another catalog holds nothing that catalog lacks. A line cut short (a writer killed midway, a
//! full disk) or damaged is never applied: the catalog is then made again from the manifests.
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files;
use super::manifest::{self, Manifest};

/// The format of the catalog and its log. Not the manifests': an amux that reads the catalog
/// only (format 1, before the log) makes it again from the manifests rather than miss what the
/// log holds.
pub const FORMAT: u32 = 2;

const FILE: &str = "catalog.json";
const LOG: &str = "catalog.log";
/// The log's first word, then the format and the checksum of the catalog it follows.
const LOG_MAGIC: &str = "amux-kept-catalog-log";
/// The log is folded into the catalog past this many bytes, or half the catalog's.
const FOLD_FLOOR: u64 = 1 << 20;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub format: u32,
    /// By manifest name.
    pub sources: BTreeMap<String, Entry>,
    /// About how many bytes of chunks no version uses any more (swept past a bound).
    #[serde(default)]
    pub garbage: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub agent: String,
    pub path: PathBuf,
    /// The stamps the source was last kept at.
    pub stamps: Vec<(u64, i128, u64)>,
    /// Each session it serves: `(id, updated_ms, version)`, the version the newest that holds it.
    pub sessions: Vec<(String, i64, usize)>,
    /// How many versions its manifest holds (the last is what the source held when kept).
    #[serde(default)]
    pub versions: usize,
}

impl Entry {
    pub fn of(m: &Manifest) -> Entry {
        let mut newest: BTreeMap<&str, (i64, usize)> = BTreeMap::new();
        for (i, v) in m.versions.iter().enumerate() {
            for s in &v.sessions {
                newest.insert(&s.id, (s.updated_ms, i));
            }
        }
        Entry {
            agent: m.agent.clone(),
            path: m.path.clone(),
            stamps: m
                .versions
                .last()
                .map(|v| v.stamps.clone())
                .unwrap_or_default(),
            sessions: (newest.into_iter())
                .map(|(id, (u, i))| (id.to_string(), u, i))
                .collect(),
            versions: m.versions.len(),
        }
    }
}

/// Where a catalog as read stands: the checksum its file ends with and its log's length. While
/// both are the same, it is the same catalog (`at`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub sum: String,
    pub log: u64,
}

/// One changed entry as the log holds it (`None`: no longer kept), with the garbage after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub name: String,
    pub entry: Option<Entry>,
    pub garbage: u64,
}

impl Catalog {
    pub fn apply(&mut self, changes: &[Change]) {
        for c in changes {
            match &c.entry {
                Some(e) => self.sources.insert(c.name.clone(), e.clone()),
                None => self.sources.remove(&c.name),
            };
            self.garbage = c.garbage;
        }
    }
}

/// The catalog of the store `dir` and the faults met reading it (a damaged catalog, made again;
/// manifests that could not be read, left out).
pub fn load(dir: &Path) -> (Catalog, Vec<String>) {
    let (c, _, faults) = load_at(dir);
    (c, faults)
}

/// The same, with where it stands (`None`: made from the manifests, or there is none).
pub fn load_at(dir: &Path) -> (Catalog, Option<At>, Vec<String>) {
    // A log read before a fold and a catalog after it (or the other way) name each other not:
    // read again. A log that still names another catalog is one a fold left (killed before its
    // new log): that catalog holds all it held.
    for attempt in 0..3 {
        let log = std::fs::read(dir.join(LOG)).unwrap_or_default();
        let (mut c, sum, mut faults) = load_whole(dir);
        let Some(sum) = sum else {
            return (c, None, faults);
        };
        let at = At {
            sum,
            log: log.len() as u64,
        };
        if log.is_empty() {
            return (c, Some(at), faults);
        }
        match read_log(&log, &at.sum) {
            Log::Follows(changes) => {
                c.apply(&changes);
                return (c, Some(at), faults);
            }
            Log::Other if attempt < 2 => continue,
            Log::Other => return (c, Some(at), faults),
            Log::Bad(why) => {
                let (c, mut more) = rebuild(dir);
                faults.push(format!(
                    "{}: {why}; made again from the manifests",
                    dir.join(LOG).display()
                ));
                faults.append(&mut more);
                return (c, None, faults);
            }
        }
    }
    unreachable!("the last attempt returns")
}

/// What a log holds for the catalog of checksum `sum`.
enum Log {
    /// The changes it follows that catalog with (a last line cut short is not one).
    Follows(Vec<Change>),
    /// It follows another catalog.
    Other,
    /// Damaged, or of another format.
    Bad(String),
}

fn read_log(bytes: &[u8], sum: &str) -> Log {
    let mut lines = bytes.split_inclusive(|b| *b == b'\n');
    let header = lines.next().unwrap_or_default();
    let want = format!("{LOG_MAGIC} {} ", FORMAT);
    let Some(named) = header.strip_prefix(want.as_bytes()) else {
        return Log::Bad("not a log of this format".into());
    };
    if named.strip_suffix(b"\n") != Some(sum.as_bytes()) {
        return Log::Other;
    }
    let mut changes = Vec::new();
    for line in lines {
        let Some(line) = line.strip_suffix(b"\n") else {
            break; // cut short: being written, or its writer died (the next writer repairs it)
        };
        match change_of(line) {
            Some(c) => changes.push(c),
            None => return Log::Bad("a damaged line".into()),
        }
    }
    Log::Follows(changes)
}

/// A log line: the change's JSON, a tab, its checksum.
fn line_of(c: &Change) -> Vec<u8> {
    let mut line = serde_json::to_vec(c).unwrap_or_default();
    let sum = format!("\t{:032x}\n", xxhash_rust::xxh3::xxh3_128(&line));
    line.extend_from_slice(sum.as_bytes());
    line
}

fn change_of(line: &[u8]) -> Option<Change> {
    let at = memchr::memrchr(b'\t', line)?;
    let (body, sum) = (&line[..at], &line[at + 1..]);
    let want = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(body));
    (sum == want.as_bytes()).then_some(())?;
    serde_json::from_slice(body).ok()
}

/// The whole catalog's file alone, with its checksum.
fn load_whole(dir: &Path) -> (Catalog, Option<String>, Vec<String>) {
    let p = dir.join(FILE);
    match std::fs::read(&p) {
        Ok(bytes) => match manifest::decode::<Catalog>(&bytes) {
            Ok(c) if c.format == FORMAT => (c, sum_of(&bytes), Vec::new()),
            Ok(c) => {
                let (c2, mut faults) = rebuild(dir);
                // An older amux's catalog made again in this format is an upgrade, not damage;
                // a newer amux's is not this one's to read, and is said.
                if c.format > FORMAT {
                    faults.insert(
                        0,
                        format!(
                            "{}: format {} (a newer amux's) made again",
                            p.display(),
                            c.format
                        ),
                    );
                }
                (c2, None, faults)
            }
            Err(e) => {
                let (c, mut faults) = rebuild(dir);
                faults.insert(
                    0,
                    format!("{}: {e}; made again from the manifests", p.display()),
                );
                (c, None, faults)
            }
        },
        Err(_) if dir.join("sources").is_dir() => {
            let (c, faults) = rebuild(dir);
            (c, None, faults)
        }
        Err(_) => (
            Catalog {
                format: FORMAT,
                ..Default::default()
            },
            None,
            Vec::new(),
        ),
    }
}

/// The catalog made from every manifest, and the manifests that could not be read.
pub fn rebuild(dir: &Path) -> (Catalog, Vec<String>) {
    let mut c = Catalog {
        format: FORMAT,
        ..Default::default()
    };
    let mut faults = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir.join("sources")) else {
        return (c, faults);
    };
    for e in rd.flatten() {
        let file = e.file_name();
        let Some(name) = file.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        match manifest::read(dir, name) {
            Ok(Some(m)) => {
                c.sources.insert(name.to_string(), Entry::of(&m));
            }
            Ok(None) => {}
            Err(e) => faults.push(e),
        }
    }
    (c, faults)
}

/// Write `changes` to the catalog that stands at `at` (`base`, as read there), under the store's
/// lock: one line each appended to the log, or, when the log would pass its bound, cannot be
/// appended to (cut short by a writer that died) or the catalog was made from the manifests
/// (`at` is `None`), the whole catalog with them written anew (returned). Not fsynced: made
/// again from the manifests when it does not read back (a power cut).
pub fn write_changes(
    dir: &Path,
    base: &Catalog,
    at: Option<&At>,
    changes: &[Change],
) -> std::io::Result<(At, Option<Catalog>)> {
    super::pause::at("catalog");
    let lines: Vec<u8> = changes.iter().flat_map(line_of).collect();
    let bound = FOLD_FLOOR.max(whole_len(dir) / 2);
    let appended = match at.filter(|at| at.log + lines.len() as u64 <= bound) {
        Some(at) => append(dir, at, &lines)?,
        None => Append::Fold,
    };
    let mut whole = match appended {
        Append::Done(at) => return Ok((at, None)),
        Append::Fold => base.clone(),
        // What a writer that died had changed is in its manifests only.
        Append::Repair => rebuild(dir).0,
    };
    whole.apply(changes);
    let at = write(dir, &whole)?;
    Ok((at, Some(whole)))
}

enum Append {
    /// Appended: where the catalog now stands.
    Done(At),
    /// Not appended: the catalog is to be written whole.
    Fold,
    /// Not appended, as the log ends cut short or is not as it was read: the catalog is to be
    /// made again from the manifests and written whole.
    Repair,
}

/// Append `lines` to the log of the catalog at `at`.
fn append(dir: &Path, at: &At, lines: &[u8]) -> std::io::Result<Append> {
    let p = dir.join(LOG);
    let mut o = std::fs::OpenOptions::new();
    o.read(true).append(true);
    let mut f = match o.open(&p) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Append::Fold),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    let header = format!("{LOG_MAGIC} {} {}\n", FORMAT, at.sum);
    let mut first = vec![0u8; header.len()];
    let follows = f.read_exact(&mut first).is_ok() && first == header.as_bytes();
    if !follows {
        return Ok(Append::Fold);
    }
    if len != at.log || !ends_whole(&mut f, len)? {
        return Ok(Append::Repair);
    }
    super::pause::at("catalog-log");
    if let Err(e) = f.write_all(lines) {
        // What was written of it is not left for a reader to find cut short.
        let _ = f.set_len(len);
        return Err(e);
    }
    Ok(Append::Done(At {
        sum: at.sum.clone(),
        log: len + lines.len() as u64,
    }))
}

/// Whether the file of `len` bytes ends with a whole line.
fn ends_whole(f: &mut std::fs::File, len: u64) -> std::io::Result<bool> {
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1))?;
    f.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

fn whole_len(dir: &Path) -> u64 {
    std::fs::metadata(dir.join(FILE))
        .map(|m| m.len())
        .unwrap_or(0)
}

/// The whole catalog written anew, renamed into place, then a new log that follows it: where
/// it stands. A log left naming the catalog before (killed between the two) is not read.
pub fn write(dir: &Path, c: &Catalog) -> std::io::Result<At> {
    super::pause::at("catalog");
    let bytes = manifest::encode(c);
    files::write_batched(&dir.join(FILE), &bytes, true)?;
    let sum = sum_of(&bytes).unwrap_or_default();
    let header = format!("{LOG_MAGIC} {} {sum}\n", FORMAT);
    super::pause::at("catalog-fold");
    files::write_batched(&dir.join(LOG), header.as_bytes(), true)?;
    Ok(At {
        sum,
        log: header.len() as u64,
    })
}

/// Where the catalog stands now, from its file's last bytes and its log's length: the same
/// checksum is the same content (a 128-bit hash), whoever wrote it since.
pub fn at(dir: &Path) -> Option<At> {
    let mut f = std::fs::File::open(dir.join(FILE)).ok()?;
    f.seek(SeekFrom::End(-(manifest::SUM_LINE as i64))).ok()?;
    let mut tail = Vec::with_capacity(manifest::SUM_LINE);
    f.take(manifest::SUM_LINE as u64)
        .read_to_end(&mut tail)
        .ok()?;
    let log = std::fs::metadata(dir.join(LOG))
        .map(|m| m.len())
        .unwrap_or(0);
    Some(At {
        sum: sum_of(&tail)?,
        log,
    })
}

/// The checksum at the end of an encoded file's bytes.
fn sum_of(bytes: &[u8]) -> Option<String> {
    let tail = bytes.get(bytes.len().checked_sub(manifest::SUM_LINE)?..)?;
    let hex = tail.strip_prefix(b"\nxxh3:")?.strip_suffix(b"\n")?;
    String::from_utf8(hex.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str) -> Entry {
        Entry {
            agent: "claude".into(),
            path: path.into(),
            stamps: vec![(1, 2, 3)],
            sessions: vec![("s".into(), 4, 0)],
            versions: 1,
        }
    }

    fn change(name: &str, garbage: u64) -> Change {
        Change {
            name: name.into(),
            entry: Some(entry(&format!("/{name}"))),
            garbage,
        }
    }

    fn empty() -> Catalog {
        Catalog {
            format: FORMAT,
            ..Default::default()
        }
    }

    fn log_lines(dir: &Path) -> usize {
        std::fs::read(dir.join(LOG))
            .unwrap()
            .split(|b| *b == b'\n')
            .count()
            - 1
    }

    /// The catalog written whole with `changes`, as a fold would.
    fn with(base: &Catalog, changes: &[Change]) -> Catalog {
        let mut c = base.clone();
        c.apply(changes);
        c
    }

    #[test]
    fn a_change_is_one_line_of_the_log_read_back_over_the_catalog() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let c0 = with(&empty(), &[change("a", 0)]);
        let at0 = write(d, &c0).unwrap();
        assert_eq!(load_at(d), (c0.clone(), Some(at0.clone()), Vec::new()));
        let (at1, whole) = write_changes(d, &c0, Some(&at0), &[change("b", 7)]).unwrap();
        assert_eq!(whole, None, "appended, not written whole");
        assert_eq!(log_lines(d), 2, "the header and one change");
        let want = with(&c0, &[change("b", 7)]);
        assert_eq!(load_at(d), (want.clone(), Some(at1.clone()), Vec::new()));
        assert_eq!(at(d), Some(at1.clone()));
        // Another change of the same source replaces its entry.
        let mut b = change("b", 9);
        b.entry.as_mut().unwrap().versions = 2;
        write_changes(d, &want, Some(&at1), std::slice::from_ref(&b)).unwrap();
        assert_eq!(load_at(d).0, with(&want, &[b]));
    }

    #[test]
    fn a_line_cut_short_is_not_read_and_its_catalog_is_made_again_by_the_next_writer() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let c0 = empty();
        let at0 = write(d, &c0).unwrap();
        let (at1, _) = write_changes(d, &c0, Some(&at0), &[change("a", 0)]).unwrap();
        let c1 = with(&c0, &[change("a", 0)]);
        // A writer killed midway through its line (or a full disk).
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(d.join(LOG))
            .unwrap();
        log.write_all(b"{\"name\":\"b\",\"ent").unwrap();
        let (read, read_at, faults) = load_at(d);
        assert_eq!((read, faults), (c1.clone(), Vec::new()), "not applied");
        assert_ne!(read_at, Some(at1.clone()), "nor the catalog as it stood");
        // The next writer does not append after it: it writes the catalog whole, made again
        // from the manifests (none here) with its own change.
        let (_, whole) = write_changes(d, &c1, read_at.as_ref(), &[change("c", 0)]).unwrap();
        let want = with(&empty(), &[change("c", 0)]);
        assert_eq!(whole.as_ref(), Some(&want));
        assert_eq!(load_at(d).0, want);
        assert_eq!(log_lines(d), 1, "a new log, its header only");
    }

    #[test]
    fn a_damaged_line_or_a_foreign_log_is_reported_and_the_catalog_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let c0 = empty();
        let at0 = write(d, &c0).unwrap();
        write_changes(d, &c0, Some(&at0), &[change("a", 0), change("b", 0)]).unwrap();
        let good = std::fs::read(d.join(LOG)).unwrap();
        let mut bad = good.clone();
        let second_line = memchr::memchr(b'\n', &bad).unwrap() + 10;
        bad[second_line] ^= 1;
        std::fs::write(d.join(LOG), &bad).unwrap();
        let (c, at, faults) = load_at(d);
        assert_eq!((c, at), (empty(), None), "nothing of it applied");
        assert!(faults[0].contains("a damaged line"), "{faults:?}");
        let foreign = String::from_utf8(good)
            .unwrap()
            .replacen(&format!(" {FORMAT} "), " 99 ", 1);
        std::fs::write(d.join(LOG), foreign).unwrap();
        let (_, at, faults) = load_at(d);
        assert_eq!(at, None);
        assert!(faults[0].contains("not a log of this format"), "{faults:?}");
    }

    #[test]
    fn an_older_amuxs_catalog_is_made_again_without_a_fault_and_a_newer_ones_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut other = empty();
        other.format = FORMAT - 1;
        files::write_batched(&d.join(FILE), &manifest::encode(&other), true).unwrap();
        let (c, at, faults) = load_at(d);
        assert_eq!((c, at, faults), (empty(), None, Vec::<String>::new()));
        other.format = FORMAT + 1;
        files::write_batched(&d.join(FILE), &manifest::encode(&other), true).unwrap();
        let (c, _, faults) = load_at(d);
        assert_eq!(c, empty());
        assert!(faults[0].contains("a newer amux's"), "{faults:?}");
    }

    #[test]
    fn a_log_left_by_a_fold_killed_midway_is_not_read_and_not_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let c0 = empty();
        let at0 = write(d, &c0).unwrap();
        write_changes(d, &c0, Some(&at0), &[change("a", 0)]).unwrap();
        // A fold that wrote the whole catalog and was killed before its new log.
        let folded = with(&c0, &[change("a", 0), change("b", 0)]);
        files::write_batched(&d.join(FILE), &manifest::encode(&folded), true).unwrap();
        let (c, at, faults) = load_at(d);
        assert_eq!((c.clone(), faults), (folded.clone(), Vec::new()));
        let (_, whole) = write_changes(d, &c, at.as_ref(), &[change("c", 0)]).unwrap();
        assert!(
            whole.is_some(),
            "written whole, not appended to the old log"
        );
        assert_eq!(load_at(d).0, with(&folded, &[change("c", 0)]));
    }
}
