//! `doctor`: on the demo home every agent is found and read; an override variable is named with
//! the place it chose; a FIFO and a directory where session files are expected, a database that
//! is not one, and a Pi header of a future version are each reported with their paths, from the
//! stores and from the index alike.
use crate::common;

use std::path::{Path, PathBuf};

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::doctor::{AgentReport, Report};
use agent_mux_sessions::ids::AGENT_NAMES;
use agent_mux_sessions::{Client, ClientOptions, Env};
use common::*;

fn agent<'a>(r: &'a Report, name: &str) -> &'a AgentReport {
    r.agents.iter().find(|a| a.agent == name).unwrap()
}

/// The paths an agent passed over for `kind`, with their details.
fn skipped(a: &AgentReport, kind: &str) -> Vec<(PathBuf, String)> {
    (a.skipped.iter())
        .filter(|g| g.kind == kind)
        .flat_map(|g| g.first.iter().map(|s| (s.path.clone(), s.detail.clone())))
        .collect()
}

fn at(env: Env, iso: &str) -> Env {
    env.at(agent_mux_sessions::model::parse_time_str(iso).unwrap())
}

#[test]
fn the_demo_home_is_read_whole() {
    let home = demo_home();
    let r = client()
        .doctor(at(env(&home), "2026-12-01T00:00:00Z"))
        .unwrap();
    let names: Vec<&str> = r.agents.iter().map(|a| a.agent).collect();
    assert_eq!(names, AGENT_NAMES);
    assert_eq!(r.skipped, 0, "{:#?}", r.agents);
    for a in &r.agents {
        assert!(a.stores > 0 && a.sessions > 0 && a.bytes > 0, "{a:#?}");
        assert!(a.places.iter().any(|p| p.exists), "{a:#?}");
        assert!(a.skipped.is_empty(), "{a:#?}");
    }
    let claude = agent(&r, "claude");
    assert_eq!(claude.places[0].path, home.join(".claude"));
    assert_eq!(claude.places[0].chosen_by, None);
    assert_eq!(
        claude.sessions,
        list_all(&client(), "claude", env(&home)).len()
    );
    let v = &claude.versions;
    assert!(
        v.iter()
            .all(|v| v.field == "version" && !v.newer_than_known),
        "{v:?}"
    );
    assert_eq!(
        v.iter().map(|v| v.sources).sum::<usize>(),
        claude.stores.min(8)
    );
    // No settings.json: Claude Code's default applies, and every demo session is older.
    let ret = claude.retention.as_ref().unwrap();
    assert_eq!(
        (ret.setting, ret.days, ret.default),
        ("cleanupPeriodDays", Some(30.0), true)
    );
    assert_eq!(ret.file, home.join(".claude/settings.json"));
    assert_eq!(ret.older_than_limit + ret.close_to_limit, claude.sessions);
    let pi = agent(&r, "pi");
    assert_eq!(pi.versions.len(), 1);
    assert_eq!(
        (
            pi.versions[0].version.as_str(),
            pi.versions[0].newer_than_known
        ),
        ("3", false)
    );
    let hermes = &agent(&r, "hermes").versions;
    assert_eq!(hermes[0].field, "schema_version");
    assert!(agent(&r, "codex").versions[0].field == "cli_version");
    assert!(
        r.index.dir.is_none(),
        "a client without a cache has no index"
    );
}

#[test]
fn an_override_variable_is_named_with_its_place() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, custom) = (tmp.path().join("home"), tmp.path().join("custom"));
    let demo = demo_home();
    let id = "6513270e-269e-4d37-b2a7-4de452e6b438";
    let from = demo.join(format!(".claude/projects/-home-dev-src-shop/{id}.jsonl"));
    place(&custom, &format!("projects/p/{id}.jsonl"), &from);
    write(&custom, "settings.json", r#"{"cleanupPeriodDays": 10}"#);
    // A default store that the variable hides.
    place(&home, &format!(".claude/projects/p/{id}.jsonl"), &from);
    let mut e = env(&home);
    e.set("CLAUDE_CONFIG_DIR", custom.to_str().unwrap());
    e.set("HERMES_HOME", tmp.path().join("nowhere").to_str().unwrap());
    let r = client().doctor(at(e, "2026-12-01T00:00:00Z")).unwrap();
    let claude = agent(&r, "claude");
    assert_eq!(claude.places[0].path, custom);
    assert_eq!(claude.places[0].chosen_by, Some("CLAUDE_CONFIG_DIR"));
    assert!(claude.places[0].exists);
    assert_eq!(claude.places[1].path, home.join(".claude"));
    assert_eq!(claude.places[1].chosen_by, None);
    assert_eq!(
        (claude.stores, claude.sessions),
        (2, 1),
        "one session, found twice"
    );
    let ret = claude.retention.as_ref().unwrap();
    assert_eq!(ret.file, custom.join("settings.json"));
    assert_eq!((ret.days, ret.default), (Some(10.0), false));
    assert_eq!((ret.older_than_limit, ret.close_after_days), (1, Some(3.0)));
    // A variable naming a place that does not exist says so.
    let hermes = agent(&r, "hermes");
    assert_eq!(hermes.places.len(), 1);
    assert_eq!(hermes.places[0].chosen_by, Some("HERMES_HOME"));
    assert!(!hermes.places[0].exists);
    assert_eq!((hermes.stores, hermes.sessions), (0, 0));
    assert_eq!(r.skipped, 0);
}

/// The demo home with a FIFO and a directory where Claude session files go, a Hermes database
/// that is not a database, and a Pi session whose header is of a version not known yet.
#[cfg(unix)]
fn damaged_home(root: &Path) -> (PathBuf, Vec<PathBuf>) {
    let home = root.join("home");
    copy_dir(&demo_home(), &home);
    let project = home.join(".claude/projects/-home-dev-src-shop");
    let fifo = project.join("fifo.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let dir = project.join("folder.jsonl");
    std::fs::create_dir_all(&dir).unwrap();
    let db = home.join(".hermes/state.db");
    std::fs::write(
        &db,
        "not a database, only text where SQLite pages should be\n".repeat(100),
    )
    .unwrap();
    let pi = home.join(
        ".pi/agent/sessions/--home-dev-src-shop--/\
         2026-10-11T08-23-12-000Z_22dd113c-c8c4-4276-b36c-1575a71a56c6.jsonl",
    );
    let text = std::fs::read_to_string(&pi).unwrap();
    std::fs::write(&pi, text.replacen("\"version\":3", "\"version\":99", 1)).unwrap();
    (home, vec![fifo, dir, db, pi])
}

#[cfg(unix)]
fn assert_damage_reported(r: &Report, paths: &[PathBuf]) {
    let [fifo, dir, db, pi] = paths else {
        unreachable!()
    };
    let claude = skipped(agent(r, "claude"), "unreadable");
    assert_eq!(claude.iter().map(|s| &s.0).collect::<Vec<_>>(), [fifo, dir]);
    assert!(claude[0].1.contains("FIFO"), "{claude:?}");
    assert_eq!(claude[1].1, "a directory, not a file");
    let hermes = skipped(agent(r, "hermes"), "not understood");
    assert_eq!(hermes.len(), 1);
    assert_eq!(&hermes[0].0, db);
    let pi_skips = skipped(agent(r, "pi"), "unknown format version");
    assert_eq!(pi_skips.len(), 1);
    assert_eq!(&pi_skips[0].0, pi);
    assert!(pi_skips[0].1.contains("version 99"), "{pi_skips:?}");
    let pi = agent(r, "pi");
    assert!(pi
        .versions
        .iter()
        .any(|v| v.version == "99" && v.newer_than_known));
    assert_eq!(pi.sessions, 3, "read as far as it is understood");
    assert_eq!(r.skipped, 4);
    for a in [
        "codex", "gemini", "copilot", "cursor", "opencode", "omp", "openclaw",
    ] {
        assert!(agent(r, a).skipped.is_empty(), "{a}");
    }
}

#[cfg(unix)]
#[test]
fn what_was_passed_over_is_named_with_its_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, paths) = damaged_home(tmp.path());
    let r = client().doctor(env(&home)).unwrap();
    assert_damage_reported(&r, &paths);
}

#[cfg(unix)]
#[test]
fn the_index_reports_the_same_and_its_last_update() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, paths) = damaged_home(tmp.path());
    let cache = tmp.path().join("cache");
    let client = Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.clone()),
        ..Default::default()
    });
    let before = client.doctor(env(&home)).unwrap();
    assert_eq!(before.index.dir.as_deref(), Some(cache.as_path()));
    assert_eq!(before.index.last_update_ms, None);
    client.index_update(env(&home), false).unwrap();
    // A new client: its listing comes from the index, not from what the first one read.
    let other = Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.clone()),
        ..Default::default()
    });
    let r = other.doctor(env(&home)).unwrap();
    assert_damage_reported(&r, &paths);
    assert!(r.index.sources > 0 && r.index.bytes > 0);
    assert_eq!(r.index.stale, 0);
    assert!(r.index.last_update_ms.is_some() && r.index.last_update_took_ms.is_some());
    for (a, b) in r.agents.iter().zip(&before.agents) {
        assert_eq!(
            (a.stores, a.sessions, a.bytes),
            (b.stores, b.sessions, b.bytes),
            "{}",
            a.agent
        );
    }
}
