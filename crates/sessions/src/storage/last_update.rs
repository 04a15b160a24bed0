//! When the index was last brought up to date on request (`amux index update` or `rebuild`, the
//! CLI's detached update), and how long it took: a small file beside the index, for `doctor`.
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const FILE: &str = "last-update.json";

/// The last update: when it finished (epoch milliseconds) and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastUpdate {
    pub finished_ms: u64,
    pub took_ms: u64,
}

/// Record an update that started at `started` and is done now. Best effort: the index is
/// already written, and a doctor without this line is still right about everything else.
pub fn record(dir: &Path, started: SystemTime) {
    let now = SystemTime::now();
    let ms = |d: Duration| d.as_millis() as u64;
    let last = LastUpdate {
        finished_ms: now.duration_since(UNIX_EPOCH).map(ms).unwrap_or(0),
        took_ms: now.duration_since(started).map(ms).unwrap_or(0),
    };
    let Ok(text) = serde_json::to_vec(&last) else {
        return;
    };
    // Written whole under another name, then renamed: a reader never sees half of it.
    let tmp = dir.join(format!("{FILE}.{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &text));
    if written
        .and_then(|_| std::fs::rename(&tmp, dir.join(FILE)))
        .is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Forget the last update (the index is being deleted).
pub fn forget(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(FILE));
}

/// The last update recorded in `dir`, if any.
pub fn read(dir: &Path) -> Option<LastUpdate> {
    let bytes = crate::read::fs::read_capped(&dir.join(FILE), 4096).ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_is_read_back_with_its_duration() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let started = SystemTime::now() - Duration::from_millis(1500);
        record(dir.path(), started);
        let last = read(dir.path()).unwrap();
        assert!((1500..60_000).contains(&last.took_ms), "{last:?}");
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        assert!(last.finished_ms <= now && now - last.finished_ms < 60_000);
    }
}
