//! The session API as the binding calls it: one `Client` per `createClient()`, every method given
//! the environment snapshot taken on the caller's thread.
use std::sync::Arc;

use crate::agents::{self, Agent, Mode};
use crate::context::{ClientOptions, Context};
use crate::cost::blocks::{Blocks, BlocksBuilder};
use crate::cost::dedupe::Replays;
use crate::cost::report::{Report, ReportBuilder, Sums};
use crate::cost::{self, CostSummary};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::ids::is_safe_native_id;
use crate::list;
use crate::model::{FileAction, Session, SessionSummary};
use crate::options::{
    BlocksOptions, CostOptions, ExportFormat, ListOptions, ListSort, ReportOptions, SearchQuery,
};
use crate::recap::{self, Recap, RecapOptions};
use crate::selection;
use crate::storage::{without_requests, Status, Storage, SummaryCache};
use crate::team::read::{self as team, Team};
use crate::window::{MessageWindow, WindowOptions};

#[derive(Default)]
pub struct Client {
    options: Arc<ClientOptions>,
    storage: Storage,
    /// The team database this client reads instead of the agents (`ClientOptions::source`).
    team: Option<Arc<Team>>,
}

/// The agents whose requests fall into 5-hour billing blocks (`cost.blocks`).
const BLOCK_AGENTS: &[&str] = &["claude"];

fn agent(name: &str) -> Result<&'static dyn Agent> {
    agents::find(name).ok_or_else(|| Error::agent_not_found(name))
}

impl Client {
    pub fn new(options: ClientOptions) -> Self {
        Client {
            team: options
                .source
                .as_deref()
                .map(|url| Arc::new(Team::new(url))),
            options: Arc::new(options),
            storage: Storage::default(),
        }
    }

    /// The team database, unless this client reads this machine.
    fn team(&self) -> Option<&Team> {
        self.team.as_deref()
    }

    /// Refuse `what` on a team database, which cannot answer it (the binding asks it of the
    /// calls that answer without a `Result`: `index.status`, `keep.status`).
    pub fn local_only(&self, what: &str) -> Result<()> {
        match self.team {
            Some(_) => Err(team::unsupported(what)),
            None => Ok(()),
        }
    }

    /// Refuse a filter the source cannot apply: on this machine's sessions one only a team
    /// database answers, on a team database one only this machine answers.
    fn team_filters(&self, filters: &crate::options::Filters) -> Result<()> {
        match self.team {
            Some(_) => team::team_check(filters),
            None => team::local_check(filters),
        }
    }

    /// The team database's summaries as a call returns them: redacted when it asks.
    fn team_summaries(
        &self,
        redact: Option<bool>,
        mut v: Vec<SessionSummary>,
    ) -> Vec<SessionSummary> {
        if self.redacts(redact) {
            v.iter_mut().for_each(crate::redact::summary);
        }
        v
    }

    /// Whether a call redacts secrets (`crate::redact`): as it says, else as the client does.
    pub fn redacts(&self, per_call: Option<bool>) -> bool {
        per_call.unwrap_or(self.options.redact)
    }

    /// `session` with its secrets redacted when the call (or else the client) asks for it.
    pub fn redacted(&self, per_call: Option<bool>, mut session: Session) -> Session {
        if self.redacts(per_call) {
            crate::redact::session(&mut session);
        }
        session
    }

    pub fn context(&self, env: Env) -> Context {
        Context::new(env, self.options.clone())
    }

    /// The summaries this client read from the agents' sources, and the sources it skipped.
    pub fn cache(&self) -> &SummaryCache {
        self.storage.cache()
    }

    /// Every session of `agent`, priced and tagged, unfiltered.
    pub fn all_summaries(&self, ctx: &Context, agent: &dyn Agent) -> Vec<SessionSummary> {
        let mut v = self.storage.summaries(ctx, agent);
        cost::apply_to_summaries(ctx, &mut v);
        v
    }

    pub fn list(
        &self,
        env: Env,
        agent_name: &str,
        opts: &ListOptions,
    ) -> Result<Vec<SessionSummary>> {
        let a = agent(agent_name)?;
        self.team_filters(&opts.filters)?;
        if let Some(t) = self.team() {
            let v = team::list::list(t, &env, Some(a.name()), opts)?;
            return Ok(self.team_summaries(opts.redact, v));
        }
        Ok(self.list_agents(&self.context(env), &[a], opts))
    }

    /// Every agent's sessions, filtered, sorted and cut as `list` does one agent's.
    pub fn list_all(&self, env: Env, opts: &ListOptions) -> Result<Vec<SessionSummary>> {
        self.team_filters(&opts.filters)?;
        if let Some(t) = self.team() {
            let v = team::list::list(t, &env, None, opts)?;
            return Ok(self.team_summaries(opts.redact, v));
        }
        Ok(self.list_agents(&self.context(env), agents::all(), opts))
    }

    fn list_agents(
        &self,
        ctx: &Context,
        targets: &[&'static dyn Agent],
        opts: &ListOptions,
    ) -> Vec<SessionSummary> {
        let mut all: Vec<SessionSummary> = (targets.iter())
            .flat_map(|a| self.storage.summaries(ctx, *a))
            .collect();
        // A sub-agent's session shows in its parent's row, its cost added, unless asked for.
        let mut children = match opts.subagents {
            true => Default::default(),
            false => list::take_children(&mut all),
        };
        (children.values_mut()).for_each(|c| cost::apply_to_summaries(ctx, c));
        let mut v = if selection::priced_before_cut(&opts.filters, opts.sort == ListSort::Cost) {
            cost::apply_to_summaries(ctx, &mut all);
            list::fold_children(&mut all, &children);
            list::apply(all, opts)
        } else {
            // Only the sessions returned are priced (the default cut keeps 100 of thousands).
            let mut v = list::apply(all, opts);
            cost::apply_to_summaries(ctx, &mut v);
            list::fold_children(&mut v, &children);
            v
        };
        if self.redacts(opts.redact) {
            v.iter_mut().for_each(crate::redact::summary);
        }
        v
    }

    /// What the agents did since a moment, per project (`recap`).
    pub fn recap(&self, env: Env, opts: &RecapOptions) -> Result<Recap> {
        let ctx = self.context(env);
        let targets: Vec<&'static dyn Agent> = match &opts.agent {
            Some(name) => vec![agent(name)?],
            None => agents::all().to_vec(),
        };
        let since = (opts.since).unwrap_or_else(|| {
            recap::default_since(ctx.env.now().unwrap_or_else(chrono::Utc::now))
        });
        // Every store listed once, for the summaries and the touches.
        let listed = self.storage.sources_of(&ctx, &targets);
        let mut v: Vec<SessionSummary> = (targets.iter())
            .flat_map(|a| self.storage.summaries_since(&ctx, *a, since, &listed))
            .filter(|s| recap::selected(s, opts, since))
            .collect();
        let mut children = list::take_children(&mut v);
        (children.values_mut()).for_each(|c| cost::apply_to_summaries(&ctx, c));
        cost::apply_to_summaries(&ctx, &mut v);
        list::fold_children(&mut v, &children);
        if self.redacts(None) {
            v.iter_mut().for_each(crate::redact::summary);
        }
        let sessions = v.iter().chain(children.values().flatten());
        let touches = self.touches_by_session(&ctx, sessions, &listed)?;
        let edited = |s: &SessionSummary| -> Vec<recap::Edit> {
            let t = touches.get(&s.unified_id).into_iter().flatten();
            t.filter(|t| matches!(t.action, FileAction::Edit | FileAction::Write))
                .map(|t| recap::Edit {
                    path: t.path.clone(),
                    at: t.at,
                    added: t.added.unwrap_or(0),
                    removed: t.removed.unwrap_or(0),
                })
                .collect()
        };
        // A parent's edits include those of the sub-agents folded into it.
        let edits = |s: &SessionSummary| {
            let kids = children.get(&s.unified_id).into_iter().flatten();
            std::iter::once(s).chain(kids).flat_map(edited).collect()
        };
        let per_file = (opts.sessions_per_file).unwrap_or(recap::SESSIONS_PER_FILE);
        Ok(recap::build(v, since, opts.until, per_file, &edits))
    }

    /// The edits and writes of `sessions` (what a recap counts), by unified id, asked of each
    /// agent once.
    fn touches_by_session<'a>(
        &self,
        ctx: &Context,
        sessions: impl Iterator<Item = &'a SessionSummary>,
        listed: &crate::storage::CallSources,
    ) -> Result<std::collections::HashMap<String, Vec<crate::model::Touch>>> {
        let mut by_agent: std::collections::BTreeMap<&str, std::collections::HashSet<&str>> =
            Default::default();
        for s in sessions {
            by_agent.entry(&s.agent).or_default().insert(&s.session_id);
        }
        let mut out = std::collections::HashMap::new();
        let edits =
            |t: &crate::model::Touch| matches!(t.action, FileAction::Edit | FileAction::Write);
        for (name, ids) in by_agent {
            let a = agent(name)?;
            for t in self.storage.touches(ctx, a, &ids, listed, &edits) {
                let id = crate::ids::unified_id(name, &t.summary.session_id);
                out.insert(id, t.touches.touches);
            }
        }
        Ok(out)
    }

    pub fn get(&self, env: Env, agent_name: &str, session_id: &str) -> Result<Session> {
        self.load(env, agent_name, session_id, Mode::Full)
    }

    /// `get` of the session synced from `machine` (a team database's; `None`: the one updated
    /// last), each tool output held once as `get_outputs_once` holds them.
    pub fn get_on(
        &self,
        env: Env,
        agent_name: &str,
        session_id: &str,
        machine: Option<&str>,
    ) -> Result<Session> {
        match (self.team(), machine) {
            (Some(t), _) => {
                agent(agent_name)?;
                team::session::get(t, &env, agent_name, session_id, machine)
            }
            (None, Some(_)) => Err(team::local_check(&crate::options::Filters {
                machine: machine.map(str::to_string),
                ..Default::default()
            })
            .expect_err("a machine is given")),
            (None, None) => self.get_outputs_once(env, agent_name, session_id),
        }
    }

    /// `get` with each tool output held once (`Mode::FullOutputsOnce`): for a caller that links
    /// the calls' outputs as it builds its own copy (the JS builder), so a session of hundreds of
    /// MB is not held with every output twice more in the meantime.
    pub fn get_outputs_once(
        &self,
        env: Env,
        agent_name: &str,
        session_id: &str,
    ) -> Result<Session> {
        self.load(env, agent_name, session_id, Mode::FullOutputsOnce)
    }

    /// A window of one session's messages (`window::select`), read as search reads a session:
    /// without `raw`, each tool output once.
    pub fn window(
        &self,
        env: Env,
        agent_name: &str,
        session_id: &str,
        opts: &WindowOptions,
    ) -> Result<MessageWindow> {
        let (session, archived) = match self.team() {
            Some(t) => {
                agent(agent_name)?;
                (
                    team::session::get(t, &env, agent_name, session_id, None)?,
                    false,
                )
            }
            None => self.load_from(env, agent_name, session_id, Mode::Messages)?,
        };
        let redact = self.redacts(opts.redact);
        let opts = WindowOptions {
            redact: Some(redact),
            ..opts.clone()
        };
        let mut w = crate::window::select(session, &opts);
        // The window's summary is a summary: marked as a listing marks it (`get` is not).
        w.session.archived = archived;
        if redact {
            crate::redact::summary(&mut w.session);
            for m in &mut w.messages {
                crate::redact::message(&mut m.message);
            }
        }
        Ok(w)
    }

    /// One session, priced, as deep as `mode` asks (`raw` only when `mode.raw()`).
    fn load(&self, env: Env, agent_name: &str, session_id: &str, mode: Mode) -> Result<Session> {
        if let Some(t) = self.team() {
            agent(agent_name)?;
            return team::session::get(t, &env, agent_name, session_id, None);
        }
        self.load_from(env, agent_name, session_id, mode)
            .map(|(s, _)| s)
    }

    /// The same, and whether it came from the kept copy (its source gone: archived).
    fn load_from(
        &self,
        env: Env,
        agent_name: &str,
        session_id: &str,
        mode: Mode,
    ) -> Result<(Session, bool)> {
        let a = agent(agent_name)?;
        if !is_safe_native_id(session_id) {
            return Err(Error::session_not_found(agent_name, session_id));
        }
        let ctx = self.context(env);
        let (mut session, archived) = self.storage.load(&ctx, a, session_id, mode)?;
        if !mode.raw() {
            session.raw = None; // adapters that build it anyway (databases' rows)
        }
        session.summary.unified_id =
            crate::ids::unified_id(agent_name, &session.summary.session_id);
        session.summary.requests = Vec::new();
        cost::price_session(&ctx, &mut session);
        Ok((session, archived))
    }

    pub fn search(&self, env: Env, q: &SearchQuery) -> Result<Vec<SessionSummary>> {
        if q.cancel.is_cancelled() {
            return Err(crate::error::Error::aborted());
        }
        self.team_filters(&q.filters)?;
        let ctx = self.context(env);
        if let Some(t) = self.team() {
            let name = match &q.agent {
                Some(name) => match agents::find(name) {
                    Some(a) => Some(a.name()),
                    None => return Ok(Vec::new()),
                },
                None => None,
            };
            let now = ctx.env.now().unwrap_or_else(chrono::Utc::now);
            let redact = self.redacts(q.redact);
            let v = team::search::search(t, &ctx.env, q, name, redact, now)?;
            return Ok(self.team_summaries(Some(redact), v));
        }
        let targets: Vec<&'static dyn Agent> = match &q.agent {
            Some(name) => match agents::find(name) {
                Some(a) => vec![a],
                None => return Ok(Vec::new()),
            },
            None => agents::all().to_vec(),
        };
        let price = |v: &mut [SessionSummary]| cost::apply_to_summaries(&ctx, v);
        let redact = self.redacts(q.redact);
        let (files, words) = crate::query::parse::file_terms(&q.text);
        let mut q = SearchQuery {
            redact: Some(redact),
            ..q.clone()
        };
        // `file:` asks the index twice (the touches, then the terms): the stores listed once.
        let listed = (!files.is_empty()).then(|| self.storage.listing(&ctx, &targets));
        if let Some(listed) = &listed {
            // `file:`: only the sessions that touched a matching file of each term.
            let words_too = crate::query::Query::parse(&words).is_some();
            let touching = crate::touched::sessions_touching(
                &ctx,
                &self.storage,
                &targets,
                &files,
                listed,
                words_too,
            )?;
            if !words_too {
                let mut v = crate::touched::as_results(touching.sessions, &q);
                price(&mut v);
                if redact {
                    v.iter_mut().for_each(crate::redact::summary);
                }
                return Ok(v);
            }
            q.text = words;
            let ids = (touching.sessions.iter()).map(|s| s.unified_id.clone());
            q.only = Some(Arc::new(ids.collect()));
            q.only_docs = touching.docs.map(Arc::new);
        }
        let mut hits = without_requests(crate::search::run(
            &ctx,
            &self.storage,
            &targets,
            &q,
            &price,
            listed,
        ));
        if q.cancel.is_cancelled() {
            return Err(crate::error::Error::aborted());
        }
        if redact {
            hits.iter_mut().for_each(crate::redact::summary);
        }
        Ok(hits)
    }

    pub fn total_cost(&self, env: Env, opts: &CostOptions) -> Result<CostSummary> {
        self.team_filters(&opts.filters)?;
        if let Some(t) = self.team() {
            if opts
                .agent
                .as_deref()
                .is_some_and(|a| agents::find(a).is_none())
            {
                return Ok(CostSummary::default());
            }
            return team::cost::total_cost(t, &env, opts);
        }
        if let Some(by @ (crate::options::GroupBy::Machine | crate::options::GroupBy::User)) =
            opts.group_by
        {
            let name = if by == crate::options::GroupBy::Machine {
                "machine"
            } else {
                "user"
            };
            return Err(Error::validation(format!(
                "groupBy '{name}' groups a team database's cost (createClient({{ source }}), amux --db): this machine's sessions have no {name}"
            )));
        }
        let ctx = self.context(env);
        let targets: Vec<&dyn Agent> = match &opts.agent {
            Some(name) => match agents::find(name) {
                Some(a) => vec![a],
                None => return Ok(CostSummary::default()),
            },
            None => agents::all().to_vec(),
        };
        // Unpriced and unfiltered: the cost engine reads the run index once, tags and prices
        // every session, then filters (tags come from the run index).
        let mut summaries = Vec::new();
        self.each_costed(&ctx, &targets, &mut |_| {}, &mut |s| summaries.push(s));
        // Sums in one order whatever order the sessions were read in (index or stores).
        summaries
            .sort_unstable_by(|a, b| (&a.agent, &a.session_id).cmp(&(&b.agent, &b.session_id)));
        Ok(cost::total_cost(&ctx, summaries, opts))
    }

    /// Every session of `targets`, as it counts in a cost total (`cost::dedupe`: a session found
    /// twice counts once, a response replayed in several sessions in one), passed to `take` one
    /// at a time: from the index without ever holding them all, else read through the cache.
    /// `expect` is told, before the sessions of each agent, how many requests they hold.
    fn each_costed(
        &self,
        ctx: &Context,
        targets: &[&dyn Agent],
        expect: &mut dyn FnMut(usize),
        take: &mut dyn FnMut(SessionSummary),
    ) {
        for a in targets {
            let mut replays = Replays::default();
            let mut first = true;
            let mut f = |pass: usize, s: SessionSummary| match pass {
                0 => replays.note(&s),
                _ => {
                    if std::mem::take(&mut first) {
                        expect(replays.requests());
                    }
                    replays.keep(s).into_iter().for_each(&mut *take)
                }
            };
            self.storage.each_summary(ctx, *a, 2, &mut f);
        }
    }

    /// `sync(url)`: this machine's sessions pushed into the team database (`team::push`): each
    /// as `list` gives it, its usage as `totalCost` counts it, its messages as `get` has them.
    pub fn sync(
        &self,
        env: Env,
        url: &str,
        opts: &crate::team::push::SyncOptions,
    ) -> Result<crate::team::push::SyncResult> {
        // A client reading a team database has none of this machine's run index to push.
        self.local_only("sync")?;
        let ctx = self.context(env);
        let targets = agents::all().to_vec();
        let pricer = cost::Pricer::new(&ctx);
        // What prices and dates every agent's sessions: a change in it is a change in each.
        let shared = format!(
            "{:?}{:?}{}",
            ctx.options.pricing,
            pricer.runs.runs,
            cost::day::LocalDays::new(&ctx.env).fingerprint()
        );
        let agents = (targets.iter())
            .map(|a| {
                let here = self.storage.fingerprint(&ctx, *a);
                (a.name().to_string(), format!("{here}{shared}"))
            })
            .collect();
        let gather = |names: &[&str]| {
            let chosen: Vec<&'static dyn Agent> = (targets.iter())
                .filter(|a| names.contains(&a.name()))
                .copied()
                .collect();
            let mut listed = Vec::new();
            for a in &chosen {
                listed.extend(self.all_summaries(&ctx, *a));
            }
            let mut costed = Vec::new();
            self.each_costed(&ctx, &chosen, &mut |_| {}, &mut |s| costed.push(s));
            crate::team::push::Gathered { listed, costed }
        };
        let load = |s: &SessionSummary| -> Result<Session> {
            let (mut session, _) =
                (self.storage).load(&ctx, agent(&s.agent)?, &s.session_id, Mode::Readable)?;
            session.raw = None;
            pricer.price_messages(&mut session);
            Ok(session)
        };
        let local = crate::team::push::Local {
            agents,
            gather: &gather,
            load: &load,
        };
        crate::team::push::sync(&ctx, url, opts, local)
    }

    /// `cost.daily|weekly|monthly|sessions`: usage and cost by period or by session.
    pub fn cost_report(&self, env: Env, opts: &ReportOptions) -> Result<Report> {
        Ok(self.cost_report_sums(env, opts)?.into_report())
    }

    /// `cost_report` with its rows not made yet: to serialise, one row at a time.
    pub fn cost_report_sums(&self, env: Env, opts: &ReportOptions) -> Result<Sums> {
        let who = crate::options::Filters {
            machine: opts.machine.clone(),
            user: opts.user.clone(),
            project: opts.project.clone(),
            ..Default::default()
        };
        self.team_filters(&who)?;
        let ctx = self.context(env);
        if let Some(t) = self.team() {
            if let Some(name) = &opts.agent {
                agent(name)?;
            }
            return team::cost::report(t, &ctx, opts, &who);
        }
        let targets: Vec<&dyn Agent> = match &opts.agent {
            Some(name) => vec![agent(name)?],
            None => agents::all().to_vec(),
        };
        let mut report = ReportBuilder::new(&ctx, opts)?;
        self.each_costed(&ctx, &targets, &mut |_| {}, &mut |s| report.add(s));
        Ok(report.sums())
    }

    /// `cost.blocks`: the 5-hour billing blocks of the agents that have them (Claude Code's), or
    /// of the one agent asked for: an unknown one is AGENT_NOT_FOUND, one without blocks a
    /// VALIDATION_ERROR.
    pub fn cost_blocks(&self, env: Env, opts: &BlocksOptions) -> Result<Blocks> {
        // Blocks follow each request's exact time, which the team database does not hold.
        self.local_only("cost.blocks (billing blocks)")?;
        let targets = match opts.agent.as_deref() {
            None => BLOCK_AGENTS
                .iter()
                .map(|a| agent(a))
                .collect::<Result<Vec<_>>>()?,
            Some(name) if BLOCK_AGENTS.contains(&agent(name)?.name()) => vec![agent(name)?],
            Some(name) => {
                return Err(Error::validation(format!(
                    "{name} has no billing blocks (the agents that have them: {})",
                    BLOCK_AGENTS.join(", ")
                )))
            }
        };
        let ctx = self.context(env);
        let blocks = std::cell::RefCell::new(BlocksBuilder::new(&ctx, opts)?);
        self.each_costed(
            &ctx,
            &targets,
            &mut |n| blocks.borrow_mut().reserve(n),
            &mut |s| blocks.borrow_mut().add(s),
        );
        Ok(blocks.into_inner().finish())
    }

    /// One session in `format`, its secrets redacted first when `redact` (else the client) asks.
    pub fn export(
        &self,
        env: Env,
        agent_name: &str,
        id: &str,
        format: ExportFormat,
        redact: Option<bool>,
    ) -> Result<String> {
        let mut session = self.load(env, agent_name, id, crate::export::load_mode(format))?;
        // A synced session exports as its machine exports it: who synced it is not part of it.
        session.summary.machine = None;
        session.summary.user = None;
        crate::export::export(self.redacted(redact, session), format)
    }

    /// The diff of two sessions, their secrets redacted first when `redact` (else the client)
    /// asks.
    pub fn diff(
        &self,
        env: Env,
        a: (&str, &str),
        b: (&str, &str),
        redact: Option<bool>,
    ) -> Result<crate::diff::SessionDiff> {
        // An unknown agent on either side is an argument error, reported before any lookup.
        agent(a.0)?;
        agent(b.0)?;
        let sa = self.redacted(redact, self.get(env.clone(), a.0, a.1)?);
        let sb = self.redacted(redact, self.get(env, b.0, b.1)?);
        crate::diff::diff(&sa, &sb)
    }

    /// Why each agent's sessions do or do not show up (`amux doctor`): where it looked, what
    /// it found and passed over, format versions, retention; then the index.
    pub fn doctor(&self, env: Env) -> Result<crate::doctor::Report> {
        self.local_only("doctor")?;
        Ok(self.doctor_local(env))
    }

    fn doctor_local(&self, env: Env) -> crate::doctor::Report {
        crate::doctor::run(&self.context(env), &self.storage, agents::all())
    }

    /// Whether keeping is on, where, how much is kept, and the sessions the agents' own
    /// retention will delete that are not kept (`client.keep.status()`); `verify`: every kept
    /// chunk checked against its hash (reads the whole store).
    pub fn keep_status(&self, env: Env, verify: bool) -> crate::storage::kept::KeepStatus {
        let ctx = self.context(env);
        let mut st = self.storage.keep_status(&ctx, verify);
        st.retention = crate::doctor::retention_at_risk(&ctx, &self.storage, agents::all());
        st
    }

    /// Turn keeping on or off in the setting that lasts (`client.keep.set(on)`).
    pub fn keep_set(&self, env: Env, on: bool) -> Result<crate::storage::kept::KeepStatus> {
        self.local_only("keep.set")?;
        self.storage.set_keep(&self.context(env.clone()), on)?;
        Ok(self.keep_status(env, false))
    }

    /// Forget kept sessions named by unified or native id (of any agent), or last updated before
    /// `before_ms`; how many were forgotten.
    pub fn keep_forget(&self, env: Env, ids: &[String], before_ms: Option<i64>) -> Result<usize> {
        self.local_only("keep.forget")?;
        let mut named = std::collections::HashSet::new();
        for id in ids {
            match crate::ids::parse_unified_id(id) {
                Some((agent, native)) => {
                    named.insert((agent.to_string(), native.to_string()));
                }
                None => {
                    for a in agents::all() {
                        named.insert((a.name().to_string(), id.clone()));
                    }
                }
            }
        }
        self.storage
            .forget_kept(&self.context(env), &named, before_ms)
    }

    /// The persistent index's directory, size and freshness (`amux index status`).
    pub fn index_status(&self, env: Env) -> Status {
        self.storage.index_status(&self.context(env))
    }

    /// Delete the index and build it again for every agent (`amux index rebuild`).
    pub fn index_rebuild(&self, env: Env) -> Result<Status> {
        self.local_only("index.rebuild")?;
        self.storage.rebuild_index(&self.context(env))
    }

    /// Delete the index (`amux index clear`); false when it is off.
    pub fn index_clear(&self, env: Env) -> Result<bool> {
        self.local_only("index.clear")?;
        self.storage.clear_index(&self.context(env))
    }

    /// Bring the index up to date with the stores for every search (`amux index update`);
    /// `if_idle`: only if no other process is writing it.
    pub fn index_update(&self, env: Env, if_idle: bool) -> Result<Status> {
        self.local_only("index.update")?;
        self.storage.update_index(&self.context(env), if_idle)
    }

    /// Whether a search left changes in the stores for the caller to write into the index
    /// (`IndexUpdates::Deferred`).
    pub fn index_pending(&self) -> bool {
        self.storage.index_pending()
    }

    /// Whether a thread of this process is writing the index (`IndexUpdates::Background`).
    pub fn index_writing(&self, env: Env) -> bool {
        self.storage.index_writing(&self.context(env))
    }

    /// What this client's searches left for the index that this process has not written: the
    /// environment and index directory of each (a process of our own writes them at exit).
    pub fn index_left(&self) -> Vec<crate::storage::updates::Left> {
        self.storage.index_left()
    }

    /// Wait until this process's threads are done writing the index this client uses; `close`:
    /// and forget what its searches left (no process is to write it).
    pub fn index_idle(&self, env: Env, close: bool) {
        self.storage.index_idle(&self.context(env), close)
    }

    /// The sessions that touched the file `path` (a path or a glob; a relative one is taken
    /// from the caller's directory), newest first (`touched`).
    pub fn touched(
        &self,
        env: Env,
        path: &str,
        opts: &crate::options::TouchedOptions,
    ) -> Result<Vec<crate::touched::TouchedSession>> {
        let ctx = self.context(env);
        let targets: Vec<&'static dyn Agent> = match &opts.agent {
            Some(name) => vec![agent(name)?],
            None => agents::all().to_vec(),
        };
        let mut v = crate::touched::run(&ctx, &self.storage, &targets, path, opts)?;
        if self.redacts(opts.redact) {
            for s in &mut v {
                crate::redact::in_place(&mut s.title);
                for t in &mut s.touches {
                    if let Some(r) = t.request.as_mut() {
                        crate::redact::in_place(r);
                    }
                }
            }
        }
        Ok(v)
    }

    /// The files one session touched, each touch with the request that led to it
    /// (`sessions.touches`): none for a session that touched none, SESSION_NOT_FOUND for one that
    /// is not there.
    pub fn touches(
        &self,
        env: Env,
        agent_name: &str,
        session_id: &str,
        redact: Option<bool>,
    ) -> Result<Vec<crate::touched::TouchedFile>> {
        let a = agent(agent_name)?;
        if !is_safe_native_id(session_id) {
            return Err(Error::session_not_found(agent_name, session_id));
        }
        let ctx = self.context(env);
        let ids = std::collections::HashSet::from([session_id]);
        let found = self
            .storage
            .touches(&ctx, a, &ids, &Default::default(), &|_| true);
        let Some(t) = found.into_iter().max_by_key(|t| t.summary.updated_at) else {
            // Not indexed nor read: whether the session exists at all.
            self.storage.load(&ctx, a, session_id, Mode::Summary)?;
            return Ok(Vec::new());
        };
        let mut files = crate::touched::with_requests(&t.touches);
        if self.redacts(redact) {
            for f in &mut files {
                if let Some(r) = f.request.as_mut() {
                    crate::redact::in_place(r);
                }
            }
        }
        Ok(files)
    }

    /// Every touch of the sessions of `agent_name` named in `ids` (native ids), by session id:
    /// the files a recap lists.
    pub fn touches_of(
        &self,
        env: Env,
        agent_name: &str,
        ids: &std::collections::HashSet<&str>,
    ) -> Result<std::collections::HashMap<String, Vec<crate::model::Touch>>> {
        let a = agent(agent_name)?;
        let ctx = self.context(env);
        Ok(self
            .storage
            .touches(&ctx, a, ids, &Default::default(), &|_| true)
            .into_iter()
            .map(|t| (t.summary.session_id, t.touches.touches))
            .collect())
    }
}
