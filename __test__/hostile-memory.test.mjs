// Issue 18: memory is bounded whatever the store holds. Beside the demo sessions, a Codex zstd
// bomb (one 3 GB line from ~100 KB) and a 1.2 GB single-line Claude transcript: a fresh process
// running list (every agent), search and totalCost stays under 600 MB of RSS, finishes, and keeps
// every good session. Both files are generated here (see hostile-pair.mjs) and removed after.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
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

describe('get builds the session as JS objects, without JSON text in between', () => {
  it('gives what JSON.parse of each record gives: own __proto__ keys, integer keys first', async () => {
    const id = '0b0b0b0b-0000-4000-8000-0000000000aa'
    const output = 'x'.repeat(5000)
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: id, timestamp: '2026-01-02T03:04:05.000Z',
        message: { role: 'user', content: 'run it' }, __proto__x: 1, 10: 'ten', 2: 'two' },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: id, timestamp: '2026-01-02T03:04:06.000Z',
        message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] } },
      { type: 'user', uuid: 'u2', parentUuid: 'a1', sessionId: id, timestamp: '2026-01-02T03:04:07.000Z',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: output }] },
        toolUseResult: { stdout: output } },
      { type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: id, timestamp: '2026-01-02T03:04:08.000Z',
        message: { id: 'm2', role: 'assistant', model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'ls -l' } }] } },
      { type: 'user', uuid: 'u3', parentUuid: 'a2', sessionId: id, timestamp: '2026-01-02T03:04:09.000Z',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'listed' }, { type: 'image', source: { type: 'base64', data: 'AA==' } }] }] } },
    ].map((l) => JSON.stringify(l).replace('"__proto__x"', '"__proto__"'))
    mkdirSync(join(plain, '.claude', 'projects', '-w-proto'), { recursive: true })
    writeFileSync(join(plain, '.claude', 'projects', '-w-proto', `${id}.jsonl`), lines.join('\n') + '\n')
    await withHome(plain, async () => {
      const s = await createClient().sessions.get('claude', id)
      expect(JSON.stringify(s.raw)).toBe(JSON.stringify(lines.map((l) => JSON.parse(l))))
      const first = s.raw[0]
      expect(Object.getPrototypeOf(first)).toBe(Object.prototype)
      expect(Object.hasOwn(first, '__proto__')).toBe(true)
      expect(first.__proto__).toBe(1)
      expect(Object.keys(first).slice(0, 2)).toEqual(['2', '10'])
      expect(s.createdAt).toBeInstanceOf(Date)
      const tool = s.messages.find((m) => m.role === 'tool')
      expect(tool.content).toBe(output)
      expect(s.messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.output)).toContain(output)
      // The call's output is linked from its result after the call was built: same value, same
      // key order as JSON.parse of the export, and an object of its own, as JSON.parse gives.
      const call = s.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.toolCallId === 't2')
      const result = s.messages.find((m) => m.toolResult?.toolCallId === 't2').toolResult
      expect(call.output).toEqual([{ type: 'text', text: 'listed' }, { type: 'image', source: { type: 'base64', data: 'AA==' } }])
      expect(call.output).not.toBe(result.output)
      expect(Object.keys(call)).toEqual(['toolCallId', 'toolName', 'input', 'output', 'durationMs'])
      expect(JSON.stringify(s, null, 2)).toBe(await createClient().sessions.export('claude', id, 'json'))
    })
  }, 60_000)
})
