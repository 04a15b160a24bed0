//! The project a working directory belongs to: the main working directory of the git repository
//! that holds it, found by reading `.git` (read-only, no git process). A worktree (a `.git` file
//! naming a gitdir whose `commondir` leads to the main repository) and every subdirectory of a
//! repository are one project; a submodule is a repository of its own; a directory outside any
//! repository is its own project.
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::fs::read_capped;

/// What a `.git` file, `commondir` or `config` may hold: a few lines (a larger one is not git's).
const SMALL: u64 = 64 * 1024;

/// The project of `cwd` (absolute, as the agents record it): the repository's main working
/// directory, else `cwd` itself. A directory that is gone is looked up from its nearest parent
/// that is still there.
pub fn of(cwd: &str) -> String {
    let dir = normalise(Path::new(cwd));
    let mut at: Option<&Path> = Some(&dir);
    while let Some(d) = at {
        if let Some(main) = repository_at(d) {
            return main.to_string_lossy().into_owned();
        }
        at = d.parent();
    }
    trimmed(cwd).to_string()
}

/// The projects of many working directories, each looked up once (a call's cache).
#[derive(Default)]
pub struct Projects {
    seen: HashMap<String, String>,
}

impl Projects {
    pub fn of(&mut self, cwd: &str) -> String {
        if let Some(p) = self.seen.get(cwd) {
            return p.clone();
        }
        let p = of(cwd);
        self.seen.insert(cwd.to_string(), p.clone());
        p
    }

    /// Give every summary with a working directory and no project its project.
    pub fn fill<'a>(
        &mut self,
        summaries: impl IntoIterator<Item = &'a mut crate::model::SessionSummary>,
    ) {
        for s in summaries {
            if s.project.is_none() {
                s.project = s.cwd.as_deref().map(|c| self.of(c));
            }
        }
    }
}

/// `dir` without a trailing separator (the agents record both spellings).
fn trimmed(dir: &str) -> &str {
    let t = dir.trim_end_matches(['/', '\\']);
    if t.is_empty() {
        &dir[..dir.len().min(1)]
    } else {
        t
    }
}

/// The main working directory of the repository whose `.git` is in `dir`, if there is one.
fn repository_at(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    let md = std::fs::metadata(&dot_git).ok()?;
    let gitdir = if md.is_dir() {
        dot_git
    } else if md.is_file() {
        // A worktree's or a submodule's `.git`: `gitdir: <path>`, relative to `dir`.
        let text = read_small(&dot_git)?;
        let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        normalise(&dir.join(target))
    } else {
        return None;
    };
    if !gitdir.join("HEAD").is_file() {
        return None;
    }
    // A linked worktree's gitdir names the repository it belongs to in `commondir`.
    let common = match read_small(&gitdir.join("commondir")) {
        Some(c) if !c.trim().is_empty() => normalise(&gitdir.join(c.trim())),
        _ => gitdir.clone(),
    };
    if common == gitdir && gitdir != dir.join(".git") {
        // A submodule (its gitdir under the superproject's `.git/modules/`): its own repository,
        // worked on here.
        return Some(dir.to_path_buf());
    }
    Some(main_worktree(&common).unwrap_or_else(|| dir.to_path_buf()))
}

/// The main working directory of the repository whose git directory is `common`: its
/// `core.worktree` when set (a submodule's), else the directory holding a `.git` directory; a
/// bare repository is its own project.
fn main_worktree(common: &Path) -> Option<PathBuf> {
    if let Some(w) = read_small(&common.join("config")).and_then(|c| core_worktree(&c)) {
        return Some(normalise(&common.join(w)));
    }
    if common.file_name().is_some_and(|n| n == ".git") {
        return common.parent().map(Path::to_path_buf);
    }
    Some(common.to_path_buf())
}

/// `worktree = …` in the `[core]` section of a git config.
fn core_worktree(config: &str) -> Option<String> {
    let mut in_core = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        if !in_core {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if key.trim().eq_ignore_ascii_case("worktree") {
                let v = value.trim().trim_matches('"');
                return (!v.is_empty()).then(|| v.to_string());
            }
        }
    }
    None
}

fn read_small(path: &Path) -> Option<String> {
    let bytes = read_capped(path, SMALL).ok()?;
    String::from_utf8(bytes).ok()
}

/// `.` and `..` resolved without asking the file system (the directory may be gone).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// What `--project` names: a project directory (an absolute path, taken to its project) or the
/// basename of one.
#[derive(Debug, Clone, PartialEq)]
pub enum Wanted {
    Root(String),
    Name(String),
}

impl Wanted {
    /// An absolute path is a directory (resolved to its project); a word without a separator
    /// is a project's name; `None` for anything else (a relative path).
    pub fn parse(value: &str) -> Option<Wanted> {
        let v = value.trim();
        if v.is_empty() {
            return None;
        }
        if Path::new(v).is_absolute() {
            return Some(Wanted::Root(of(v)));
        }
        if v.contains(['/', '\\']) || v == "." || v == ".." {
            return None;
        }
        Some(Wanted::Name(v.to_string()))
    }

    /// Whether a session's project is the one wanted.
    pub fn matches(&self, project: Option<&str>) -> bool {
        let Some(p) = project else {
            return false;
        };
        match self {
            Wanted::Root(root) => trimmed(p) == trimmed(root),
            Wanted::Name(name) => name_of(p) == name,
        }
    }
}

/// A project's name: the basename of its directory.
pub fn name_of(project: &str) -> &str {
    let t = trimmed(project);
    t.rsplit(['/', '\\'])
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_core_worktree_from_the_core_section_only() {
        let c =
            "[remote \"o\"]\n\tworktree = /no\n[core]\n\tbare = false\n\tworktree = ../../../sub\n";
        assert_eq!(core_worktree(c).as_deref(), Some("../../../sub"));
        assert_eq!(core_worktree("[core]\n\tbare = true\n"), None);
    }

    #[test]
    fn a_name_is_the_basename_and_a_relative_path_is_refused() {
        assert_eq!(name_of("/home/me/agent-mux/"), "agent-mux");
        assert_eq!(
            Wanted::parse("agent-mux"),
            Some(Wanted::Name("agent-mux".into()))
        );
        assert_eq!(Wanted::parse("./x"), None);
        assert_eq!(Wanted::parse("."), None);
        assert!(Wanted::Name("x".into()).matches(Some("/a/x")));
        assert!(!Wanted::Name("x".into()).matches(Some("/a/xy")));
        assert!(!Wanted::Name("x".into()).matches(None));
    }

    #[test]
    fn normalises_without_the_file_system() {
        assert_eq!(
            normalise(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
