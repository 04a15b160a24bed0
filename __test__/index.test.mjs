// The persistent index from JS and the CLI (issue #16): progress reports, status/rebuild/clear,
// two processes updating one index at once, and the same answers as reading the stores.
import { describe, it, expect } from 'vitest'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createClient } from '../index.mjs'
import { copyDemoHome, removeDir, repoRoot, withHome, indexPath } from './helpers.mjs'

const run = promisify(execFile)
// Search's recency decay reads the time of each call: pinned, so two calls made a moment apart
// (one from the index, one scanning) are judged at the same instant and may be compared exactly.
process.env.AGENT_MUX_NOW = '2026-11-23T00:00:00Z'
const amux = (args, env) =>
  run(process.execPath, [join(repoRoot, 'bin', 'amux.js'), ...args], { env: { ...process.env, TZ: 'UTC', ...env } })

describe('the persistent index', () => {
  it('reports progress, status, and answers as a scan does; clear removes it', async () => {
    const home = copyDemoHome()
    const cacheDir = mkdtempSync(join(tmpdir(), 'amux-index-'))
    try {
      await withHome(home, async () => {
        const seen = []
        const indexed = createClient({ cacheDir, onProgress: (p) => seen.push(p) })
        const scanning = createClient({ cacheDir: false })
        const before = await indexed.index.status()
        expect(before.dir).toBe(cacheDir)
        expect(before.stale).toBeGreaterThan(0)
        for (const text of ['kubernetes', '"docker compose"', 'test OR borrow', '大别山']) {
          expect(await indexed.sessions.search({ text })).toEqual(await scanning.sessions.search({ text }))
        }
        // A search does not wait for the index: a thread of this process fills it after the
        // first, reporting its progress; update() waits for it.
        const after = await indexed.index.update()
        // the demo home's 30 sessions but Hermes' 3, which Hermes' own FTS5 searches
        expect(after).toMatchObject({ dir: cacheDir, stale: 0, sessions: 27 })
        expect(await indexed.index.status()).toEqual(after)
        expect(seen.length).toBeGreaterThan(0)
        expect(seen.every((p) => p.done <= p.total && typeof p.agent === 'string')).toBe(true)
        expect(after.bytes).toBeGreaterThan(0)
        expect(await indexed.index.clear()).toBe(true)
        expect(indexPath(cacheDir, 'sqlite')).toBe(null)
        expect((await scanning.index.status()).dir).toBe(null)
        expect(() => createClient({ onProgress: 3 })).toThrow(/onProgress/)
      })
    } finally {
      removeDir(home)
      removeDir(cacheDir)
    }
  })

  it('two CLI processes building one index at once both answer as a scan does', async () => {
    const home = copyDemoHome()
    const cacheDir = mkdtempSync(join(tmpdir(), 'amux-index-'))
    try {
      const args = ['sessions', 'search', 'test OR kubernetes', '--json', '--limit', '100']
      const env = { HOME: home, AGENT_MUX_CACHE_DIR: cacheDir }
      const [a, b] = await Promise.all([amux(args, env), amux(args, env)])
      const want = (await amux(args, { HOME: home, AGENT_MUX_NO_CACHE: '1' })).stdout
      expect(JSON.parse(want).length).toBeGreaterThan(5)
      expect(a.stdout).toBe(want)
      expect(b.stdout).toBe(want)
      // Each left the index to a detached process of its own; this update waits for them.
      const updated = JSON.parse((await amux(['index', 'update', '--json'], env)).stdout)
      expect(updated).toMatchObject({ dir: cacheDir, stale: 0, sessions: 27 })
      const status = JSON.parse((await amux(['index', 'status', '--json'], env)).stdout)
      expect(status).toMatchObject({ dir: cacheDir, stale: 0, sessions: 27 })
      const rebuilt = JSON.parse((await amux(['index', 'rebuild', '--json'], env)).stdout)
      expect(rebuilt).toMatchObject({ stale: 0, sessions: 27 })
      expect((await amux(['index', 'clear'], env)).stdout).toContain('deleted')
    } finally {
      removeDir(home)
      removeDir(cacheDir)
    }
  })

  it('a CLI search answers from the stores at once and leaves the index to a process of its own', async () => {
    const home = copyDemoHome()
    const cacheDir = mkdtempSync(join(tmpdir(), 'amux-index-'))
    try {
      const env = { HOME: home, AGENT_MUX_CACHE_DIR: cacheDir }
      const args = ['sessions', 'search', 'kubernetes OR "docker compose"', '--json', '--limit', '100']
      const want = (await amux(args, { HOME: home, AGENT_MUX_NO_CACHE: '1' })).stdout
      expect(JSON.parse(want).length).toBeGreaterThan(2)
      expect((await amux(args, env)).stdout).toBe(want)
      // A detached process of its own (index-child.js) fills the index after the command exits.
      let status
      for (let i = 0; i < 300; i++) {
        status = JSON.parse((await amux(['index', 'status', '--json'], env)).stdout)
        if (status.stale === 0) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(status).toMatchObject({ stale: 0, sessions: 27 })
      expect((await amux(args, env)).stdout).toBe(want)
    } finally {
      removeDir(home)
      removeDir(cacheDir)
    }
  })

  it('an update killed midway keeps what it committed, and the next one finishes it', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'amux-index-kill-'))
    const home = join(tmp, 'home')
    const cacheDir = join(tmp, 'cache')
    try {
      // 1,000 Claude sessions: eight batches of sources, each committed (checkpoints every 0 ms).
      execFileSync('python3', [join(repoRoot, 'scripts', 'gen_home.py'), '--out', home, '--agents', 'claude', '--sessions', '1000', '--seed', '4', '--scale', '1'])
      const env = { HOME: home, AGENT_MUX_CACHE_DIR: cacheDir }
      const meta = () => join(indexPath(cacheDir, 'postings') ?? cacheDir, 'meta.json')
      const generation = () => {
        try {
          return Number(JSON.parse(readFileSync(meta(), 'utf8')).payload ?? 0)
        } catch {
          return 0
        }
      }
      const update = spawn(process.execPath, [join(repoRoot, 'bin', 'amux.js'), 'index', 'update'], {
        env: { ...process.env, ...env, AGENT_MUX_INDEX_CHECKPOINT_MS: '0' },
        stdio: 'ignore',
      })
      const exited = new Promise((resolve) => update.on('exit', (code, signal) => resolve(signal ?? code)))
      // Killed halfway between its second commit and its third, when the second has been
      // committed to both files.
      const seen = []
      while (seen.length < 2 && update.exitCode === null) {
        if (generation() > seen.length) seen.push(performance.now())
        await new Promise((r) => setTimeout(r, 2))
      }
      await new Promise((r) => setTimeout(r, (seen[1] - seen[0]) / 2))
      update.kill('SIGKILL')
      expect(await exited).toBe('SIGKILL')
      const kept = JSON.parse((await amux(['index', 'status', '--json'], env)).stdout)
      expect(kept.sessions).toBeGreaterThanOrEqual(256)
      expect(kept.stale).toBeGreaterThan(0)
      const args = ['sessions', 'search', 'test OR kubernetes', '--json', '--limit', '1000']
      const want = (await amux(args, { HOME: home, AGENT_MUX_NO_CACHE: '1' })).stdout
      expect(JSON.parse(want).length).toBeGreaterThan(10)
      expect((await amux(args, env)).stdout).toBe(want)
      const done = JSON.parse((await amux(['index', 'update', '--json'], env)).stdout)
      expect(done).toMatchObject({ stale: 0, sessions: 1000 })
      expect((await amux(args, env)).stdout).toBe(want)
    } finally {
      removeDir(tmp)
    }
  })
})
