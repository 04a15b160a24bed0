//! `npm run update-golden` (`cargo test -p agent-mux-sessions --test update_golden`) rewrites
//! tests/golden/ from the samples in tests/sample. It is the only writer of the golden files: the
//! export tests compare against them, and `cargo test` does not run this (`test = false` in
//! Cargo.toml). Review the diff it leaves before committing it.
mod sample;

use agent_mux_sessions::options::ExportFormat;

fn main() {
    for format in [
        ExportFormat::Json,
        ExportFormat::Jsonl,
        ExportFormat::Markdown,
    ] {
        for (path, text) in sample::golden_files(format) {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            println!("wrote {}", path.display());
        }
    }
}
