//! Export a session as json, jsonl or markdown (spec 6.5). First version: json and jsonl.
use crate::error::{Error, Result};
use crate::model::Session;
use crate::options::ExportFormat;

pub fn export(session: &Session, format: ExportFormat) -> Result<String> {
    match format {
        ExportFormat::Json => {
            serde_json::to_string_pretty(session).map_err(|e| Error::internal(e.to_string()))
        }
        ExportFormat::Jsonl | ExportFormat::Markdown => {
            Err(Error::internal("this export format is not implemented yet"))
        }
    }
}
