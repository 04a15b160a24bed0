//! `json` and `jsonl` exports, written straight into the output buffer.
//!
//! The `json` export must equal `JSON.stringify(session, null, 2)` of what the JS API returns.
//! serde_json's pretty printer already matches JS on indentation, empty containers and string
//! escapes; numbers differ (`1.0` vs `1`, `1e21` vs `1e+21`, integers past 2^53 that JS rounds), so
//! every number goes through [`JsNumbers`], a formatter that writes them as JS `Number#toString`.
use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter, Serializer};

use crate::model::{Session, SessionSummary};

/// The largest integer JS holds exactly; beyond it JS rounds to the nearest double.
const MAX_SAFE: u64 = (1 << 53) - 1;

/// Wraps a formatter, writing every number as JS would print it.
pub struct JsNumbers<F>(pub F);

/// JS `Number.prototype.toString()` for a finite double (JSON writes non-finite as `null`, which
/// serde_json does before a formatter sees the value).
pub fn js_number(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string(); // also -0, which JS prints as "0"
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as JS requires: "d.ddde-7".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("{:e} always has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    // value = 0.digits × 10^n
    let n = exp.parse::<i32>().expect("integer exponent") + 1;
    let mut out = String::with_capacity(k as usize + 8);
    if x < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = n - 1;
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.abs().to_string());
    }
    out
}

impl<F: Formatter + Clone> Formatter for JsNumbers<F> {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        w.write_all(js_number(v).as_bytes())
    }
    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, v: f32) -> io::Result<()> {
        self.write_f64(w, v as f64)
    }
    fn write_u64<W: ?Sized + Write>(&mut self, w: &mut W, v: u64) -> io::Result<()> {
        if v <= MAX_SAFE {
            write!(w, "{v}")
        } else {
            self.write_f64(w, v as f64)
        }
    }
    fn write_i64<W: ?Sized + Write>(&mut self, w: &mut W, v: i64) -> io::Result<()> {
        if v.unsigned_abs() <= MAX_SAFE {
            write!(w, "{v}")
        } else {
            self.write_f64(w, v as f64)
        }
    }
    fn write_u128<W: ?Sized + Write>(&mut self, w: &mut W, v: u128) -> io::Result<()> {
        self.write_f64(w, v as f64)
    }
    fn write_i128<W: ?Sized + Write>(&mut self, w: &mut W, v: i128) -> io::Result<()> {
        self.write_f64(w, v as f64)
    }

    /// Native JSONL records are kept as their text (`Raw::Lines`); print each like every other
    /// value here (this layout at this depth, JS numbers, JS key order), as JSON.stringify would
    /// after `get()` parsed it. A clone of the wrapped formatter carries the current indentation.
    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let value: serde_json::Value = serde_json::from_str(fragment).map_err(io::Error::other)?;
        let mut inner = Serializer::with_formatter(w, JsNumbers(self.0.clone()));
        crate::js_order::JsOrder(&value)
            .serialize(&mut inner)
            .map_err(io::Error::other)
    }

    // Layout: whatever the wrapped formatter does.
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// `value` as JSON.stringify(value, null, 2) writes it.
pub fn write_pretty<W: Write, T: Serialize + ?Sized>(w: W, value: &T) -> serde_json::Result<()> {
    let fmt = JsNumbers(PrettyFormatter::with_indent(b"  "));
    value.serialize(&mut Serializer::with_formatter(w, fmt))
}

/// `value` as JSON.stringify(value) writes it: one line, since serde escapes every control char.
pub fn write_compact<W: Write, T: Serialize + ?Sized>(w: W, value: &T) -> serde_json::Result<()> {
    value.serialize(&mut Serializer::with_formatter(
        w,
        JsNumbers(CompactFormatter),
    ))
}

/// The first jsonl line: `{"type":"session", ...session-level fields}`. Messages carry no `type`
/// key, so a reader tells the header apart by it; `raw` (native records) is left to `json`.
#[derive(Serialize)]
struct Header<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    summary: &'a SessionSummary,
}

pub fn json(out: &mut Vec<u8>, session: &Session) -> serde_json::Result<()> {
    write_pretty(out, session)
}

pub fn jsonl(out: &mut Vec<u8>, session: &Session) -> serde_json::Result<()> {
    let header = Header {
        kind: "session",
        summary: &session.summary,
    };
    write_compact(&mut *out, &header)?;
    out.push(b'\n');
    for m in &session.messages {
        write_compact(&mut *out, m)?;
        out.push(b'\n');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_js_does() {
        let cases = [
            (1.0, "1"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.000001, "0.000001"),
            (0.0000015, "0.0000015"),
            (9007199254740992.0, "9007199254740992"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (x, js) in cases {
            assert_eq!(js_number(x), js, "{x:e}");
        }
    }

    #[test]
    fn integers_past_2_pow_53_round_like_js() {
        let mut out = Vec::new();
        write_compact(
            &mut out,
            &serde_json::json!([u64::MAX, 9007199254740993u64, -9007199254740993i64, 42]),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[18446744073709552000,9007199254740992,-9007199254740992,42]"
        );
    }

    #[test]
    fn pretty_layout_matches_json_stringify() {
        let v = serde_json::json!({"a": [], "b": {}, "c": [1.0, {"d": "x\u{1}\u{2028}"}]});
        let mut out = Vec::new();
        write_pretty(&mut out, &v).unwrap();
        // JSON.stringify(v, null, 2) in Node prints exactly this.
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": \"x\\u0001\u{2028}\"\n    }\n  ]\n}"
        );
    }
}
