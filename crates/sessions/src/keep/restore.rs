//! A kept version made readable again: its files written back under a root of their own (in the
//! cache directory), at the path they had under `/`, so the agent's own parser reads them as it
//! read the source; and a context whose stores are under that root, for an agent's `load`.
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::chunks;
use super::files;
use super::manifest::{Manifest, Version};
use crate::agents::Source;
use crate::context::Context;

/// The variables that name where an agent's store is: under a restored root, each names the
/// same place under that root.
const STORE_VARIABLES: &[&str] = &[
    "HOME",
    "USERPROFILE",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "OPENCODE_DB",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "OMP_HOME",
    "OPENCLAW_STATE_DIR",
    "OPENCLAW_HOME",
    "CLAWDBOT_STATE_DIR",
    "HERMES_HOME",
    "CURSOR_CONFIG_DIR",
    "LOCALAPPDATA",
];

/// `path` under `root`, as if `root` were `/` (or the drive).
pub fn under(root: &Path, path: &Path) -> PathBuf {
    let mut out = root.to_path_buf();
    for c in path.components() {
        if let Component::Normal(part) = c {
            out.push(part);
        }
    }
    out
}

/// The root a version is restored under: named by what it holds, so that it is written once.
pub fn root_of(base: &Path, m: &Manifest, v: &Version) -> PathBuf {
    let mut key = format!("{}\0{}", m.agent, m.path.display());
    for f in v.files.iter().flatten() {
        for (h, _) in &f.chunks {
            key.push_str(h);
        }
    }
    base.join(format!(
        "{:032x}",
        xxhash_rust::xxh3::xxh3_128(key.as_bytes())
    ))
}

/// Restore version `v` of `m` from the store `dir` under a root in `base`; the restored source.
/// An error (naming the damaged chunk) when any of its chunks cannot be read as it was kept.
pub fn restore(
    dir: &Path,
    base: &Path,
    m: &Manifest,
    v: &Version,
) -> Result<(PathBuf, Source), String> {
    let root = root_of(base, m, v);
    let paths: Vec<&PathBuf> = std::iter::once(&m.path).chain(&m.side_files).collect();
    let done = root.join(".complete");
    if !done.is_file() {
        for (path, kept) in paths.iter().zip(&v.files) {
            let Some(kept) = kept else { continue };
            let to = under(&root, path);
            if let Some(parent) = to.parent() {
                files::private_dir(parent).map_err(|e| e.to_string())?;
            }
            let tmp = to.with_extension(format!("amux-restoring-{}", std::process::id()));
            let mut out = files::create_private(&tmp).map_err(|e| e.to_string())?;
            for (h, len) in &kept.chunks {
                let bytes = chunks::get(dir, h, *len)?;
                out.write_all(&bytes).map_err(|e| e.to_string())?;
            }
            // The agent may read its file's mtime (an updatedAt): the one it had when kept.
            if let Some(mtime) = kept_mtime(v, path, m) {
                let _ = out.set_modified(mtime);
            }
            drop(out);
            std::fs::rename(&tmp, &to).map_err(|e| e.to_string())?;
        }
        files::create_private(&done).map_err(|e| e.to_string())?;
    }
    let main = under(&root, &m.path);
    let sides: Vec<PathBuf> = m.side_files.iter().map(|p| under(&root, p)).collect();
    let src =
        Source::new(main, &sides).ok_or_else(|| format!("{}: not restored", m.path.display()))?;
    Ok((root, src))
}

/// `ctx` with every store variable and `sessionDirs` under `root`: what an agent's `load` finds
/// there is what the version held.
pub fn context_under(ctx: &Context, root: &Path) -> Context {
    let mut env = ctx.env.clone();
    for var in STORE_VARIABLES {
        if let Some(p) = ctx.env.path_var(var) {
            env.set(var, &under(root, &p).to_string_lossy());
        }
    }
    let mut options = (*ctx.options).clone();
    for dir in options.session_dirs.values_mut() {
        *dir = under(root, dir);
    }
    Context::new(env, Arc::new(options))
}

/// The mtime `path` had when version `v` was kept.
fn kept_mtime(v: &Version, path: &Path, m: &Manifest) -> Option<std::time::SystemTime> {
    let i = std::iter::once(&m.path)
        .chain(&m.side_files)
        .position(|p| p == path)?;
    let ns = v.stamps.get(i)?.1;
    let ns = u64::try_from(ns).ok()?;
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns))
}
