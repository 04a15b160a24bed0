//! Unified session ids: `<agent>:<native id>` (spec section 5).

/// The built-in agents' names, in the spec's order (`BuiltInAgentName`). The registry in
/// `agents` holds one adapter per name (a test holds them equal); this list sits at the bottom
/// so ids and options can check a name without importing the adapters.
pub const AGENT_NAMES: [&str; 10] = [
    "claude", "codex", "gemini", "copilot", "cursor", "opencode", "pi", "omp", "openclaw", "hermes",
];

pub fn is_built_in(name: &str) -> bool {
    AGENT_NAMES.contains(&name)
}

pub fn unified_id(agent: &str, native_id: &str) -> String {
    format!("{agent}:{native_id}")
}

/// Splits on the first colon; `None` for a missing colon, an empty part or an unknown agent.
pub fn parse_unified_id(unified: &str) -> Option<(&str, &str)> {
    let (agent, native) = unified.split_once(':')?;
    if agent.is_empty() || native.is_empty() || !is_built_in(agent) {
        return None;
    }
    Some((agent, native))
}

/// A native id is used to build paths and SQL parameters: reject anything that could leave a store.
pub fn is_safe_native_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 512
        && id != "."
        && id != ".."
        && !id.contains(['/', '\\', '\0'])
        && !id.starts_with('~')
        && !(id.len() >= 2 && id.as_bytes()[1] == b':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_first_colon() {
        assert_eq!(unified_id("claude", "a:b"), "claude:a:b");
        assert_eq!(parse_unified_id("claude:a:b"), Some(("claude", "a:b")));
        assert_eq!(parse_unified_id("nope:1"), None);
        assert_eq!(parse_unified_id("claude:"), None);
        assert_eq!(parse_unified_id(":x"), None);
        assert_eq!(parse_unified_id("claude"), None);
    }

    #[test]
    fn unsafe_ids() {
        for bad in [
            "",
            "..",
            "a/b",
            "a\\b",
            "x\0",
            "/etc/passwd",
            "C:x",
            "~root",
        ] {
            assert!(!is_safe_native_id(bad), "{bad:?}");
        }
        assert!(is_safe_native_id("0a1b2c3d-4e5f"));
        assert!(is_safe_native_id("2025..x"));
    }
}
