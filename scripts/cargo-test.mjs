// `cargo test` for the target `napi build` compiles the addon for: the host's, found as napi-rs
// finds it (CARGO_BUILD_TARGET, else `rustc -vV`), with the flags napi-rs adds for it. napi always
// passes `--target`, which puts its build in target/<triple>/debug; a plain `cargo test` builds in
// target/debug and so compiles every dependency a second time. Arguments go to cargo test.
//
//   node scripts/cargo-test.mjs --workspace
//   node scripts/cargo-test.mjs -p agent-mux-sessions --test claude
import { execFileSync, spawnSync } from 'node:child_process'

const host = /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]
const target = process.env.CARGO_BUILD_TARGET || host
if (!target) throw new Error('rustc -vV names no host target')

const env = { ...process.env }
// napi-rs links musl builds against a dynamic C runtime; other flags would rebuild everything.
let rustflags = env.RUSTFLAGS ?? env.CARGO_BUILD_RUSTFLAGS ?? ''
if (target.includes('musl') && !rustflags.includes('target-feature=-crt-static')) rustflags += ' -C target-feature=-crt-static'
if (rustflags) env.RUSTFLAGS = rustflags

const run = spawnSync('cargo', ['test', '--target', target, ...process.argv.slice(2)], { stdio: 'inherit', env })
if (run.error) throw run.error
process.exit(run.status ?? 1)
