//! Where kept sessions live and whether keeping is on: the data directory (never the cache
//! directory, which people and tools clear freely) and the setting in amux's config directory.
use std::path::{Path, PathBuf};

use crate::context::Context;

use super::files;

/// The setting's file, in amux's config directory.
const SETTINGS: &str = "settings.json";

/// What decided whether keeping is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The client's `keep` option.
    Option,
    /// The setting in the config directory (`amux keep on|off`).
    Setting,
    /// Neither: off.
    Default,
}

/// The data directory: `AGENT_MUX_DATA_DIR`, else `$XDG_DATA_HOME/agent-mux`, else the
/// platform's (`~/.local/share`, `~/Library/Application Support`, `%LOCALAPPDATA%`).
pub fn data_dir(ctx: &Context) -> Option<PathBuf> {
    if let Some(d) = ctx.env.path_var("AGENT_MUX_DATA_DIR") {
        return Some(d);
    }
    if let Some(d) = ctx.env.path_var("XDG_DATA_HOME") {
        return Some(d.join("agent-mux"));
    }
    if cfg!(windows) {
        if let Some(local) = ctx.env.path_var("LOCALAPPDATA") {
            return Some(local.join("agent-mux"));
        }
        return ctx.env.home_join("AppData/Local/agent-mux");
    }
    if cfg!(target_os = "macos") {
        return ctx.env.home_join("Library/Application Support/agent-mux");
    }
    ctx.env.home_join(".local/share/agent-mux")
}

/// The kept store's directory inside the data directory.
pub fn kept_dir(ctx: &Context) -> Option<PathBuf> {
    Some(data_dir(ctx)?.join("kept"))
}

/// The setting's file.
pub fn setting_file(ctx: &Context) -> Option<PathBuf> {
    Some(ctx.config_dir()?.join(SETTINGS))
}

/// Whether keeping is on for this call, and what decided it.
pub fn is_on(ctx: &Context) -> (bool, Origin) {
    if let Some(on) = ctx.options.keep {
        return (on, Origin::Option);
    }
    match setting_file(ctx).and_then(|f| read_setting(&f)) {
        Some(on) => (on, Origin::Setting),
        None => (false, Origin::Default),
    }
}

/// The `keep` key of the settings file, if it holds one.
fn read_setting(file: &Path) -> Option<bool> {
    let bytes = crate::read::fs::read_capped(file, 1 << 20).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    v.get("keep")?.as_bool()
}

/// Write the setting, keeping the file's other keys; the config directory is made 0700 and the
/// file written 0600, atomically.
pub fn write_setting(ctx: &Context, on: bool) -> std::io::Result<PathBuf> {
    let file = setting_file(ctx).ok_or_else(|| std::io::Error::other("no home directory"))?;
    let mut v = crate::read::fs::read_capped(&file, 1 << 20)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .filter(|v| v.is_object())
        .unwrap_or_else(|| serde_json::json!({}));
    v["keep"] = serde_json::Value::Bool(on);
    let dir = file.parent().unwrap_or(Path::new("."));
    files::private_dir(dir)?;
    let mut text = serde_json::to_vec_pretty(&v).map_err(std::io::Error::other)?;
    text.push(b'\n');
    files::write_atomic(&file, &text)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ClientOptions;
    use crate::env::Env;
    use std::sync::Arc;

    fn ctx(pairs: &[(&str, &str)], keep: Option<bool>) -> Context {
        let options = ClientOptions {
            keep,
            ..Default::default()
        };
        Context::new(Env::from_pairs(pairs.iter().copied()), Arc::new(options))
    }

    #[test]
    fn the_data_dir_is_the_variable_then_xdg_then_the_platforms() {
        let h = ("HOME", "/h");
        let d = |pairs: &[(&str, &str)]| data_dir(&ctx(pairs, None)).unwrap();
        assert_eq!(d(&[h, ("AGENT_MUX_DATA_DIR", "/d")]), PathBuf::from("/d"));
        assert_eq!(
            d(&[h, ("XDG_DATA_HOME", "/x")]),
            PathBuf::from("/x/agent-mux")
        );
        if cfg!(target_os = "linux") {
            assert_eq!(d(&[h]), PathBuf::from("/h/.local/share/agent-mux"));
        }
    }

    #[test]
    fn the_option_wins_over_the_setting_which_wins_over_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().to_str().unwrap();
        let pairs = [("HOME", "/h"), ("AGENT_MUX_CONFIG_DIR", conf)];
        assert_eq!(is_on(&ctx(&pairs, None)), (false, Origin::Default));
        std::fs::write(dir.path().join(SETTINGS), r#"{"other": 1}"#).unwrap();
        let file = write_setting(&ctx(&pairs, None), true).unwrap();
        assert_eq!(is_on(&ctx(&pairs, None)), (true, Origin::Setting));
        assert_eq!(is_on(&ctx(&pairs, Some(false))), (false, Origin::Option));
        let kept: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(kept["other"], 1, "the file's other keys stay");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
