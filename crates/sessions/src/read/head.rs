//! Cheap peeks at the start of a session file, so `get(id)` can find a file whose name does not
//! carry the id without parsing every session.
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// The first JSON record of a JSONL file (blank, torn and garbage lines skipped).
pub fn first_record(path: &Path) -> Option<Value> {
    let mut found = None;
    crate::read::jsonl::read_lines::<Value>(path, |v| {
        found = Some(v);
        false
    })
    .ok()?;
    found
}

/// The string value of the first `"key": "…"` within the first `window` bytes of a JSON document
/// (writers put ids before the message arrays, so this reads a few bytes of a large file).
pub fn first_string_field(path: &Path, key: &str, window: u64) -> Option<String> {
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(window)
        .read_to_end(&mut buf)
        .ok()?;
    let needle = format!("\"{key}\"");
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&buf[from..], needle.as_bytes()) {
        let rest = &buf[from + at + needle.len()..];
        let skip = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        if rest[skip] == b':' {
            let mut values =
                serde_json::Deserializer::from_slice(&rest[skip + 1..]).into_iter::<String>();
            if let Some(Ok(s)) = values.next() {
                return Some(s);
            }
        }
        from += at + needle.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_string_value_of_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.json");
        std::fs::write(
            &p,
            "{\n  \"sessionId\" : 3, \"x\": {\"sessionId\":  \"abc\"}}",
        )
        .unwrap();
        assert_eq!(
            first_string_field(&p, "sessionId", 1024).as_deref(),
            Some("abc")
        );
        assert_eq!(first_string_field(&p, "nope", 1024), None);
        let j = dir.path().join("e.jsonl");
        std::fs::write(&j, "\n garbage\n{\"a\":1}\n{\"b\":2}\n").unwrap();
        assert_eq!(first_record(&j).unwrap()["a"], 1);
    }
}
