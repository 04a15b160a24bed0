// Read-only by contract: every method on every agent leaves the home byte-identical, with no new
// file or directory (no -wal/-shm, no lock files, no caches: the index lives in our cache dir).
import { describe, it, expect } from 'vitest'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, removeDir, snapshot, withHome, indexPath } from './helpers.mjs'

describe('read-only proof', () => {
  it('every method on every agent of the demo home writes nothing', async () => {
    const home = copyDemoHome()
    try {
      const before = snapshot(home)
      await withHome(home, async () => {
        const { sessions } = createClient()
        let seen = 0
        for (const agent of BUILT_IN_AGENTS) {
          const list = await sessions.list(agent, { limit: 1000 })
          for (const s of list) {
            seen++
            const full = await sessions.get(agent, s.sessionId)
            expect(full.sessionId).toBe(s.sessionId)
            for (const format of ['json', 'jsonl', 'markdown']) {
              expect((await sessions.export(agent, s.sessionId, format)).length).toBeGreaterThan(0)
            }
            await sessions.diff({ agent, sessionId: s.sessionId }, { agent, sessionId: s.sessionId })
          }
          await sessions.search({ text: 'test', agent })
        }
        await sessions.search({ text: 'kubernetes' })
        await sessions.totalCost({ groupBy: 'day' })
        await sessions.totalCost({ groupBy: 'model' })
        // the demo home holds three sessions of each of the ten agents
        expect(seen).toBe(30)
      })
      expect(snapshot(home)).toEqual(before)
      // The persistent index (issue #16) was written, and only in the cache directory.
      expect(indexPath(process.env.AGENT_MUX_CACHE_DIR, 'sqlite')).not.toBe(null)
    } finally {
      removeDir(home)
    }
  })
})
