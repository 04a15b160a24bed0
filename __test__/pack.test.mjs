// The package as npm would ship it: `npm pack` the root and this platform's npm/<platform>
// package, install both tarballs (and the root's dependencies, packed from node_modules) into a
// temporary project offline with an empty npm cache, and use it from a child node
// process (require, import, the amux bin). A broken loader, `files` list or platform package
// manifest fails here, not on a user's machine.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync, mkdirSync, copyFileSync, cpSync, existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { copyCheckout } from '../scripts/release/copy-checkout.mjs'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '')
const pkg = require('../package.json')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

// npm/<platform> names as napi-rs spells them (triple → platformArchABI).
const PLATFORM_OF_TRIPLE = {
  'x86_64-unknown-linux-gnu': { dir: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
  'x86_64-unknown-linux-musl': { dir: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl' },
  'aarch64-unknown-linux-gnu': { dir: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'aarch64-unknown-linux-musl': { dir: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl' },
  'x86_64-apple-darwin': { dir: 'darwin-x64', os: 'darwin', cpu: 'x64' },
  'aarch64-apple-darwin': { dir: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
  'x86_64-pc-windows-msvc': { dir: 'win32-x64-msvc', os: 'win32', cpu: 'x64' },
  'aarch64-pc-windows-msvc': { dir: 'win32-arm64-msvc', os: 'win32', cpu: 'arm64' },
}

function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const glibc = process.report.getReport().header.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32', ...opts })
}

// Offline and quiet: every package comes from a local tarball, the root's runtime dependencies
// too (packed from this checkout's node_modules), so the install needs neither the registry nor
// npm's cache: it runs with an empty cache of its own (`npm ci` caches no registry metadata, and
// --offline resolution from the cache fails without it).
const NPM_FLAGS = ['--offline', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']

/** `npm pack` each directory into `dest`; the tarball file names. */
function pack(dirs, dest) {
  return JSON.parse(run(npm, ['pack', ...dirs, '--pack-destination', dest, '--json', '--ignore-scripts', '--loglevel=error']))
}

/** The root package's runtime dependencies as installed here: package-lock entries not marked dev. */
function runtimeDependencyDirs() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'))
  return Object.entries(lock.packages)
    .filter(([path, p]) => path.startsWith('node_modules/') && !p.dev && !p.devOptional)
    .map(([path]) => join(root, path))
}

describe('platform packages (npm/<platform>)', () => {
  it('one per napi target, named, constrained and versioned like the root', () => {
    const dirs = readdirSync(join(root, 'npm')).sort()
    expect(dirs).toEqual(pkg.napi.targets.map((t) => PLATFORM_OF_TRIPLE[t].dir).sort())
    for (const triple of pkg.napi.targets) {
      const want = PLATFORM_OF_TRIPLE[triple]
      const p = JSON.parse(readFileSync(join(root, 'npm', want.dir, 'package.json'), 'utf8'))
      const file = `${pkg.napi.binaryName}.${want.dir}.node`
      expect(p.name).toBe(`${pkg.name}-${want.dir}`)
      expect(p.version).toBe(pkg.version)
      expect(p.os).toEqual([want.os])
      expect(p.cpu).toEqual([want.cpu])
      expect(p.libc).toEqual(want.libc ? [want.libc] : undefined)
      expect(p.main).toBe(file)
      expect(p.files).toEqual([file])
      expect(p.publishConfig?.access).toBe('public')
    }
  })
})

// Release tooling parses `npm pack --json` and `npm publish --dry-run --json`: with the lifecycle
// scripts run (prepack builds the page and checks the pack), stdout must hold that JSON alone. Run
// in a copy of the checkout, since prepack rewrites ui/dist, which other test files serve.
describe('npm pack --json, prepack included', () => {
  it('prints nothing but its JSON on stdout; the page build reports on stderr', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'amux-pack-json-'))
    try {
      copyCheckout(root, tmp)
      expect(existsSync(join(tmp, 'ui', 'dist'))).toBe(false) // ignored, so not copied: prepack must build it
      const r = spawnSync(npm, ['pack', '--dry-run', '--json'], { cwd: tmp, encoding: 'utf8', shell: process.platform === 'win32' })
      expect(r.status, r.stderr).toBe(0)
      const packs = JSON.parse(r.stdout)
      expect(packs.map((p) => p.name)).toEqual([pkg.name])
      expect(packs[0].files.map((f) => f.path)).toEqual(expect.arrayContaining(['ui/dist/index.html', 'ui/dist/assets/LICENSES.txt']))
      expect(r.stderr).toMatch(/^ui: page built in \d+ ms/m)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('the packed package, installed', () => {
  const platform = hostPlatform()
  const binary = join(root, `${pkg.napi.binaryName}.${platform}.node`)
  const have = existsSync(binary) && existsSync(join(root, 'npm', platform))
  let tmp
  let project
  let packedFiles

  beforeAll(() => {
    if (!have) {
      console.warn(`skipping: no ${binary} (build first: npm run build:debug)`)
      return
    }
    tmp = mkdtempSync(join(tmpdir(), 'amux-pack-'))
    const tarballs = join(tmp, 'tarballs')
    mkdirSync(tarballs)
    const [rootPack] = pack([root], tarballs)
    packedFiles = rootPack.files.map((f) => f.path)

    // The platform package as CI publishes it: its manifest from npm/<platform> plus the binary.
    const stage = join(tmp, 'platform')
    mkdirSync(stage)
    copyFileSync(join(root, 'npm', platform, 'package.json'), join(stage, 'package.json'))
    copyFileSync(binary, join(stage, `${pkg.napi.binaryName}.${platform}.node`))
    const [platformPack] = pack([stage], tarballs)
    expect(platformPack.files.map((f) => f.path).sort()).toEqual([`${pkg.napi.binaryName}.${platform}.node`, 'package.json'])

    project = join(tmp, 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-probe', version: '1.0.0', private: true }))
    const deps = pack(runtimeDependencyDirs(), tarballs)
    expect(deps.map((d) => d.name)).toEqual(expect.arrayContaining(Object.keys(pkg.dependencies)))
    const cache = join(tmp, 'empty-npm-cache')
    run(npm, ['install', ...NPM_FLAGS, ...[rootPack, platformPack, ...deps].map((p) => join(tarballs, p.filename))], {
      cwd: project,
      env: { ...process.env, npm_config_cache: cache },
    })
    // A published root package carries no binary (CI moves them into npm/*): drop the one a local
    // build left in the tarball so the loader has to find the platform package.
    rmSync(join(project, 'node_modules', pkg.name, `${pkg.napi.binaryName}.${platform}.node`), { force: true })
  }, 600_000) // packing and installing a debug binary takes minutes on a loaded 2-core machine

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  it('the tarball holds the API, types, loader, CLI, README and LICENSE, and none of the sources or tests', (ctx) => {
    if (!have) ctx.skip()
    for (const f of ['package.json', 'README.md', 'LICENSE', 'index.js', 'index.mjs', 'index.d.ts', 'index-child.js', 'binding.js', 'binding.d.ts',
      'bin/amux.js', 'cli/main.js', 'cli/lib/format.js', 'cli/lib/progress.js', 'cli/lib/render.js', 'mcp/server.js',
      'params/index.js', 'params/calls.js',
      'human/dates.js', 'human/ids.js', 'human/cost.js']) {
      expect(packedFiles).toContain(f)
    }
    for (const f of packedFiles) expect(f).not.toMatch(/^(__test__|crates|src|examples|npm|target|node_modules|ui\/page)\/|\.node$/)
  })

  it('the installed package serves amux ui\'s page from its own files', async (ctx) => {
    if (!have) ctx.skip()
    expect(packedFiles).toEqual(expect.arrayContaining(['ui/server/index.js', 'ui/dist/index.html', 'ui/dist/assets/LICENSES.txt']))
    const home = join(tmp, 'empty-home')
    mkdirSync(home, { recursive: true })
    const amux = join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'amux.cmd' : 'amux')
    const child = spawn(amux, ['ui', '--no-open'], { env: { ...process.env, HOME: home, USERPROFILE: home, NODE_PATH: '' }, shell: process.platform === 'win32' })
    try {
      const url = await new Promise((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (d) => {
          out += d
          const m = /http:\/\/\S+\/\?token=[\w-]+/.exec(out)
          if (m) resolve(new URL(m[0]))
        })
        child.on('exit', (code) => reject(new Error(`amux ui exited (${code}): ${out}`)))
      })
      const token = url.searchParams.get('token')
      expect((await fetch(new URL('/', url))).status).toBe(403)
      const html = await (await fetch(new URL('/', url), { headers: { Authorization: `token ${token}` } })).text()
      const script = /<script type="module" src="(\/assets\/app-\w+\.js)">/.exec(html)[1]
      const asset = await fetch(new URL(script, url), { headers: { Authorization: `token ${token}` } })
      expect(asset.status).toBe(200)
      expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/)
      const installed = join(project, 'node_modules', pkg.name, 'ui', 'dist', script.slice(1))
      expect(await asset.text()).toBe(readFileSync(installed, 'utf8'))
    } finally {
      child.kill('SIGINT')
    }
  })

  it('the installed package writes a share file with the renderer it ships', (ctx) => {
    if (!have) ctx.skip()
    expect(packedFiles).toEqual(expect.arrayContaining(['render/dist/share.cjs', 'render/dist/LICENSES.txt']))
    const home = join(tmp, 'share-home')
    cpSync(join(root, 'examples', 'demo-home'), home, { recursive: true })
    const amux = join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'amux.cmd' : 'amux')
    const html = run(amux, ['sessions', 'share', 'claude:90c192cf', '-o', '-'], { env: { ...process.env, HOME: home, USERPROFILE: home, NODE_PATH: '' } })
    expect(html).toMatch(/^<!doctype html>\n.*<meta http-equiv="Content-Security-Policy" content="default-src 'none';/)
    expect(html).toContain('<h1>Fix flaky checkout flow test on CI</h1>')
  })

  it('require() and import() load the platform binary and read an empty home', (ctx) => {
    if (!have) ctx.skip()
    const home = join(tmp, 'empty-home')
    mkdirSync(home, { recursive: true })
    const script = `
      const cjs = require(${JSON.stringify(pkg.name)});
      import(${JSON.stringify(pkg.name)}).then(async (esm) => {
        const s = esm.createClient().sessions;
        const native = Object.keys(require.cache).filter((p) => p.endsWith('.node'));
        const out = {
          same: esm.createClient === cjs.createClient && esm.AgentMuxError === cjs.AgentMuxError,
          native,
          list: await s.list('claude'),
          search: await s.search({ text: 'kubernetes' }),
          cost: await s.totalCost(),
          id: s.resolveNativeId('codex:a:b'),
        };
        try { await s.get('claude', 'nope') } catch (e) { out.error = [e instanceof cjs.AgentMuxError, e.code] }
        console.log(JSON.stringify(out));
      });`
    const out = JSON.parse(run(process.execPath, ['-e', script], { cwd: project, env: { ...process.env, HOME: home, USERPROFILE: home, NODE_PATH: '' } }))
    expect(out.same).toBe(true)
    expect(out.native).toHaveLength(1)
    expect(out.native[0]).toContain(join('node_modules', `${pkg.name}-${platform}`, `${pkg.napi.binaryName}.${platform}.node`))
    expect(out.list).toEqual([])
    expect(out.search).toEqual([])
    expect(out.cost).toMatchObject({ totalUsd: 0, sessionCount: 0, runCount: 0 })
    expect(out.id).toEqual({ agent: 'codex', nativeSessionId: 'a:b' })
    expect(out.error).toEqual([true, 'SESSION_NOT_FOUND'])
  })

  it('the installed amux bin runs with its own dependencies', (ctx) => {
    if (!have) ctx.skip()
    const home = join(tmp, 'empty-home')
    mkdirSync(home, { recursive: true })
    const amux = join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'amux.cmd' : 'amux')
    const env = { ...process.env, HOME: home, USERPROFILE: home, NODE_PATH: '' }
    const list = spawnSync(amux, ['sessions', 'list', 'claude', '--json'], { encoding: 'utf8', env, shell: process.platform === 'win32' })
    expect(list.stderr).toBe('')
    expect(list.status).toBe(0)
    expect(JSON.parse(list.stdout)).toEqual([])
    const missing = spawnSync(amux, ['sessions', 'show', 'claude', 'nope'], { encoding: 'utf8', env, shell: process.platform === 'win32' })
    expect(missing.status).toBe(1)
    expect(missing.stderr).toBe("amux: SESSION_NOT_FOUND: no claude session with id 'nope'\n")
  })

  it('the installed amux mcp serves its tools with its own dependencies (what npx runs)', async (ctx) => {
    if (!have) ctx.skip()
    const home = join(tmp, 'empty-home')
    mkdirSync(home, { recursive: true })
    const amux = join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'amux.cmd' : 'amux')
    const env = { ...process.env, HOME: home, USERPROFILE: home, NODE_PATH: '' }
    const child = spawn(amux, ['mcp'], { env, shell: process.platform === 'win32' })
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_sessions', arguments: {} } },
    ]
    const replies = await new Promise((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
        const lines = out.split('\n').filter(Boolean)
        if (lines.length < 2) return
        child.stdin.end()
        resolve(lines.map((l) => JSON.parse(l)))
      })
      child.on('error', reject)
      child.on('close', (code) => reject(new Error(`amux mcp exited (${code}); stdout: ${out}`)))
      for (const r of requests) child.stdin.write(`${JSON.stringify(r)}\n`)
    })
    expect(replies[0].result.serverInfo.name).toBe('agent-mux')
    expect(replies[1].result.isError).toBeFalsy()
    expect(replies[1].result.structuredContent).toEqual({ sessions: [] })
  })
})
