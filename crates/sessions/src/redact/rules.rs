//! The rules, built once: gitleaks' rule set (`gitleaks.toml`, vendored as data) and ours
//! (`additions.toml`, in the same schema), compiled for the `regex` crate, with one
//! case-insensitive keyword automaton over every rule's keywords.
//!
//! gitleaks' fields are read as gitleaks reads them: `regex`, `secretGroup` (else the first
//! non-empty group), `entropy` (a secret at or below it is no secret), `keywords` (a rule runs
//! only on a text holding one of them), and `allowlists` (`regexes` against the secret, the match
//! or the line, `stopwords` in the secret, `condition` OR/AND). A session's text has no file
//! path: rules that need one (`path`) are left out, and so are allowlist checks on paths.
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::bytes::{RegexSet, RegexSetBuilder};
use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use serde::Deserialize;

use super::window::{self, Window};

const GITLEAKS: &str = include_str!("gitleaks.toml");
const ADDITIONS: &str = include_str!("additions.toml");

/// A compiled regex may take this much memory: gitleaks' largest rules need more than the
/// `regex` crate's default, and they are built once per process.
const SIZE_LIMIT: usize = 64 << 20;

#[derive(Deserialize, Default)]
struct Config {
    #[serde(default)]
    allowlist: Option<AllowlistConfig>,
    #[serde(default)]
    rules: Vec<RuleConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleConfig {
    id: String,
    regex: Option<String>,
    path: Option<String>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    secret_group: Option<usize>,
    #[serde(default)]
    allowlists: Vec<AllowlistConfig>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct AllowlistConfig {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
    regex_target: Option<String>,
    condition: Option<String>,
}

/// What an allowlist's regexes are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Secret,
    Match,
    Line,
}

/// One allowlist: a finding it matches is no secret.
pub struct Allowlist {
    regexes: Option<RegexSet>,
    stopwords: Option<AhoCorasick>,
    pub target: Target,
    /// `condition = "AND"`: every check given must hold.
    all: bool,
    /// An AND list that also asks for a path or a commit: never met by a session's text.
    needs_path: bool,
}

impl Allowlist {
    /// Whether the finding is allowed: `target` is what `self.target` names, `secret` the secret.
    pub fn allows(&self, target: &str, secret: &str) -> bool {
        let regex = self.regexes.as_ref().map(|r| r.is_match(target.as_bytes()));
        let stop = self.stopwords.as_ref().map(|a| {
            let lower = secret.to_lowercase();
            a.is_match(&lower)
        });
        if self.all {
            !self.needs_path
                && (regex.is_some() || stop.is_some())
                && regex.unwrap_or(true)
                && stop.unwrap_or(true)
        } else {
            regex.unwrap_or(false) || stop.unwrap_or(false)
        }
    }
}

pub struct Rule {
    pub id: String,
    pub regex: Regex,
    /// Where the rule's matches can start, given its keywords' places (`window.rs`); `None`: it
    /// runs over the whole text.
    pub window: Option<Window>,
    pub entropy: Option<f64>,
    pub secret_group: Option<usize>,
    pub allowlists: Vec<Allowlist>,
}

/// A rule left out, and why.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub id: String,
    pub why: String,
}

pub struct Rules {
    pub rules: Vec<Rule>,
    /// Every rule's keywords, lowercased and deduplicated; `keyword_rules[k]` are the rules
    /// keyword `k` wakes.
    pub keywords: AhoCorasick,
    pub keyword_rules: Vec<Vec<usize>>,
    /// Rules without keywords: they run on every text.
    pub always: Vec<usize>,
    pub global: Vec<Allowlist>,
    pub skipped: Vec<Skipped>,
}

/// `pattern` (Go RE2 syntax) as the `regex` crate reads it. The two differ in one way these
/// rules use: RE2 takes a `{` that cannot open a repetition (`|{\d+}`) as a literal brace,
/// where `regex` refuses it. Such a brace is escaped.
pub(super) fn from_re2(pattern: &str) -> String {
    let bytes = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut in_class = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' => {
                let end = (i + 2).min(bytes.len());
                out.push_str(&pattern[i..end]);
                i = end;
                continue;
            }
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'{' if !in_class => {
                let follows_expression =
                    i > 0 && !matches!(bytes[i - 1], b'(' | b'|' | b'^' | b':');
                if !(follows_expression && is_repetition(&pattern[i..])) {
                    out.push_str("\\{");
                    i += 1;
                    continue;
                }
            }
            _ => {}
        }
        let ch = pattern[i..]
            .chars()
            .next()
            .expect("i is on a char boundary");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// Whether `s` starts with `{n}`, `{n,}` or `{n,m}`.
fn is_repetition(s: &str) -> bool {
    let Some(end) = s.find('}') else {
        return false;
    };
    let body = &s[1..end];
    let mut parts = body.splitn(2, ',');
    let first = parts.next().unwrap_or("");
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    !first.is_empty() && digits(first) && parts.next().is_none_or(digits)
}

/// A rule's regex as RE2 reads it: `\\w`, `\\d`, `\\s` and `(?i)` are ASCII, which is also what
/// keeps 200 regexes quick to build (Unicode classes under counted repetitions grow large).
/// It runs on a text's bytes; `find` widens a match to whole characters. These are the
/// settings `regex::bytes::RegexBuilder` gives, with `regex-automata`'s interface, which can
/// search part of a text while its look-arounds see the rest.
fn regex_builder() -> meta::Builder {
    let mut b = meta::Builder::new();
    b.configure(
        meta::Config::new()
            .match_kind(regex_automata::MatchKind::LeftmostFirst)
            .utf8_empty(false)
            .nfa_size_limit(Some(SIZE_LIMIT))
            .hybrid_cache_capacity(SIZE_LIMIT),
    )
    .syntax(syntax_config());
    b
}

fn syntax_config() -> syntax::Config {
    syntax::Config::new().unicode(false).utf8(false)
}

/// A rule's regex, and its window when its keywords bound where it matches.
fn regex(
    pattern: &str,
    keywords: &[String],
    builder: &meta::Builder,
) -> Result<(Regex, Option<Window>), String> {
    let pattern = from_re2(pattern);
    let hir = syntax::parse_with(&pattern, &syntax_config()).map_err(|e| e.to_string())?;
    let compiled = builder.build_from_hir(&hir).map_err(|e| e.to_string())?;
    let window = match window::reach(&hir, keywords) {
        Some(reach) => Some(Window::new(reach, &pattern, builder)?),
        None => None,
    };
    Ok((compiled, window))
}

fn allowlist(c: AllowlistConfig) -> Result<Allowlist, String> {
    let regexes = if c.regexes.is_empty() {
        None
    } else {
        Some(
            RegexSetBuilder::new(c.regexes.iter().map(|r| from_re2(r)))
                .unicode(false)
                .size_limit(SIZE_LIMIT)
                .build()
                .map_err(|e| format!("allowlist regex: {e}"))?,
        )
    };
    let stopwords = if c.stopwords.is_empty() {
        None
    } else {
        let words: Vec<String> = c.stopwords.iter().map(|w| w.to_lowercase()).collect();
        Some(AhoCorasick::new(&words).map_err(|e| format!("stopwords: {e}"))?)
    };
    let target = match c.regex_target.as_deref() {
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        _ => Target::Secret,
    };
    let all = c
        .condition
        .as_deref()
        .is_some_and(|s| s.eq_ignore_ascii_case("and"));
    Ok(Allowlist {
        regexes,
        stopwords,
        target,
        all,
        needs_path: !c.paths.is_empty() || !c.commits.is_empty(),
    })
}

/// An OR allowlist that only names paths or commits has nothing to check in a session's text.
fn checks_text(c: &AllowlistConfig) -> bool {
    !c.regexes.is_empty() || !c.stopwords.is_empty()
}

impl Rules {
    /// gitleaks' rules and ours. Panics only if a vendored file does not parse (a unit test
    /// holds them parsing); a rule the `regex` crate cannot compile is skipped and named.
    pub fn build() -> Rules {
        let mut gitleaks: Config = toml::from_str(GITLEAKS).expect("gitleaks.toml parses");
        let mut ours: Config = toml::from_str(ADDITIONS).expect("additions.toml parses");
        // A rule of ours with a gitleaks rule's id and no regex adds its allowlists to that rule
        // (as gitleaks' own `[extend]` merges them).
        ours.rules.retain_mut(|r| {
            if r.regex.is_some() {
                return true;
            }
            if let Some(base) = gitleaks.rules.iter_mut().find(|b| b.id == r.id) {
                base.allowlists.append(&mut r.allowlists);
            }
            false
        });
        let mut skipped = Vec::new();
        let mut global = Vec::new();
        for a in [gitleaks.allowlist, ours.allowlist].into_iter().flatten() {
            if checks_text(&a) {
                global.push(allowlist(a).expect("the global allowlists compile"));
            }
        }
        let mut rules = Vec::new();
        let mut keyword_ids: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        let builder = regex_builder();
        for r in gitleaks.rules.into_iter().chain(ours.rules) {
            let skip = |why: String| Skipped {
                id: r.id.clone(),
                why,
            };
            let Some(pattern) = r.regex.as_deref() else {
                skipped.push(skip("matches file paths only".into()));
                continue;
            };
            if r.path.is_some() {
                skipped.push(skip("holds only for some file paths".into()));
                continue;
            }
            let lowered: Vec<String> = r.keywords.iter().map(|k| k.to_lowercase()).collect();
            let (compiled, window) = match regex(pattern, &lowered, &builder) {
                Ok(built) => built,
                Err(e) => {
                    skipped.push(skip(format!("regex: {e}")));
                    continue;
                }
            };
            let mut allowlists = Vec::new();
            let mut bad = None;
            for a in r.allowlists {
                if !checks_text(&a) {
                    continue;
                }
                match allowlist(a) {
                    Ok(a) => allowlists.push(a),
                    Err(e) => bad = Some(e),
                }
            }
            if let Some(e) = bad {
                skipped.push(skip(e));
                continue;
            }
            let index = rules.len();
            if r.keywords.is_empty() {
                always.push(index);
            }
            for k in lowered {
                match keyword_ids.iter().position(|x| *x == k) {
                    Some(p) => keyword_rules[p].push(index),
                    None => {
                        keyword_ids.push(k);
                        keyword_rules.push(vec![index]);
                    }
                }
            }
            rules.push(Rule {
                id: r.id,
                regex: compiled,
                window,
                entropy: r.entropy.filter(|e| *e > 0.0),
                secret_group: r.secret_group.filter(|g| *g > 0),
                allowlists,
            });
        }
        // A DFA: every text handed on is scanned, and the DFA scans several times faster than
        // the NFA the builder picks for this many keywords.
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&keyword_ids)
            .expect("the keywords make an automaton");
        Rules {
            rules,
            keywords,
            keyword_rules,
            always,
            global,
            skipped,
        }
    }
}
