//! The list engine (filters, sort, limit) and the summary cache, tested once against a small
//! fake agent so the agents' own test files need only test their formats.
use std::path::PathBuf;
use std::sync::Arc;

use agent_mux_sessions::agents::{Agent, Mode, Source};
use agent_mux_sessions::list;
use agent_mux_sessions::model::{CostRecord, ModelUsage};
use agent_mux_sessions::options::{Direction, Filters, ListOptions, ListSort};
use agent_mux_sessions::storage::SummaryCache;
use agent_mux_sessions::{ClientOptions, Context, Env, Error, Result, Session, SessionSummary};
use chrono::{TimeZone, Utc};

/// One session per `*.fake` file in `dir`, written as `id turns model cwd day-of-month`.
struct Fake {
    dir: PathBuf,
}

impl Agent for Fake {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn sources(&self, _ctx: &Context) -> Vec<Source> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "fake"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .filter_map(|p| Source::new(p, &[]))
            .collect()
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let text = std::fs::read_to_string(&source.path).map_err(|e| Error::parse("fake", e))?;
        let f: Vec<&str> = text.split_whitespace().collect();
        let [id, turns, model, cwd, day] = f[..] else {
            return Err(Error::parse(source.path.display(), "not five fields"));
        };
        let day: u32 = day.parse().map_err(|e| Error::parse("fake", e))?;
        let at = Utc.with_ymd_and_hms(2025, 1, day, 12, 0, 0).unwrap();
        let mut s = SessionSummary::new("claude", id, at, at);
        s.turn_count = turns.parse().unwrap();
        s.model = Some(model.to_string());
        s.cwd = Some(cwd.to_string());
        Ok(vec![s])
    }

    fn load(&self, _ctx: &Context, id: &str, _mode: Mode) -> Result<Session> {
        Err(Error::session_not_found("claude", id))
    }

    fn load_source(&self, _ctx: &Context, _source: &Source) -> Result<Vec<Session>> {
        Ok(Vec::new())
    }
}

fn store(files: &[(&str, &str)]) -> (tempfile::TempDir, Fake) {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    let fake = Fake {
        dir: dir.path().to_path_buf(),
    };
    (dir, fake)
}

fn ctx() -> Context {
    Context::new(Env::default(), Arc::new(ClientOptions::default()))
}

fn ids(v: &[SessionSummary]) -> Vec<&str> {
    v.iter().map(|s| s.session_id.as_str()).collect()
}

const THREE: &[(&str, &str)] = &[
    ("a.fake", "a 3 m1 /w/one 1"),
    ("b.fake", "b 9 m2 /w/two 5"),
    ("c.fake", "c 1 m1 /w/one/ 9"),
];

#[test]
fn filters_sort_and_limit() {
    let (_dir, fake) = store(THREE);
    let all = SummaryCache::default().all_summaries(&ctx(), &fake);
    let run = |opts: ListOptions| ids(&list::apply(all.clone(), &opts)).join(",");
    // Default: newest activity first.
    assert_eq!(run(ListOptions::default()), "c,b,a");
    let by = |sort, direction| ListOptions {
        sort,
        direction,
        ..ListOptions::default()
    };
    assert_eq!(run(by(ListSort::Turns, Direction::Desc)), "b,a,c");
    assert_eq!(run(by(ListSort::Date, Direction::Asc)), "a,b,c");
    let limit = ListOptions {
        limit: 2,
        ..ListOptions::default()
    };
    assert_eq!(run(limit), "c,b");
    let filtered = |filters: Filters| {
        run(ListOptions {
            filters,
            ..ListOptions::default()
        })
    };
    let day = |d| Some(Utc.with_ymd_and_hms(2025, 1, d, 0, 0, 0).unwrap());
    assert_eq!(
        filtered(Filters {
            since: day(2),
            until: day(9),
            ..Filters::default()
        }),
        "b"
    );
    let model = Filters {
        model: Some("m1".into()),
        ..Filters::default()
    };
    assert_eq!(filtered(model), "c,a");
    // A trailing separator on either side names the same directory.
    let cwd = Filters {
        cwd: Some("/w/one/".into()),
        ..Filters::default()
    };
    assert_eq!(filtered(cwd), "c,a");
}

#[test]
fn cost_sort_ties_limit_zero_and_models_used() {
    let (_dir, fake) = store(&[
        ("a.fake", "a 2 m1 /w 1"),
        ("b.fake", "b 2 m1 /w 1"),
        ("c.fake", "c 5 m1 /w 2"),
    ]);
    let mut all = SummaryCache::default().all_summaries(&ctx(), &fake);
    for (s, usd) in all.iter_mut().zip([0.5, 2.0, 0.0]) {
        s.cost = (usd > 0.0).then(|| CostRecord {
            total_usd: usd,
            ..CostRecord::default()
        });
    }
    // `c` also used m2 (a subagent's model, say): a model filter finds it through its usage.
    all[2].usage.push(ModelUsage {
        model: "m2".into(),
        ..ModelUsage::default()
    });
    let run = |opts: ListOptions| ids(&list::apply(all.clone(), &opts)).join(",");
    let by = |sort, direction| ListOptions {
        sort,
        direction,
        ..ListOptions::default()
    };
    // No cost counts as zero.
    assert_eq!(run(by(ListSort::Cost, Direction::Desc)), "b,a,c");
    assert_eq!(run(by(ListSort::Cost, Direction::Asc)), "c,a,b");
    // Equal turns and dates: ties go by unified id, in either direction.
    assert_eq!(run(by(ListSort::Turns, Direction::Asc)), "a,b,c");
    assert_eq!(run(by(ListSort::Turns, Direction::Desc)), "c,a,b");
    assert_eq!(run(by(ListSort::Date, Direction::Desc)), "c,a,b");
    let none = ListOptions {
        limit: 0,
        ..ListOptions::default()
    };
    assert_eq!(run(none), "");
    let m2 = ListOptions {
        filters: Filters {
            model: Some("m2".into()),
            ..Filters::default()
        },
        ..ListOptions::default()
    };
    assert_eq!(run(m2), "c");
}

#[test]
fn the_cache_rereads_only_changed_sources_and_remembers_unreadable_ones() {
    let (dir, fake) = store(THREE);
    let (cache, ctx) = (SummaryCache::default(), ctx());
    assert_eq!(cache.all_summaries(&ctx, &fake).len(), 3);
    assert_eq!(cache.reads(), 3);
    assert_eq!(cache.all_summaries(&ctx, &fake).len(), 3);
    assert_eq!(
        cache.reads(),
        3,
        "unchanged sources are served from the cache"
    );
    // A changed size changes the stamp: only that source is read again.
    std::fs::write(dir.path().join("b.fake"), "b 10 m2 /w/two 5").unwrap();
    let again = cache.all_summaries(&ctx, &fake);
    assert_eq!(cache.reads(), 4);
    assert_eq!(
        again
            .iter()
            .find(|s| s.session_id == "b")
            .unwrap()
            .turn_count,
        10
    );
    // An unreadable source is skipped, named, and does not fail the listing.
    std::fs::write(dir.path().join("d.fake"), "garbage").unwrap();
    assert_eq!(ids(&cache.all_summaries(&ctx, &fake)), ["a", "b", "c"]);
    let skipped = cache.skipped();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].0.ends_with("d.fake"), "{skipped:?}");
}
