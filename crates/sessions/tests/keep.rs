//! Keep: what was kept survives kill -9 at any point of a keep write, a damaged or truncated
//! chunk or manifest (detected by checksum, reported, never served), two processes keeping at
//! once, and a full disk; sessions kept before any of these are still served whole.
use crate::common;

use std::collections::BTreeMap;
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

/// `touched` finds the touches of an archived session in its restored copy, through the index
/// (which indexes the copy as a search does) and without it, as they were before its file was
/// deleted.
#[test]
fn touched_finds_the_touches_of_an_archived_session() {
    let h = Home::new();
    let cache = tempfile::tempdir().unwrap();
    let opts = agent_mux_sessions::options::TouchedOptions {
        agent: Some("claude".into()),
        limit: 1000,
        ..Default::default()
    };
    list(&keeping(), h.env(), Archived::Include);
    let before = keeping().touched(h.env(), "**", &opts).unwrap();
    let files = h.claude_files();
    let gone = stem(&files[0]);
    assert!(before.iter().any(|s| s.session_id == gone), "{before:?}");
    std::fs::remove_file(&files[0]).unwrap();
    let indexed = Client::new(ClientOptions {
        keep: Some(true),
        cache: agent_mux_sessions::context::CacheSetting::Dir(cache.path().to_path_buf()),
        ..Default::default()
    });
    for c in [keeping(), indexed] {
        assert_eq!(c.touched(h.env(), "**", &opts).unwrap(), before);
    }
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
            "keep::child_keeps",
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
        "catalog-log",
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

/// Run as a child process by the tests below (ignored otherwise): a client that lives keeps the
/// home, one line is appended to `KEEP_TEST_GROW`, the client answers again (said on stdout) and
/// then waits for what it left to keep after its answer.
#[test]
#[ignore = "a child process of the keep-after-the-answer tests"]
fn child_lives() {
    let Ok(home) = std::env::var("KEEP_TEST_HOME") else {
        return;
    };
    let (data, grow) = (var("KEEP_TEST_DATA"), var("KEEP_TEST_GROW"));
    let env = Env::from_pairs([
        ("HOME", home.as_str()),
        ("AGENT_MUX_DATA_DIR", data.as_str()),
        ("AGENT_MUX_KEEP_PAUSE", var("KEEP_TEST_PAUSE").as_str()),
    ]);
    let client = Client::new(ClientOptions {
        keep: Some(true),
        watch: true,
        ..Default::default()
    });
    list(&client, env.clone(), Archived::Include);
    grow_by_one_line(Path::new(&grow));
    let v = list(&client, env.clone(), Archived::Include);
    println!("answered {}", v.len());
    client.index_idle(env, true);
    println!("kept");
}

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

/// Append a copy of its last line to a JSONL file.
fn grow_by_one_line(file: &Path) {
    let mut text = std::fs::read_to_string(file).unwrap();
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&last);
    text.push('\n');
    std::fs::write(file, text).unwrap();
}

fn child_living(h: &Home, grow: &Path, pause: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "keep::child_lives", "--ignored", "--nocapture"])
        .args(["--test-threads=1"])
        .env("KEEP_TEST_HOME", &h.home)
        .env("KEEP_TEST_DATA", &h.data)
        .env("KEEP_TEST_GROW", grow)
        .env("KEEP_TEST_PAUSE", pause)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The child's stdout up to a line that holds `word` (all of it if it ends first).
fn read_until(c: &mut std::process::Child, word: &str) -> String {
    use std::io::BufRead;
    let mut out = std::io::BufReader::new(c.stdout.as_mut().unwrap());
    let mut seen = String::new();
    let mut line = String::new();
    while out.read_line(&mut line).is_ok_and(|n| n > 0) {
        seen.push_str(&line);
        if line.contains(word) {
            break;
        }
        line.clear();
    }
    seen
}

/// The size the catalog last kept `path` at.
fn kept_size(h: &Home, path: &Path) -> Option<u64> {
    let (cat, faults) = agent_mux_sessions::keep::Kept { dir: h.kept() }.catalog();
    assert!(faults.is_empty(), "{faults:?}");
    let e = cat.sources.values().find(|e| e.path == path)?;
    e.stamps.first().map(|s| s.0)
}

#[test]
fn a_living_client_keeps_a_grown_source_after_its_answer() {
    let h = Home::new();
    let grown = h.claude_files()[1].clone();
    let mut c = child_living(&h, &grown, "");
    let said = read_until(&mut c, "kept");
    assert!(c.wait().unwrap().success(), "{said}");
    assert!(said.contains("answered") && said.contains("kept"), "{said}");
    let size = std::fs::metadata(&grown).unwrap().len();
    assert_eq!(
        kept_size(&h, &grown),
        Some(size),
        "kept once the client settled"
    );
    // Served from the kept copy, as it was with the appended line, once the source is gone.
    let want = keeping().get(h.env(), "claude", &stem(&grown)).unwrap();
    std::fs::remove_file(&grown).unwrap();
    let got = keeping().get(h.env(), "claude", &stem(&grown)).unwrap();
    assert_eq!(
        serde_json::to_string(&got).unwrap(),
        serde_json::to_string(&want).unwrap()
    );
}

#[test]
fn a_living_client_killed_before_it_keeps_after_its_answer_loses_nothing() {
    let h = Home::new();
    let files = h.claude_files();
    let grown = files[1].clone();
    let before_size = std::fs::metadata(&grown).unwrap().len();
    let mut c = child_living(&h, &grown, "later");
    let paused = wait_paused(&mut c);
    // It answered while what it left to keep had not begun.
    let said = read_until(&mut c, "answered");
    c.kill().unwrap(); // SIGKILL
    c.wait().unwrap();
    assert!(paused && said.contains("answered"), "{said}");
    assert_eq!(
        kept_size(&h, &grown),
        Some(before_size),
        "nothing kept after the answer"
    );
    // Everything kept before is served; the next call keeps the grown source.
    let before = list(&keeping(), h.env(), Archived::Include);
    let want = keeping().get(h.env(), "claude", &stem(&grown)).unwrap();
    let size = std::fs::metadata(&grown).unwrap().len();
    assert_eq!(kept_size(&h, &grown), Some(size), "kept by the next call");
    std::fs::remove_file(&files[0]).unwrap();
    std::fs::remove_file(&grown).unwrap();
    let client = keeping();
    let after = list(&client, h.env(), Archived::Include);
    assert_eq!(ids(&after), ids(&before));
    let archived = list(&client, h.env(), Archived::Only);
    let mut gone = vec![
        format!("claude:{}", stem(&files[0])),
        format!("claude:{}", stem(&grown)),
    ];
    gone.sort();
    assert_eq!(ids(&archived), gone);
    served_as_before(&client, &h, &grown, &want);
}

/// `get` of the Claude session of `file` answers `want`, and nothing kept is damaged.
fn served_as_before(client: &Client, h: &Home, file: &Path, want: &agent_mux_sessions::Session) {
    let got = client.get(h.env(), "claude", &stem(file)).unwrap();
    assert_eq!(
        serde_json::to_string(&got).unwrap(),
        serde_json::to_string(want).unwrap()
    );
    assert_eq!(
        client.keep_status(h.env(), false).damaged,
        Vec::<String>::new()
    );
}

/// Run as a child process by the test below (ignored otherwise): `index update` of the home,
/// keeping, into the cache directory named, pausing where `KEEP_TEST_PAUSE` says.
#[test]
#[ignore = "a child process of the kill -9 during an update test"]
fn child_updates() {
    let Ok(home) = std::env::var("KEEP_TEST_HOME") else {
        return;
    };
    let data = var("KEEP_TEST_DATA");
    let env = Env::from_pairs([
        ("HOME", home.as_str()),
        ("AGENT_MUX_DATA_DIR", data.as_str()),
        ("AGENT_MUX_KEEP_PAUSE", var("KEEP_TEST_PAUSE").as_str()),
    ]);
    indexed(Path::new(&var("KEEP_TEST_CACHE")))
        .index_update(env, false)
        .unwrap();
    println!("updated");
}

/// A client that keeps, with its index in `cache`.
fn indexed(cache: &Path) -> Client {
    Client::new(ClientOptions {
        keep: Some(true),
        cache: agent_mux_sessions::context::CacheSetting::Dir(cache.to_path_buf()),
        ..Default::default()
    })
}

#[test]
fn kill_9_after_the_chunks_stored_beside_an_update_loses_nothing() {
    let h = Home::new();
    let cache = h.home.parent().unwrap().join("cache");
    indexed(&cache).index_update(h.env(), false).unwrap();
    let before = list(&indexed(&cache), h.env(), Archived::Include);
    let grown = h.claude_files()[1].clone();
    let before_size = std::fs::metadata(&grown).unwrap().len();
    grow_by_one_line(&grown);
    let mut c = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "keep::child_updates", "--ignored", "--nocapture"])
        .args(["--test-threads=1"])
        .env("KEEP_TEST_HOME", &h.home)
        .env("KEEP_TEST_DATA", &h.data)
        .env("KEEP_TEST_CACHE", &cache)
        .env("KEEP_TEST_PAUSE", "chunks-ahead")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let paused = wait_paused(&mut c);
    c.kill().unwrap(); // SIGKILL
    c.wait().unwrap();
    assert!(paused, "the child never stored chunks ahead of its update");
    // Its chunks are named by no manifest yet: what was kept is as it was, and whole.
    assert_eq!(kept_size(&h, &grown), Some(before_size));
    let status = indexed(&cache).keep_status(h.env(), true);
    assert_eq!(status.damaged, Vec::<String>::new());
    // The next update keeps the grown source; deleted, it is served as it was.
    indexed(&cache).index_update(h.env(), false).unwrap();
    let size = std::fs::metadata(&grown).unwrap().len();
    assert_eq!(kept_size(&h, &grown), Some(size));
    let want = indexed(&cache)
        .get(h.env(), "claude", &stem(&grown))
        .unwrap();
    std::fs::remove_file(&grown).unwrap();
    let client = indexed(&cache);
    assert_eq!(
        ids(&list(&client, h.env(), Archived::Include)),
        ids(&before)
    );
    let got = client.get(h.env(), "claude", &stem(&grown)).unwrap();
    assert_eq!(
        serde_json::to_string(&got).unwrap(),
        serde_json::to_string(&want).unwrap()
    );
}

#[test]
fn kill_9_while_the_catalog_is_written_whole_again_loses_nothing() {
    let h = Home::new();
    let client = keeping();
    let before = list(&client, h.env(), Archived::Include);
    let files = h.claude_files();
    let want = client.get(h.env(), "claude", &stem(&files[0])).unwrap();
    // A writer killed midway through a line of the catalog's log: the next one makes the
    // catalog again from the manifests and writes it whole; it is killed between the catalog
    // and its new log.
    let log = h.kept().join("catalog.log");
    let mut text = std::fs::read(&log).unwrap();
    text.extend_from_slice(b"{\"name\":\"0123");
    std::fs::write(&log, &text).unwrap();
    let grown = &files[1];
    grow_by_one_line(grown);
    let mut c = child(&h, "catalog-fold");
    let paused = wait_paused(&mut c);
    c.kill().unwrap(); // SIGKILL
    c.wait().unwrap();
    assert!(paused, "the child never wrote the catalog whole");
    let size = std::fs::metadata(grown).unwrap().len();
    assert_eq!(
        kept_size(&h, grown),
        Some(size),
        "in the catalog written whole"
    );
    std::fs::remove_file(&files[0]).unwrap();
    let client = keeping();
    assert_eq!(
        ids(&list(&client, h.env(), Archived::Include)),
        ids(&before)
    );
    served_as_before(&client, &h, &files[0], &want);
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

/// A home written by scripts/gen_home.py (every agent, its databases included): a few MB,
/// the same at every run for a seed.
fn generated_home(out: &Path, seed: u32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new("python3")
        .arg(root.join("scripts/gen_home.py"))
        .args(["--out", out.to_str().unwrap(), "--sessions", "150"])
        .args(["--seed", &seed.to_string(), "--scale", "2"])
        .stdout(Stdio::null())
        .status()
        .expect("python3 runs scripts/gen_home.py (a prerequisite, see the README)");
    assert!(status.success(), "scripts/gen_home.py failed: {status}");
}

/// A generated home, with the data, config and cache directories beside it.
struct BenchHome {
    _dir: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
    config: PathBuf,
    cache: PathBuf,
}

impl BenchHome {
    fn new(seed: u32) -> BenchHome {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        generated_home(&home, seed);
        BenchHome {
            home,
            data: dir.path().join("data"),
            config: dir.path().join("config"),
            cache: dir.path().join("cache"),
            _dir: dir,
        }
    }

    fn env(&self) -> Env {
        Env::from_pairs([
            ("HOME", self.home.to_str().unwrap()),
            ("AGENT_MUX_DATA_DIR", self.data.to_str().unwrap()),
            ("AGENT_MUX_CONFIG_DIR", self.config.to_str().unwrap()),
            ("TZ", "UTC"),
        ])
    }

    /// A client with the index in the cache directory, written before each call answers.
    fn client(&self, keep: bool) -> Client {
        Client::new(ClientOptions {
            keep: Some(keep),
            cache: agent_mux_sessions::context::CacheSetting::Dir(self.cache.clone()),
            index_updates: agent_mux_sessions::context::IndexUpdates::Wait,
            ..Default::default()
        })
    }

    /// Every session file of the agents that keep one session per file (a Cursor chat's
    /// database included), sorted.
    fn session_files(&self) -> Vec<PathBuf> {
        fn walk_all(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk_all(&p, out);
                } else if p.extension().is_some_and(|x| x == "jsonl")
                    || p.file_name().is_some_and(|n| n == "store.db")
                {
                    out.push(p);
                }
            }
        }
        let mut v = Vec::new();
        walk_all(&self.home, &mut v);
        v.sort();
        v
    }

    /// Delete the sessions `pick` chooses (by id) from the OpenCode and Hermes databases, as
    /// their agents delete them: the session's rows in every table; their ids.
    fn delete_db_sessions(&self, pick: &dyn Fn(usize, &str, i64) -> bool) -> Vec<String> {
        let mut gone = Vec::new();
        let opencode = self.home.join(".local/share/opencode/opencode.db");
        let c = rusqlite::Connection::open(&opencode).unwrap();
        let rows: Vec<(String, i64)> = (c
            .prepare("SELECT id, time_updated FROM session ORDER BY id"))
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
        for (i, (id, updated_ms)) in rows.iter().enumerate() {
            if pick(i, id, *updated_ms) {
                for t in ["part", "message"] {
                    c.execute(&format!("DELETE FROM {t} WHERE session_id = ?1"), [id])
                        .unwrap();
                }
                c.execute("DELETE FROM session WHERE id = ?1", [id])
                    .unwrap();
                gone.push(format!("opencode:{id}"));
            }
        }
        let hermes = self.home.join(".hermes/state.db");
        let h = rusqlite::Connection::open(&hermes).unwrap();
        let rows: Vec<(String, f64)> = (h
            .prepare("SELECT id, started_at FROM sessions ORDER BY id"))
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
        for (i, (id, started)) in rows.iter().enumerate() {
            if pick(i, id, (*started * 1000.0) as i64) {
                for t in ["messages", "session_model_usage"] {
                    h.execute(&format!("DELETE FROM {t} WHERE session_id = ?1"), [id])
                        .unwrap();
                }
                h.execute("DELETE FROM sessions WHERE id = ?1", [id])
                    .unwrap();
                gone.push(format!("hermes:{id}"));
            }
        }
        gone
    }
}

/// Every answer about a home: each summary (without `archived`), `get` and the three exports
/// of each session, the total cost alone and by day, the daily report, and searches in rank
/// order with their scores.
#[derive(Debug, PartialEq)]
struct Answers {
    sessions: BTreeMap<String, [String; 5]>,
    total: serde_json::Value,
    by_day: serde_json::Value,
    daily: serde_json::Value,
    searches: Vec<Vec<Hit>>,
}

/// A search result: its id, with its score, whether Hermes found it, whether it is archived.
#[derive(Debug, PartialEq)]
struct Hit {
    id: String,
    scored: String,
    hermes: bool,
    archived: bool,
}

/// The searches answer as before: in rank order with scores. Hermes scores its sessions with
/// SQLite's FTS5, whose scores move when a session is deleted from its database: its live
/// sessions are held to being found, its archived ones (searched by FTS5 in their kept copy) to
/// their score too.
fn same_searches(before: &[Vec<Hit>], after: &[Vec<Hit>], step: &str) {
    assert_eq!(before.len(), after.len());
    let mut archived_hermes = 0;
    for (b, a) in before.iter().zip(after) {
        let others = |v: &[Hit]| -> Vec<String> {
            (v.iter().filter(|h| !h.hermes))
                .map(|h| h.scored.clone())
                .collect()
        };
        assert_eq!(others(a), others(b), "{step}: searches");
        let hermes = |v: &[Hit]| -> std::collections::BTreeSet<String> {
            (v.iter().filter(|h| h.hermes))
                .map(|h| h.id.clone())
                .collect()
        };
        assert_eq!(hermes(a), hermes(b), "{step}: Hermes' hits");
        for h in a.iter().filter(|h| h.hermes && h.archived) {
            let was = b.iter().find(|x| x.id == h.id).unwrap();
            assert_eq!(
                h.scored, was.scored,
                "{step}: an archived Hermes session's score"
            );
            archived_hermes += 1;
        }
    }
    assert!(
        archived_hermes > 0,
        "{step}: an archived Hermes session is found"
    );
}

const SEARCHES: &[&str] = &["test", "kubernetes", "docker compose", "error NOT timeout"];

fn answers(client: &Client, env: &Env) -> (Answers, Vec<SessionSummary>) {
    use agent_mux_sessions::options::ExportFormat;
    use agent_mux_wire::{cost_options, report_options, search_query};
    use serde_json::json;
    let all = list(client, env.clone(), Archived::Include);
    let mut sessions = BTreeMap::new();
    for s in &all {
        let mut plain = s.clone();
        plain.archived = false;
        let export = |f| client.export(env.clone(), &s.agent, &s.session_id, f, None);
        let got = client.get(env.clone(), &s.agent, &s.session_id).unwrap();
        sessions.insert(
            s.unified_id.clone(),
            [
                serde_json::to_string(&plain).unwrap(),
                serde_json::to_string(&got).unwrap(),
                export(ExportFormat::Json).unwrap(),
                export(ExportFormat::Jsonl).unwrap(),
                export(ExportFormat::Markdown).unwrap(),
            ],
        );
    }
    let cost = |v: serde_json::Value| {
        let total = client.total_cost(env.clone(), &cost_options(&v).unwrap());
        serde_json::to_value(total.unwrap()).unwrap()
    };
    let daily = client
        .cost_report(
            env.clone(),
            &report_options(&json!("daily"), &json!({})).unwrap(),
        )
        .unwrap();
    let searches = (SEARCHES.iter())
        .map(|q| {
            let q = search_query(&json!({ "text": q, "limit": 1000 })).unwrap();
            (client.search(env.clone(), &q).unwrap().into_iter())
                .map(|s| Hit {
                    scored: format!("{} {:.6}", s.unified_id, s.relevance_score.unwrap()),
                    id: s.unified_id,
                    hermes: s.agent == "hermes",
                    archived: s.archived,
                })
                .collect()
        })
        .collect();
    let a = Answers {
        sessions,
        total: cost(json!({})),
        by_day: cost(json!({ "groupBy": "day" })),
        daily: rounded(serde_json::to_value(daily).unwrap()),
        searches,
    };
    (a, all)
}

/// `v` with every number to 12 significant digits: a report adds its sessions' costs in the
/// order they are read, which the index's history changes.
fn rounded(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            let x: f64 = format!("{:.11e}", n.as_f64().unwrap()).parse().unwrap();
            serde_json::json!(x)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(rounded).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k, rounded(x))).collect()),
        other => other,
    }
}

/// The ids of the sessions the agents' stores hold now, read without what was kept.
fn live_ids(h: &BenchHome) -> std::collections::BTreeSet<String> {
    let c = Client::new(ClientOptions {
        keep: Some(false),
        cache: agent_mux_sessions::context::CacheSetting::Off,
        ..Default::default()
    });
    let mut env = h.env();
    env.set(
        "AGENT_MUX_DATA_DIR",
        h.home.join("no-data").to_str().unwrap(),
    );
    ids(&list(&c, env, Archived::Include)).into_iter().collect()
}

#[test]
fn on_a_generated_home_a_third_deleted_answers_as_before_from_the_index() {
    use serde_json::json;
    let h = BenchHome::new(11);
    let env = h.env();
    let client = h.client(true);
    client.index_update(env.clone(), false).unwrap();
    let (before, all) = answers(&client, &env);
    let indexed = client.index_status(env.clone()).sessions;
    assert!(all.len() >= 100, "{} sessions", all.len());
    assert!(all.iter().all(|s| !s.archived));
    // A third of the sources: whole files, and sessions inside the databases.
    let files = h.session_files();
    let gone_files: Vec<&PathBuf> = files.iter().step_by(3).collect();
    for f in &gone_files {
        std::fs::remove_file(f).unwrap();
    }
    let gone_rows = h.delete_db_sessions(&|i, _, _| i % 3 == 0);
    let live = live_ids(&h);
    let deleted: Vec<String> = (all.iter())
        .map(|s| s.unified_id.clone())
        .filter(|id| !live.contains(id))
        .collect();
    assert!(
        deleted.len() * 4 >= all.len(),
        "{} of {}",
        deleted.len(),
        all.len()
    );
    for id in &gone_rows {
        assert!(deleted.contains(id), "{id}");
    }
    // A new client (a new process), then again once the index is cleared (it is made again
    // from the kept copies), then with the index rebuilt.
    for step in ["new client", "index cleared", "index rebuilt"] {
        let client = h.client(true);
        match step {
            "index cleared" => assert!(client.index_clear(env.clone()).unwrap()),
            "index rebuilt" => {
                client.index_rebuild(env.clone()).unwrap();
            }
            _ => {}
        }
        let (after, listed) = answers(&client, &env);
        let archived: Vec<String> = (listed.iter())
            .filter(|s| s.archived)
            .map(|s| s.unified_id.clone())
            .collect();
        assert_eq!(
            archived, deleted,
            "{step}: each deleted session is archived"
        );
        assert_eq!(after.total, before.total, "{step}: totalCost");
        assert_eq!(after.by_day, before.by_day, "{step}: cost by day");
        assert_eq!(after.daily, before.daily, "{step}: the daily report");
        for (id, b) in &before.sessions {
            assert_eq!(after.sessions.get(id), Some(b), "{step}: {id}");
        }
        same_searches(&before.searches, &after.searches, step);
        let only = list(&client, env.clone(), Archived::Only);
        assert_eq!(ids(&only), deleted, "{step}");
        // The cost reports take the archived sessions alone, or leave them out.
        let report_cost = |which: &str| {
            use agent_mux_wire::report_options;
            let opts = json!({ "archived": which });
            let r = (client.cost_report(
                env.clone(),
                &report_options(&json!("daily"), &opts).unwrap(),
            ))
            .unwrap();
            r.totals.total_cost
        };
        let (all_cost, only_cost) = (report_cost("include"), report_cost("only"));
        assert!(only_cost > 0.0, "{step}: archived sessions cost something");
        let sum = only_cost + report_cost("exclude");
        assert!(
            (sum - all_cost).abs() <= 1e-9 * all_cost,
            "{step}: {sum} != {all_cost}"
        );
        // The archived sessions are in the index (read once from their kept copies): it holds
        // as many searchable sessions as before the deletion.
        let status = client.index_status(env.clone());
        assert_eq!(status.sessions, indexed, "{step}: {status:?}");
    }
}

#[test]
fn on_a_generated_home_a_30_day_sweep_leaves_cost_by_day_as_it_was() {
    use agent_mux_wire::{cost_options, report_options};
    use serde_json::json;
    let h = BenchHome::new(12);
    let env = h.env();
    let client = h.client(true);
    let all = list(&client, env.clone(), Archived::Include);
    let by_day = |c: &Client| {
        let opts = cost_options(&json!({ "groupBy": "day" })).unwrap();
        serde_json::to_value(c.total_cost(env.clone(), &opts).unwrap()).unwrap()
    };
    let daily = |c: &Client| {
        let opts = report_options(&json!("daily"), &json!({})).unwrap();
        rounded(serde_json::to_value(c.cost_report(env.clone(), &opts).unwrap()).unwrap())
    };
    let (before, before_daily) = (by_day(&client), daily(&client));
    // The agents' clean-up: every session last updated over 30 days before the newest.
    let newest = all.iter().map(|s| s.updated_at).max().unwrap();
    let cut = newest - chrono::Duration::days(30);
    let old: Vec<&SessionSummary> = all.iter().filter(|s| s.updated_at < cut).collect();
    let files = h.session_files();
    let swept: Vec<&PathBuf> = (files.iter())
        .filter(|f| {
            let path = f.to_string_lossy();
            old.iter().any(|s| path.contains(s.session_id.as_str()))
        })
        .collect();
    for f in &swept {
        std::fs::remove_file(f).unwrap();
    }
    let cut_ms = cut.timestamp_millis();
    let rows = h.delete_db_sessions(&|_, id, _| {
        old.iter()
            .any(|s| s.session_id == id && s.updated_at.timestamp_millis() < cut_ms)
    });
    assert!(swept.len() >= 10, "{} files swept", swept.len());
    assert!(!rows.is_empty());
    let live = live_ids(&h);
    let gone: Vec<String> = (all.iter())
        .map(|s| s.unified_id.clone())
        .filter(|id| !live.contains(id))
        .collect();
    assert!(gone.len() >= swept.len() + rows.len(), "{gone:?}");
    // A new client (a new process) whose first call is a cost: the sessions the databases lost
    // since they were last kept are kept as archived before it adds them up.
    let after = h.client(true);
    assert_eq!(by_day(&after), before);
    assert_eq!(daily(&after), before_daily);
    assert_eq!(ids(&list(&after, env.clone(), Archived::Only)), gone);
}
