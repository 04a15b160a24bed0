//! The crate's layers point one way: every `crate::<module>` a source file names is in its own
//! layer or one below. A file that reaches up (an agent naming the search engine, `ids` naming
//! the adapters) fails here with the line that does it.
use std::path::{Path, PathBuf};

/// Bottom first. Modules of one layer may use each other (engines build on `list`).
const LAYERS: &[&[&str]] = &[
    &["error", "env", "js_order", "ids", "model", "context"],
    &["read"],
    &["query"],
    &["agents"],
    &[
        "list", "search", "cost", "export", "diff", "options", "index",
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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
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
        named_modules("x: &crate::query::RawFilter, y: crate::model::Role"),
        ["query", "model"]
    );
}
