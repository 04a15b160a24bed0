//! The best matching passage of a field, at most 200 characters with hits marked `>>>hit<<<`.

pub const MAX_CHARS: usize = 200;
const LEAD: usize = 50;
const OPEN: &str = ">>>";
const CLOSE: &str = "<<<";
const ELLIPSIS: &str = "...";

/// `make_from` of `text` with its secrets redacted first when `redact` (`crate::redact`): the
/// text is redacted whole before it is cut, so no secret is cut in half and left showing, and a
/// hit on a secret marks its tag.
pub fn make_redacted(text: &str, hits: &[(usize, usize)], from: usize, redact: bool) -> String {
    if !redact {
        return make_from(text, hits, from);
    }
    let (text, hits, from) = crate::redact::with_ranges(text, hits, from);
    make_from(&text, &hits, from)
}

/// `hits`: byte ranges of `text`, sorted and not overlapping. Whitespace runs become one space.
pub fn make(text: &str, hits: &[(usize, usize)]) -> String {
    let from = hits.first().map_or(0, |h| h.0);
    make_from(text, hits, from)
}

/// `make`, the passage shown starting shortly before `from` (where the densest window of hits
/// starts) rather than before the first hit.
pub fn make_from(text: &str, hits: &[(usize, usize)], from: usize) -> String {
    if hits.is_empty() {
        return cut_plain(text);
    }
    let first = from.min(text.len());
    // Start up to LEAD characters before the window, at a word start when one is near.
    let start_at = text[..first].char_indices().rev().take(LEAD).last();
    let mut start = start_at.map(|(i, _)| i).unwrap_or(first);
    if start > 0 {
        if let Some(sp) = text[start..first].find(char::is_whitespace) {
            start += sp;
        }
    }
    let mut out = String::new();
    let mut count = 0;
    if start > 0 {
        out.push_str(ELLIPSIS);
        count += ELLIPSIS.len();
    }
    let mut hit = 0;
    let mut in_hit = false;
    let mut last_space = count > 0;
    let mut truncated = false;
    for (i, c) in text[start..].char_indices() {
        let i = i + start;
        if in_hit && i >= hits[hit].1 {
            out.push_str(CLOSE);
            count += CLOSE.len();
            in_hit = false;
            hit += 1;
        }
        while hit < hits.len() && hits[hit].1 <= i {
            hit += 1;
        }
        let opens = !in_hit && hit < hits.len() && i >= hits[hit].0;
        let is_space = c.is_whitespace();
        if is_space && last_space {
            continue;
        }
        // Room for this char, a pending close marker and a trailing ellipsis.
        let need = 1
            + if opens || in_hit { CLOSE.len() } else { 0 }
            + if opens { OPEN.len() } else { 0 }
            + ELLIPSIS.len();
        if count + need > MAX_CHARS {
            truncated = true;
            break;
        }
        if opens {
            out.push_str(OPEN);
            count += OPEN.len();
            in_hit = true;
        }
        out.push(if is_space { ' ' } else { c });
        count += 1;
        last_space = is_space;
    }
    if in_hit {
        out.push_str(CLOSE);
    }
    if truncated {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push_str(ELLIPSIS);
    }
    out.trim().to_string()
}

fn cut_plain(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_CHARS {
        return one_line;
    }
    let mut s: String = one_line.chars().take(MAX_CHARS - ELLIPSIS.len()).collect();
    s.push_str(ELLIPSIS);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_hits_and_stays_short() {
        let text = "We fixed the docker build.\n\nThen docker   compose ran.";
        let a = text.find("docker").unwrap();
        let b = text.rfind("docker").unwrap();
        let s = make(text, &[(a, a + 6), (b, b + 6)]);
        assert_eq!(
            s,
            "We fixed the >>>docker<<< build. Then >>>docker<<< compose ran."
        );

        let long = format!("{} needle {}", "word ".repeat(100), "tail ".repeat(100));
        let p = long.find("needle").unwrap();
        let s = make(&long, &[(p, p + 6)]);
        assert!(s.chars().count() <= MAX_CHARS, "{}", s.chars().count());
        assert!(s.starts_with("...") && s.ends_with("...") && s.contains(">>>needle<<<"));
        let before = s.find(">>>").unwrap();
        assert!((40..=55).contains(&before), "{before}");
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "大别山".repeat(100) + "项目进度" + &"山".repeat(300);
        let p = text.find("项目").unwrap();
        let s = make(&text, &[(p, p + "项目".len())]);
        assert!(s.contains(">>>项目<<<"));
        assert!(s.chars().count() <= MAX_CHARS);
        assert_eq!(make(&"x ".repeat(300), &[]).chars().count(), MAX_CHARS);
    }
}
