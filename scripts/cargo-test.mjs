// `cargo test` for the target `napi build` compiles the addon for: the host's, found as napi-rs
// finds it (CARGO_BUILD_TARGET, else `rustc -vV`), with the flags napi-rs adds for it. napi always
// passes `--target`, which puts its build in target/<triple>/debug; a plain `cargo test` builds in
// target/debug and so compiles every dependency a second time. Arguments go to cargo test.
//
//   node scripts/cargo-test.mjs --workspace
//   node scripts/cargo-test.mjs -p agent-mux-sessions --test all claude::
import { execFileSync, spawnSync } from 'node:child_process'

const host = /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]
const target = process.env.CARGO_BUILD_TARGET || host
if (!target) throw new Error('rustc -vV names no host target')

const env = { ...process.env }
// napi-rs links musl builds against a dynamic C runtime; other flags would rebuild everything.
let rustflags = env.RUSTFLAGS ?? env.CARGO_BUILD_RUSTFLAGS ?? ''
if (target.includes('musl') && !rustflags.includes('target-feature=-crt-static')) rustflags += ' -C target-feature=-crt-static'
if (rustflags) env.RUSTFLAGS = rustflags

// The team database's tests (tests/team_*.rs, modules of the `all` binary) need a PostgreSQL: a
// throw-away one unless AGENT_MUX_TEST_PG names a server, or the binaries selected (`--test
// <name>`) do not hold them.
const args = process.argv.slice(2)
const named = args.flatMap((a, i) => (args[i - 1] === '--test' ? [a] : []))
let cluster = null
if (!env.AGENT_MUX_TEST_PG && (named.length === 0 || named.includes('all'))) {
  const pg = await import('./pg.mjs')
  if (pg.findBin()) {
    cluster = await pg.startCluster()
    env.AGENT_MUX_TEST_PG = cluster.url
  }
}
// The build marks the team tests ignored unless a server is there (crates/sessions/build.rs).
if (env.AGENT_MUX_TEST_PG) env.AGENT_MUX_PG_TESTS = '1'
const run = spawnSync('cargo', ['test', '--target', target, ...args], { stdio: 'inherit', env })
if (cluster) (await import('./pg.mjs')).stopCluster(cluster.dir)
if (run.error) throw run.error
process.exit(run.status ?? 1)
