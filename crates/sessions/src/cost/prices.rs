//! Prices in USD per million tokens: the LiteLLM snapshot in `prices.json` (refreshed by
//! `scripts/update-prices.py`), the client's `pricing` overrides, model-name matching, and the
//! arithmetic of one estimate.
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::model::{Tokens, LONG_PROMPT_BANDS};

const PER_MTOK: f64 = 1_000_000.0;

/// Rates of one pricing level. A bucket without its own rate is billed at the rate it falls back
/// to: cache reads and writes at the input rate, one-hour writes at the five-minute rate,
/// reasoning at the output rate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rates {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
    #[serde(rename = "cacheWrite1h")]
    pub cache_write_1h: Option<f64>,
    pub reasoning: Option<f64>,
}

/// Rates for requests whose prompt is larger than `above` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Tier {
    pub above: u64,
    #[serde(flatten)]
    pub rates: Rates,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Price {
    #[serde(flatten)]
    pub base: Rates,
    #[serde(default)]
    pub tiers: Vec<Tier>,
}

impl Price {
    /// The rates for one request whose prompt has `prompt` tokens: the tier with the highest
    /// threshold below it, each missing rate taken from the base.
    fn rates_for(&self, prompt: u64) -> Rates {
        let tier = self
            .tiers
            .iter()
            .filter(|t| prompt > t.above)
            .max_by_key(|t| t.above);
        match tier {
            None => self.base,
            Some(t) => {
                let (b, r) = (self.base, t.rates);
                Rates {
                    input: r.input.or(b.input),
                    output: r.output.or(b.output),
                    cache_read: r.cache_read.or(b.cache_read),
                    cache_write: r.cache_write.or(b.cache_write),
                    cache_write_1h: r.cache_write_1h.or(b.cache_write_1h),
                    reasoning: r.reasoning.or(b.reasoning),
                }
            }
        }
    }

    /// USD for one request (every token of a long-prompt request is billed at its tier).
    pub fn request_cost(&self, t: &Tokens) -> f64 {
        bucket_cost(t, &self.rates_for(t.prompt()))
    }

    /// USD for a model's whole usage in a session: requests in each long-prompt band at the
    /// band's tier, the rest at base rates.
    pub fn usage_cost(&self, total: &Tokens, long_prompt: &[Tokens]) -> f64 {
        let mut rest = *total;
        let mut usd = 0.0;
        for (band, t) in LONG_PROMPT_BANDS.iter().zip(long_prompt) {
            if t.is_zero() {
                continue;
            }
            // Every prompt in this band is larger than `band`: exactly the tiers at or below it apply.
            usd += bucket_cost(t, &self.rates_for(band + 1));
            rest = rest.minus(t);
        }
        usd + bucket_cost(&rest, &self.base)
    }

    /// USD for requests that all fall in long-prompt band `band` (`None`: below every band).
    pub fn band_cost(&self, t: &Tokens, band: Option<usize>) -> f64 {
        let prompt = band.map_or(0, |b| LONG_PROMPT_BANDS[b] + 1);
        bucket_cost(t, &self.rates_for(prompt))
    }
}

fn bucket_cost(t: &Tokens, r: &Rates) -> f64 {
    let input = r.input.unwrap_or(0.0);
    let output = r.output.unwrap_or(0.0);
    let write_5m = r.cache_write.unwrap_or(input);
    let write_1h = r.cache_write_1h.unwrap_or(write_5m);
    let long_writes = t.cache_write_1h.min(t.cache_write);
    let units = t.input as f64 * input
        + t.output as f64 * output
        + t.reasoning as f64 * r.reasoning.unwrap_or(output)
        + t.cache_read as f64 * r.cache_read.unwrap_or(input)
        + (t.cache_write - long_writes) as f64 * write_5m
        + long_writes as f64 * write_1h;
    units / PER_MTOK
}

#[derive(Deserialize)]
struct TableFile {
    #[serde(rename = "litellmVersion")]
    litellm_version: String,
    generated: String,
    models: HashMap<String, Price>,
}

/// The embedded snapshot, keyed by normalised name, with date-less aliases.
pub struct Table {
    pub litellm_version: String,
    pub generated: String,
    models: HashMap<String, Price>,
}

pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let file: TableFile =
            serde_json::from_str(include_str!("prices.json")).expect("prices.json is valid");
        let mut models: HashMap<String, Price> = file
            .models
            .into_iter()
            .map(|(k, v)| (normalise(&k), v))
            .collect();
        // "claude-opus-4-1" finds "claude-opus-4-1-20250805": a dated id stands for its family
        // when the family has no entry of its own (the latest date wins).
        let mut dated: Vec<String> = models
            .keys()
            .filter(|k| strip_date(k).is_some())
            .cloned()
            .collect();
        dated.sort_unstable_by(|a, b| b.cmp(a));
        for k in dated {
            let alias = strip_date(&k).expect("filtered").to_string();
            if !models.contains_key(&alias) {
                let p = models[&k].clone();
                models.insert(alias, p);
            }
        }
        Table {
            litellm_version: file.litellm_version,
            generated: file.generated,
            models,
        }
    })
}

const REGIONS: &[&str] = &["us-gov", "us", "eu", "apac", "global", "jp", "au", "ca"];
const VENDORS: &[&str] = &[
    "anthropic",
    "amazon",
    "meta",
    "mistral",
    "cohere",
    "ai21",
    "openai",
    "deepseek",
    "qwen",
    "google",
    "xai",
    "moonshot",
    "moonshotai",
    "minimax",
    "zai",
];

/// A model name as the price table spells it: lower case, no provider path ("anthropic/",
/// "openrouter/x-ai/"), no cloud region or vendor prefix ("us.anthropic."), no version suffix
/// ("-v1:0"), no context-size marker ("[1m]"), and Vertex's "@date" as "-date".
pub fn normalise(raw: &str) -> String {
    let lower = raw.trim().to_ascii_lowercase();
    let mut s = lower.split('[').next().unwrap_or("").trim();
    s = s.rsplit('/').next().unwrap_or(s);
    for prefixes in [REGIONS, VENDORS] {
        if let Some((head, rest)) = s.split_once('.') {
            if !rest.is_empty() && prefixes.contains(&head) {
                s = rest;
            }
        }
    }
    // Bedrock's "-v1:0" version suffix.
    if let Some((head, ver)) = s.rsplit_once("-v") {
        if let Some((major, minor)) = ver.split_once(':') {
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if digits(major) && digits(minor) {
                s = head;
            }
        }
    }
    s.replace('@', "-")
}

/// The name without a trailing date ("-20250929", "-2025-09-29") or "-latest", if it has one.
fn strip_date(s: &str) -> Option<&str> {
    if let Some(base) = s.strip_suffix("-latest") {
        return Some(base);
    }
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let Some((base, tail)) = s.rsplit_once('-') {
        if tail.len() == 8 && digits(tail) && tail.starts_with("20") {
            return Some(base);
        }
    }
    // -YYYY-MM-DD
    // Compared as bytes: the cut may fall inside a multi-byte character of a damaged name (found
    // by fuzzing); it is only taken once the byte there is an ASCII '-', a char boundary.
    if s.len() > 11 {
        let cut = s.len() - 11;
        let b = &s.as_bytes()[cut..];
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if b[0] == b'-'
            && b[5] == b'-'
            && b[8] == b'-'
            && digits(1..5)
            && digits(6..8)
            && digits(9..11)
        {
            return Some(&s[..cut]);
        }
    }
    None
}

/// "4.5" ⇄ "4-5" between digits: Copilot writes "claude-haiku-4.5" where Anthropic writes
/// "claude-haiku-4-5", and the reverse happens for "gpt-4.1".
fn swap_digit_separator(s: &str, from: u8, to: u8) -> String {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    for i in 1..b.len().saturating_sub(1) {
        if b[i] == from && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit() {
            // Only single-digit version parts: "gpt-4-0613" keeps its dash.
            let prev_single = i < 2 || !b[i - 2].is_ascii_digit();
            let next_single = i + 2 >= b.len() || !b[i + 2].is_ascii_digit();
            if prev_single && next_single {
                out[i] = to;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Names to try, best first.
fn candidates(raw: &str) -> Vec<String> {
    let n = normalise(raw);
    let mut out = vec![
        n.clone(),
        swap_digit_separator(&n, b'.', b'-'),
        swap_digit_separator(&n, b'-', b'.'),
    ];
    let undated: Vec<String> = out
        .iter()
        .filter_map(|c| strip_date(c).map(str::to_string))
        .collect();
    out.extend(undated);
    out.dedup();
    out
}

/// The snapshot plus the client's overrides; overrides win for every spelling of a name.
#[derive(Debug, Default)]
pub struct Prices {
    overrides: HashMap<String, Price>,
    /// Each model name as recorded → the entry it is priced by. A list of thousands of sessions
    /// asks for the same few models, and `candidates` spells each name five ways.
    found: Mutex<HashMap<String, Option<Entry>>>,
}

/// Where a model's price is: the key of an override or of the snapshot.
#[derive(Debug)]
enum Entry {
    Override(String),
    Snapshot(String),
}

impl Prices {
    pub fn new(overrides: HashMap<String, Price>) -> Self {
        Prices {
            overrides,
            found: Mutex::default(),
        }
    }

    /// From `ClientOptions.pricing` (already validated when the client was made).
    pub fn from_options(pricing: Option<&Value>) -> Self {
        Prices::new(
            pricing
                .and_then(|p| parse_overrides(p).ok())
                .unwrap_or_default(),
        )
    }

    pub fn lookup(&self, model: &str) -> Option<&Price> {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if !found.contains_key(model) {
            found.insert(model.to_string(), self.entry(model));
        }
        match found.get(model)?.as_ref()? {
            Entry::Override(key) => self.overrides.get(key),
            Entry::Snapshot(key) => table().models.get(key),
        }
    }

    fn entry(&self, model: &str) -> Option<Entry> {
        if model.trim().is_empty() {
            return None;
        }
        let names = candidates(model);
        let key =
            |map: &HashMap<String, Price>| names.iter().find(|n| map.contains_key(*n)).cloned();
        key(&self.overrides)
            .map(Entry::Override)
            .or_else(|| key(&table().models).map(Entry::Snapshot))
    }
}

/// One model's entry of `ClientOptions.pricing`, USD per million tokens.
pub struct PriceOverride {
    pub model: String,
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

/// Validate `ClientOptions.pricing`: `{ [model]: { input, output, cacheRead?, cacheWrite? } }`,
/// USD per million tokens, every value a finite non-negative number.
pub fn price_overrides(v: &Value) -> Result<Vec<PriceOverride>> {
    let bad = |why: String| Error::validation(format!("pricing: {why}"));
    let map = v
        .as_object()
        .ok_or_else(|| bad("must be an object".into()))?;
    let mut out = Vec::new();
    for (model, entry) in map {
        let fields = entry
            .as_object()
            .ok_or_else(|| bad(format!("'{model}' must be an object")))?;
        let (mut input, mut output, mut cache_read, mut cache_write) = (None, None, None, None);
        for (key, val) in fields {
            let slot = match key.as_str() {
                "input" => &mut input,
                "output" => &mut output,
                "cacheRead" => &mut cache_read,
                "cacheWrite" => &mut cache_write,
                _ => return Err(bad(format!("'{model}': unknown field '{key}'"))),
            };
            let x = val.as_f64().filter(|x| x.is_finite() && *x >= 0.0);
            *slot = Some(x.ok_or_else(|| {
                bad(format!(
                    "'{model}'.{key} must be a non-negative number (USD per million tokens)"
                ))
            })?);
        }
        let (Some(input), Some(output)) = (input, output) else {
            return Err(bad(format!("'{model}' needs both input and output")));
        };
        out.push(PriceOverride {
            model: model.clone(),
            input,
            output,
            cache_read,
            cache_write,
        });
    }
    Ok(out)
}

/// `ClientOptions.pricing` as prices by normalised model name (its rules are checked by
/// `price_overrides`).
pub fn parse_overrides(v: &Value) -> Result<HashMap<String, Price>> {
    Ok(price_overrides(v)?
        .into_iter()
        .map(|o| {
            let base = Rates {
                input: Some(o.input),
                output: Some(o.output),
                cache_read: o.cache_read,
                cache_write: o.cache_write,
                ..Rates::default()
            };
            (
                normalise(&o.model),
                Price {
                    base,
                    tiers: Vec::new(),
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Found by fuzzing: a model name with a multi-byte character 11 bytes from its end panicked
    /// (byte index not on a char boundary) while looking for a `-YYYY-MM-DD` suffix.
    #[test]
    fn names_with_multibyte_characters_near_the_end_do_not_panic() {
        for name in [
            "\u{fffd}pt-5-mini",
            "pi-fix\u{fffd}ture-model",
            "gpt-5\u{fffd}\u{fffd}\u{fffd}\u{fffd}on-request",
        ] {
            assert_eq!(strip_date(name), None, "{name}");
            assert_eq!(candidates(name)[0], normalise(name));
        }
        assert_eq!(strip_date("é-2025-01-31"), Some("é"));
        assert_eq!(strip_date("claude-opus-4-20250514"), Some("claude-opus-4"));
        assert_eq!(strip_date("gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(Prices::default().lookup("\u{fffd}pt-5-mini"), None);
    }

    fn t(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Tokens {
        Tokens {
            input,
            output,
            cache_read,
            cache_write,
            ..Default::default()
        }
    }

    #[test]
    fn table_keys_are_already_normal_and_tiers_fall_on_bands() {
        let raw: Value = serde_json::from_str(include_str!("prices.json")).unwrap();
        let models = raw["models"].as_object().unwrap();
        assert!(models.len() > 300, "{}", models.len());
        for (k, v) in models {
            assert_eq!(&normalise(k), k, "the script and normalise() disagree");
            for tier in v["tiers"].as_array().into_iter().flatten() {
                let above = tier["above"].as_u64().unwrap();
                assert!(LONG_PROMPT_BANDS.contains(&above), "{k}: tier {above}");
            }
        }
        assert!(!table().litellm_version.is_empty());
        assert!(table().generated.len() == 10);
    }

    #[test]
    fn normalisation() {
        for (raw, want) in [
            ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
            (
                "openrouter/anthropic/Claude-Sonnet-4-5",
                "claude-sonnet-4-5",
            ),
            (
                "us.anthropic.claude-sonnet-4-20250514-v1:0",
                "claude-sonnet-4-20250514",
            ),
            ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"),
            ("claude-opus-4-6[1m]", "claude-opus-4-6"),
            ("models/gemini-2.5-pro", "gemini-2.5-pro"),
            ("gpt-4.1", "gpt-4.1"),
        ] {
            assert_eq!(normalise(raw), want, "{raw}");
        }
        assert_eq!(
            strip_date("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(strip_date("gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(strip_date("gpt-4-0613"), None);
        assert_eq!(
            swap_digit_separator("claude-haiku-4.5", b'.', b'-'),
            "claude-haiku-4-5"
        );
        assert_eq!(swap_digit_separator("gpt-4-0613", b'-', b'.'), "gpt-4-0613");
    }

    #[test]
    fn lookups_find_every_spelling() {
        let p = Prices::default();
        let sonnet = p.lookup("claude-sonnet-4-5").unwrap();
        assert_eq!(sonnet.base.input, Some(3.0));
        for alias in [
            "claude-sonnet-4-5-20250929",
            "anthropic/claude-sonnet-4-5",
            "CLAUDE-SONNET-4.5",
            "claude-sonnet-4-5@20250929",
            "claude-sonnet-4-5[1m]",
        ] {
            assert_eq!(p.lookup(alias), Some(sonnet), "{alias}");
        }
        // Only a dated id in the table: the family name finds it.
        assert_eq!(p.lookup("claude-opus-4-1").unwrap().base.input, Some(15.0));
        assert_eq!(
            p.lookup("eu.anthropic.claude-opus-4-1-20250805-v1:0")
                .unwrap()
                .base
                .output,
            Some(75.0)
        );
        assert_eq!(p.lookup("gpt-4-1").unwrap().base.input, Some(2.0));
        assert!(p.lookup("no-such-model-xyz").is_none());
        assert!(p.lookup("").is_none());
    }

    #[test]
    fn estimate_arithmetic() {
        // claude-sonnet-4-5: input 3, output 15, cache read 0.3, write 3.75, 1h write 6 ($/MTok).
        let p = Prices::default()
            .lookup("claude-sonnet-4-5")
            .unwrap()
            .clone();
        let mut tok = t(1_000_000, 100_000, 2_000_000, 400_000);
        tok.cache_write_1h = 100_000;
        tok.reasoning = 50_000;
        // 1M*3 + 0.1M*15 + 0.05M*15 + 2M*0.3 + 0.3M*3.75 + 0.1M*6
        // = 3 + 1.5 + 0.75 + 0.6 + 1.125 + 0.6 = 7.575
        assert!((p.request_cost(&tok) - 7.575).abs() < 1e-9);
    }

    #[test]
    fn tiered_prices_apply_to_whole_long_requests() {
        // claude-sonnet-4-20250514: base 3/15/0.3/3.75, above 200k: 6/22.5/0.6/7.5.
        let p = Prices::default().lookup("claude-sonnet-4").unwrap().clone();
        // Prompt 150k + 60k cached = 210k > 200k: all at tier rates.
        // 150k*6 + 1k*22.5 + 60k*0.6 = 0.9 + 0.0225 + 0.036 = 0.9585
        let long = t(150_000, 1_000, 60_000, 0);
        assert!((p.request_cost(&long) - 0.9585).abs() < 1e-9);
        // Exactly 200k is not above 200k: 200k*3 + 1k*15 = 0.6 + 0.015 = 0.615
        let edge = t(200_000, 1_000, 0, 0);
        assert!((p.request_cost(&edge) - 0.615).abs() < 1e-9);
        // Through a session's usage: the same two requests via add_usage give the sum.
        let mut usage = Vec::new();
        crate::model::add_usage(&mut usage, "claude-sonnet-4", &long, None);
        crate::model::add_usage(&mut usage, "claude-sonnet-4", &edge, None);
        let u = &usage[0];
        assert_eq!(u.long_prompt[2], long);
        let usd = p.usage_cost(&u.tokens, &u.long_prompt);
        assert!((usd - (0.9585 + 0.615)).abs() < 1e-9, "{usd}");
        // gpt-5.4 tiers only above 272k: a 250k prompt stays at base.
        // 250k*2.5 = 0.625
        let g = Prices::default().lookup("gpt-5.4").unwrap().clone();
        assert!((g.request_cost(&t(250_000, 0, 0, 0)) - 0.625).abs() < 1e-9);
        // 300k at 5.0 = 1.5
        assert!((g.request_cost(&t(300_000, 0, 0, 0)) - 1.5).abs() < 1e-9);
    }

    #[test]
    fn overrides_validate_and_win() {
        let o = parse_overrides(&json!({
            "anthropic/claude-sonnet-4-5": {"input": 1, "output": 2, "cacheRead": 0.5}
        }))
        .unwrap();
        let p = Prices::new(o);
        let hit = p.lookup("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!(hit.base.input, Some(1.0));
        assert!(hit.tiers.is_empty());
        // Asked again (answered from what the first lookup found), each name is priced alike.
        for _ in 0..2 {
            assert_eq!(p.lookup("claude-sonnet-4-5-20250929"), Some(hit));
            assert_eq!(p.lookup("claude-opus-4-1").unwrap().base.input, Some(15.0));
            assert_eq!(p.lookup("no-such-model-xyz"), None);
        }
        // No cacheWrite given: writes at the input rate. 1M*1 + 1M*2 + 1M*0.5 + 1M*1 = 4.5
        let usd = hit.request_cost(&t(1_000_000, 1_000_000, 1_000_000, 1_000_000));
        assert!((usd - 4.5).abs() < 1e-9);
        for bad in [
            json!([]),
            json!({"m": 3}),
            json!({"m": {"input": 1}}),
            json!({"m": {"input": -1, "output": 1}}),
            json!({"m": {"input": "1", "output": 1}}),
            json!({"m": {"input": 1, "output": 1, "cache": 1}}),
        ] {
            let e = parse_overrides(&bad).unwrap_err();
            assert_eq!(e.code, crate::error::ErrorCode::ValidationError, "{bad}");
        }
    }
}
