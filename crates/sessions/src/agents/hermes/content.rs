//! Hermes message content: a plain string, or `"\x00json:" + json.dumps(list_or_dict)` for
//! structured (multimodal) content (hermes.md §3, `_CONTENT_JSON_PREFIX`).
use serde_json::Value;

const JSON_PREFIX: &str = "\u{0}json:";

/// What Hermes' display code shows when structured content has no text part.
const NO_TEXT: &str = "[multimodal content]";

/// The readable text of a stored content value: text parts joined by newlines.
pub fn decode_content(stored: &str) -> String {
    let Some(json) = stored.strip_prefix(JSON_PREFIX) else {
        return stored.to_string();
    };
    match serde_json::from_str::<Value>(json) {
        Ok(v) => {
            let mut texts = Vec::new();
            collect_text(&v, &mut texts);
            if texts.is_empty() {
                NO_TEXT.to_string()
            } else {
                texts.join("\n")
            }
        }
        // Not the JSON it claims to be: show what is there rather than nothing.
        Err(_) => json.to_string(),
    }
}

fn collect_text(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| collect_text(i, out)),
        Value::Object(o) => {
            let kind = o.get("type").and_then(Value::as_str).unwrap_or("text");
            if !matches!(kind, "text" | "input_text" | "output_text") {
                return; // images, audio, files: no text to show
            }
            match (o.get("text"), o.get("content")) {
                (Some(Value::String(t)), _) => out.push(t.clone()),
                (_, Some(c)) => collect_text(c, out),
                _ => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_multimodal() {
        assert_eq!(decode_content("hi"), "hi");
        let mm = "\u{0}json:[{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:x\"}},{\"type\":\"text\",\"text\":\"here\"}]";
        assert_eq!(decode_content(mm), "look\nhere");
        assert_eq!(
            decode_content("\u{0}json:[{\"type\":\"image_url\",\"image_url\":{}}]"),
            NO_TEXT
        );
        assert_eq!(
            decode_content("\u{0}json:{\"type\":\"text\",\"text\":\"d\"}"),
            "d"
        );
        assert_eq!(decode_content("\u{0}json:{oops"), "{oops");
    }
}
