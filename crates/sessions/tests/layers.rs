//! The crate's layers point one way: every `crate::<module>` a source file names is in its own
//! layer or one below. A file that reaches up (an agent naming the search engine, `ids` naming
//! the adapters) fails here with the line that does it. Engines know no agent: no engine file
//! names an adapter's module or branches on an agent's name. Only the storage layer opens the
//! index, the index borrows nothing from the search engine, and inside `agents/` the adapters
//! and their trait never name the registry that lists them.
use std::path::{Path, PathBuf};

use agent_mux_sessions::ids::AGENT_NAMES;

/// Bottom first. Modules of one layer may use each other (engines build on `list`).
const LAYERS: &[&[&str]] = &[
    &[
        "error", "env", "js_order", "ids", "model", "context", "memory",
    ],
    // Secrets found in the model's text and replaced by tags: under everything that hands text on.
    &["redact"],
    &["read"],
    &["query"],
    &["agents"],
    // The engines' inputs, plain Rust values (the binding makes them): below the engines.
    &["options"],
    // The persistent index, then the one storage layer that answers from it or from the agents:
    // beneath the engines, which never name the index.
    &["index", "keep"],
    &["storage"],
    // Which sessions a call keeps and in what order: below every engine that filters or sorts.
    &["selection"],
    &[
        "list", "search", "cost", "export", "diff", "tsv", "window", "doctor", "touched", "recap",
    ],
    &["client"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate's `src/` and every `.rs` file under it, sorted.
fn source_files() -> (PathBuf, Vec<PathBuf>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    (src, files)
}

/// The module a file belongs to: its first path component under `src/`, without `.rs`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_str()
        .unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::<name>` on a line, comments included (a doc link up is a smell too).
fn named_modules(line: &str) -> Vec<&str> {
    line.match_indices("crate::")
        .map(|(i, _)| {
            let rest = &line[i + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn imports_only_point_down() {
    let (src, files) = source_files();
    let mut up = Vec::new();
    let mut seen = 0;
    for f in &files {
        let module = module_of(&src, f);
        if module == "lib" {
            continue;
        }
        let own = layer_of(&module)
            .unwrap_or_else(|| panic!("{module} (of {}) is in no layer", f.display()));
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for named in named_modules(line) {
                seen += 1;
                match layer_of(named) {
                    Some(l) if l <= own => {}
                    _ => up.push(format!("{}:{}: {}", f.display(), n + 1, line.trim())),
                }
            }
        }
    }
    assert!(seen > 100, "only {seen} crate:: paths found: is src/ read?");
    assert!(up.is_empty(), "imports that point up:\n{}", up.join("\n"));
}

#[test]
fn a_path_up_is_caught() {
    // The check itself: an agent naming the engine is reported, a name below is not.
    assert_eq!(named_modules("use crate::search::Query;"), ["search"]);
    assert!(layer_of("search") > layer_of("agents"));
    assert_eq!(
        named_modules("x: &crate::query::ByteFilter, y: crate::model::Role"),
        ["query", "model"]
    );
}

/// The engines' layer: the modules that must work for any agent alike.
fn engines() -> &'static [&'static str] {
    LAYERS[LAYERS.len() - 2]
}

/// Where a line of engine code singles out an agent: a path into its adapter
/// (`agents::claude`) or its name as a string (`"claude"`, a branch on `name()`).
fn names_an_agent(line: &str) -> Option<&'static str> {
    AGENT_NAMES.iter().copied().find(|name| {
        line.contains(&format!("agents::{name}")) || line.contains(&format!("\"{name}\""))
    })
}

#[test]
fn engines_name_no_agent() {
    let (src, files) = source_files();
    let mut named = Vec::new();
    let mut read = 0;
    for f in &files {
        let module = module_of(&src, f);
        if !engines().contains(&module.as_str()) || f.ends_with("tests.rs") {
            continue;
        }
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().to_string();
        let parts: Vec<String> = f
            .strip_prefix(&src)
            .unwrap()
            .iter()
            .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if let Some(name) = AGENT_NAMES.iter().find(|n| parts.iter().any(|p| p == *n)) {
            named.push(format!("{rel}: an engine file named after {name}"));
        }
        read += 1;
        let text = std::fs::read_to_string(f).unwrap();
        // Unit tests may use agent names as sample data; the code above them may not.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            if let Some(name) = names_an_agent(line) {
                named.push(format!("{rel}:{}: names {name}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(read >= 10, "only {read} engine files read");
    assert!(
        named.is_empty(),
        "engines that know an agent:\n{}",
        named.join("\n")
    );
}

#[test]
fn an_agent_named_in_an_engine_is_caught() {
    assert_eq!(
        names_an_agent("use crate::agents::hermes::fts;"),
        Some("hermes")
    );
    assert_eq!(
        names_an_agent(r#"if agent.name() == "claude" {"#),
        Some("claude")
    );
    assert_eq!(names_an_agent("for a in agents::all() {"), None);
    assert_eq!(names_an_agent("let pi = 3.14; // \"pipe\""), None);
}

/// The code of a file above its unit tests.
fn code_of(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap()
}

/// `file`'s path under `src/`, with `/` between its parts.
fn rel(src: &Path, file: &Path) -> String {
    let parts: Vec<_> = file
        .strip_prefix(src)
        .unwrap()
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

#[test]
fn the_storage_layer_stands_between_the_index_and_the_engines() {
    let at = |m: &str| layer_of(m).unwrap();
    assert!(at("index") < at("storage"));
    for engine in engines() {
        assert!(at("storage") < at(engine), "{engine} below storage");
        assert!(at("selection") < at(engine), "{engine} below selection");
    }
    // Everything else reaches the index through the storage layer, which holds every fall back
    // from it to the agents.
    let (src, files) = source_files();
    let mut opened = Vec::new();
    for f in &files {
        let module = module_of(&src, f);
        if module == "index" || module == "storage" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if named_modules(line).contains(&"index") {
                opened.push(format!("{}:{}: {}", rel(&src, f), n + 1, line.trim()));
            }
        }
    }
    assert!(
        opened.is_empty(),
        "the index named outside the storage layer:\n{}",
        opened.join("\n")
    );
}

#[test]
fn no_index_file_names_the_search_engine() {
    let (src, files) = source_files();
    let mut read = 0;
    let mut named = Vec::new();
    for f in files.iter().filter(|f| module_of(&src, f) == "index") {
        read += 1;
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains("crate::search") {
                named.push(format!("{}:{}: {}", rel(&src, f), n + 1, line.trim()));
            }
        }
    }
    assert!(read >= 5, "only {read} index files read");
    assert!(
        named.is_empty(),
        "the index names search:\n{}",
        named.join("\n")
    );
}

/// The names `agents/` holds: its files and folders, each a module.
fn agent_modules(src: &Path) -> Vec<String> {
    std::fs::read_dir(src.join("agents"))
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.trim_end_matches(".rs").to_string()
        })
        .filter(|m| m != "mod")
        .collect()
}

/// A line of a file under `agents/` (not the registry itself) that reaches the registry: a
/// `crate::agents::<item>` that is no module of `agents/`, or a `super::` out of its folder.
fn reaches_the_registry(line: &str, modules: &[String], top_level: bool) -> bool {
    let through_path = line.match_indices("crate::agents").any(|(i, _)| {
        let rest = &line[i + "crate::agents".len()..];
        let Some(rest) = rest.strip_prefix("::") else {
            return true; // `crate::agents` itself, or `crate::agents;`
        };
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        !modules.iter().any(|m| m == &rest[..end])
    });
    let out_of_folder = line.contains("super::super") || (top_level && line.contains("super::"));
    through_path || out_of_folder
}

#[test]
fn the_registry_stands_apart_from_the_trait() {
    let (src, files) = source_files();
    let modules = agent_modules(&src);
    assert!(modules.iter().any(|m| m == "adapter"), "{modules:?}");
    let mut up = Vec::new();
    let mut read = 0;
    for f in files.iter().filter(|f| module_of(&src, f) == "agents") {
        let path = rel(&src, f);
        if path == "agents/mod.rs" {
            continue;
        }
        read += 1;
        let top_level = path.matches('/').count() == 1;
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in code_of(&text).lines().enumerate() {
            if reaches_the_registry(line, &modules, top_level) {
                up.push(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(read >= 20, "only {read} agent files read");
    assert!(
        up.is_empty(),
        "agent files that name the registry:\n{}",
        up.join("\n")
    );
}

#[test]
fn a_reach_into_the_registry_is_caught() {
    let modules = vec!["adapter".to_string(), "pi_family".to_string()];
    assert!(!reaches_the_registry(
        "use crate::agents::adapter::{Agent, Mode};",
        &modules,
        false
    ));
    assert!(reaches_the_registry(
        "use crate::agents::Agent;",
        &modules,
        false
    ));
    assert!(reaches_the_registry(
        "crate::agents::find(name)",
        &modules,
        false
    ));
    assert!(reaches_the_registry(
        "use super::super::all;",
        &modules,
        false
    ));
    assert!(reaches_the_registry("use super::Agent;", &modules, true));
    assert!(!reaches_the_registry("use super::parse;", &modules, false));
}

#[test]
fn the_core_asks_for_an_agents_search_instead_of_probing_it() {
    // The client once told which agents the index serves by searching each for this word.
    let probe = concat!("agentmux", "indexprobe");
    let (src, files) = source_files();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!text.contains(probe), "{} names {probe}", rel(&src, f));
    }
}
