//! A file as a person names it to find the sessions that touched it: a path or a glob, made
//! absolute against the directory it was typed in and normalised as touches are (`absolute`,
//! which `agents::touches` places every touch with), so both compare as text.
//!
//! Glob syntax is globset's: `*` and `?` stay within one directory, `**` crosses directories,
//! `[abc]` and `{a,b}` as in a shell. A pattern that starts with `**` is matched anywhere (it is
//! not placed under the current directory).
use globset::{GlobBuilder, GlobMatcher};

use crate::error::{Error, Result};

#[derive(Debug, Clone)]
pub struct FilePattern {
    /// The absolute, normalised path or glob.
    pub text: String,
    glob: Option<GlobMatcher>,
}

impl FilePattern {
    /// `raw` as typed in `cwd`; `VALIDATION_ERROR` for an empty pattern or a glob that does not
    /// parse.
    pub fn new(raw: &str, cwd: Option<&str>) -> Result<FilePattern> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(Error::validation("a file path or glob must not be empty"));
        }
        let is_glob = raw.contains(['*', '?', '[', '{']);
        let text = match raw.starts_with("**") {
            true => raw.to_string(),
            false => absolute(raw, cwd),
        };
        let glob = match is_glob {
            false => None,
            true => Some(
                GlobBuilder::new(&text)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| Error::validation(format!("bad file glob {raw:?}: {}", e.kind())))?
                    .compile_matcher(),
            ),
        };
        Ok(FilePattern { text, glob })
    }

    /// The path itself, when this is no glob (the index looks it up directly).
    pub fn exact(&self) -> Option<&str> {
        match self.glob {
            None => Some(&self.text),
            Some(_) => None,
        }
    }

    pub fn matches(&self, path: &str) -> bool {
        match &self.glob {
            None => path == self.text,
            Some(g) => g.is_match(path),
        }
    }
}

/// Absolute on Unix or Windows (`C:\`, `C:/`, `\\server`), or under a home (`~`), which is
/// left as written.
pub fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p.starts_with('~')
        || p.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

/// `path` made absolute against `cwd` and normalised: `.` and `..` resolved, separators made
/// `/` on a Windows path, no trailing separator. A relative path with no cwd to place it stays
/// relative (normalised).
pub fn absolute(path: &str, cwd: Option<&str>) -> String {
    let joined = match cwd {
        Some(c) if !is_absolute(path) && !c.is_empty() => {
            format!("{}/{}", c.trim_end_matches(['/', '\\']), path)
        }
        _ => path.to_string(),
    };
    normalise(&joined)
}

/// Lexical normalisation of a path (see `absolute`).
pub fn normalise(path: &str) -> String {
    let b = path.as_bytes();
    let windows =
        (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') || path.starts_with("\\\\");
    let path = match windows {
        true => path.replace('\\', "/"),
        false => path.to_string(),
    };
    let (root, rest) = if let Some(r) = path.strip_prefix("//") {
        ("//", r)
    } else if let Some(r) = path.strip_prefix('/') {
        ("/", r)
    } else if windows && path.len() >= 2 && path.as_bytes()[1] == b':' {
        let (drive, r) = path.split_at(2);
        return format!(
            "{}{}",
            drive.to_ascii_uppercase(),
            normalise(&format!("/{}", r.trim_start_matches('/')))
        );
    } else {
        ("", path.as_str())
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&l) if l != ".." => {
                    parts.pop();
                }
                _ if !root.is_empty() => {}
                _ => parts.push(".."),
            },
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (root, joined.is_empty()) {
        ("", true) => ".".to_string(),
        (r, _) => format!("{r}{joined}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_globs_are_placed_in_the_current_directory() {
        let p = FilePattern::new("src/../src/a.rs", Some("/w")).unwrap();
        assert_eq!(p.exact(), Some("/w/src/a.rs"));
        assert!(p.matches("/w/src/a.rs") && !p.matches("/w/src/a.rsx"));
        let g = FilePattern::new("src/*.rs", Some("/w")).unwrap();
        assert!(g.exact().is_none());
        assert!(g.matches("/w/src/a.rs"));
        assert!(!g.matches("/w/src/deep/a.rs"));
        let any = FilePattern::new("**/auth.ts", Some("/w")).unwrap();
        assert!(any.matches("/elsewhere/x/auth.ts"));
        assert!(FilePattern::new("src/[a.rs", Some("/w")).is_err());
        assert!(FilePattern::new("  ", None).is_err());
    }
}
