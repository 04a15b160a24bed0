//! Decides at build time whether the tests that need `../shared` run: the real captures
//! (`fixtures/real`), the agents' DDL (`research`) and spec notes (`spec`) live beside the checkout, not in it.
//! Where they are absent, `cfg(no_shared)` marks those tests ignored (so the runner reports them
//! as ignored, never as passed); `AGENT_MUX_REQUIRE_FIXTURES=1` (CI) never ignores them, so an
//! absent `../shared` fails them.
use std::path::Path;

const REQUIRE: &str = "AGENT_MUX_REQUIRE_FIXTURES";
/// Set by `scripts/cargo-test.mjs` when it has a PostgreSQL for the team tests (its URL, which
/// changes at each run, is read by the tests at run time and so never rebuilds the crate).
const PG: &str = "AGENT_MUX_PG_TESTS";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_shared)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed={REQUIRE}");
    println!("cargo::rustc-check-cfg=cfg(no_pg)");
    println!("cargo::rerun-if-env-changed={PG}");
    // Without a server the team tests are ignored, unless CI requires every test to run.
    let require = std::env::var(REQUIRE).as_deref() == Ok("1");
    if std::env::var(PG).as_deref() != Ok("1") && !require {
        println!("cargo::rustc-cfg=no_pg");
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let needed = ["fixtures/real", "research", "spec"].map(|d| shared.join(d));
    let present = needed.iter().all(|p| p.is_dir());
    if present {
        // Rebuild when they go away. An absent path is not watched: cargo would rerun this script
        // and rebuild the crate at every build. Adding ../shared later takes a rebuild (docs/development.md).
        for p in &needed {
            println!("cargo::rerun-if-changed={}", p.display());
        }
    } else if std::env::var(REQUIRE).as_deref() == Ok("1") {
        println!(
            "cargo::warning={REQUIRE}=1 but {} is incomplete: the tests that need it will fail",
            shared.display()
        );
    } else {
        println!("cargo::rustc-cfg=no_shared");
    }
}
