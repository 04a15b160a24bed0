//! Tab-separated lines for scripts: what `amux` prints to a pipe or a file, one line per row, no
//! header, values in full. The rules live here alone: session lists and cost reports are written
//! from the engines' results (a list can be every session of a store, and turning it into
//! thousands of JS objects only to print six fields of each cost more than the whole native
//! list); every other piped output hands its rows to `rows`.
use crate::cost::blocks::Blocks;
use crate::cost::report::{Report, Totals};
use crate::export::json::js_number;
use crate::model::{to_iso, SessionSummary};
use crate::options::Grouping;

/// `sessionId, updatedAt (ISO 8601), turnCount, model, cost.totalUsd, title`, one line each,
/// each ending in `\n` ('' for no sessions). A missing value is an empty field.
pub fn session_list(sessions: &[SessionSummary]) -> String {
    lines(sessions, |s| &s.session_id)
}

/// The same with the unified id (`agent:id`) first, for a list that mixes agents.
pub fn session_list_unified(sessions: &[SessionSummary]) -> String {
    lines(sessions, |s| &s.unified_id)
}

fn lines(sessions: &[SessionSummary], id: impl Fn(&SessionSummary) -> &str) -> String {
    let mut out = String::with_capacity(sessions.len() * 160);
    for s in sessions {
        let cost = s.cost.as_ref().map(|c| to_millionth(c.total_usd));
        let turns = s.turn_count.to_string();
        let fields = [
            id(s),
            &to_iso(&s.updated_at),
            &turns,
            s.model.as_deref().unwrap_or(""),
            cost.as_deref().unwrap_or(""),
            &s.title,
        ];
        push_line(&mut out, fields);
    }
    out
}

/// A cost report's rows (`amux cost daily|weekly|monthly|session` to a pipe): the period (a
/// session: `agent:id`, then its last activity), input, output, cache write, cache read and total
/// tokens, cost, the models (comma-separated); then `TOTAL`. With `breakdown`, a line per model
/// (that model last) in place of each row.
pub fn cost_report(report: &Report, breakdown: bool) -> String {
    let mut out = String::with_capacity(report.rows.len() * 120);
    let sessions = report.grouping == Grouping::Session;
    for r in &report.rows {
        let mut head: Vec<&str> = Vec::with_capacity(2);
        match &r.session {
            Some(s) => head.extend([s.unified_id.as_str(), s.last_activity.as_str()]),
            None => head.extend(
                [&r.date, &r.week, &r.month]
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
            ),
        }
        if breakdown {
            for m in &r.model_breakdowns {
                let usage = Totals {
                    input_tokens: m.input_tokens,
                    output_tokens: m.output_tokens,
                    cache_creation_tokens: m.cache_creation_tokens,
                    cache_read_tokens: m.cache_read_tokens,
                    total_tokens: m.input_tokens
                        + m.output_tokens
                        + m.cache_creation_tokens
                        + m.cache_read_tokens,
                    total_cost: m.cost,
                    thinking_tokens: m.thinking_tokens,
                };
                usage_line(&mut out, &head, &usage, &m.model_name);
            }
        } else {
            let models = r.models_used.join(",");
            usage_line(&mut out, &head, &r.usage, &models);
        }
    }
    let head: &[&str] = if sessions { &["TOTAL", ""] } else { &["TOTAL"] };
    usage_line(&mut out, head, &report.totals, "");
    out
}

fn usage_line(out: &mut String, head: &[&str], u: &Totals, models: &str) {
    let numbers = [
        u.input_tokens,
        u.output_tokens,
        u.cache_creation_tokens,
        u.cache_read_tokens,
        u.total_tokens,
    ];
    let numbers = numbers.map(|n| n.to_string());
    let cost = to_millionth(u.total_cost);
    let fields = (head.iter().copied())
        .chain(numbers.iter().map(String::as_str))
        .chain([cost.as_str(), models]);
    push_line(out, fields);
}

/// Billing blocks (`amux cost blocks` to a pipe): id, start, end, last request (ISO 8601),
/// `active`, `gap` or empty, requests, tokens, cost, models (comma-separated).
pub fn cost_blocks(blocks: &Blocks) -> String {
    let mut out = String::with_capacity(blocks.blocks.len() * 160);
    for b in &blocks.blocks {
        let state = if b.is_active {
            "active"
        } else if b.is_gap {
            "gap"
        } else {
            ""
        };
        let fields = [
            b.id.clone(),
            b.start_time.clone(),
            b.end_time.clone(),
            b.actual_end_time.clone().unwrap_or_default(),
            state.to_string(),
            b.entries.to_string(),
            b.total_tokens.to_string(),
            to_millionth(b.cost_usd),
            b.models.join(","),
        ];
        push_line(&mut out, fields.iter().map(String::as_str));
    }
    out
}

/// One value of a row given by the caller.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// An absent value: an empty field.
    Empty,
    Text(String),
    /// Written to a millionth (whole numbers as they are).
    Number(f64),
}

/// Each row on a line of its own, its cells in order ('' for no rows).
pub fn rows(rows: &[Vec<Cell>]) -> String {
    let mut out = String::new();
    for row in rows {
        let numbers: Vec<String> = row
            .iter()
            .map(|c| match c {
                Cell::Number(n) => to_millionth(*n),
                _ => String::new(),
            })
            .collect();
        push_line(
            &mut out,
            row.iter().zip(&numbers).map(|(c, n)| match c {
                Cell::Empty => "",
                Cell::Text(t) => t.as_str(),
                Cell::Number(_) => n.as_str(),
            }),
        );
    }
    out
}

fn push_line<'a>(out: &mut String, fields: impl IntoIterator<Item = &'a str>) {
    for (i, field) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        push_field(out, field);
    }
    out.push('\n');
}

/// A tab or line break inside a value would split its field or line; a space keeps the text.
fn push_field(out: &mut String, value: &str) {
    if !value.contains(['\t', '\r', '\n']) {
        out.push_str(value);
        return;
    }
    out.extend(value.chars().map(|c| match c {
        '\t' | '\r' | '\n' => ' ',
        c => c,
    }));
}

/// A number to a millionth, as JS writes `String(Number(n.toFixed(6)))`: dollars and scores past
/// that are float noise (0.09886935000000001). '' when not finite.
fn to_millionth(n: f64) -> String {
    if !n.is_finite() {
        return String::new();
    }
    if n.abs() >= 1e21 {
        return js_number(n); // `toFixed` writes such numbers as `String` does
    }
    js_number(fixed6(n).parse().unwrap_or(0.0))
}

/// `n` rounded to six decimals as `toFixed(6)` does. Rust rounds an exact tie to even, JS away
/// from zero. A tie has exactly seven decimals, the last a 5: a double is one when `n * 128` is
/// an odd integer (its binary fraction is 7 bits), and then it rounds up at the sixth.
fn fixed6(n: f64) -> String {
    let in_128ths = n.abs() * 128.0; // exact: a power of two
    let tie = in_128ths.fract() == 0.0 && in_128ths % 2.0 == 1.0;
    if !tie {
        return format!("{n:.6}");
    }
    // |n| = m/128 with m odd; in millionths that is m * 15625 / 2, rounded up.
    let millionths = (in_128ths as u128 * 15625).div_ceil(2);
    let sign = if n < 0.0 { "-" } else { "" };
    format!(
        "{sign}{}.{:06}",
        millionths / 1_000_000,
        millionths % 1_000_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CostRecord, SessionSummary};

    #[test]
    fn numbers_are_written_as_js_rounds_them() {
        // Each expected string is what node 20 prints for `String(Number(n.toFixed(6)))`.
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (0.004, "0.004"),
            (1.0 / 128.0, "0.007813"),
            (-1.0 / 128.0, "-0.007813"),
            (3.0 / 128.0, "0.023438"),
            (0.0000005, "0"),
            (0.0000015, "0.000002"),
            (-1e-9, "0"),
            (0.1 + 0.2, "0.3"),
            (123.456789012, "123.456789"),
            (1e21, "1e+21"),
            (-1.5e21, "-1.5e+21"),
            (123456789012.0 + 1.0 / 128.0, "123456789012.00781"),
            (35184372088832.0 + 1.0 / 128.0, "35184372088832.01"),
            (1e20 + 0.5, "100000000000000000000"),
            (9.999999949999, "10"),
            (0.0000009999, "0.000001"),
            (3.0, "3"),
            (f64::NAN, ""),
            (f64::INFINITY, ""),
        ];
        for &(n, expected) in cases {
            assert_eq!(to_millionth(n), expected, "{n:e}");
        }
    }

    #[test]
    fn a_line_per_session_with_every_value_in_full() {
        let at = chrono::DateTime::from_timestamp_millis(1_735_700_000_123).unwrap();
        let mut a = SessionSummary::new("claude", "a1", at, at);
        a.title = "tab\there\r\nand a newline".into();
        a.turn_count = 3;
        a.model = Some("claude-sonnet-4-5".into());
        a.cost = Some(CostRecord {
            total_usd: 0.004000000000000001,
            input_tokens: 1,
            output_tokens: 1,
            thinking_tokens: None,
            cached_tokens: None,
            cache_write_tokens: None,
        });
        let mut b = SessionSummary::new("claude", "b2", at, at);
        b.title = "café 東京".into();
        b.turn_count = 15;
        assert_eq!(
            session_list(&[a.clone(), b]),
            "a1\t2025-01-01T02:53:20.123Z\t3\tclaude-sonnet-4-5\t0.004\ttab here  and a newline\n\
             b2\t2025-01-01T02:53:20.123Z\t15\t\t\tcafé 東京\n"
        );
        assert_eq!(session_list(&[]), "");
        assert_eq!(rows(&[]), "");
        let mixed = [a.clone(), SessionSummary::new("codex", "c3", at, at)];
        assert_eq!(
            session_list_unified(&mixed),
            "claude:a1\t2025-01-01T02:53:20.123Z\t3\tclaude-sonnet-4-5\t0.004\ttab here  and a newline\n\
             codex:c3\t2025-01-01T02:53:20.123Z\t0\t\t\t\n"
        );
    }

    #[test]
    fn rows_follow_the_same_rules() {
        let r = [
            vec![
                Cell::Text("a\tb\nc".into()),
                Cell::Number(0.1 + 0.2),
                Cell::Number(1234567.0),
                Cell::Empty,
                Cell::Number(f64::NAN),
            ],
            vec![Cell::Text("TOTAL".into())],
        ];
        assert_eq!(rows(&r), "a b c\t0.3\t1234567\t\t\nTOTAL\n");
    }
}
