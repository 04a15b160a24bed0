// Many calls in flight: 1,000 on one client and 50 clients at once complete with the same answers,
// no file descriptor leaks, and memory returns near its baseline.
import { describe, it, expect } from 'vitest'
import { existsSync, readdirSync } from 'node:fs'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, removeDir, withHome } from './helpers.mjs'

// Open descriptors, where the system lists them: /proc/self/fd (Linux), /dev/fd (macOS). Windows has
// neither (it counts handles, not descriptors), so there the leak check is left to the other jobs.
const fdDir = ['/proc/self/fd', '/dev/fd'].find((dir) => existsSync(dir))
const openFds = () => (fdDir ? readdirSync(fdDir).length : 0)

describe('load', () => {
  it('1,000 concurrent calls on one client and 50 clients agree and leak nothing', async () => {
    const home = copyDemoHome()
    try {
      await withHome(home, async () => {
        const one = createClient()
        const expected = {}
        for (const agent of BUILT_IN_AGENTS) expected[agent] = (await one.sessions.list(agent)).map((s) => s.unifiedId)
        global.gc?.()
        const fdsBefore = openFds()
        const rssBefore = process.memoryUsage().rss

        const calls = Array.from({ length: 1000 }, (_, i) => {
          const agent = BUILT_IN_AGENTS[i % BUILT_IN_AGENTS.length]
          return one.sessions.list(agent).then((r) => [agent, r.map((s) => s.unifiedId)])
        })
        for (const [agent, ids] of await Promise.all(calls)) expect(ids).toEqual(expected[agent])

        const clients = Array.from({ length: 50 }, () => createClient())
        const results = await Promise.all(
          clients.map((c, i) => c.sessions.list(BUILT_IN_AGENTS[i % 10]).then((r) => [BUILT_IN_AGENTS[i % 10], r])),
        )
        for (const [agent, r] of results) expect(r.map((s) => s.unifiedId)).toEqual(expected[agent])
        const searches = await Promise.all(clients.map((c) => c.sessions.search({ text: 'kubernetes' })))
        for (const s of searches) expect(s.map((x) => x.unifiedId)).toEqual(searches[0].map((x) => x.unifiedId))
        // The searches left the index to a thread of this process: its files close when it ends.
        await one.index.update()

        if (fdDir) expect(openFds()).toBeLessThanOrEqual(fdsBefore + 2)
        global.gc?.()
        // Generous bound: the point is "returns towards baseline", not an exact figure.
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024)
      })
    } finally {
      removeDir(home)
    }
  })
})
