//! Native JSON values written with their keys in the order a JS object keeps them.
//!
//! After `JSON.parse`, a JS object lists integer-like keys ("array indices": "0", "9", "10", up to
//! 2^32 − 2, no leading zeros) first in ascending numeric order, then the other keys in the order
//! they came. serde_json's map is sorted as strings ("01" < "10" < "9"), so a native record with
//! such keys would come out of `get()` in one order and out of a Rust-written export in another.
//! Writing every value in JS order makes the wire text, the exports and `JSON.stringify` of what
//! the JS API returns agree byte for byte.
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// `Some(n)` when JS treats `key` as an array index.
fn array_index(key: &str) -> Option<u32> {
    let canonical =
        key == "0" || (key.len() <= 10 && key.starts_with(|c: char| matches!(c, '1'..='9')));
    if !canonical || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|n| *n != u32::MAX)
}

/// A borrowed value that serialises in JS key order (recursively).
pub struct JsOrder<'a>(pub &'a Value);

impl Serialize for JsOrder<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Array(items) => s.collect_seq(items.iter().map(JsOrder)),
            Value::Object(m) => {
                let mut indices: Vec<(u32, &String, &Value)> = m
                    .iter()
                    .filter_map(|(k, v)| array_index(k).map(|n| (n, k, v)))
                    .collect();
                indices.sort_unstable_by_key(|(n, _, _)| *n);
                let mut map = s.serialize_map(Some(m.len()))?;
                for (_, k, v) in &indices {
                    map.serialize_entry(k, &JsOrder(v))?;
                }
                for (k, v) in m {
                    if indices.is_empty() || array_index(k).is_none() {
                        map.serialize_entry(k, &JsOrder(v))?;
                    }
                }
                map.end()
            }
            scalar => scalar.serialize(s),
        }
    }
}

/// For `#[serde(serialize_with)]` on a `Value` field.
pub fn value<S: Serializer>(v: &Value, s: S) -> Result<S::Ok, S::Error> {
    JsOrder(v).serialize(s)
}

/// For `#[serde(serialize_with)]` on an `Option<Value>` field.
pub fn option<S: Serializer>(v: &Option<Value>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_some(&JsOrder(v)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_keys_first_then_the_rest_in_map_order() {
        let v = json!({"b": 1, "10": 2, "9": 3, "01": 4, "a": {"2": [ {"1": 0, "0": 0} ], "x": 0},
                       "4294967295": 5, "4294967294": 6, "-1": 7, "1.5": 8, "0": 9});
        let text = serde_json::to_string(&JsOrder(&v)).unwrap();
        // What Node prints for `JSON.stringify(JSON.parse(<this literal>))` (maps keep insertion
        // order: serde_json's preserve_order).
        assert_eq!(
            text,
            r#"{"0":9,"9":3,"10":2,"4294967294":6,"b":1,"01":4,"a":{"2":[{"0":0,"1":0}],"x":0},"4294967295":5,"-1":7,"1.5":8}"#
        );
    }

    #[test]
    fn index_rule() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("4294967294"), Some(4294967294));
        for k in [
            "",
            "00",
            "01",
            "+1",
            "1e3",
            "4294967295",
            "99999999999",
            "１",
        ] {
            assert_eq!(array_index(k), None, "{k}");
        }
    }
}

/// One native JSONL record kept as text: written verbatim unless it may hold an integer-like key,
/// in which case it is parsed and written in JS order like any other native value.
pub struct RawLine<'a>(pub &'a serde_json::value::RawValue);

impl Serialize for RawLine<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.0.get();
        if !may_have_index_key(text) {
            return self.0.serialize(s);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(v) => JsOrder(&v).serialize(s),
            Err(_) => self.0.serialize(s),
        }
    }
}

/// Could `text` contain an object key made only of digits (`"12":`)? A cheap scan over `":`
/// occurrences; a false positive only costs a parse.
fn may_have_index_key(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, b"\":").any(|end| {
        let digits = b[..end]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .count();
        digits > 0 && end > digits && b[end - digits - 1] == b'"'
    })
}

#[cfg(test)]
mod raw_line_tests {
    use super::*;

    #[test]
    fn raw_lines_with_index_keys_follow_js_order() {
        let plain =
            serde_json::value::RawValue::from_string(r#"{"b":1,"a":"x\":"}"#.into()).unwrap();
        assert_eq!(
            serde_json::to_string(&RawLine(&plain)).unwrap(),
            r#"{"b":1,"a":"x\":"}"#
        );
        let keyed =
            serde_json::value::RawValue::from_string(r#"{"b":1,"10":2,"9":3}"#.into()).unwrap();
        assert_eq!(
            serde_json::to_string(&RawLine(&keyed)).unwrap(),
            r#"{"9":3,"10":2,"b":1}"#
        );
    }
}
