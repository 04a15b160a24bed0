//! Where in a text a rule can match. A rule runs only on a text holding one of its keywords,
//! and for most rules every match holds one of those keywords itself, starting at most `reach`
//! bytes after the match's start: its regex then only needs to run from just before each
//! keyword found, not over the whole text. `reach` reads that bound off the regex's syntax;
//! a rule it cannot prove it for (`None`) runs over the whole text.
//!
//! A windowed run gives what the whole-text run gives: the whole-text run's next match starts
//! at the first position (from where the last match ended) where a match starts, and that
//! position lies at most `reach` bytes before a keyword's start. A window's regex is the rule's,
//! anchored, behind a lazy skip of at most `reach` bytes: it finds the first start in
//! `at..=at + reach` and the match the rule prefers there, however far it runs, and the
//! look-arounds (`\b`, `^`, `$`) still see the whole text.
use regex_automata::meta::{self, Regex};
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};
use regex_syntax::hir::{Class, Hir, HirKind};

/// Past this many strings a part of a regex counts as matching too many to list.
const MANY: usize = 512;

/// The strings `hir` matches, ASCII-lowercased (the keywords are matched ignoring ASCII case),
/// when they are at most `MANY`.
fn strings(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        // An assertion matches no text.
        HirKind::Empty | HirKind::Look(_) => Some(vec![Vec::new()]),
        HirKind::Literal(l) => Some(vec![l.0.to_ascii_lowercase()]),
        HirKind::Class(Class::Bytes(c)) => {
            let mut bytes: Vec<Vec<u8>> = Vec::new();
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    let b = vec![b.to_ascii_lowercase()];
                    if !bytes.contains(&b) {
                        bytes.push(b);
                    }
                    if bytes.len() > MANY {
                        return None;
                    }
                }
            }
            Some(bytes)
        }
        HirKind::Class(Class::Unicode(_)) => None,
        HirKind::Capture(c) => strings(&c.sub),
        HirKind::Concat(parts) => parts
            .iter()
            .try_fold(vec![Vec::new()], |acc, p| cross(&acc, &strings(p)?)),
        HirKind::Alternation(alts) => {
            let mut all: Vec<Vec<u8>> = Vec::new();
            for a in alts {
                all.extend(strings(a)?);
                if all.len() > MANY {
                    return None;
                }
            }
            Some(all)
        }
        HirKind::Repetition(r) => {
            let max = r.max? as usize;
            let one = strings(&r.sub)?;
            let mut n_times = vec![Vec::new()];
            for _ in 0..r.min {
                n_times = cross(&n_times, &one)?;
            }
            let mut all = n_times.clone();
            for _ in r.min as usize..max {
                n_times = cross(&n_times, &one)?;
                all.extend(n_times.iter().cloned());
                if all.len() > MANY {
                    return None;
                }
            }
            Some(all)
        }
    }
}

/// Every string of `a` followed by every string of `b`, if they are not too many.
fn cross(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if a.len() * b.len() > MANY {
        return None;
    }
    Some(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [x.as_slice(), y].concat()))
            .collect(),
    )
}

/// The furthest a keyword's start can be from the start of each of `set`, if each holds one.
fn in_every(set: &[Vec<u8>], keywords: &[String]) -> Option<usize> {
    set.iter().try_fold(0, |far, s| {
        let first = keywords
            .iter()
            .filter_map(|k| memchr::memmem::find(s, k.as_bytes()))
            .min()?;
        Some(far.max(first))
    })
}

/// How far from a match's start one of `keywords` (lowercase) starts, at most, in every match
/// of `hir`; `None` when some match might hold none (or it cannot be told).
pub fn reach(hir: &Hir, keywords: &[String]) -> Option<usize> {
    if keywords.is_empty() {
        return None;
    }
    if let Some(set) = strings(hir) {
        return in_every(&set, keywords);
    }
    match hir.kind() {
        HirKind::Capture(c) => reach(&c.sub, keywords),
        HirKind::Repetition(r) if r.min >= 1 => reach(&r.sub, keywords),
        HirKind::Alternation(alts) => alts
            .iter()
            .try_fold(0, |far, a| Some(far.max(reach(a, keywords)?))),
        HirKind::Concat(parts) => {
            // Parts are read in order; a run of parts that match few strings is read as one, so
            // a keyword spelt across them (`(?i)token` is five classes) is seen.
            let mut before = Some(0usize);
            let mut best: Option<usize> = None;
            let mut i = 0;
            while i < parts.len() {
                let mut run: Option<Vec<Vec<u8>>> = None;
                let mut end = i;
                while end < parts.len() {
                    let Some(next) = strings(&parts[end]) else {
                        break;
                    };
                    let Some(joined) = cross(run.as_deref().unwrap_or(&[Vec::new()]), &next) else {
                        break;
                    };
                    run = Some(joined);
                    end += 1;
                }
                let (here, len) = match run {
                    Some(set) => (
                        in_every(&set, keywords),
                        parts[i..end]
                            .iter()
                            .try_fold(0, |n, p| Some(n + p.properties().maximum_len()?)),
                    ),
                    None => {
                        end = i + 1;
                        (
                            reach(&parts[i], keywords),
                            parts[i].properties().maximum_len(),
                        )
                    }
                };
                if let (Some(b), Some(h)) = (before, here) {
                    best = Some(best.map_or(b + h, |x| x.min(b + h)));
                }
                before = before.zip(len).map(|(b, l)| b + l);
                i = end;
            }
            best
        }
        _ => None,
    }
}

/// A rule's regex behind a lazy skip of at most `reach` bytes, its start marked by an empty
/// group: anchored at `at`, it finds the first start in `at..=at + reach` where the rule
/// matches.
pub struct Window {
    pub reach: usize,
    regex: Regex,
}

impl Window {
    /// `pattern` is the rule's regex as the `regex` crate reads it, built with `builder`.
    pub fn new(reach: usize, pattern: &str, builder: &meta::Builder) -> Result<Window, String> {
        let regex = builder
            .build(&format!("(?s-u:.){{0,{reach}}}?()(?:{pattern})"))
            .map_err(|e| e.to_string())?;
        Ok(Window { reach, regex })
    }

    /// The rule's matches in `text`, as its whole-text run finds them, given `hits`: the
    /// sorted starts of every occurrence of the rule's keywords. `each` gets each match's
    /// groups (from `rule`, anchored where the window found it).
    pub fn each_match(
        &self,
        rule: &Regex,
        text: &[u8],
        hits: &[usize],
        mut each: impl FnMut(&Captures),
    ) {
        let mut found = self.regex.create_captures();
        let mut caps = rule.create_captures();
        let mut from = 0;
        for hit in hits.iter().copied() {
            if hit < from {
                continue;
            }
            let at = from.max(hit.saturating_sub(self.reach));
            self.regex.search_captures(
                &Input::new(text).range(at..).anchored(Anchored::Yes),
                &mut found,
            );
            let Some(start) = found.get_group(1) else {
                // No match starts in `at..=at + reach`, which holds every start this hit allows.
                from = at + self.reach + 1;
                continue;
            };
            rule.search_captures(
                &Input::new(text)
                    .range(start.start..)
                    .anchored(Anchored::Yes),
                &mut caps,
            );
            let m = caps
                .get_match()
                .expect("the rule matches where its window found it");
            each(&caps);
            from = m.end().max(m.start() + 1);
        }
    }
}
