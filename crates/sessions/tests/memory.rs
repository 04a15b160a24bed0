//! Memory stays bounded whatever the store holds (issue 18): a line over the ceiling is skipped
//! without being held, a zstd bomb is inflated only through that ceiling, the summary cache
//! forgets sessions that are gone, and a killed process's scratch copies do not outlive the next
//! start. The inputs are generated here, never committed.
use crate::common;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use agent_mux_sessions::options::{CostOptions, ListOptions, SearchQuery};
use agent_mux_sessions::read::jsonl::MAX_LINE;
use agent_mux_sessions::ErrorCode;
use common::{client, env, write};

/// One zstd frame: `head` as a raw block, `count` bytes of `fill` as 128 KiB run-length blocks
/// (4 bytes each), `tail` as the last raw block. No content size in the header: a reader learns
/// the size only by inflating it.
fn zstd_bomb(head: &[u8], fill: u8, count: usize, tail: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 128 * 1024;
    fn header(last: bool, kind: u32, size: usize) -> [u8; 3] {
        let v = last as u32 | kind << 1 | (size as u32) << 3;
        [v as u8, (v >> 8) as u8, (v >> 16) as u8]
    }
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3]; // no FCS, 128 KiB window
    out.extend_from_slice(&header(false, 0, head.len()));
    out.extend_from_slice(head);
    for _ in 0..count / BLOCK {
        out.extend_from_slice(&header(false, 1, BLOCK));
        out.push(fill);
    }
    let rest = count % BLOCK;
    out.extend_from_slice(&header(true, 0, rest + tail.len()));
    out.extend(std::iter::repeat_n(fill, rest));
    out.extend_from_slice(tail);
    out
}

const MIXED: &str = "0b0b0b0b-0000-4000-8000-00000000000a";
const OVERLONG: &str = "0b0b0b0b-0000-4000-8000-00000000000b";
const BOMB: &str = "0b0b0b0b-0000-4000-8000-00000000000c";

fn claude_line(id: &str, uuid: &str, parent: Option<&str>, role: &str, text: &str) -> String {
    serde_json::json!({
        "type": role, "uuid": uuid, "parentUuid": parent, "sessionId": id, "cwd": "/w",
        "timestamp": "2026-01-02T03:04:05.000Z",
        "message": {"role": role, "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": text}],
                    "usage": {"input_tokens": 3, "output_tokens": 4}},
    })
    .to_string()
}

/// A Claude line of exactly `len` bytes (a user message of `a`s).
fn claude_line_of(id: &str, len: usize) -> Vec<u8> {
    let shell = claude_line(id, "big", Some("u1"), "user", "");
    let at = shell.rfind("\"text\":\"").unwrap() + "\"text\":\"".len();
    let mut v = shell.into_bytes();
    let fill = len - v.len();
    v.splice(at..at, std::iter::repeat_n(b'a', fill));
    assert_eq!(v.len(), len);
    v
}

/// The demo home plus: a Claude session with one line over the ceiling between two good ones, a
/// Claude file that is only such a line, and a Codex `.zst` rollout inflating to a 1 GiB line.
fn hostile_home(h: &Path) {
    common::copy_dir(&common::demo_home(), h);
    let project = h.join(".claude/projects/-w");
    std::fs::create_dir_all(&project).unwrap();
    let mut f = std::fs::File::create(project.join(format!("{MIXED}.jsonl"))).unwrap();
    writeln!(f, "{}", claude_line(MIXED, "u1", None, "user", "hello")).unwrap();
    f.write_all(&claude_line_of(MIXED, MAX_LINE)).unwrap();
    writeln!(f).unwrap();
    let reply = claude_line(MIXED, "a1", Some("u1"), "assistant", "hi");
    writeln!(f, "{reply}").unwrap();
    drop(f);
    let mut f = std::fs::File::create(project.join(format!("{OVERLONG}.jsonl"))).unwrap();
    f.write_all(&claude_line_of(OVERLONG, MAX_LINE + 1))
        .unwrap();
    drop(f);
    let head = br#"{"timestamp":"2026-01-02T03:04:05.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":""#;
    write(
        h,
        &format!(".codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-{BOMB}.jsonl.zst"),
        zstd_bomb(head, b'a', 1 << 30, b"\"}]}}\n"),
    );
}

fn ids(c: &agent_mux_sessions::Client, h: &Path, agent: &str) -> Vec<String> {
    let opts = ListOptions::default();
    let mut v: Vec<String> = c
        .list(env(h), agent, &opts)
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    v.sort();
    v
}

#[test]
fn lines_over_the_ceiling_are_skipped_and_every_good_session_kept() {
    let demo = tempfile::tempdir().unwrap();
    common::copy_dir(&common::demo_home(), demo.path());
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    hostile_home(h);
    let c = client();
    let t = Instant::now();

    let mut claude = ids(&client(), demo.path(), "claude");
    claude.push(MIXED.to_string());
    claude.sort();
    assert_eq!(
        ids(&c, h, "claude"),
        claude,
        "the overlong-only file is no session"
    );
    assert_eq!(
        ids(&c, h, "codex"),
        ids(&client(), demo.path(), "codex"),
        "the bomb is skipped"
    );
    let skipped = c.cache().skipped();
    assert!(
        skipped
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains(BOMB)),
        "{skipped:?}"
    );

    let mixed = c.get(env(h), "claude", MIXED).unwrap();
    let texts: Vec<&str> = mixed.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        ["hello", "hi"],
        "the readable part, the long line left out"
    );
    for (agent, id) in [("claude", OVERLONG), ("codex", BOMB)] {
        let e = c.get(env(h), agent, id).unwrap_err();
        assert!(
            matches!(e.code, ErrorCode::ParseError | ErrorCode::SessionNotFound),
            "{agent}: {e:?}"
        );
    }

    let mut q = SearchQuery::new("hello");
    q.agent = Some("claude".into());
    let found: Vec<String> = c
        .search(env(h), &q)
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert!(found.contains(&MIXED.to_string()), "{found:?}");
    let cost = c.total_cost(env(h), &CostOptions::default()).unwrap();
    let demo_cost = client()
        .total_cost(env(demo.path()), &CostOptions::default())
        .unwrap();
    assert_eq!(
        cost.session_count,
        demo_cost.session_count + 1,
        "the mixed session is counted"
    );

    let took = t.elapsed();
    eprintln!("list + get + search + totalCost over the hostile home: {took:?}");
    assert!(took < Duration::from_secs(120), "took {took:?}");
}

#[test]
fn the_summary_cache_forgets_sessions_that_are_gone() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    common::copy_dir(&common::demo_home(), h);
    let c = client();
    let claude = ids(&c, h, "claude");
    let codex = ids(&c, h, "codex");
    let cached = c.cache().cached_sources();
    assert_eq!(cached, claude.len() + codex.len());
    let gone = claude[0].clone();
    let projects = h.join(".claude/projects");
    let file = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .map(|d| d.path().join(format!("{gone}.jsonl")))
        .find(|p| p.is_file())
        .expect("the session's file");
    std::fs::remove_file(file).unwrap();
    assert_eq!(ids(&c, h, "claude"), claude[1..]);
    assert_eq!(
        c.cache().cached_sources(),
        cached - 1,
        "its summaries are dropped"
    );
    // Another home for the same client: the first home's sessions are not kept for ever.
    let empty = tempfile::tempdir().unwrap();
    assert!(ids(&c, empty.path(), "claude").is_empty());
    assert_eq!(
        c.cache().cached_sources(),
        codex.len(),
        "only codex's are left"
    );
}

/// Not a test on its own: the child process of `scratch_of_a_killed_process_goes_at_the_next_start`.
#[test]
#[ignore = "run by scratch_of_a_killed_process_goes_at_the_next_start as a child process"]
fn scratch_child() {
    use agent_mux_sessions::read::scratch::Scratch;
    let s = Scratch::new().unwrap();
    match std::env::var("SCRATCH_CHILD").as_deref() {
        Ok("hold") => {
            let src = std::env::temp_dir().join("original.db");
            s.copy_in(&src, "copy.db").unwrap();
            s.copy_in(&src, "copy.db-wal").unwrap();
            println!("SCRATCH={}", s.path().display());
            std::io::stdout().flush().unwrap();
            std::thread::sleep(Duration::from_secs(600));
        }
        other => assert_eq!(other, Ok("start")),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn scratch_of_a_killed_process_goes_at_the_next_start() {
    use std::io::BufRead;
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("original.db"), b"db").unwrap();
    let child = |mode: &str| {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--ignored",
            "--exact",
            "memory::scratch_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TMPDIR", tmp.path())
        .env("SCRATCH_CHILD", mode)
        .stdout(Stdio::piped());
        cmd
    };
    let mut holder = child("hold").spawn().unwrap();
    let mut out = std::io::BufReader::new(holder.stdout.take().unwrap());
    let dir = loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child ended without a scratch"
        );
        // libtest may have written "test scratch_child ... " on the same line
        if let Some((_, p)) = line.trim().split_once("SCRATCH=") {
            break std::path::PathBuf::from(p);
        }
    };
    assert!(dir.join("copy.db-wal").is_file());
    holder.kill().unwrap(); // SIGKILL: no destructor runs
    holder.wait().unwrap();
    assert!(
        dir.join("copy.db").is_file(),
        "a killed process leaves its copy behind"
    );

    let next = child("start").output().unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stdout)
    );
    assert!(
        !dir.exists(),
        "the next start removes the killed process's scratch"
    );
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["original.db"], "and its own is gone after it");
}
