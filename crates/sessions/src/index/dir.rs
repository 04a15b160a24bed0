//! Where the index lives: a cache directory of ours, never an agent's store.
use std::path::PathBuf;

use crate::context::{CacheSetting, Context};

/// The cache directory this call uses, `None` when the index is off: `AGENT_MUX_NO_CACHE=1` or
/// `cacheDir: false` turn it off; a `cacheDir` given wins; else `AGENT_MUX_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/agent-mux`, else the platform's cache folder.
pub fn resolve(ctx: &Context) -> Option<PathBuf> {
    if ctx.env.var("AGENT_MUX_NO_CACHE").is_some_and(|v| v != "0") {
        return None;
    }
    match &ctx.options.cache {
        CacheSetting::Off => None,
        CacheSetting::Dir(d) => Some(d.clone()),
        CacheSetting::FromEnv => ctx
            .env
            .path_var("AGENT_MUX_CACHE_DIR")
            .or_else(|| Some(ctx.env.path_var("XDG_CACHE_HOME")?.join("agent-mux")))
            .or_else(|| platform_default(ctx)),
    }
}

fn platform_default(ctx: &Context) -> Option<PathBuf> {
    if cfg!(windows) {
        if let Some(local) = ctx.env.path_var("LOCALAPPDATA") {
            return Some(local.join("agent-mux"));
        }
        return ctx.env.home_join("AppData/Local/agent-mux");
    }
    if cfg!(target_os = "macos") {
        return ctx.env.home_join("Library/Caches/agent-mux");
    }
    ctx.env.home_join(".cache/agent-mux")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ClientOptions;
    use crate::env::Env;
    use std::sync::Arc;

    fn ctx(pairs: &[(&str, &str)], cache: CacheSetting) -> Context {
        let options = ClientOptions {
            cache,
            ..Default::default()
        };
        Context::new(Env::from_pairs(pairs.iter().copied()), Arc::new(options))
    }

    #[test]
    fn resolution_order() {
        let on = CacheSetting::FromEnv;
        let h = ("HOME", "/h");
        assert_eq!(resolve(&ctx(&[h], CacheSetting::Off)), None);
        let want = if cfg!(target_os = "macos") {
            "/h/Library/Caches/agent-mux"
        } else {
            "/h/.cache/agent-mux"
        };
        if !cfg!(windows) {
            assert_eq!(resolve(&ctx(&[h], on.clone())), Some(want.into()));
        }
        let xdg = ("XDG_CACHE_HOME", "/x");
        assert_eq!(
            resolve(&ctx(&[h, xdg], on.clone())),
            Some("/x/agent-mux".into())
        );
        let own = ("AGENT_MUX_CACHE_DIR", "/own");
        assert_eq!(
            resolve(&ctx(&[h, xdg, own], on.clone())),
            Some("/own".into())
        );
        let given = CacheSetting::Dir("/given".into());
        assert_eq!(
            resolve(&ctx(&[h, own], given.clone())),
            Some("/given".into())
        );
        let off = ("AGENT_MUX_NO_CACHE", "1");
        assert_eq!(resolve(&ctx(&[h, own, off], given)), None);
        assert_eq!(
            resolve(&ctx(&[h, own, ("AGENT_MUX_NO_CACHE", "0")], on)),
            Some("/own".into())
        );
    }
}
