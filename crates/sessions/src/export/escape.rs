//! Putting untrusted text into a Markdown document without letting it change the document's
//! structure (CommonMark + GitHub's HTML passthrough).
//!
//! What could break the structure, and what stops it:
//! - headings (`### User` in a message would fake a section): a leading `#` is backslash-escaped,
//!   and setext underlines / thematic breaks (`---`, `===`) get a backslash too;
//! - raw HTML (`</details>` closes our thinking block, `<!--` or `<script>` swallow the rest of the
//!   document): every `<` outside a code span becomes `&lt;`;
//! - an unclosed code fence would swallow everything after it: fences are tracked and closed;
//! - code spans that run over a line break can hide a line-start `<` from the scanner: backtick
//!   runs that do not close on their own line are escaped, so spans never cross lines.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r` (CommonMark counts all three) and are written with `\n`.

/// Lines of `text`, split the way CommonMark splits them.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        match s.find(['\n', '\r']) {
            Some(i) => {
                let skip = if s[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&s[i + skip..]);
                Some(&s[..i])
            }
            None => {
                rest = None;
                Some(s)
            }
        }
    })
}

/// The longest run of `c` in `s`.
pub fn longest_run(s: &str, c: u8) -> usize {
    let (mut best, mut cur) = (0, 0);
    for b in s.bytes() {
        if b == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// A backtick fence longer than any backtick run in `body` (at least three).
pub fn fence_for(body: &str) -> String {
    "`".repeat((longest_run(body, b'`') + 1).max(3))
}

/// Write `body` as a fenced code block (`info` is a plain word such as `json`).
pub fn fenced(out: &mut String, body: &str, info: &str) {
    let fence = fence_for(body);
    out.push_str(&fence);
    out.push_str(info);
    out.push('\n');
    for line in lines(body.strip_suffix('\n').unwrap_or(body)) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
}

/// `s` as an inline code span on one line: delimiters longer than any backtick run inside, padded
/// when the text starts or ends with a backtick or a space (CommonMark strips one space each side).
pub fn code_span(s: &str) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if one_line.is_empty() {
        return String::from("(empty)");
    }
    let ticks = "`".repeat(longest_run(&one_line, b'`') + 1);
    let pad = one_line.starts_with('`')
        || one_line.ends_with('`')
        || (one_line.starts_with(' ') && one_line.ends_with(' ') && one_line.trim() != "");
    let sp = if pad { " " } else { "" };
    format!("{ticks}{sp}{one_line}{sp}{ticks}")
}

/// `s` as plain inline text on one line: line breaks become spaces, and every character that
/// could start Markdown or HTML syntax is backslash-escaped.
pub fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '&' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// An opening code fence: up to three spaces, then three or more backticks (with no backtick in
/// the info string) or tildes. Returns the fence character and length.
fn opening_fence(line: &str) -> Option<(u8, usize)> {
    let rest = strip_indent(line)?;
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|b| *b == c).count();
    if n < 3 || (c == b'`' && rest[n..].contains('`')) {
        return None;
    }
    Some((c, n))
}

fn closing_fence(line: &str, c: u8, len: usize) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let n = rest.bytes().take_while(|b| *b == c).count();
    n >= len && rest[n..].trim_matches([' ', '\t']).is_empty()
}

/// The line without up to three leading spaces, or `None` when it is indented further (a tab or
/// four spaces: indented code or a continuation, never a heading, fence or HTML block).
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|b| *b == b' ').count();
    let rest = &line[spaces..];
    if spaces > 3 || rest.starts_with('\t') {
        None
    } else {
        Some(rest)
    }
}

/// Write Markdown `text` (a message, thinking) so that it renders as itself but cannot open
/// sections, HTML or code that outlive it. Always ends with a newline when `text` is non-empty.
pub fn block(out: &mut String, text: &str) {
    let mut fence: Option<(u8, usize)> = None;
    for line in lines(text) {
        match fence {
            Some((c, n)) => {
                out.push_str(line);
                if closing_fence(line, c, n) {
                    fence = None;
                }
            }
            None => match opening_fence(line) {
                Some(f) => {
                    out.push_str(line);
                    fence = Some(f);
                }
                None => escape_line(out, line),
            },
        }
        out.push('\n');
    }
    if let Some((c, n)) = fence {
        out.extend(std::iter::repeat_n(c as char, n));
        out.push('\n');
    }
}

/// One line outside code fences.
fn escape_line(out: &mut String, line: &str) {
    let mut body = line;
    if let Some(rest) = strip_indent(line) {
        let indent = &line[..line.len() - rest.len()];
        let first = rest.chars().next();
        let is_rule = matches!(first, Some('-' | '=' | '*' | '_'))
            && rest
                .chars()
                .all(|c| matches!(c, '-' | '=' | '*' | '_' | ' ' | '\t'));
        if first == Some('#') || is_rule {
            out.push_str(indent);
            out.push('\\');
            body = rest;
        }
    }
    inline_spans(out, body);
}

/// Copy a line, keeping code spans that open and close on it verbatim, escaping every other
/// backtick run and every `<` outside them.
fn inline_spans(out: &mut String, line: &str) {
    let b = line.as_bytes();
    let mut i = 0;
    let mut plain = 0; // start of text not yet copied
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2, // an escape pair: the next character is literal
            b'<' => {
                out.push_str(&line[plain..i]);
                out.push_str("&lt;");
                i += 1;
                plain = i;
            }
            b'`' => {
                let n = b[i..].iter().take_while(|c| **c == b'`').count();
                match closing_run(b, i + n, n) {
                    Some(end) => i = end, // a whole span, copied verbatim below
                    None => {
                        out.push_str(&line[plain..i]);
                        for _ in 0..n {
                            out.push_str("\\`");
                        }
                        i += n;
                        plain = i;
                    }
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&line[plain.min(line.len())..]);
}

/// The end of the first run of exactly `n` backticks at or after `from`, if any.
fn closing_run(b: &[u8], mut from: usize, n: usize) -> Option<usize> {
    while from < b.len() {
        if b[from] == b'`' {
            let m = b[from..].iter().take_while(|c| **c == b'`').count();
            if m == n {
                return Some(from + m);
            }
            from += m;
        } else {
            from += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(text: &str) -> String {
        let mut out = String::new();
        block(&mut out, text);
        out
    }

    #[test]
    fn headings_and_rules_cannot_start_sections() {
        assert_eq!(
            esc("### User\n  ## x\n    # code\n---\n==="),
            "\\### User\n  \\## x\n    # code\n\\---\n\\===\n"
        );
    }

    #[test]
    fn html_is_escaped_outside_code_spans_only() {
        assert_eq!(
            esc("</details> and `Vec<u8>` and ``a`<b``"),
            "&lt;/details> and `Vec<u8>` and ``a`<b``\n"
        );
        // an unclosed backtick run does not protect what follows, and cannot pair over a line
        assert_eq!(esc("a `x\nb` <script>"), "a \\`x\nb\\` &lt;script>\n");
        // an escaped backtick is not an opener
        assert_eq!(esc("\\`<b>`"), "\\`&lt;b>\\`\n");
    }

    #[test]
    fn fences_are_verbatim_and_always_closed() {
        assert_eq!(
            esc("```rust\n### not a heading <b>\n```\n<i>"),
            "```rust\n### not a heading <b>\n```\n&lt;i>\n"
        );
        assert_eq!(
            esc("~~~~\n```\n</details>"),
            "~~~~\n```\n</details>\n~~~~\n"
        );
        // a backtick fence with a backtick in its info string is not a fence
        assert_eq!(esc("``` a`b\n<x>"), "\\`\\`\\` a\\`b\n&lt;x>\n");
    }

    #[test]
    fn every_line_ending_counts() {
        assert_eq!(esc("a\r### b\r\nc"), "a\n\\### b\nc\n");
    }

    #[test]
    fn spans_and_fences_outlast_their_content() {
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("two\nlines"), "`two lines`");
        assert_eq!(fence_for("a ```` b"), "`````");
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(inline("a\n<b>*c*"), "a \\<b\\>\\*c\\*");
    }
}
