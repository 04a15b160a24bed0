//! Keep: what was kept survives kill -9 at any point of a keep write, a damaged or truncated
//! chunk or manifest (detected by checksum, reported, never served), two processes keeping at
//! once, and a full disk; sessions kept before any of these are still served whole.
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_mux_sessions::options::{Archived, ListOptions};
use agent_mux_sessions::{Client, ClientOptions, Env, SessionSummary};
use common::{copy_dir, demo_home};

/// A copy of the demo home and the data directory beside it.
struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
    config: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        copy_dir(&demo_home(), &home);
        Home {
            home,
            data: dir.path().join("data"),
            config: dir.path().join("config"),
            _dir: dir,
        }
    }

    fn env(&self) -> Env {
        Env::from_pairs([
            ("HOME", self.home.to_str().unwrap()),
            ("AGENT_MUX_DATA_DIR", self.data.to_str().unwrap()),
            ("AGENT_MUX_CONFIG_DIR", self.config.to_str().unwrap()),
        ])
    }

    fn kept(&self) -> PathBuf {
        self.data.join("kept")
    }

    /// Claude's session files, sorted.
    fn claude_files(&self) -> Vec<PathBuf> {
        let mut v = Vec::new();
        walk(&self.home.join(".claude/projects"), &mut v);
        v.sort();
        v
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// A client that keeps, with no index (the restored copies then live in the store's own dir).
fn keeping() -> Client {
    Client::new(ClientOptions {
        keep: Some(true),
        ..Default::default()
    })
}

fn list(client: &Client, env: Env, archived: Archived) -> Vec<SessionSummary> {
    let mut opts = ListOptions {
        limit: 100_000,
        ..Default::default()
    };
    opts.filters.archived = archived;
    let mut v = client.list_all(env, &opts).unwrap();
    v.sort_by(|a, b| a.unified_id.cmp(&b.unified_id));
    v
}

fn ids(v: &[SessionSummary]) -> Vec<String> {
    v.iter().map(|s| s.unified_id.clone()).collect()
}

/// The session id of a Claude file (its stem).
fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// `get` of every listed session, as JSON.
fn every_get(client: &Client, env: &Env, v: &[SessionSummary]) -> Vec<String> {
    v.iter()
        .map(|s| {
            let got = client.get(env.clone(), &s.agent, &s.session_id).unwrap();
            serde_json::to_string(&got).unwrap()
        })
        .collect()
}

/// The manifests' files in the store.
fn manifests(kept: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(kept.join("sources"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// The manifest of a source, found by its path in the text.
fn manifest_of(kept: &Path, source: &Path) -> PathBuf {
    let needle = source.to_str().unwrap();
    manifests(kept)
        .into_iter()
        .find(|m| std::fs::read_to_string(m).unwrap().contains(needle))
        .unwrap()
}

/// The chunk files a manifest names.
fn chunks_of(kept: &Path, manifest: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let body = &text[..text.rfind("\nxxh3:").unwrap()];
    let m: agent_mux_sessions::keep::Manifest = serde_json::from_str(body).unwrap();
    (m.versions.iter())
        .flat_map(|v| v.files.iter().flatten())
        .flat_map(|f| f.chunks.iter())
        .map(|(h, _)| agent_mux_sessions::keep::chunks::path(kept, h))
        .collect()
}

#[test]
fn deleted_sessions_are_archived_and_answer_as_before() {
    let h = Home::new();
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let gets = every_get(&client, &h.env(), &before);
    let files = h.claude_files();
    std::fs::remove_file(&files[0]).unwrap();
    let client = keeping();
    let after = list(&client, h.env(), Archived::Include);
    assert_eq!(ids(&after), ids(&before));
    assert_eq!(every_get(&client, &h.env(), &after), gets);
    let archived = list(&client, h.env(), Archived::Only);
    assert_eq!(ids(&archived), vec![format!("claude:{}", stem(&files[0]))]);
    assert!(archived[0].archived);
    let live = list(&client, h.env(), Archived::Exclude);
    assert_eq!(live.len(), before.len() - 1);
    // The index's files are not the store: clearing the cache leaves what was kept.
    assert!(h.kept().join("catalog.json").is_file());
}

#[test]
fn a_damaged_chunk_or_manifest_is_reported_and_the_others_still_served() {
    let h = Home::new();
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let files = h.claude_files();
    assert!(files.len() >= 3);
    let gets = every_get(&client, &h.env(), &before);
    for f in &files[..3] {
        std::fs::remove_file(f).unwrap();
    }
    // Garbage in the first one's chunks, the second's manifest cut short; the third intact.
    for c in chunks_of(&h.kept(), &manifest_of(&h.kept(), &files[0])) {
        std::fs::write(c, b"garbage").unwrap();
    }
    let m1 = manifest_of(&h.kept(), &files[1]);
    let text = std::fs::read(&m1).unwrap();
    std::fs::write(&m1, &text[..text.len() / 2]).unwrap();
    // And the catalog damaged too: it is made again from the manifests.
    let cat = h.kept().join("catalog.json");
    let text = std::fs::read(&cat).unwrap();
    std::fs::write(&cat, &text[..text.len() - 3]).unwrap();
    let _ = std::fs::remove_dir_all(h.kept().join("restored"));

    let client = keeping();
    let after = list(&client, h.env(), Archived::Include);
    let gone = |f: &Path| format!("claude:{}", stem(f));
    let after_ids = ids(&after);
    assert!(
        !after_ids.contains(&gone(&files[0])),
        "a damaged chunk is never served"
    );
    assert!(
        !after_ids.contains(&gone(&files[1])),
        "nor a damaged manifest"
    );
    assert!(after_ids.contains(&gone(&files[2])), "the intact one is");
    assert_eq!(after.len(), before.len() - 2);
    // Every session still listed answers exactly as before.
    let kept_gets: Vec<String> = (before.iter().zip(&gets))
        .filter(|(s, _)| after_ids.contains(&s.unified_id))
        .map(|(_, g)| g.clone())
        .collect();
    assert_eq!(every_get(&client, &h.env(), &after), kept_gets);
    let err = client.get(h.env(), "claude", &stem(&files[0])).unwrap_err();
    assert_eq!(err.code.as_str(), "PARSE_ERROR", "{}", err.message);
    let status = client.keep_status(h.env(), false);
    let damaged = status.damaged.join("\n");
    assert!(
        damaged.contains("checksum") || damaged.contains("truncated"),
        "{damaged}"
    );
    assert!(
        damaged.contains("damaged") || damaged.contains("not a kept chunk"),
        "{damaged}"
    );
}

/// Run as a child process by the tests below (ignored otherwise): keep the home named in the
/// environment, pausing where `AGENT_MUX_KEEP_PAUSE` says.
#[test]
#[ignore = "a child process of the kill -9 and two-process tests"]
fn child_keeps() {
    let Ok(home) = std::env::var("KEEP_TEST_HOME") else {
        return;
    };
    let data = std::env::var("KEEP_TEST_DATA").unwrap();
    let pause = std::env::var("KEEP_TEST_PAUSE").unwrap_or_default();
    let env = Env::from_pairs([
        ("HOME", home.as_str()),
        ("AGENT_MUX_DATA_DIR", data.as_str()),
        ("AGENT_MUX_KEEP_PAUSE", pause.as_str()),
    ]);
    let v = list(&keeping(), env, Archived::Include);
    println!("kept {}", v.len());
}

fn child(h: &Home, pause: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_keeps",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("KEEP_TEST_HOME", &h.home)
        .env("KEEP_TEST_DATA", &h.data)
        .env("KEEP_TEST_PAUSE", pause)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until the child says it paused (its stderr), or ended.
fn wait_paused(c: &mut std::process::Child) -> bool {
    use std::io::Read;
    let mut err = c.stderr.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        match err.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => {
                seen.extend_from_slice(&buf[..n]);
                if String::from_utf8_lossy(&seen).contains("paused at") {
                    return true;
                }
            }
        }
    }
}

#[test]
fn kill_9_at_any_point_of_a_keep_write_loses_nothing_kept_before() {
    let h = Home::new();
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let gets = every_get(&client, &h.env(), &before);
    let files = h.claude_files();
    // One source gone (served archived), one grown (to be kept again when the child is killed).
    std::fs::remove_file(&files[0]).unwrap();
    let grown = &files[1];
    let mut text = std::fs::read_to_string(grown).unwrap();
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&last);
    text.push('\n');
    std::fs::write(grown, &text).unwrap();
    let now = list(&keeping(), h.env(), Archived::Include);
    let now_gets = every_get(&keeping(), &h.env(), &now);
    for point in [
        "before-fsync",
        "before-rename",
        "chunks-written",
        "manifest",
        "catalog",
    ] {
        // Grown once more each time, so that there is something to keep.
        let mut t = std::fs::read_to_string(grown).unwrap();
        t.push_str(&last);
        t.push('\n');
        std::fs::write(grown, &t).unwrap();
        let mut c = child(&h, point);
        let paused = wait_paused(&mut c);
        c.kill().unwrap(); // SIGKILL
        c.wait().unwrap();
        assert!(paused, "the child never reached {point}");
        let client = keeping();
        let _ = std::fs::remove_dir_all(h.kept().join("restored"));
        let after = list(&client, h.env(), Archived::Include);
        assert_eq!(ids(&after), ids(&before), "after a kill at {point}");
        let archived = list(&client, h.env(), Archived::Only);
        assert_eq!(ids(&archived), vec![format!("claude:{}", stem(&files[0]))]);
        let i = before
            .iter()
            .position(|s| s.session_id == stem(&files[0]))
            .unwrap();
        let got = client.get(h.env(), "claude", &stem(&files[0])).unwrap();
        assert_eq!(serde_json::to_string(&got).unwrap(), gets[i], "at {point}");
        assert_eq!(
            client.keep_status(h.env(), false).damaged,
            Vec::<String>::new(),
            "at {point}"
        );
    }
    assert_eq!(now.len(), before.len());
    assert!(!now_gets.is_empty());
}

#[test]
fn two_processes_keeping_at_once_lose_neither() {
    let h = Home::new();
    let mut a = child(&h, "");
    let mut b = child(&h, "");
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let status = client.keep_status(h.env(), false);
    assert_eq!(status.sessions as usize, before.len());
    assert_eq!(status.damaged, Vec::<String>::new());
    for f in h.claude_files() {
        std::fs::remove_file(f).unwrap();
    }
    let after = list(&keeping(), h.env(), Archived::Include);
    assert_eq!(ids(&after), ids(&before));
}

#[test]
fn a_full_disk_keeps_what_fit_and_serves_it() {
    let h = Home::new();
    std::fs::create_dir_all(&h.data).unwrap();
    // A tiny tmpfs where we may mount one (root on Linux); else the test says so and passes.
    let mounted = cfg!(target_os = "linux")
        && Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=96k", "tmpfs"])
            .arg(&h.data)
            .status()
            .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: no tmpfs could be mounted to fill");
        return;
    }
    // Unmounted however the test ends.
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(h.data.clone());
    // Restored copies go to the cache directory, which is not the full disk.
    let cache = h.home.parent().unwrap().join("cache");
    let keeping = || {
        Client::new(ClientOptions {
            keep: Some(true),
            cache: agent_mux_sessions::context::CacheSetting::Dir(cache.clone()),
            ..Default::default()
        })
    };
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let status = client.keep_status(h.env(), false);
    let kept = status.sessions as usize;
    assert!(kept < before.len(), "the disk was not full: {kept} kept");
    // Whatever is in a manifest has every chunk (a chunk that did not fit left no version).
    assert!(
        status.damaged.iter().all(|d| !d.contains("missing")),
        "{:?}",
        status.damaged
    );
    // Nothing kept is lost or served wrong: each kept session, its source deleted, answers.
    let kept_ids = agent_mux_sessions::keep::Kept { dir: h.kept() }.catalog().0;
    let claude_kept: Vec<PathBuf> = h
        .claude_files()
        .into_iter()
        .filter(|f| {
            kept_ids
                .sources
                .values()
                .any(|e| e.path == *f && !e.sessions.is_empty())
        })
        .collect();
    let gets: Vec<String> = (claude_kept.iter())
        .map(|f| serde_json::to_string(&client.get(h.env(), "claude", &stem(f)).unwrap()).unwrap())
        .collect();
    for f in &claude_kept {
        std::fs::remove_file(f).unwrap();
    }
    let client = keeping();
    let again: Vec<String> = (claude_kept.iter())
        .map(|f| serde_json::to_string(&client.get(h.env(), "claude", &stem(f)).unwrap()).unwrap())
        .collect();
    assert_eq!(again, gets);
}

#[test]
fn a_window_of_an_archived_session_says_so_and_get_is_unchanged() {
    let h = Home::new();
    let client = keeping();
    list(&client, h.env(), Archived::Include);
    let files = h.claude_files();
    let id = stem(&files[0]);
    let opts = agent_mux_sessions::window::WindowOptions::default();
    let live_window = client.window(h.env(), "claude", &id, &opts).unwrap();
    assert!(!live_window.session.archived, "its source is there");
    let got = serde_json::to_string(&client.get(h.env(), "claude", &id).unwrap()).unwrap();
    std::fs::remove_file(&files[0]).unwrap();
    let client = keeping();
    let w = client.window(h.env(), "claude", &id, &opts).unwrap();
    assert!(
        w.session.archived,
        "a window of an archived session is marked"
    );
    assert_eq!(w.messages.len(), live_window.messages.len());
    // `get` stays what it was before the source went.
    let after = serde_json::to_string(&client.get(h.env(), "claude", &id).unwrap()).unwrap();
    assert_eq!(after, got);
}

#[test]
fn status_counts_as_archived_only_what_is_served_and_finds_damage_in_a_fresh_process() {
    let h = Home::new();
    let client = keeping();
    list(&client, h.env(), Archived::Include);
    let files = h.claude_files();
    std::fs::remove_file(&files[0]).unwrap();
    std::fs::remove_file(&files[1]).unwrap();
    // The first one's chunks all garbage: never served.
    for c in chunks_of(&h.kept(), &manifest_of(&h.kept(), &files[0])) {
        std::fs::write(c, b"garbage").unwrap();
    }
    // A fresh client (as a fresh process) that has read nothing yet.
    let status = keeping().keep_status(h.env(), false);
    let damaged = status.damaged.join("\n");
    assert!(damaged.contains("not a kept chunk"), "{damaged}");
    assert!(damaged.contains("cannot be served"), "{damaged}");
    let client = keeping();
    let only = list(&client, h.env(), Archived::Only);
    assert_eq!(ids(&only), vec![format!("claude:{}", stem(&files[1]))]);
    assert_eq!(status.archived, only.len() as u64);
}

#[test]
fn a_damaged_chunk_of_a_live_source_is_found_by_a_verifying_status() {
    let h = Home::new();
    list(&keeping(), h.env(), Archived::Include);
    let files = h.claude_files();
    let chunk = chunks_of(&h.kept(), &manifest_of(&h.kept(), &files[0]))[0].clone();
    let mut raw = std::fs::read(&chunk).unwrap();
    let last = raw.len() - 1;
    raw[last] ^= 0x55;
    std::fs::write(&chunk, &raw).unwrap();
    // Only a verify reads the chunks of what is not archived.
    assert!(keeping().keep_status(h.env(), false).damaged.is_empty());
    let status = keeping().keep_status(h.env(), true);
    assert_eq!(status.archived, 0);
    let damaged = status.damaged.join("\n");
    assert!(damaged.contains("damaged"), "{damaged}");
    assert!(damaged.contains(files[0].to_str().unwrap()), "{damaged}");
}

#[test]
fn forget_before_deletes_the_copies_and_live_sources_are_kept_again_while_on() {
    let h = Home::new();
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let kept = client.keep_status(h.env(), false).sessions;
    assert!(kept > 0);
    let files = h.claude_files();
    std::fs::remove_file(&files[0]).unwrap();
    let forgotten = client.keep_forget(h.env(), &[], Some(i64::MAX)).unwrap();
    assert_eq!(forgotten as u64, kept);
    assert_eq!(client.keep_status(h.env(), false).sessions, 0);
    // The deleted one is gone for good; the live ones are kept again at the next read.
    let client = keeping();
    let after = list(&client, h.env(), Archived::Include);
    assert_eq!(after.len(), before.len() - 1);
    assert!(after.iter().all(|s| !s.archived));
    let st = client.keep_status(h.env(), false);
    assert_eq!(st.sessions, kept - 1, "{st:?}");
    assert_eq!(st.archived, 0);
}
