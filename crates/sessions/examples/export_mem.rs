//! Peak memory of exporting a large session (figures in bench/RESULTS.md).
//! `cargo run --release -p agent-mux-sessions --example export_mem -- <json|jsonl|markdown> [MB]`
//! Builds a session whose text totals about MB megabytes, then exports it once and prints the
//! resident set before and the peak after, from /proc/self/status (Linux).
use agent_mux_sessions::export::export;
use agent_mux_sessions::model::{Message, Role, Session, SessionSummary, ToolCall};
use agent_mux_wire::export_format;
use serde_json::json;

fn status_kb(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let format = export_format(&json!(args.next().unwrap_or_else(|| "json".into()))).unwrap();
    let mb: usize = args.next().map_or(200, |s| s.parse().unwrap());

    let t = chrono::DateTime::from_timestamp(1_738_400_000, 0).unwrap();
    let para = "The migration touches `users` and <orders>; 日本語 too.\n".repeat(40);
    let mut messages = Vec::new();
    let mut bytes = 0;
    let mut i = 0usize;
    while bytes < mb << 20 {
        let role = [Role::User, Role::Assistant, Role::Tool][i % 3];
        let mut m = Message::new(role, format!("{i}: {para}"));
        m.timestamp = Some(t);
        if role == Role::Assistant {
            m.thinking = Some(format!("thinking {i}"));
            m.tool_calls.push(ToolCall {
                tool_call_id: format!("call_{i}"),
                tool_name: "shell".into(),
                input: json!({"command": ["bash", "-lc", "ls -la"], "n": i}),
                output: Some(json!("ok")),
                duration_ms: Some(1.5),
                output_at_result: false,
            });
        }
        bytes += m.content.len();
        messages.push(m);
        i += 1;
    }
    let mut session = Session {
        summary: SessionSummary::new("claude", "big", t, t),
        messages,
        raw: None,
    };
    session.derive_summary_fields();

    let count = session.messages.len();
    let before = status_kb("VmRSS:");
    let out = export(session, format).unwrap();
    let peak = status_kb("VmHWM:");
    let out_mb = out.len() as f64 / (1 << 20) as f64;
    println!(
        "{:?}: {} messages, text {:.0} MB -> output {:.1} MB; RSS before export {:.1} MB, peak {:.1} MB; \
         export added {:.1} MB = {:.2}x output; peak = {:.2}x output",
        format,
        count,
        bytes as f64 / (1 << 20) as f64,
        out_mb,
        before as f64 / 1024.0,
        peak as f64 / 1024.0,
        (peak - before) as f64 / 1024.0,
        (peak - before) as f64 / 1024.0 / out_mb,
        peak as f64 / 1024.0 / out_mb,
    );
}
