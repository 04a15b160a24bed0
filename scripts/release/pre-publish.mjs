// prepublishOnly: before `npm publish` packs the root package, check every package
// (check-pack.mjs --platforms), then `napi pre-publish -t npm` publishes npm/* and adds them to
// the root's optionalDependencies. Under `npm publish --dry-run`, napi runs dry too: no platform
// package published, no GitHub release made. napi's report goes to stderr, so that
// `npm publish --json` prints nothing but its own JSON on stdout.
//
//   node scripts/release/pre-publish.mjs
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { packProblems } from './check-pack.mjs'

const root = fileURLToPath(new URL('../..', import.meta.url))
const problems = await packProblems(root, { platforms: true })
for (const p of problems) console.error(`release: ${p}`)
if (problems.length) process.exit(1)

// npm hands its options to lifecycle scripts as npm_config_* variables.
const dryRun = process.env.npm_config_dry_run === 'true'
const napi = fileURLToPath(new URL('../../node_modules/@napi-rs/cli/dist/cli.js', import.meta.url))
const args = [napi, 'pre-publish', '-t', 'npm', ...(dryRun ? ['--dry-run', '--no-gh-release'] : [])]
const run = spawnSync(process.execPath, args, { cwd: root, stdio: ['inherit', 2, 'inherit'] })
if (run.error) throw run.error
process.exit(run.status ?? 1)
