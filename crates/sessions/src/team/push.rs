//! `amux sync`: this machine's sessions pushed into the team database.
//!
//! - Incremental: each agent's fingerprint (its sources' stamps, the prices, the options) is kept
//!   per machine, and an agent whose fingerprint is unchanged is not listed, priced or read at
//!   all. Of an agent that changed, each session row keeps the stamp of the summary it was
//!   pushed from; a session whose stamp and usage are unchanged is not read. A session that grew
//!   pushes only its new messages when the messages already pushed still hash the same, else all
//!   of them again.
//! - Atomic per session: a session's rows and its stamp are written in one transaction, so a
//!   sync killed at any point leaves each session wholly as it was or wholly new, and the next
//!   sync pushes what is left. Several sessions share a transaction to keep the first sync fast.
//! - One sync per machine at a time (an advisory lock on the machine's name); machines never
//!   wait on each other.
//! - Usage rows are the cost engine's own pieces (after its dedupe), so a machine's
//!   `SUM(cost_usd)` is its `totalCost`.
//! - Text is redacted by the core's redaction unless asked otherwise.
//!
//! Sessions are read and serialised on other threads while this one writes (COPY), so the
//! reading and the server's work overlap.
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::mpsc;
use std::time::Instant;

use postgres::{Client, Transaction};
use rayon::prelude::*;
use serde::Serialize;
use xxhash_rust::xxh3::Xxh3;

use super::conn::Target;
use super::schema;
use super::words;
use crate::context::{Context, Progress};
use crate::cost::day::LocalDays;
use crate::cost::Pricer;
use crate::error::Result;
use crate::model::{Session, SessionSummary, Timestamp};
use crate::query::fields;

/// What `client.sync` is asked.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// The machine's name in the team database (default: the host name).
    pub machine: String,
    /// The user's name (default: the OS user).
    pub user: String,
    /// Redact secrets from the text pushed (default true).
    pub redact: bool,
    /// Remove from the team database this machine's sessions that are no longer here.
    pub prune: bool,
    /// The schema version to bring the database to and write: `schema::VERSION` but in the
    /// upgrade test, which plays an older amux.
    pub schema_version: i32,
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncResult {
    /// Sessions written (new or changed).
    pub sessions: u64,
    /// Of those, sessions whose new messages were appended to the ones already there.
    pub appended: u64,
    /// Message rows written.
    pub messages: u64,
    /// Usage rows written.
    pub usage: u64,
    /// Sessions unchanged since the last sync.
    pub unchanged: u64,
    /// Sessions that could not be read here (left as the team database has them).
    pub skipped: u64,
    /// Sessions of this machine in the team database no longer found here: marked deleted
    /// (`deleted_at`), or removed with `prune`.
    pub gone: u64,
    /// The schema version the database was at before, and is at now.
    pub schema_from: i32,
    pub schema_to: i32,
    pub ms: f64,
}

/// What the client hands a sync: each agent with the fingerprint of what this machine holds of
/// it (its sources' stamps, the prices and runs that price it), the sessions of the agents asked
/// for, as `list` gives them (priced, tagged) and as they count in `totalCost` (deduped,
/// unpriced), and how to read one in full.
pub struct Local<'a> {
    pub agents: Vec<(String, String)>,
    pub gather: &'a (dyn Fn(&[&str]) -> Gathered + Sync),
    pub load: &'a (dyn Fn(&SessionSummary) -> Result<Session> + Sync),
}

/// The sessions of some agents: as listed, and as costed.
pub struct Gathered {
    pub listed: Vec<SessionSummary>,
    pub costed: Vec<SessionSummary>,
}

/// A session's row as stored: what the next sync compares with.
struct Stored {
    stamp: String,
    pushed: usize,
    messages_hash: String,
    usage_hash: String,
    redacted: bool,
}

/// A transaction is committed once it holds this many bytes of rows (and after its last session).
const BATCH_BYTES: usize = 8 << 20;
/// Sessions read in parallel, ahead of the writer.
const READ_AHEAD: usize = 16;

pub fn sync(ctx: &Context, url: &str, opts: &SyncOptions, local: Local<'_>) -> Result<SyncResult> {
    let started = Instant::now();
    let target = Target::parse(url, &ctx.env)?;
    let mut db = target.connect()?;
    let target = &target;
    let err = |doing: &'static str| move |e: postgres::Error| target.error(&e, doing);
    let schema_from = schema::migrate_to(&mut db, target, opts.schema_version)?;
    // Losing the last commits in a crash of the server is harmless here (their stamps go with
    // them and the next sync pushes them again); waiting for each flush is not.
    db.batch_execute("SET synchronous_commit = off")
        .map_err(err("configure the session of"))?;
    db.execute(
        "SELECT pg_advisory_lock(hashtextextended('amux sync ' || $1, 0))",
        &[&opts.machine],
    )
    .map_err(err("lock this machine's rows in"))?;

    let fingerprints: Vec<(String, String)> = (local.agents.iter())
        .map(|(a, f)| (a.clone(), fingerprint(f, opts)))
        .collect();
    let before = read_fingerprints(&mut db, opts).map_err(err("read what is stored in"))?;
    let changed: Vec<&str> = (fingerprints.iter())
        .filter(|(a, f)| before.get(a) != Some(f))
        .map(|(a, _)| a.as_str())
        .collect();
    let stored =
        read_stored(&mut db, &opts.machine, &changed).map_err(err("read what is stored in"))?;
    let pricer = Pricer::new(ctx);
    // The runs of the run index are matched with the sessions of every agent: those of the
    // agents left unread are the team database's.
    let others = read_others(&mut db, opts, &changed).map_err(err("read what is stored in"))?;
    let gathered = (local.gather)(&changed);
    let days = LocalDays::new(&ctx.env);
    let plan = plan(opts, &gathered, &others, &pricer, &days, &stored);
    let mut out = SyncResult {
        schema_from,
        schema_to: opts.schema_version.max(schema_from),
        unchanged: plan.unchanged + others.len() as u64,
        ..Default::default()
    };

    let total = plan.work.len() as u64;
    let report = |done: u64| {
        if let Some(p) = &ctx.options.progress {
            (p.0)(&Progress {
                agent: "sync",
                done,
                total,
            })
        }
    };
    report(0);
    let (tx_rows, rx_rows) = mpsc::sync_channel::<Prepared>(READ_AHEAD);
    let (work, local, stored) = (&plan.work, &local, &stored);
    let mut failed: HashSet<String> = HashSet::new();
    let failed_agents = &mut failed;
    std::thread::scope(|scope| -> Result<()> {
        let reader = scope.spawn(move || {
            for chunk in work.chunks(READ_AHEAD) {
                let prepared: Vec<Prepared> = chunk
                    .par_iter()
                    .map(|w| prepare(w, opts, local, stored))
                    .collect();
                for p in prepared {
                    if tx_rows.send(p).is_err() {
                        return; // the writer stopped: nothing more is wanted
                    }
                }
            }
        });
        let written = write_all(&mut db, opts, rx_rows, &mut out, failed_agents, &report)
            .map_err(|e| target.error(&e, "write to"));
        // The reader ends once the writer drops its receiver (on an error) or all is read.
        let _ = reader.join();
        written
    })?;

    let ids: Vec<&str> = plan.local_ids.iter().map(String::as_str).collect();
    // An agent with a session that could not be read is looked at again next time.
    let done: Vec<(&str, &str)> = (fingerprints.iter())
        .filter(|(a, _)| changed.contains(&a.as_str()) && !failed.contains(a))
        .map(|(a, f)| (a.as_str(), f.as_str()))
        .collect();
    let finished = Finish {
        ids: &ids,
        changed: &changed,
        runs: &plan.runs,
        fingerprints: &done,
    };
    out.gone = finish(&mut db, opts, &finished).map_err(err("finish the sync of"))?;
    db.execute(
        "SELECT pg_advisory_unlock(hashtextextended('amux sync ' || $1, 0))",
        &[&opts.machine],
    )
    .map_err(err("unlock this machine's rows in"))?;
    out.ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(out)
}

/// An agent's fingerprint as stored: what the client gave, with what this sync writes by.
fn fingerprint(local: &str, opts: &SyncOptions) -> String {
    let mut h = Xxh3::new();
    h.update(local.as_bytes());
    h.update(opts.user.as_bytes());
    h.update(&[opts.redact as u8]);
    h.update(&opts.schema_version.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    hex(h.digest128())
}

/// The fingerprint of each agent as this machine's last sync left it (none before version 3).
fn read_fingerprints(
    db: &mut Client,
    opts: &SyncOptions,
) -> std::result::Result<HashMap<String, String>, postgres::Error> {
    if opts.schema_version < 3 {
        return Ok(HashMap::new());
    }
    let rows = db.query(
        "SELECT agent, fingerprint FROM sync_agents WHERE machine = $1",
        &[&opts.machine],
    )?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The (agent, session id) of this machine's sessions (still here) of the agents not in
/// `changed`: unchanged since the last sync.
fn read_others(
    db: &mut Client,
    opts: &SyncOptions,
    changed: &[&str],
) -> std::result::Result<Vec<(String, String)>, postgres::Error> {
    let here = match opts.schema_version >= 2 {
        true => "AND deleted_at IS NULL",
        false => "",
    };
    let rows = db.query(
        &format!(
            "SELECT agent, session_id FROM sessions WHERE machine = $1 AND NOT (agent = ANY($2)) {here}"
        ),
        &[&opts.machine, &changed],
    )?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

fn read_stored(
    db: &mut Client,
    machine: &str,
    agents: &[&str],
) -> std::result::Result<HashMap<String, Stored>, postgres::Error> {
    let rows = db.query(
        "SELECT unified_id, stamp, pushed_messages, messages_hash, usage_hash, redacted \
         FROM sessions WHERE machine = $1 AND agent = ANY($2)",
        &[&machine, &agents],
    )?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let pushed: i32 = r.get(2);
            (
                r.get(0),
                Stored {
                    stamp: r.get(1),
                    pushed: pushed.max(0) as usize,
                    messages_hash: r.get(3),
                    usage_hash: r.get(4),
                    redacted: r.get(5),
                },
            )
        })
        .collect())
}

/// One session to write: its summary (as listed, redacted), its usage rows, and whether its
/// messages must be read.
struct Work {
    summary: SessionSummary,
    stamp: String,
    usage: String,
    usage_rows: u64,
    usage_hash: String,
    /// The machine's local day the session was created on ("YYYY-MM-DD").
    created_day: String,
    /// The messages changed (else only the usage did).
    messages: bool,
}

/// What a sync does, decided before anything is written.
struct Plan {
    work: Vec<Work>,
    unchanged: u64,
    local_ids: Vec<String>,
    /// The usage rows (COPY text) of the run index's runs that match no session, and their count.
    runs: (String, u64),
}

fn plan(
    opts: &SyncOptions,
    local: &Gathered,
    others: &[(String, String)],
    pricer: &Pricer,
    days: &LocalDays,
    stored: &HashMap<String, Stored>,
) -> Plan {
    let mut usage_of: HashMap<&str, (String, u64)> = HashMap::new();
    let mut known: HashSet<(&str, &str)> = (others.iter())
        .map(|(a, id)| (a.as_str(), id.as_str()))
        .collect();
    for s in &local.costed {
        known.insert((s.agent.as_str(), s.session_id.as_str()));
        let mut priced = s.clone();
        let parts = pricer.price(&mut priced, true).parts;
        let mut project = s.cwd.clone().unwrap_or_default();
        if opts.redact {
            crate::redact::in_place(&mut project);
        }
        let mut rows = UsageRows::new(opts, &s.unified_id);
        for p in &parts {
            for piece in &p.pieces {
                let at = piece.at;
                let day = days.day(at.as_ref().unwrap_or(&s.created_at));
                rows.push(
                    &s.agent,
                    &p.model,
                    &project,
                    &day,
                    at,
                    &piece.tokens,
                    piece.usd,
                );
            }
        }
        usage_of.insert(s.unified_id.as_str(), (rows.text, rows.n));
    }
    let mut runs = UsageRows::new(opts, "");
    for r in &pricer.runs.runs {
        let matched =
            (r.session_id.as_deref()).is_some_and(|id| known.contains(&(r.agent.as_str(), id)));
        if matched {
            continue;
        }
        let tokens = r
            .cost
            .as_ref()
            .map(crate::cost::tokens_of)
            .unwrap_or_default();
        let usd = r.cost.as_ref().map_or(0.0, |c| c.total_usd);
        runs.id = format!("run:{}", r.run_id);
        runs.n = 0;
        let model = r.model.clone().unwrap_or_default();
        runs.push(
            &r.agent,
            &model,
            "",
            &days.day(&r.timestamp),
            Some(r.timestamp),
            &tokens,
            usd,
        );
    }

    let mut work = Vec::new();
    let mut unchanged = 0;
    let mut local_ids = Vec::new();
    for s in &local.listed {
        let mut s = s.clone();
        s.snippet = None;
        s.relevance_score = None;
        s.match_count = None;
        if opts.redact {
            crate::redact::summary(&mut s);
        }
        let (usage, usage_rows) = usage_of.remove(s.unified_id.as_str()).unwrap_or_default();
        let created_day = days.day(&s.created_at);
        // A session without usage counts on the day it was created: that day is its usage.
        let usage_hash = match (usage.is_empty(), opts.schema_version >= 4) {
            (true, true) => hex(xxhash_rust::xxh3::xxh3_128(created_day.as_bytes())),
            _ => hex(xxhash_rust::xxh3::xxh3_128(usage.as_bytes())),
        };
        let stamp = stamp(&s, opts);
        local_ids.push(s.unified_id.clone());
        let old = stored.get(&s.unified_id);
        let messages = old.is_none_or(|o| o.stamp != stamp);
        if !messages && old.is_some_and(|o| o.usage_hash == usage_hash) {
            unchanged += 1;
            continue;
        }
        work.push(Work {
            summary: s,
            stamp,
            usage,
            usage_rows,
            usage_hash,
            created_day,
            messages,
        });
    }
    Plan {
        work,
        unchanged,
        local_ids,
        runs: (runs.text, runs.total),
    }
}

/// The stamp of what a session row was pushed from: its summary as listed (counts, times, cost,
/// tags, title), the user's name and whether the text is redacted.
fn stamp(s: &SessionSummary, opts: &SyncOptions) -> String {
    let mut h = Xxh3::new();
    h.update(serde_json::to_string(s).unwrap_or_default().as_bytes());
    h.update(opts.user.as_bytes());
    h.update(&[opts.redact as u8]);
    hex(h.digest128())
}

fn hex(x: u128) -> String {
    format!("{x:032x}")
}

/// Usage rows as COPY text.
struct UsageRows<'o> {
    opts: &'o SyncOptions,
    id: String,
    n: u64,
    total: u64,
    text: String,
}

impl<'o> UsageRows<'o> {
    fn new(opts: &'o SyncOptions, id: &str) -> Self {
        UsageRows {
            opts,
            id: id.to_string(),
            n: 0,
            total: 0,
            text: String::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        agent: &str,
        model: &str,
        project: &str,
        day: &str,
        at: Option<Timestamp>,
        t: &crate::model::Tokens,
        usd: f64,
    ) {
        let at = at.map(|t| t.to_rfc3339());
        let numbers =
            [t.input, t.output, t.reasoning, t.cache_read, t.cache_write].map(|x| x.to_string());
        let (n, usd) = (self.n.to_string(), format!("{usd:?}"));
        let fields = [
            Some(self.opts.machine.as_str()),
            Some(&self.id),
            Some(&n),
            Some(&self.opts.user),
            Some(agent),
            Some(model.trim()),
            Some(project),
            Some(day),
            at.as_deref(),
        ]
        .into_iter()
        .chain(numbers.iter().map(|x| Some(x.as_str())))
        .chain([Some(usd.as_str())]);
        copy_row(&mut self.text, fields);
        self.n += 1;
        self.total += 1;
    }
}

/// One row of COPY's text format: tab-separated, `\N` for NULL, backslash escapes. PostgreSQL's
/// text holds no NUL character: one is dropped.
fn copy_row<'a>(out: &mut String, fields: impl Iterator<Item = Option<&'a str>>) {
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push('\t');
        }
        match f {
            None => out.push_str("\\N"),
            Some(s) => {
                for c in s.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        '\0' => {}
                        c => out.push(c),
                    }
                }
            }
        }
    }
    out.push('\n');
}

/// A session ready to write.
struct Prepared<'w> {
    work: &'w Work,
    /// Replace the stored messages (else append from `from`).
    replace: bool,
    from: usize,
    /// Message rows from `from` as COPY text, and how many.
    rows: String,
    count: usize,
    pushed: usize,
    messages_hash: String,
    /// The session could not be read: left as stored.
    failed: bool,
    /// The session's words (its title's and every message's), when its messages were read.
    words: Option<String>,
}

fn prepare<'w>(
    w: &'w Work,
    opts: &SyncOptions,
    local: &Local<'_>,
    stored: &HashMap<String, Stored>,
) -> Prepared<'w> {
    let old = stored.get(&w.summary.unified_id);
    let mut p = Prepared {
        work: w,
        replace: false,
        from: 0,
        rows: String::new(),
        count: 0,
        pushed: old.map_or(0, |o| o.pushed),
        messages_hash: old.map(|o| o.messages_hash.clone()).unwrap_or_default(),
        failed: false,
        words: None,
    };
    if !w.messages {
        return p;
    }
    let Ok(mut session) = (local.load)(&w.summary) else {
        p.failed = true;
        return p;
    };
    if opts.redact {
        use rayon::prelude::*;
        session
            .messages
            .par_iter_mut()
            .for_each(crate::redact::message);
    }
    let json: Vec<String> = session
        .messages
        .iter()
        .map(|m| serde_json::to_string(m).unwrap_or_else(|_| "null".into()))
        .collect();
    let mut h = Xxh3::new();
    let mut prefix = None;
    for (i, j) in json.iter().enumerate() {
        if old.is_some_and(|o| o.pushed == i) {
            prefix = Some(hex(h.digest128()));
        }
        h.update(&(j.len() as u64).to_le_bytes());
        h.update(j.as_bytes());
    }
    let all = hex(h.digest128());
    if old.is_some_and(|o| o.pushed == json.len()) {
        prefix = Some(all.clone());
    }
    let appendable = old.is_some_and(|o| {
        o.redacted == opts.redact && prefix.as_deref() == Some(o.messages_hash.as_str())
    });
    p.from = if appendable {
        old.map_or(0, |o| o.pushed)
    } else {
        0
    };
    p.replace = !appendable && old.is_some();
    let answered = fields::answered(&session.messages);
    let mut scratch = String::new();
    let mut texts: Vec<String> = Vec::new();
    // The session's words are made again from every message (and the title) on each change.
    let mut lexemes = words::Lexemes::default();
    let mut title = words::Words::default();
    title.add(&w.summary.title);
    // From version 5 a session's words hold its CJK grams too (an older schema's readers search
    // CJK text by the messages' trigrams).
    let grams = opts.schema_version >= 5;
    lexemes.add(title.lexemes().chain(title.grams().filter(|_| grams)));
    for (i, m) in session.messages.iter().enumerate() {
        texts.clear();
        fields::for_each_field(
            std::slice::from_ref(m),
            &answered,
            &mut scratch,
            &mut |_, t, kind| {
                if kind == fields::TextKind::Own {
                    texts.push(t.to_string());
                }
            },
        );
        let mut words = words::Words::default();
        texts.iter().for_each(|t| words.add(t));
        lexemes.add(words.lexemes().chain(words.grams().filter(|_| grams)));
        if i < p.from {
            continue;
        }
        let at = m.timestamp.map(|t| t.to_rfc3339());
        let (idx, head) = (i.to_string(), opts.machine.as_str());
        let key = [
            Some(head),
            Some(w.summary.unified_id.as_str()),
            Some(idx.as_str()),
            Some(m.role.as_str()),
            at.as_deref(),
            m.model.as_deref(),
        ];
        if opts.schema_version >= 3 {
            let tsv = words.literal();
            let cjk = words::cjk(texts.iter().map(String::as_str));
            let rest = [Some(json[i].as_str()), Some(tsv.as_str()), cjk.as_deref()];
            copy_row(&mut p.rows, key.into_iter().chain(rest));
        } else {
            let text = texts.join("\n");
            let rest = [Some(text.as_str()), Some(json[i].as_str())];
            copy_row(&mut p.rows, key.into_iter().chain(rest));
        }
        p.count += 1;
    }
    p.pushed = json.len();
    p.messages_hash = all;
    p.words = Some(lexemes.literal());
    p
}

/// Writes the prepared sessions, several to a transaction.
fn write_all(
    db: &mut Client,
    opts: &SyncOptions,
    rows: mpsc::Receiver<Prepared<'_>>,
    out: &mut SyncResult,
    failed: &mut HashSet<String>,
    report: &dyn Fn(u64),
) -> std::result::Result<(), postgres::Error> {
    let mut done = 0;
    let mut batch: Vec<Prepared<'_>> = Vec::new();
    let mut bytes = 0;
    for p in rows {
        done += 1;
        if p.failed {
            out.skipped += 1;
            failed.insert(p.work.summary.agent.clone());
            continue;
        }
        bytes += p.rows.len() + p.work.usage.len() + 1024;
        batch.push(p);
        if bytes >= BATCH_BYTES {
            write_batch(db, opts, &batch, out)?;
            report(done);
            batch.clear();
            bytes = 0;
        }
    }
    if !batch.is_empty() {
        write_batch(db, opts, &batch, out)?;
    }
    report(done);
    Ok(())
}

fn write_batch(
    db: &mut Client,
    opts: &SyncOptions,
    batch: &[Prepared<'_>],
    out: &mut SyncResult,
) -> std::result::Result<(), postgres::Error> {
    let mut tx = db.transaction()?;
    let v3 = opts.schema_version >= 3;
    let upsert = tx.prepare(&upsert_sql(opts.schema_version))?;
    for p in batch {
        let s = &p.work.summary;
        let c = s.cost.as_ref();
        let big = |x: Option<u64>| x.map(|v| v as i64);
        let title = strip_nul(&s.title);
        let title_words = words::of(&title);
        let counts = (s.turn_count as i64, s.message_count as i64);
        let usd = c.map(|c| c.total_usd);
        let tokens = [
            big(c.map(|c| c.input_tokens)),
            big(c.map(|c| c.output_tokens)),
            big(c.and_then(|c| c.thinking_tokens)),
            big(c.and_then(|c| c.cached_tokens)),
            big(c.and_then(|c| c.cache_write_tokens)),
        ];
        let pushed = p.pushed as i32;
        let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![
            &opts.machine,
            &s.unified_id,
            &opts.user,
            &s.agent,
            &s.session_id,
            &title,
            &s.created_at,
            &s.updated_at,
            &counts.0,
            &counts.1,
            &s.model,
            &s.cwd,
            &s.git_branch,
            &s.forked_from,
            &s.tags,
            &s.archived,
            &usd,
            &tokens[0],
            &tokens[1],
            &tokens[2],
            &tokens[3],
            &tokens[4],
            &opts.redact,
            &p.work.stamp,
            &pushed,
            &p.messages_hash,
            &p.work.usage_hash,
        ];
        if v3 {
            params.push(&title_words);
            params.push(&p.words);
        }
        if opts.schema_version >= 4 {
            params.push(&p.work.created_day);
        }
        tx.execute(&upsert, &params)?;
        if p.replace {
            tx.execute(
                "DELETE FROM messages WHERE machine = $1 AND unified_id = $2",
                &[&opts.machine, &s.unified_id],
            )?;
        } else if p.from > 0 {
            // An append: rows past what was pushed may be left by nothing, but be sure.
            tx.execute(
                "DELETE FROM messages WHERE machine = $1 AND unified_id = $2 AND idx >= $3",
                &[&opts.machine, &s.unified_id, &(p.from as i32)],
            )?;
        }
        if opts.schema_version >= 2 {
            tx.execute(
                "UPDATE sessions SET deleted_at = NULL WHERE machine = $1 AND unified_id = $2 AND deleted_at IS NOT NULL",
                &[&opts.machine, &s.unified_id],
            )?;
        }
        tx.execute(
            "DELETE FROM usage WHERE machine = $1 AND unified_id = $2",
            &[&opts.machine, &s.unified_id],
        )?;
        out.sessions += 1;
        if p.work.messages && !p.replace && p.from > 0 {
            out.appended += 1;
        }
    }
    copy(
        &mut tx,
        if v3 { COPY_MESSAGES } else { COPY_MESSAGES_V1 },
        batch.iter().map(|p| p.rows.as_str()),
    )?;
    copy(
        &mut tx,
        COPY_USAGE,
        batch.iter().map(|p| p.work.usage.as_str()),
    )?;
    if opts.schema_version >= 4 {
        let ids: Vec<&str> = (batch.iter())
            .map(|p| p.work.summary.unified_id.as_str())
            .collect();
        summarise(&mut tx, &opts.machine, "unified_id = ANY($2)", &ids)?;
    }
    tx.commit()?;
    out.messages += batch.iter().map(|p| p.count as u64).sum::<u64>();
    out.usage += batch.iter().map(|p| p.work.usage_rows).sum::<u64>();
    Ok(())
}

fn strip_nul(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains('\0') {
        s.replace('\0', "").into()
    } else {
        s.into()
    }
}

fn copy<'a>(
    tx: &mut Transaction<'_>,
    statement: &str,
    texts: impl Iterator<Item = &'a str> + Clone,
) -> std::result::Result<(), postgres::Error> {
    if texts.clone().all(str::is_empty) {
        return Ok(());
    }
    let mut w = tx.copy_in(statement)?;
    for t in texts {
        // An io error here is the connection's; `finish` reports it as the driver's error.
        if w.write_all(t.as_bytes()).is_err() {
            break;
        }
    }
    w.finish()?;
    Ok(())
}

/// What the end of a sync writes.
struct Finish<'a> {
    /// The sessions found here of the agents that changed.
    ids: &'a [&'a str],
    changed: &'a [&'a str],
    /// The usage rows of runs without a session, and their count.
    runs: &'a (String, u64),
    /// The agents wholly synced, with their fingerprints.
    fingerprints: &'a [(&'a str, &'a str)],
}

/// After the sessions: the runs without a session, the sessions of the changed agents no
/// longer here, the machine's row, the agents' fingerprints. Returns how many sessions are gone.
fn finish(
    db: &mut Client,
    opts: &SyncOptions,
    f: &Finish<'_>,
) -> std::result::Result<u64, postgres::Error> {
    let (ids, runs, changed) = (f.ids, f.runs, f.changed);
    let mut tx = db.transaction()?;
    tx.execute(
        "DELETE FROM usage WHERE machine = $1 AND unified_id LIKE 'run:%'",
        &[&opts.machine],
    )?;
    copy(&mut tx, COPY_USAGE, std::iter::once(runs.0.as_str()))?;
    let summary = opts.schema_version >= 4;
    if summary {
        summarise(&mut tx, &opts.machine, "unified_id LIKE 'run:%'", &[])?;
    }
    let gone = if opts.prune {
        // Not here: of the agents that changed, those not found; of the others, those an
        // earlier sync marked gone (nothing of them changed since).
        let marked = match opts.schema_version >= 2 {
            true => " OR s.deleted_at IS NOT NULL",
            false => "",
        };
        let not_here = format!(
            "s.machine = $1 AND ((s.agent = ANY($3) AND NOT (s.unified_id = ANY($2))){marked})"
        );
        // Their usage rows, and the summary of them where the schema has one.
        let of_sessions: &[&str] = match summary {
            true => &["usage", "usage_days"],
            false => &["usage"],
        };
        for table in of_sessions {
            tx.execute(
                &format!(
                    "DELETE FROM {table} x USING sessions s WHERE x.machine = $1 \
                     AND s.unified_id = x.unified_id AND {not_here}"
                ),
                &[&opts.machine, &ids, &changed],
            )?;
        }
        tx.execute(
            &format!("DELETE FROM sessions s WHERE {not_here}"),
            &[&opts.machine, &ids, &changed],
        )?
    } else if opts.schema_version >= 2 {
        tx.execute(
            "UPDATE sessions SET deleted_at = now() WHERE machine = $1 AND deleted_at IS NULL \
             AND agent = ANY($3) AND NOT (unified_id = ANY($2))",
            &[&opts.machine, &ids, &changed],
        )?
    } else {
        0
    };
    tx.execute(
        "INSERT INTO machines (machine, os_user, last_sync_at, amux_version) VALUES ($1, $2, now(), $3) \
         ON CONFLICT (machine) DO UPDATE SET os_user = $2, last_sync_at = now(), amux_version = $3",
        &[&opts.machine, &opts.user, &env!("CARGO_PKG_VERSION")],
    )?;
    // Before version 3 (an older amux's schema) there is no table of fingerprints.
    let fingerprints = if opts.schema_version >= 3 {
        f.fingerprints
    } else {
        &[]
    };
    for (agent, fingerprint) in fingerprints {
        tx.execute(
            "INSERT INTO sync_agents (machine, agent, fingerprint) VALUES ($1, $2, $3) \
             ON CONFLICT (machine, agent) DO UPDATE SET fingerprint = $3",
            &[&opts.machine, agent, fingerprint],
        )?;
    }
    tx.commit()?;
    Ok(gone)
}

/// The summary rows (`usage_days`) of this machine's sessions or runs that `which` names (on
/// `unified_id`, its ids as `$2` when it takes them) made again from their usage rows: in the
/// transaction that wrote those, so the summary never holds what the rows do not.
fn summarise(
    tx: &mut Transaction<'_>,
    machine: &str,
    which: &str,
    ids: &[&str],
) -> std::result::Result<(), postgres::Error> {
    let mut params: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![&machine];
    if which.contains("$2") {
        params.push(&ids);
    }
    tx.execute(
        &format!("DELETE FROM usage_days WHERE machine = $1 AND {which}"),
        &params,
    )?;
    tx.execute(
        &format!(
            "INSERT INTO usage_days SELECT * FROM usage_days_of WHERE machine = $1 AND {which}"
        ),
        &params,
    )?;
    Ok(())
}

const COPY_MESSAGES: &str =
    "COPY messages (machine, unified_id, idx, role, at, model, message, tsv, cjk) FROM STDIN";
/// Before version 3 (the upgrade test's older amux).
const COPY_MESSAGES_V1: &str =
    "COPY messages (machine, unified_id, idx, role, at, model, text, message) FROM STDIN";
const COPY_USAGE: &str = "COPY usage (machine, unified_id, n, os_user, agent, model, project, day, at, \
     input_tokens, output_tokens, thinking_tokens, cached_tokens, cache_write_tokens, cost_usd) FROM STDIN";

/// The statement that writes a session's row; from version 3 with its title's words ($28) and
/// its words ($29: NULL when its messages were not read, which leaves them as they are), from
/// version 4 with the local day it was created on ($30).
fn upsert_sql(version: i32) -> String {
    let (mut col, mut val, mut set) = match version >= 3 {
        true => (
            ", title_tsv, words".to_string(),
            ", $28::text::tsvector, coalesce($29::text::tsvector, '')".to_string(),
            ", title_tsv = $28::text::tsvector, words = coalesce($29::text::tsvector, sessions.words)"
                .to_string(),
        ),
        false => Default::default(),
    };
    if version >= 4 {
        col.push_str(", created_day");
        val.push_str(", $30::text::date");
        set.push_str(", created_day = $30::text::date");
    }
    format!(
        "INSERT INTO sessions (machine, unified_id, os_user, agent, session_id, title, \
         created_at, updated_at, turn_count, message_count, model, cwd, git_branch, forked_from, tags, \
         archived, cost_usd, input_tokens, output_tokens, thinking_tokens, cached_tokens, \
         cache_write_tokens, redacted, stamp, pushed_messages, messages_hash, usage_hash, synced_at{col}) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, \
         $20, $21, $22, $23, $24, $25, $26, $27, now(){val}) \
         ON CONFLICT (machine, unified_id) DO UPDATE SET os_user = $3, agent = $4, session_id = $5, \
         title = $6, created_at = $7, updated_at = $8, turn_count = $9, message_count = $10, model = $11, \
         cwd = $12, git_branch = $13, forked_from = $14, tags = $15, archived = $16, cost_usd = $17, \
         input_tokens = $18, output_tokens = $19, thinking_tokens = $20, cached_tokens = $21, \
         cache_write_tokens = $22, redacted = $23, stamp = $24, pushed_messages = $25, \
         messages_hash = $26, usage_hash = $27, synced_at = now(){set}"
    )
}
