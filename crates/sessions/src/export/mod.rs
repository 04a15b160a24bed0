//! Export a session as `json`, `jsonl` or `markdown` (spec 6.5).
//!
//! Each format writes straight into one output buffer (no intermediate `Value` or per-message
//! strings), so peak memory is the loaded session plus the output itself; `markdown` frees each
//! message once written, which brings it to about the larger of the two.
use crate::agents::Mode;
use crate::error::{Error, Result};
use crate::model::Session;
use crate::options::ExportFormat;

mod escape;
pub mod json;
mod markdown;

pub fn export(session: Session, format: ExportFormat) -> Result<String> {
    match format {
        ExportFormat::Json => bytes(|out| json::json(out, &session)),
        ExportFormat::Jsonl => bytes(|out| json::jsonl(out, &session)),
        ExportFormat::Markdown => {
            let mut out = String::new();
            markdown::markdown(&mut out, session);
            Ok(out)
        }
    }
}

/// How much of the session `format` writes: only `json` has `raw`, and `markdown` prints a tool's
/// output once, at the message that answers the call (`Mode::Messages` may leave it out of the
/// call), so each loads no more than it writes.
pub fn load_mode(format: ExportFormat) -> Mode {
    match format {
        ExportFormat::Json => Mode::Full,
        ExportFormat::Jsonl => Mode::Readable,
        ExportFormat::Markdown => Mode::Messages,
    }
}

fn bytes(write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>) -> Result<String> {
    let mut out = Vec::new();
    write(&mut out).map_err(|e| Error::internal(format!("export failed: {e}")))?;
    // serde_json writes only UTF-8; the check is a linear scan, not a copy.
    String::from_utf8(out).map_err(|e| Error::internal(format!("export produced bad UTF-8: {e}")))
}
