//! totalCost over the real captures in `../shared/fixtures/real/`, read in place through the
//! adapters, against totals worked out by hand below from the captured usage and the prices in
//! `src/cost/prices.json` ($ per million tokens). Skips when the captures are absent.
use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_mux_sessions::agents::{self, Source};
use agent_mux_sessions::cost::{self, prices::Prices, CostSummary};
use agent_mux_sessions::options::{CostOptions, GroupBy};
use agent_mux_sessions::{Client, ClientOptions, Env, SessionSummary};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Every model's total from a `groupBy: 'model'` summary.
fn by_model(c: &CostSummary) -> BTreeMap<String, f64> {
    c.breakdowns
        .as_ref()
        .unwrap()
        .iter()
        .map(|(k, b)| (k.clone(), b.total_usd))
        .collect()
}

fn assert_models(c: &CostSummary, want: &[(&str, f64)]) {
    let got = by_model(c);
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (m, usd) in want {
        assert!(close(got[*m], *usd), "{m}: {} != {usd}", got[*m]);
    }
    let sum: f64 = want.iter().map(|(_, u)| u).sum();
    assert!(close(c.total_usd, sum), "{} != {sum}", c.total_usd);
}

fn by_model_opts(agent: &str) -> CostOptions {
    CostOptions {
        agent: Some(agent.to_string()),
        group_by: Some(GroupBy::Model),
        ..Default::default()
    }
}

/// totalCost with `agent`'s store replaced by `dir` (the captures as they lie).
fn total_over_dir(agent: &str, dir: &Path) -> CostSummary {
    let mut o = ClientOptions::default();
    o.session_dirs.insert(agent.into(), dir.to_path_buf());
    let home = tempfile::tempdir().unwrap();
    let env = Env::from_pairs([("HOME", home.path().to_str().unwrap()), ("TZ", "UTC")]);
    Client::new(o)
        .total_cost(env, &by_model_opts(agent))
        .unwrap()
}

/// totalCost over single captured files whose store layout a directory override cannot give.
fn total_over_files(agent: &str, files: &[PathBuf]) -> CostSummary {
    let home = tempfile::tempdir().unwrap();
    let ctx = common::ctx(home.path());
    let a = agents::find(agent).unwrap();
    let summaries: Vec<SessionSummary> = files
        .iter()
        .flat_map(|f| {
            a.summaries(&ctx, &Source::new(f.clone(), &[]).unwrap())
                .unwrap()
        })
        .collect();
    cost::total_cost(&ctx, summaries, &by_model_opts(agent))
}

fn real(rel: &str) -> PathBuf {
    common::real_fixtures().join(rel)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn claude_real_totals() {
    let dir = real("claude");
    let before = common::snapshot(&dir);
    let c = total_over_dir("claude", &dir);
    // margin 2.1.233, claude-haiku-4-5 (in 1, out 5, cache read 0.1, 1h write 2): two responses
    // (each written on several lines, counted once): input 10+8 = 18; output 135+177 = 312 of
    // which thinking 49+107 = 156 (billed at the output rate); cache reads 22,820+32,727 =
    // 55,547; writes 9,907+1,914 = 11,821, all `ephemeral_1h` so at the 1h rate:
    //   18*1 + 156*5 + 156*5 + 55,547*0.1 + 11,821*2 = 18 + 780 + 780 + 5,554.7 + 23,642
    //   = 30,774.7 / 1e6 = 0.0307747 (at the 5m rate 1.25 it would have been 0.02190895).
    let haiku = 0.0307747;
    // stage0-small: claude-opus-5 (5/25) in 10, out 5: 50 + 125 = 175 -> 0.000175. Its
    // claude-opus-4-8, claude-fable-5 and claude-sonnet-5 lines report zero tokens.
    let opus5 = 0.000175;
    // claude-code-log: claude-3-sonnet-20240229 (3/15) in 218, out 445: 654 + 6,675 = 7,329.
    let sonnet3 = 0.007329;
    // The subagent capture has no usage: its session counts under the key "".
    assert_models(
        &c,
        &[
            ("claude-haiku-4-5-20251001", haiku),
            ("claude-opus-5", opus5),
            ("claude-3-sonnet-20240229", sonnet3),
            ("", 0.0),
        ],
    );
    assert_eq!(c.session_count, 4);
    assert_eq!(c.cache_write_tokens, 11_821);
    assert_eq!(c.thinking_tokens, 156);
    assert_eq!(c.unpriced_models, None);
    assert_eq!(common::snapshot(&dir), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn codex_real_totals() {
    let dir = real("codex");
    let c = total_over_dir("codex", &dir);
    // margin 0.146.0, gpt-5.6-sol (in 4, out 20, cache read 0.4): two requests, last_token_usage
    // {in 16,007, cached 0, out 80} and {in 16,142 of which cached 15,104, out 46}:
    //   uncached 16,007 + 1,038 = 17,045; cached 15,104; output 126
    //   17,045*4 + 15,104*0.4 + 126*20 = 68,180 + 6,041.6 + 2,520 = 76,741.6 -> 0.0767416
    // The other two captures (0.53 rate-limit, margin reasoning) record no model at all (no
    // turn_context): their tokens are reported, priced at 0, and the empty model is unpriced.
    assert_models(&c, &[("gpt-5.6-sol", 0.0767416), ("", 0.0)]);
    let unknown = &c.breakdowns.as_ref().unwrap()[""];
    // rate limit: 12,091 in (10,880 cached) -> 1,211; out 182 of which reasoning 128 -> 54.
    // reasoning capture: its last cumulative total_token_usage is in 6,148,794 (cached
    // 5,857,024), out 37,474 (reasoning 15,528): 291,770 uncached in, 21,946 out, 15,528
    // reasoning; the adapter's per-request deltas add up to exactly that.
    assert_eq!(unknown.input_tokens, 1_211 + 291_770);
    assert_eq!(unknown.output_tokens, 54 + 21_946);
    assert_eq!(unknown.thinking_tokens, 128 + 15_528);
    assert_eq!(c.unpriced_models, Some(vec![String::new()]));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn gemini_real_totals() {
    let dir = real("gemini");
    let files: Vec<PathBuf> = [
        "agent-sessions-jsonl_v040.jsonl",
        "agent-sessions-small.json",
        "agent-sessions-large.json",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    let c = total_over_files("gemini", &files);
    // gemini-3-flash-preview (in 0.5, out 3, cache read 0.05). Gemini's `input` includes the
    // cached part:
    // jsonl v0.40: {in 11,855, cached 0, out 81} + {in 12,069, cached 11,502, out 147}
    //   uncached 11,855 + 567 = 12,422; cached 11,502; out 228
    //   12,422*0.5 + 11,502*0.05 + 228*3 = 6,211 + 575.1 + 684 = 7,470.1 -> 0.0074701
    // small.json: in 10, out 5: 5 + 15 = 20 -> 0.00002
    // large.json: in 100, out 10: 50 + 30 = 80 -> 0.00008. Its `meta.model` is the typo
    //   "gmini-pro", but every message with tokens names gemini-3-flash-preview, so nothing is
    //   billed to the typo and it is not an unpriced model (no tokens went unpriced).
    let want = 0.0074701 + 0.00002 + 0.00008;
    assert_models(&c, &[("gemini-3-flash-preview", want)]);
    assert_eq!(c.session_count, 3);
    assert_eq!(c.unpriced_models, None);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn copilot_real_totals() {
    let dir = real("copilot");
    let c = total_over_dir("copilot", &dir);
    // stage0-small (1.0.77): only per-message outputTokens (15) under gpt-5-mini (out 2):
    //   15*2 = 30 -> 0.00003. Its shutdown's modelMetrics has request counts but no usage.
    // stage0-large (0.0.420): gpt-5, no token counts -> 0.
    assert_models(&c, &[("gpt-5-mini", 0.00003), ("gpt-5", 0.0)]);
    // subdir_v1 (1.0.11, events.jsonl under a session directory): outputTokens 12 + 14 and no
    // model named anywhere in the file.
    let sub = total_over_files(
        "copilot",
        &[dir.join("agent-sessions-subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl")],
    );
    assert_models(&sub, &[("", 0.0)]);
    assert_eq!(sub.output_tokens, 26);
    assert_eq!(sub.unpriced_models, Some(vec![String::new()]));
    // Copilot spells Anthropic models with a dot ("claude-haiku-4.5" in the small capture's
    // auto-mode event): it prices as claude-haiku-4-5.
    let p = Prices::default();
    assert_eq!(p.lookup("claude-haiku-4.5"), p.lookup("claude-haiku-4-5"));
    assert_eq!(p.lookup("claude-haiku-4.5").unwrap().base.input, Some(1.0));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn pi_real_totals_use_native_costs() {
    let dir = real("pi");
    let c = total_over_dir("pi", &dir);
    // large-session head: claude-sonnet-4-5 with Pi's own usage.cost.total per message:
    //   0 (an all-zero cost means "unknown", and that message has no tokens) + 0.009189
    //   + 0.0396837 = 0.0488727. Not estimated: the estimate would differ (the native figure
    //   is what Pi charged).
    // 0.74 capture: pi-fixture-model, in 24, out 14, cost.total 0 -> estimate, but no price:
    //   0 and listed as unpriced.
    // before-compaction head: its two messages predate the header (copied from the parent
    //   when branching), so this session billed nothing itself.
    assert_models(
        &c,
        &[
            ("claude-sonnet-4-5", 0.009189 + 0.0396837),
            ("pi-fixture-model", 0.0),
            ("claude-opus-4-5", 0.0),
        ],
    );
    assert_eq!(
        c.unpriced_models,
        Some(vec!["pi-fixture-model".to_string()])
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn openclaw_real_totals() {
    let dir = real("openclaw");
    let c = total_over_files("openclaw", &[dir.join("toolpath-convo-EXCERPT.jsonl")]);
    // One assistant message, claude-opus-4-8 (in 5, out 25, cache read 0.5, write 6.25), with
    // usage.cost all zeros (no native cost: estimated): in 2, out 140, cache read 26,070,
    // write 539:  2*5 + 140*25 + 26,070*0.5 + 539*6.25 = 10 + 3,500 + 13,035 + 3,368.75
    //   = 19,913.75 -> 0.01991375
    assert_models(&c, &[("claude-opus-4-8", 0.01991375)]);
    // The stage0 captures record no usage at all.
    let rest = total_over_files(
        "openclaw",
        &[
            dir.join("agent-sessions-stage0-small.jsonl"),
            dir.join("agent-sessions-stage0-large.jsonl"),
        ],
    );
    assert_eq!((rest.total_usd, rest.session_count), (0.0, 2));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn opencode_real_totals() {
    let dir = real("opencode");
    let c = total_over_dir("opencode", &dir.join("agent-sessions-storage_v2"));
    // s_stage0_large msg_0002: gpt-4o-mini (in 0.15, out 0.6), tokens in 120, out 16. Its
    // `cost` is an object ({input: 24, output: 8}), not OpenCode's USD number, so it is not
    // taken as the native cost: estimated 120*0.15 + 16*0.6 = 18 + 9.6 = 27.6 -> 0.0000276.
    assert_models(&c, &[("gpt-4o-mini", 0.0000276)]);
    assert_eq!(c.session_count, 2);
    let legacy = total_over_dir("opencode", &dir.join("agent-sessions-storage_legacy"));
    assert_eq!((legacy.total_usd, legacy.session_count), (0.0, 1));
}
