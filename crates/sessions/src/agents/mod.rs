//! The registry of the ten built-in agents, one folder each, all behind the trait in `adapter`.
pub mod adapter;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod hermes;
pub mod omp;
pub mod openclaw;
pub mod opencode;
pub mod pi;
pub mod pi_family;
pub mod touches;
pub(crate) mod transcript;

pub use crate::ids::is_built_in;
pub use adapter::{
    existing_dirs, Agent, Fingerprint, FormatVersion, ManySessions, Mode, NativeSearch, Place,
    Retention, SearchSupport, Source,
};
pub use touches::{FileTools, ToolKind};

static AGENTS: [&dyn Agent; 10] = [
    &claude::Claude,
    &codex::Codex,
    &gemini::Gemini,
    &copilot::Copilot,
    &cursor::Cursor,
    &opencode::OpenCode,
    &pi::Pi,
    &omp::Omp,
    &openclaw::OpenClaw,
    &hermes::Hermes,
];

/// All built-in agents, in the spec's order.
pub fn all() -> &'static [&'static dyn Agent] {
    &AGENTS
}

pub fn find(name: &str) -> Option<&'static dyn Agent> {
    AGENTS.iter().copied().find(|a| a.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_has_the_ten_agents_in_spec_order() {
        let names: Vec<_> = all().iter().map(|a| a.name()).collect();
        assert_eq!(names, crate::ids::AGENT_NAMES);
        assert!(is_built_in("hermes") && !is_built_in("Claude"));
    }
}
