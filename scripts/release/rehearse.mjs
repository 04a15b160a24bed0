// A release rehearsal: what can be proved without GitHub, on a throwaway copy of this checkout
// (its files as they are now, committed into a fresh git repository; node_modules linked in).
//
// 1. `npm version <next>` with the project's hooks leaves binding.js, npm/* and the root at one
//    version, commits all of it, and tags it: nothing is left behind in the working tree.
// 2. The tag check accepts that tag and rejects a mismatched one, or a platform package that lags.
// 3. After `napi artifacts` with eight stand-in binaries (which it also copies into the root),
//    `npm pack --dry-run` of the root lists no .node and each npm/<platform> lists exactly its own,
//    `napi pre-publish --dry-run` accepts the packages, and the prepack guard stops a pack whose
//    `files` lets binaries in.
//
// What it cannot prove here: the builds, the test jobs and `npm publish` itself (release.yml).
// Run by `npm test`; takes 20-100 s on a shared 2-core machine, most of it npm starting up. Exits 1 on the first failed proof.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { versionProblems } from './check-versions.mjs'
import { packProblems } from './check-pack.mjs'
import { copyCheckout } from './copy-checkout.mjs'

const source = fileURLToPath(new URL('../..', import.meta.url))
const windows = process.platform === 'win32'
const npm = windows ? 'npm.cmd' : 'npm'
const work = mkdtempSync(join(tmpdir(), 'amux-release-'))
const repo = join(work, 'repo')
// npm version commits and tags: git gets an identity, and none of the machine's own settings
// (signing, hooks) that could make it fail.
const gitconfig = join(work, 'gitconfig')
writeFileSync(gitconfig, '[user]\n\tname = rehearsal\n\temail = rehearsal@localhost\n')
const env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: '1' }

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env, shell: windows && cmd === npm })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}${r.stderr}`)
  return r.stdout
}

function prove(what, problems) {
  if (problems.length) throw new Error(`not ok - ${what}\n${problems.map((p) => `  ${p}`).join('\n')}`)
  console.log(`ok - ${what}`)
}

const napi = join(source, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
const nextPatch = (version) => version.replace(/^(\d+)\.(\d+)\.(\d+).*$/, (_, a, b, c) => `${a}.${b}.${Number(c) + 1}`)

const started = Date.now()
try {
  copyCheckout(source, repo)
  run('git', ['init', '-q'], repo)
  run('git', ['add', '-A'], repo)
  run('git', ['commit', '-q', '-m', 'the checkout as it is'], repo)

  // 1. The version bump, as a release makes it (the issue's `--no-git-tag-version` variant runs the
  //    same hooks but skips the commit, which is where npm/* used to be left behind).
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))
  const next = nextPatch(pkg.version)
  run(npm, ['version', next, '--loglevel=error'], repo)
  const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version
  const left = run('git', ['status', '--porcelain'], repo).trim()
  const tagged = run('git', ['rev-parse', `v${next}^{commit}`], repo).trim() === run('git', ['rev-parse', 'HEAD'], repo).trim()
  prove(`npm version ${next}: binding.js, npm/* and the root agree, all committed and tagged v${next}`, [
    ...(version === next ? [] : [`package.json is at ${version}, not ${next}`]),
    ...versionProblems(repo),
    ...(left ? [`left uncommitted:\n${left}`] : []),
    ...(tagged ? [] : [`v${next} is not the version commit`]),
  ])

  // 2. The tag check, as release.yml's preflight runs it.
  const check = (tag) => spawnSync(process.execPath, ['scripts/release/check-versions.mjs', tag], { cwd: repo, encoding: 'utf8' })
  const good = check(`v${next}`)
  const wrong = check(`v${pkg.version}`)
  prove(`the tag check accepts v${next} and rejects v${pkg.version}`, [
    ...(good.status === 0 ? [] : [`v${next} rejected: ${good.stderr}`]),
    ...(wrong.status === 1 && wrong.stderr.includes(`tag v${pkg.version} is not v${next}`) ? [] : [`v${pkg.version} not rejected: ${wrong.stderr}`]),
  ])
  const lagging = join(repo, 'npm', 'linux-x64-gnu', 'package.json')
  const manifest = readFileSync(lagging, 'utf8')
  writeFileSync(lagging, manifest.replace(`"version": "${next}"`, `"version": "${pkg.version}"`))
  const lag = check(`v${next}`)
  writeFileSync(lagging, manifest)
  prove('the tag check rejects a platform package that lags the root', lag.status === 1 && lag.stderr.includes(`is at ${pkg.version}`) ? [] : [`not rejected: ${lag.stderr}`])

  // 3. The packages, after `napi artifacts` has spread eight stand-in binaries.
  const platforms = readdirSync(join(repo, 'npm'))
  for (const platform of platforms) {
    const dir = join(repo, 'artifacts', `bindings-${platform}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `${pkg.napi.binaryName}.${platform}.node`), `stand-in for ${platform}\n`)
  }
  run(process.execPath, [napi, 'artifacts'], repo)
  const inRoot = readdirSync(repo).filter((f) => f.endsWith('.node'))
  prove(`napi artifacts filled ${platforms.length} npm/<platform> dirs (and, as it does, the root: ${inRoot.length} binaries)`,
    platforms.length === 8 && inRoot.length === 8 ? [] : [`expected 8 platforms and 8 root copies, got ${platforms.length} and ${inRoot.length}`])
  prove('npm pack --dry-run: the root lists no .node, each npm/<platform> exactly its own', await packProblems(repo, { platforms: true, debugInfo: false }))
  // What prepublishOnly hands to npm, validated by napi itself (manifests, files, binaries).
  const prePublish = spawnSync(process.execPath, [napi, 'pre-publish', '-t', 'npm', '--dry-run', '--no-gh-release'], { cwd: repo, encoding: 'utf8' })
  prove('napi pre-publish --dry-run accepts the eight platform packages', prePublish.status === 0 ? [] : [`exited ${prePublish.status}: ${prePublish.stderr}`])

  // The guard behind `files`: a manifest that lets binaries back in is stopped at prepack.
  const manifestPath = join(repo, 'package.json')
  const rootManifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  writeFileSync(manifestPath, JSON.stringify({ ...rootManifest, files: [...rootManifest.files, '*.node'] }, null, 2))
  const packed = spawnSync(npm, ['pack', '--dry-run', '--loglevel=error'], { cwd: repo, encoding: 'utf8', shell: windows })
  prove('prepack stops a root package that would ship binaries',
    packed.status !== 0 && packed.stderr.includes('the root package would ship') ? [] : [`npm pack exited ${packed.status}: ${packed.stderr}`])
  console.log(`release rehearsal: all proofs hold (${((Date.now() - started) / 1000).toFixed(1)} s)`)
} catch (e) {
  console.error(e.message)
  process.exitCode = 1
} finally {
  rmSync(work, { recursive: true, force: true })
}
