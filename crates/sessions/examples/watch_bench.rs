//! Warm calls of a long-lived client with and without the watcher (`ClientOptions::watch`), side
//! by side with `rg -uuu -i -F -l` over the same stores, in one process: a rare word, a word in
//! every session, `list('claude')`, and the rare word after one message appended to a Claude
//! session. Each round times every call once in turn (rg, without, with); medians printed as
//! the rows of bench/watch.md. The index goes to a temporary cache dir, built first; both clients
//! share it and wait for it. The home is read in place, but one Claude session is appended to.
//!   cargo run --release -p agent-mux-sessions --example watch_bench -- <home> [rare] [every] [runs]
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use agent_mux_sessions::context::{CacheSetting, IndexUpdates};
use agent_mux_sessions::options::{ListOptions, SearchQuery};
use agent_mux_sessions::{Client, ClientOptions, Env};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    kb / 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let home = PathBuf::from(
        args.get(1)
            .expect("usage: watch_bench <home> [rare] [every] [runs]"),
    );
    let rare = args.get(2).cloned().unwrap_or_else(|| "kubeadm".into());
    let every = args.get(3).cloned().unwrap_or_else(|| "the".into());
    let runs: usize = args.get(4).map_or(7, |r| r.parse().expect("runs"));
    let cache = std::env::temp_dir().join(format!("amux-watch-bench-{}", std::process::id()));
    let env = Env::with_home(&home);
    let client = |watch| {
        Client::new(ClientOptions {
            cache: CacheSetting::Dir(cache.clone()),
            index_updates: IndexUpdates::Wait,
            watch,
            ..Default::default()
        })
    };
    let dirs: Vec<PathBuf> = [".claude", ".codex", ".gemini", ".copilot", ".pi", ".omp"]
        .iter()
        .map(|d| home.join(d))
        .filter(|d| d.is_dir())
        .collect();
    let rg = |word: &str| {
        let st = Command::new("rg")
            .args(["-uuu", "-i", "-F", "-l", word])
            .args(&dirs)
            .stdout(Stdio::null())
            .status()
            .expect("rg runs");
        assert!(st.code().is_some_and(|c| c <= 1), "rg failed");
    };
    let plain = client(false);
    let built = ms(|| {
        plain.index_update(env.clone(), false).unwrap();
    });
    let query = |text: &str| -> SearchQuery {
        agent_mux_wire::search_query(&serde_json::json!({ "text": text, "limit": 50 })).unwrap()
    };
    let list = ListOptions {
        limit: 1_000_000,
        ..Default::default()
    };
    let before = rss_mb();
    let watching = client(true);
    type Call<'a> = Box<dyn Fn(&Client) + 'a>;
    let shapes: Vec<(String, Call, String)> = vec![
        (
            format!("rare word ({rare})"),
            Box::new(|c: &Client| {
                c.search(env.clone(), &query(&rare)).unwrap();
            }),
            rare.clone(),
        ),
        (
            format!("a word in every session ({every})"),
            Box::new(|c: &Client| {
                c.search(env.clone(), &query(&every)).unwrap();
            }),
            every.clone(),
        ),
        (
            "list('claude')".to_string(),
            Box::new(|c: &Client| {
                c.list(env.clone(), "claude", &list).unwrap();
            }),
            rare.clone(),
        ),
    ];
    // Each client's first calls: the watcher watches and lists every store once.
    for (_, call, _) in &shapes {
        call(&plain);
        call(&watching);
    }
    let set_up = rss_mb();
    let mut rows = Vec::new();
    for (name, call, word) in &shapes {
        let (mut r, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            r.push(ms(|| rg(word)));
            a.push(ms(|| call(&plain)));
            b.push(ms(|| call(&watching)));
        }
        rows.push((name.clone(), median(r), median(a), median(b)));
    }
    // One message appended between two warm calls of each client.
    let file = claude_session(&home);
    let text = std::fs::read_to_string(&file).unwrap();
    let last = text.trim_end().lines().last().unwrap().to_string() + "\n";
    let (mut r, mut a, mut b, mut wa, mut wb) = (vec![], vec![], vec![], vec![], vec![]);
    let search = |c: &Client| {
        c.search(env.clone(), &query(&rare)).unwrap();
    };
    let append = || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        f.write_all(last.as_bytes()).unwrap();
    };
    for _ in 0..runs {
        wa.push(ms(|| search(&plain)));
        append();
        a.push(ms(|| search(&plain)));
        wb.push(ms(|| search(&watching)));
        append();
        b.push(ms(|| search(&watching)));
        r.push(ms(|| rg(&rare)));
    }
    rows.push((
        format!(
            "rare word after one appended message (warm before it: {:.1} / {:.1})",
            median(wa),
            median(wb)
        ),
        median(r),
        median(a),
        median(b),
    ));
    let st = watching.index_status(env.clone());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "home: {}, {} sources indexed (built in {:.1} s); load average {}",
        home.display(),
        st.sources,
        built / 1e3,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("rounds: {runs}, medians in ms\n");
    println!("| call | rg -l | without watch | with watch | without / rg | with / rg |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, r, a, b) in rows {
        println!(
            "| {name} | {r:.1} | {a:.1} | {b:.1} | {:.2} | {:.2} |",
            a / r,
            b / r
        );
    }
    let w = &st.watch;
    println!(
        "\nwatch: {} directories, overflows {}; {}",
        w.directories,
        w.overflows,
        (w.stores.iter())
            .map(|s| match &s.reason {
                None => format!("{} watched", s.agent),
                Some(r) => format!("{} stat'ed ({r})", s.agent),
            })
            .collect::<Vec<_>>()
            .join("; ")
    );
    println!(
        "process RSS: {before:.1} MB before the watching client, {set_up:.1} MB once it had \
         listed every store, {:.1} MB at the end",
        rss_mb()
    );
    let _ = std::fs::remove_dir_all(&cache);
}

/// A Claude session of the home (the first found).
fn claude_session(home: &Path) -> PathBuf {
    let projects = home.join(".claude/projects");
    let mut dirs: Vec<_> = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut files: Vec<_> = std::fs::read_dir(&dirs[0])
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files.remove(0)
}
