//! The query language (Hermes' FTS5 subset): words (all must match), `"exact phrase"`, `OR`, `NOT`,
//! `prefix*`. Input is first cleaned by a port of Hermes' `_sanitize_fts5_query`, then parsed with
//! FTS5's precedence (NOT > AND > OR). Nothing here fails: whatever cannot be read as syntax is
//! searched literally, and a query with nothing left to search is `None`.
use super::text::{fold, is_cjk, split_tokens};

/// Hermes' `MAX_FTS5_QUERY_CHARS`.
const MAX_QUERY_CHARS: usize = 2048;

/// One searchable unit.
#[derive(Debug, Clone, PartialEq)]
pub enum Leaf {
    /// Consecutive word tokens (one token = a word); `prefix`: the last token may be a prefix.
    Words { tokens: Vec<String>, prefix: bool },
    /// Text with CJK characters: matched as an exact substring of the folded text.
    Substring(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Leaf(usize),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    /// `a NOT b`: a, and not b.
    Not(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub expr: Expr,
    pub leaves: Vec<Leaf>,
    /// Leaves that count toward a match and a score (not under the right side of a NOT).
    pub positive: Vec<bool>,
    /// The sanitised text, as Hermes would send it to FTS5.
    pub sanitized: String,
    /// Snippets are made from the text with its secrets redacted (`crate::redact`).
    pub redact: bool,
}

impl Query {
    /// Parse `raw`; `None` when nothing searchable is left after sanitising.
    pub fn parse(raw: &str) -> Option<Query> {
        let sanitized = sanitize(raw);
        let items = lex(&sanitized);
        let mut leaves = Vec::new();
        let mut p = Parser {
            items: &items,
            pos: 0,
            leaves: &mut leaves,
        };
        let expr = p.or_expr()?;
        let mut positive = vec![false; leaves.len()];
        mark_positive(&expr, true, &mut positive);
        Some(Query {
            expr,
            leaves,
            positive,
            sanitized,
            redact: false,
        })
    }

    /// Evaluate the boolean structure given which leaves are present.
    pub fn eval(&self, present: &dyn Fn(usize) -> bool) -> bool {
        eval(&self.expr, present, true)
    }

    /// The same with every `NOT b` taken as true: what a test that can see too much (raw bytes,
    /// where `b` may sit in a JSON key or another session) may rely on.
    pub fn eval_ignoring_not(&self, present: &dyn Fn(usize) -> bool) -> bool {
        eval(&self.expr, present, false)
    }
}

fn eval(e: &Expr, present: &dyn Fn(usize) -> bool, negate: bool) -> bool {
    match e {
        Expr::Leaf(i) => present(*i),
        Expr::And(v) => v.iter().all(|e| eval(e, present, negate)),
        Expr::Or(v) => v.iter().any(|e| eval(e, present, negate)),
        Expr::Not(a, b) => eval(a, present, negate) && !(negate && eval(b, present, negate)),
    }
}

fn mark_positive(e: &Expr, pos: bool, out: &mut [bool]) {
    match e {
        Expr::Leaf(i) => out[*i] |= pos,
        Expr::And(v) | Expr::Or(v) => v.iter().for_each(|e| mark_positive(e, pos, out)),
        Expr::Not(a, b) => {
            mark_positive(a, pos, out);
            mark_positive(b, false, out);
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Port of Hermes 0.19 `_sanitize_fts5_query` (see shared/research/hermes.md 4.1).
pub fn sanitize(query: &str) -> String {
    let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
    // 1. balanced "..." -> placeholders; 2. strip special characters (and unmatched quotes).
    let mut quoted: Vec<String> = Vec::new();
    let mut s = String::new();
    let mut rest = query.as_str();
    while let Some(open) = rest.find('"') {
        s.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('"') {
            Some(close) => {
                quoted.push(format!("\"{}\"", &after[..close]));
                s.push_str(&format!("\u{0}Q{}\u{0}", quoted.len() - 1));
                rest = &after[close + 1..];
            }
            None => {
                s.push(' ');
                rest = after;
            }
        }
    }
    s.push_str(rest);
    let s: String = s
        .chars()
        .map(|c| if "+{}():\"^".contains(c) { ' ' } else { c })
        .collect();
    // 3. collapse `**`, drop a `*` that starts a word.
    let mut t = String::new();
    let mut prev: Option<char> = None;
    for c in s.chars() {
        if c == '*' && (prev == Some('*') || prev.is_none_or(char::is_whitespace)) {
            if prev != Some('*') {
                prev = Some(c);
            }
            continue;
        }
        t.push(c);
        prev = Some(c);
    }
    // Python's `(^|\s)\*` after collapsing: a `*` run at a word start is gone entirely.
    // 4. dangling operators at the ends.
    let t = strip_leading_op(t.trim());
    let t = strip_trailing_op(t.trim());
    // 5. quote dotted / hyphenated / underscored terms.
    let t = quote_compound_terms(t);
    // 6. restore phrases.
    let mut out = t;
    for (i, q) in quoted.iter().enumerate() {
        out = out.replace(&format!("\u{0}Q{i}\u{0}"), q);
    }
    out.trim().to_string()
}

fn op_at(s: &str) -> Option<usize> {
    ["AND", "OR", "NOT"]
        .iter()
        .find(|op| {
            s.len() >= op.len()
                && s.is_char_boundary(op.len())
                && s[..op.len()].eq_ignore_ascii_case(op)
        })
        .map(|op| op.len())
}

/// `(?i)^(AND|OR|NOT)\b\s*`
fn strip_leading_op(s: &str) -> &str {
    if let Some(n) = op_at(s) {
        if !s[n..].chars().next().is_some_and(is_word) {
            return s[n..].trim_start();
        }
    }
    s
}

/// `(?i)\s+(AND|OR|NOT)\s*$` (applied to an already trimmed string).
fn strip_trailing_op(s: &str) -> &str {
    for op in ["AND", "OR", "NOT"] {
        if s.len() > op.len() && s.is_char_boundary(s.len() - op.len()) {
            let (head, tail) = s.split_at(s.len() - op.len());
            if tail.eq_ignore_ascii_case(op) && head.ends_with(char::is_whitespace) {
                return head.trim_end();
            }
        }
    }
    s
}

/// `\b(\w+(?:[._-]\w+)+)\b` -> `"\1"`: within each run of word characters, dots and hyphens,
/// the longest match starting at each word boundary.
fn quote_compound_terms(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let boundary = i == 0 || !is_word(chars[i - 1]);
        if boundary && is_word(chars[i]) {
            if let Some(end) = compound_end(&chars, i) {
                out.push('"');
                out.extend(&chars[i..end]);
                out.push('"');
                i = end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// End of the longest `\w+([._-]\w+)+` match at `start` that ends on a word boundary.
fn compound_end(chars: &[char], start: usize) -> Option<usize> {
    let mut best = None;
    let mut has_sep = false;
    let mut i = start;
    while i < chars.len() {
        let c = chars[i];
        if is_word(c) {
            if c == '_' && i > start && i + 1 < chars.len() && is_word(chars[i + 1]) {
                has_sep = true;
            }
            i += 1;
            let at_boundary = i == chars.len() || !is_word(chars[i]);
            if at_boundary && has_sep {
                best = Some(i);
            }
        } else if (c == '.' || c == '-') && i + 1 < chars.len() && is_word(chars[i + 1]) {
            has_sep = true;
            i += 1;
        } else {
            break;
        }
    }
    // An underscore only separates when word characters stand on both sides (`foo_`, `_foo`
    // do not match), which is how `has_sep` is set.
    best
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    And,
    Or,
    Not,
    /// A term's text and whether it was quoted.
    Term(String, bool),
}

/// Split sanitised text into operators (upper-case `AND`/`OR`/`NOT`, as FTS5 reads them) and
/// terms; a quoted term keeps its inner text.
pub(crate) fn lex(s: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut rest = s;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        if let Some(after) = rest.strip_prefix('"') {
            let close = after.find('"').unwrap_or(after.len());
            items.push(Item::Term(after[..close].to_string(), true));
            rest = after.get(close + 1..).unwrap_or("");
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '"')
            .unwrap_or(rest.len());
        let word = &rest[..end];
        items.push(match word {
            "AND" => Item::And,
            "OR" => Item::Or,
            "NOT" => Item::Not,
            _ => Item::Term(word.to_string(), false),
        });
        rest = &rest[end..];
    }
    items
}

/// A leaf for a term's text, or `None` when it has nothing searchable (punctuation only).
fn leaf(text: &str, quoted: bool) -> Option<Leaf> {
    let folded = fold(text);
    if folded.chars().any(is_cjk) {
        let t = folded.trim().trim_end_matches('*').to_string();
        return (!t.is_empty()).then_some(Leaf::Substring(t));
    }
    let prefix = !quoted && folded.ends_with('*');
    let tokens = split_tokens(&folded);
    (!tokens.is_empty()).then_some(Leaf::Words { tokens, prefix })
}

struct Parser<'a> {
    items: &'a [Item],
    pos: usize,
    leaves: &'a mut Vec<Leaf>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Item> {
        self.items.get(self.pos)
    }

    fn or_expr(&mut self) -> Option<Expr> {
        let mut alts = Vec::new();
        while self.pos < self.items.len() {
            if let Some(e) = self.and_expr() {
                alts.push(e);
            }
            if self.peek() == Some(&Item::Or) {
                self.pos += 1;
            }
        }
        match alts.len() {
            0 => None,
            1 => alts.pop(),
            _ => Some(Expr::Or(alts)),
        }
    }

    fn and_expr(&mut self) -> Option<Expr> {
        let mut parts = Vec::new();
        loop {
            match self.peek() {
                None | Some(Item::Or) => break,
                Some(Item::And) | Some(Item::Not) if parts.is_empty() => self.pos += 1,
                Some(Item::And) => self.pos += 1,
                Some(Item::Not) => {
                    // `a NOT b`: negate against everything so far in this chain.
                    self.pos += 1;
                    if let Some(b) = self.primary() {
                        let a = and_of(std::mem::take(&mut parts));
                        parts.push(Expr::Not(Box::new(a), Box::new(b)));
                    }
                }
                Some(Item::Term(..)) => {
                    if let Some(e) = self.primary() {
                        parts.push(e);
                    }
                }
            }
        }
        (!parts.is_empty()).then(|| and_of(parts))
    }

    /// The next term (skipping stray operators); `None` at the end or before `OR`.
    fn primary(&mut self) -> Option<Expr> {
        while let Some(item) = self.peek() {
            match item {
                Item::Or => return None,
                Item::And | Item::Not => self.pos += 1,
                Item::Term(text, quoted) => {
                    let l = leaf(text, *quoted);
                    self.pos += 1;
                    if let Some(l) = l {
                        self.leaves.push(l);
                        return Some(Expr::Leaf(self.leaves.len() - 1));
                    }
                }
            }
        }
        None
    }
}

fn and_of(mut parts: Vec<Expr>) -> Expr {
    if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        Expr::And(parts)
    }
}

/// The words of a query that is a plain AND of single words ("docker compose"): finding them
/// next to each other is worth a bonus, as a phrase would be.
pub fn adjacency_leaf(q: &Query) -> Option<Leaf> {
    let Expr::And(parts) = &q.expr else {
        return None;
    };
    let mut tokens = Vec::new();
    for p in parts {
        match p {
            Expr::Leaf(i) => match &q.leaves[*i] {
                Leaf::Words {
                    tokens: t,
                    prefix: false,
                } if t.len() == 1 => tokens.push(t[0].clone()),
                _ => return None,
            },
            _ => return None,
        }
    }
    (tokens.len() >= 2).then_some(Leaf::Words {
        tokens,
        prefix: false,
    })
}

/// The `file:<path or glob>` terms of a query (`file:"a path with spaces"` quoted), and the
/// rest of its text. The files name the sessions a search keeps (those that touched a matching
/// file); the rest is searched as words. A `file:` inside a quoted phrase is part of the phrase.
pub fn file_terms(raw: &str) -> (Vec<String>, String) {
    let mut files = Vec::new();
    let mut rest = String::new();
    let mut s = raw;
    loop {
        let skipped = s.len() - s.trim_start().len();
        rest.push_str(&s[..skipped]);
        s = &s[skipped..];
        if s.is_empty() {
            break;
        }
        if let Some(after) = s.strip_prefix("file:") {
            let (term, next) = match after.strip_prefix('"') {
                Some(q) => match q.find('"') {
                    Some(close) => (&q[..close], &q[close + 1..]),
                    None => (q, ""),
                },
                None => after.split_at(after.find(char::is_whitespace).unwrap_or(after.len())),
            };
            if !term.is_empty() {
                files.push(term.to_string());
            }
            s = next;
            continue;
        }
        // A word, or a quoted phrase kept whole.
        let end = match s.strip_prefix('"') {
            Some(q) => q.find('"').map_or(s.len(), |c| c + 2),
            None => s.find(char::is_whitespace).unwrap_or(s.len()),
        };
        rest.push_str(&s[..end]);
        s = &s[end..];
    }
    (files, rest.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitiser_matches_hermes_table() {
        // shared/research/hermes.md 4.1: outputs computed by Hermes 0.19 itself.
        let cases = [
            ("auth-refresh", "\"auth-refresh\""),
            ("chat-send 429", "\"chat-send\" 429"),
            ("my-app.config.ts", "\"my-app.config.ts\""),
            ("P2.2", "\"P2.2\""),
            ("mem_limit", "\"mem_limit\""),
            ("foo_bar-baz", "\"foo_bar-baz\""),
            ("TODO: fix", "TODO  fix"),
            ("\"exact phrase\" plus", "\"exact phrase\" plus"),
            ("\"unterminated", "unterminated"),
            ("hello AND", "hello"),
            ("OR world", "world"),
            ("***deploy*", "deploy*"),
            ("(a+b)", "a b"),
            ("C++", "C"),
            ("{x}^y", "x  y"),
            ("docker OR kubernetes", "docker OR kubernetes"),
            ("python NOT java", "python NOT java"),
            ("大别山项目", "大别山项目"),
        ];
        for (input, want) in cases {
            assert_eq!(sanitize(input), want, "input {input:?}");
        }
    }

    #[test]
    fn sanitiser_edge_cases() {
        assert_eq!(sanitize("foo_"), "foo_");
        assert_eq!(sanitize("_foo"), "_foo");
        assert_eq!(sanitize("foo--bar"), "foo--bar");
        assert_eq!(sanitize("foo-bar-"), "\"foo-bar\"-");
        assert_eq!(sanitize("ORDER by"), "ORDER by");
        assert_eq!(sanitize("x".repeat(3000).as_str()).len(), 2048);
    }

    fn words(ts: &[&str], prefix: bool) -> Leaf {
        Leaf::Words {
            tokens: ts.iter().map(|s| s.to_string()).collect(),
            prefix,
        }
    }

    #[test]
    fn parses_every_form() {
        let q = Query::parse("Docker deployment").unwrap();
        assert_eq!(q.expr, Expr::And(vec![Expr::Leaf(0), Expr::Leaf(1)]));
        assert_eq!(
            q.leaves,
            [words(&["docker"], false), words(&["deployment"], false)]
        );

        let q = Query::parse("\"Exact Phrase\" deploy*").unwrap();
        assert_eq!(
            q.leaves,
            [words(&["exact", "phrase"], false), words(&["deploy"], true)]
        );

        let q = Query::parse("docker OR kubernetes").unwrap();
        assert_eq!(q.expr, Expr::Or(vec![Expr::Leaf(0), Expr::Leaf(1)]));

        let q = Query::parse("python NOT java").unwrap();
        assert_eq!(
            q.expr,
            Expr::Not(Box::new(Expr::Leaf(0)), Box::new(Expr::Leaf(1)))
        );
        assert_eq!(q.positive, [true, false]);

        let q = Query::parse("chat-send").unwrap();
        assert_eq!(q.leaves, [words(&["chat", "send"], false)]);

        let q = Query::parse("大别山项目 进度").unwrap();
        assert_eq!(
            q.leaves,
            [
                Leaf::Substring("大别山项目".into()),
                Leaf::Substring("进度".into())
            ]
        );

        // lower-case operators are words, as in FTS5
        let q = Query::parse("this or that").unwrap();
        assert_eq!(q.leaves.len(), 3);
    }

    #[test]
    fn precedence_not_and_or() {
        // a OR b c NOT d  ==  a OR ((b AND c) NOT d)
        let q = Query::parse("a OR b c NOT d").unwrap();
        let present = |set: &'static [usize]| move |i: usize| set.contains(&i);
        assert!(q.eval(&present(&[0])));
        assert!(q.eval(&present(&[1, 2])));
        assert!(!q.eval(&present(&[1, 2, 3])));
        assert!(!q.eval(&present(&[1])));
    }

    #[test]
    fn garbage_is_never_an_error() {
        for junk in ["", "   ", "\"", "AND", "OR OR", "***", "()", ":::", "NOT"] {
            assert_eq!(Query::parse(junk), None, "{junk:?}");
        }
        let q = Query::parse("a OR OR b AND AND NOT c").unwrap();
        assert_eq!(q.leaves.len(), 3);
        // `file.rs` is quoted by the sanitiser: two terms, both required.
        let q = Query::parse("/path/to/file.rs").unwrap();
        assert_eq!(
            q.leaves,
            [words(&["path", "to"], false), words(&["file", "rs"], false)]
        );
    }

    #[test]
    fn file_terms_are_taken_out_of_the_words() {
        let (files, rest) =
            file_terms(r#"file:src/*.rs tokenizer file:"my dir/a b.txt" "a file:x phrase""#);
        assert_eq!(files, ["src/*.rs", "my dir/a b.txt"]);
        assert_eq!(rest, r#"tokenizer  "a file:x phrase""#);
        assert_eq!(file_terms("file:a"), (vec!["a".to_string()], String::new()));
        assert_eq!(file_terms("no files here").0, Vec::<String>::new());
    }
}
