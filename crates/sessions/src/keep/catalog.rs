//! What the store holds, in one file read at each call: every kept source with the stamps it was
//! last kept at and the sessions it serves. Made from the manifests, which are the truth: a
//! catalog that is missing, damaged or behind (a process killed between a manifest and the
//! catalog) is made again from them, or a source found stale is kept once more.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files;
use super::manifest::{self, Manifest};

const FILE: &str = "catalog.json";

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

/// The catalog of the store `dir` and the faults met reading it (a damaged catalog, made again;
/// manifests that could not be read, left out).
pub fn load(dir: &Path) -> (Catalog, Vec<String>) {
    let p = dir.join(FILE);
    match std::fs::read(&p) {
        Ok(bytes) => match manifest::decode::<Catalog>(&bytes) {
            Ok(c) if c.format == manifest::FORMAT => (c, Vec::new()),
            Ok(c) => {
                let (c2, mut faults) = rebuild(dir);
                faults.insert(
                    0,
                    format!("{}: format {} made again", p.display(), c.format),
                );
                let _ = c;
                (c2, faults)
            }
            Err(e) => {
                let (c, mut faults) = rebuild(dir);
                faults.insert(
                    0,
                    format!("{}: {e}; made again from the manifests", p.display()),
                );
                (c, faults)
            }
        },
        Err(_) if dir.join("sources").is_dir() => rebuild(dir),
        Err(_) => (
            Catalog {
                format: manifest::FORMAT,
                ..Default::default()
            },
            Vec::new(),
        ),
    }
}

/// The catalog made from every manifest, and the manifests that could not be read.
pub fn rebuild(dir: &Path) -> (Catalog, Vec<String>) {
    let mut c = Catalog {
        format: manifest::FORMAT,
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

pub fn write(dir: &Path, c: &Catalog) -> std::io::Result<()> {
    super::pause::at("catalog");
    files::write_atomic(&dir.join(FILE), &manifest::encode(c))
}

/// The catalog file's stamp, to tell whether a catalog read before is still current.
pub fn stamp(dir: &Path) -> Option<crate::read::fs::Stamp> {
    crate::read::fs::stamp(&dir.join(FILE))
}
