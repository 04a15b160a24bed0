//! Facts about a JSON string literal read from its raw text, without decoding it.

/// Bytes of UTF-8 the string literal `raw` (quotes included, as `RawValue::get` gives it)
/// decodes to. `None` when `raw` is not a string, or holds an escape this does not count
/// exactly (a `\u` surrogate, anything malformed): decode it instead.
pub fn decoded_len(raw: &str) -> Option<usize> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    let b = body.as_bytes();
    let mut len = 0;
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &b[i..]) {
        len += k;
        i += k;
        match *b.get(i + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                len += 1;
                i += 2;
            }
            b'u' => {
                let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
                let cp = u32::from_str_radix(hex, 16).ok()?;
                len += char::from_u32(cp)?.len_utf8(); // surrogates are not chars: None
                i += 6;
            }
            _ => return None,
        }
    }
    Some(len + b.len() - i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_decoding() {
        let samples = [
            "",
            "plain ascii",
            "line\nbreak\ttab \"quoted\" back\\slash /slash",
            "caf\u{e9} \u{5927}\u{522b}\u{5c71} \u{1F600} \u{7f}\u{80}\u{7ff}\u{800}\u{ffff}",
            "\u{0}\u{1}\u{1f} control",
            "ends with a backslash \\",
        ];
        for s in samples {
            // Both how serde_json writes it and with every non-ASCII char as \u escapes.
            let plain = serde_json::to_string(s).unwrap();
            let escaped: String = plain
                .chars()
                .map(|c| match c {
                    c if (c as u32) < 0x80 || (c as u32) > 0xFFFF => c.to_string(),
                    c => format!("\\u{:04x}", c as u32),
                })
                .collect();
            for raw in [plain, escaped] {
                let want: String = serde_json::from_str(&raw).unwrap();
                assert_eq!(decoded_len(&raw), Some(want.len()), "{raw}");
            }
        }
    }

    #[test]
    fn refuses_what_it_cannot_count() {
        for raw in [
            r#"{"a":1}"#,
            "42",
            r#""\ud83d\ude00""#,
            r#""\x""#,
            r#""\u12""#,
            r#""ab\""#,
        ] {
            assert_eq!(decoded_len(raw), None, "{raw}");
        }
    }
}
