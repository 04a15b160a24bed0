// Issue 18: memory is bounded whatever the store holds. Beside the demo sessions, a Codex zstd
// bomb (one 3 GB line from ~100 KB) and a 1.2 GB single-line Claude transcript: a fresh process
// running list (every agent), search and totalCost stays under 600 MB of RSS, finishes, and keeps
// every good session. Both files are generated here (see hostile-pair.mjs) and removed after.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createClient } from '../index.mjs'
import { copyDemoHome, removeDir, repoRoot, withHome } from './helpers.mjs'
import { writeHostilePair, BOMB_ID, HUGE_ID } from './hostile-pair.mjs'

const RSS_LIMIT_MB = 600

// list every agent, search, totalCost: in a child, so its peak RSS is theirs alone
const script = `
import { createClient, BUILT_IN_AGENTS } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'index.mjs')).href)}
const { sessions } = createClient()
const t0 = performance.now()
const ids = {}
for (const a of BUILT_IN_AGENTS) ids[a] = (await sessions.list(a, { limit: 1e6 })).map((s) => s.sessionId).sort()
const hits = (await sessions.search({ text: 'the', limit: 1e6 })).map((s) => s.unifiedId).sort()
const cost = await sessions.totalCost({})
console.log(JSON.stringify({ ids, hits, costSessions: cost.sessionCount, totalUsd: cost.totalUsd,
  ms: Math.round(performance.now() - t0), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }))
`

function runIn(home) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, HOME: home },
    encoding: 'utf8',
    timeout: 300_000,
  })
  return JSON.parse(out.trim().split('\n').pop())
}

let plain
let hostile
beforeAll(() => {
  plain = copyDemoHome()
  hostile = copyDemoHome()
  const t = Date.now()
  writeHostilePair(hostile)
  console.log(`hostile pair written in ${Date.now() - t} ms`)
}, 120_000)

afterAll(() => {
  removeDir(plain)
  removeDir(hostile)
})

describe('memory is bounded whatever the store holds', () => {
  it('list, search and totalCost beside a 3 GB zstd bomb and a 1.2 GB line stay under 600 MB', () => {
    const want = runIn(plain)
    const got = runIn(hostile)
    console.log(
      `hostile pair: list+search+totalCost ${got.ms} ms, max RSS ${got.maxRssMb} MB ` +
        `(demo home alone: ${want.ms} ms, ${want.maxRssMb} MB)`,
    )
    expect(got.maxRssMb).toBeLessThan(RSS_LIMIT_MB)
    // every good session is kept; the two hostile files are no sessions
    expect(got.ids).toEqual(want.ids)
    expect(got.hits).toEqual(want.hits)
    expect(got.costSessions).toBe(want.costSessions)
    expect(got.totalUsd).toBeCloseTo(want.totalUsd, 9)
    expect(want.ids.claude.length).toBeGreaterThan(0)
    // a debug build on a loaded machine; an unbounded read takes minutes or is killed first
    expect(got.ms).toBeLessThan(120_000)
  }, 300_000)

  it('get of either file is a PARSE_ERROR, not an allocation failure', async () => {
    await withHome(hostile, async () => {
      const { sessions } = createClient()
      for (const [agent, id] of [['codex', BOMB_ID], ['claude', HUGE_ID]]) {
        const err = await sessions.get(agent, id).then(() => null, (e) => e)
        expect(err?.code, `${agent} ${id}: ${err?.message}`).toBe('PARSE_ERROR')
      }
    })
  }, 120_000)
})
