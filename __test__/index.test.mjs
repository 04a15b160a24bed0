// The persistent index from JS and the CLI (issue #16): progress reports, status/rebuild/clear,
// two processes updating one index at once, and the same answers as reading the stores.
import { describe, it, expect } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdtempSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createClient } from '../index.mjs'
import { copyDemoHome, removeDir, repoRoot, withHome } from './helpers.mjs'

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
        expect(seen.length).toBeGreaterThan(0)
        expect(seen.every((p) => p.done <= p.total && typeof p.agent === 'string')).toBe(true)
        const after = await indexed.index.status()
        // the demo home's 30 sessions but Hermes' 3, which Hermes' own FTS5 searches
        expect(after).toMatchObject({ dir: cacheDir, stale: 0, sessions: 27 })
        expect(after.bytes).toBeGreaterThan(0)
        expect(await indexed.index.clear()).toBe(true)
        expect(existsSync(join(cacheDir, 'index-v6.sqlite'))).toBe(false)
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
      const status = JSON.parse((await amux(['index', 'status', '--json'], env)).stdout)
      expect(status).toMatchObject({ dir: cacheDir, sessions: 27 })
      const rebuilt = JSON.parse((await amux(['index', 'rebuild', '--json'], env)).stdout)
      expect(rebuilt).toMatchObject({ stale: 0, sessions: 27 })
      expect((await amux(['index', 'clear'], env)).stdout).toContain('deleted')
    } finally {
      removeDir(home)
      removeDir(cacheDir)
    }
  })
})
