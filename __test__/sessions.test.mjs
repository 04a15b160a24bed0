// list/get through the public JS API (issues 3 and 4): every agent of the demo home, the shapes
// the spec promises (Dates, plain numbers, arrays), list filters/sorts/limit checked against what
// the full list and get() say, and the real captures read in place through `sessionDirs`.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, countTurns, removeDir, shared, snapshot } from './helpers.mjs'

const ROLES = new Set(['user', 'assistant', 'system', 'tool'])

function expectCount(n) {
  expect(typeof n).toBe('number')
  expect(Number.isInteger(n) && n >= 0).toBe(true)
}

function expectCostRecord(c) {
  for (const k of ['totalUsd', 'inputTokens', 'outputTokens']) {
    expect(typeof c[k], k).toBe('number')
    expect(Number.isFinite(c[k]) && c[k] >= 0, k).toBe(true)
  }
  for (const k of ['thinkingTokens', 'cachedTokens', 'cacheWriteTokens']) {
    if (c[k] !== undefined) expectCount(c[k])
  }
}

function expectValidDate(d) {
  expect(d).toBeInstanceOf(Date)
  expect(Number.isNaN(d.getTime())).toBe(false)
}

/** Fields shared by SessionSummary and Session. */
function expectSummaryShape(s, agent) {
  expect(s.agent).toBe(agent)
  expect(typeof s.sessionId).toBe('string')
  expect(s.sessionId.length).toBeGreaterThan(0)
  expect(s.unifiedId).toBe(`${agent}:${s.sessionId}`)
  expect(typeof s.title).toBe('string')
  expectValidDate(s.createdAt)
  expectValidDate(s.updatedAt)
  expect(s.updatedAt.getTime()).toBeGreaterThanOrEqual(s.createdAt.getTime())
  expectCount(s.turnCount)
  expect(Array.isArray(s.tags)).toBe(true)
  for (const t of s.tags) expect(typeof t).toBe('string')
  if (s.cost !== undefined) expectCostRecord(s.cost)
  for (const k of ['model', 'cwd', 'forkedFrom']) {
    if (s[k] !== undefined) expect(typeof s[k], k).toBe('string')
  }
}

/**
 * Messages of a get(): roles from the spec's set, Dates, and every tool call whose result message
 * exists carries that result as `output` (calls with an empty id cannot be paired by anyone).
 */
function expectMessages(session) {
  const calls = new Map()
  for (const m of session.messages) {
    expect(ROLES.has(m.role), m.role).toBe(true)
    expect(typeof m.content).toBe('string')
    if (m.timestamp !== undefined) expectValidDate(m.timestamp)
    for (const tc of m.toolCalls ?? []) {
      expect(m.role).toBe('assistant')
      expect(typeof tc.toolCallId).toBe('string')
      expect(typeof tc.toolName).toBe('string')
      if (tc.toolCallId) calls.set(tc.toolCallId, tc)
    }
    if (m.tokenUsage) {
      expectCount(m.tokenUsage.inputTokens)
      expectCount(m.tokenUsage.outputTokens)
    }
    if (m.cost) expectCostRecord(m.cost)
  }
  let paired = 0
  for (const m of session.messages) {
    const r = m.toolResult
    if (!r || !r.toolCallId || !calls.has(r.toolCallId)) continue
    expect(m.role).toBe('tool')
    const call = calls.get(r.toolCallId)
    expect(call.output, `output of ${r.toolCallId}`).not.toBeUndefined()
    expect(call.output).toEqual(r.output)
    paired++
  }
  return paired
}

describe('demo home: every agent through list and get', () => {
  let home
  let savedHome
  let sessions
  const all = {} // agent -> summaries (unfiltered, newest first)
  const full = {} // unifiedId -> Session

  beforeAll(async () => {
    home = copyDemoHome()
    // Tags come from agent-mux's run index: tag the first session of each agent `first`, and
    // every session `<agent>`; runs without cost leave the sessions' costs alone.
    const runs = []
    const { sessions: probe } = createClient({ configDir: join(home, 'none') })
    // The core reads HOME on every call: keep it on the copy for this whole block.
    savedHome = process.env.HOME
    process.env.HOME = home
    for (const agent of BUILT_IN_AGENTS) {
      const l = await probe.list(agent)
      l.forEach((s, i) =>
        runs.push({
          v: 1,
          runId: `run-${agent}-${i}`,
          agent,
          sessionId: s.sessionId,
          timestamp: s.createdAt.toISOString(),
          tags: i === 0 ? ['first', agent] : [agent],
        }),
      )
    }
    mkdirSync(join(home, '.agent-mux'))
    writeFileSync(join(home, '.agent-mux', 'run-index.jsonl'), runs.map((r) => JSON.stringify(r)).join('\n') + '\n')
    sessions = createClient().sessions
    for (const agent of BUILT_IN_AGENTS) {
      all[agent] = await sessions.list(agent, { limit: 1000 })
      for (const s of all[agent]) full[s.unifiedId] = await sessions.get(agent, s.sessionId)
    }
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(home)
  })

  for (const agent of BUILT_IN_AGENTS) {
    describe(agent, () => {
      it('list returns 3 well-typed summaries that agree with get()', () => {
        const list = all[agent]
        expect(list.length).toBe(3)
        expect(new Set(list.map((s) => s.sessionId)).size).toBe(3)
        list.forEach((s, i) => {
          expectSummaryShape(s, agent)
          const g = full[s.unifiedId]
          expect(s.messageCount).toBe(g.messages.length)
          expect(s.messageCount).toBeGreaterThan(0)
          expect(s.turnCount).toBe(countTurns(g.messages))
          expect(s.turnCount).toBeGreaterThan(0)
          expect(typeof s.model).toBe('string')
          expect(s.model.length).toBeGreaterThan(0)
          if (agent === 'cursor') expect(s.cost).toBeUndefined()
          else {
            expect(s.cost.totalUsd).toBeGreaterThan(0)
            expect(s.cost.inputTokens + s.cost.outputTokens).toBeGreaterThan(0)
          }
          // the run index tagged the newest session (the default order) `first`; tags come sorted
          expect(s.tags).toEqual(i === 0 ? ['first', agent].sort() : [agent])
          // The summary and the session describe the same thing.
          for (const k of ['title', 'turnCount', 'model', 'cwd', 'forkedFrom', 'unifiedId', 'tags']) {
            expect(g[k], k).toEqual(s[k])
          }
          expect(g.createdAt.getTime()).toBe(s.createdAt.getTime())
          expect(g.updatedAt.getTime()).toBe(s.updatedAt.getTime())
          expect(g.cost).toEqual(s.cost)
        })
        expect(list.filter((s) => s.tags.includes('first')).length).toBe(1)
      })

      it('get(): spec roles, Dates, tool calls paired with their results', () => {
        for (const s of all[agent]) {
          const g = full[s.unifiedId]
          expectSummaryShape(g, agent)
          expect(Array.isArray(g.messages)).toBe(true)
          const paired = expectMessages(g)
          const toolCalls = g.messages.flatMap((m) => m.toolCalls ?? [])
          expect(toolCalls.length).toBeGreaterThan(0)
          // Every demo tool call has its output, whether from a tool message or inline (OpenCode).
          for (const tc of toolCalls) expect(tc.output, tc.toolCallId).not.toBeUndefined()
          const toolMessages = g.messages.filter((m) => m.role === 'tool').length
          expect(paired).toBe(toolMessages)
          expect(g.messages.some((m) => m.role === 'user')).toBe(true)
          expect(g.messages.some((m) => m.role === 'assistant')).toBe(true)
          expect(g.messages.every((m) => m.timestamp instanceof Date)).toBe(true)
          // Model on the session is one its assistant messages used (Hermes records it per session).
          const models = new Set(g.messages.map((m) => m.model).filter(Boolean))
          if (models.size) expect(models.has(g.model)).toBe(true)
        }
      })

      it('since / until bound createdAt (inclusive)', async () => {
        const list = all[agent]
        const byCreated = [...list].sort((a, b) => a.createdAt - b.createdAt)
        const mid = byCreated[1].createdAt
        const ids = (v) => v.map((s) => s.unifiedId).sort()
        const since = await sessions.list(agent, { since: mid, limit: 1000 })
        expect(ids(since)).toEqual(ids(list.filter((s) => s.createdAt >= mid)))
        expect(since.length).toBe(2)
        const until = await sessions.list(agent, { until: mid, limit: 1000 })
        expect(ids(until)).toEqual(ids(list.filter((s) => s.createdAt <= mid)))
        expect(until.length).toBe(2)
        const both = await sessions.list(agent, { since: mid, until: mid })
        expect(ids(both)).toEqual([byCreated[1].unifiedId])
        const none = await sessions.list(agent, { since: new Date(byCreated[2].createdAt.getTime() + 1) })
        expect(none).toEqual([])
      })

      it('model, cwd and tags filters', async () => {
        const list = all[agent]
        const ids = (v) => v.map((s) => s.unifiedId).sort()
        for (const model of new Set(list.map((s) => s.model))) {
          const got = await sessions.list(agent, { model, limit: 1000 })
          // the primary model, or any model the session's messages used
          const want = list.filter(
            (s) => s.model === model || full[s.unifiedId].messages.some((m) => m.model === model),
          )
          expect(ids(got), model).toEqual(ids(want))
          expect(got.length).toBeGreaterThan(0)
        }
        expect(await sessions.list(agent, { model: 'no-such-model' })).toEqual([])
        for (const cwd of new Set(list.map((s) => s.cwd))) {
          const got = await sessions.list(agent, { cwd, limit: 1000 })
          expect(ids(got), cwd).toEqual(ids(list.filter((s) => s.cwd === cwd)))
          // a trailing separator names the same directory
          const slash = await sessions.list(agent, { cwd: cwd + '/', limit: 1000 })
          expect(ids(slash)).toEqual(ids(got))
        }
        expect(await sessions.list(agent, { cwd: '/no/such/dir' })).toEqual([])
        const first = await sessions.list(agent, { tags: ['first'] })
        expect(first.length).toBe(1)
        expect(first[0].tags).toContain('first')
        expect((await sessions.list(agent, { tags: [agent] })).length).toBe(3)
        // OR match over the given tags
        expect((await sessions.list(agent, { tags: ['nope', 'first'] })).length).toBe(1)
        expect(await sessions.list(agent, { tags: ['nope'] })).toEqual([])
      })

      it('sort date|cost|turns asc/desc and limit', async () => {
        const list = all[agent]
        const key = {
          date: (s) => s.updatedAt.getTime(),
          cost: (s) => s.cost?.totalUsd ?? 0,
          turns: (s) => s.turnCount,
        }
        for (const sort of ['date', 'cost', 'turns']) {
          for (const sortDirection of ['asc', 'desc']) {
            const got = await sessions.list(agent, { sort, sortDirection, limit: 1000 })
            const sign = sortDirection === 'asc' ? 1 : -1
            // ties broken by unifiedId ascending, so the order is fully determined
            const want = [...list].sort(
              (a, b) => sign * (key[sort](a) - key[sort](b)) || (a.unifiedId < b.unifiedId ? -1 : 1),
            )
            expect(got.map((s) => s.unifiedId), `${sort} ${sortDirection}`).toEqual(want.map((s) => s.unifiedId))
            const two = await sessions.list(agent, { sort, sortDirection, limit: 2 })
            expect(two.map((s) => s.unifiedId)).toEqual(want.slice(0, 2).map((s) => s.unifiedId))
          }
        }
        // the default is date, newest first
        const dflt = await sessions.list(agent)
        const newest = [...list].sort((a, b) => b.updatedAt - a.updatedAt || (a.unifiedId < b.unifiedId ? -1 : 1))
        expect(dflt.map((s) => s.unifiedId)).toEqual(newest.map((s) => s.unifiedId))
        expect((await sessions.list(agent, { limit: 1 })).map((s) => s.unifiedId)).toEqual([newest[0].unifiedId])
      })
    })
  }
})

// The captures live beside the checkout as ../shared, not in it.
const real = shared('fixtures/real')

describe.skipIf(!real)('real captures read in place through sessionDirs', () => {
  let emptyHome
  let savedHome
  beforeAll(() => {
    savedHome = process.env.HOME
    emptyHome = mkdtempSync(join(tmpdir(), 'amux-nohome-'))
    process.env.HOME = emptyHome
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(emptyHome)
  })

  // Folders that already have a layout their agent reads, with what each holds: [id, messages,
  // turns] (the same figures the Rust suites pin from the files).
  const cases = [
    ['claude', 'claude', [
      ['0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f', 5, 1],
      ['agent-sessions-stage0-small', 17, 3],
      ['claude-code-log-representative_messages', 11, 3],
      ['margin-session-basic-2.1.233', 4, 1],
    ]],
    ['codex', 'codex', [
      ['agent-sessions-codex_053_rate_limit', 0, 0],
      ['margin-session-basic-0.146.0', 8, 1],
      ['margin-session-reasoning', 1, 0],
    ]],
    ['copilot', 'copilot', [
      ['copilot_stage0_large', 10, 3],
      ['copilot_stage0_small', 12, 2],
    ]],
    ['copilot', 'copilot/agent-sessions-subdir_v1', [['aaaabbbb-1111-2222-3333-ccccddddeeee', 4, 1]]],
    ['pi', 'pi', [
      ['019e19b4-eb48-746a-aa6b-8dfcfa37954b', 4, 2],
      ['d703a1a9-1b7b-4fb1-b512-c9738b1fe617', 10, 2],
      ['ffae836b-9420-4060-ac13-7745215f90ff', 2, 1],
    ]],
    ['opencode', 'opencode/agent-sessions-storage_v2', [
      ['s_stage0_large', 4, 2],
      ['s_stage0_small', 2, 1],
    ]],
    ['opencode', 'opencode/agent-sessions-storage_legacy', [['s_stage0_drift', 2, 1]]],
  ]

  for (const [agent, rel, want] of cases) {
    it(`${agent} from ${rel}`, async () => {
      const dir = join(real, rel)
      const before = snapshot(dir)
      const { sessions } = createClient({ sessionDirs: { [agent]: dir } })
      const list = await sessions.list(agent, { limit: 1000 })
      const got = []
      for (const s of list) {
        expectSummaryShape(s, agent)
        const g = await sessions.get(agent, s.sessionId)
        expectSummaryShape(g, agent)
        expectMessages(g)
        expect(s.messageCount).toBe(g.messages.length)
        expect(s.turnCount).toBe(countTurns(g.messages))
        expect(g.model).toBe(s.model)
        expect(g.cost).toEqual(s.cost)
        got.push([s.sessionId, g.messages.length, s.turnCount])
      }
      got.sort((a, b) => (a[0] < b[0] ? -1 : 1))
      expect(got).toEqual(want)
      // Other agents see nothing of it: the override is per agent and HOME is empty.
      const other = agent === 'claude' ? 'codex' : 'claude'
      expect(await sessions.list(other)).toEqual([])
      expect(snapshot(dir)).toEqual(before)
    })
  }

  it('tool results pair with their calls in the real Claude and Pi captures', async () => {
    const pairs = async (agent, dir, id) => {
      const { sessions } = createClient({ sessionDirs: { [agent]: join(real, dir) } })
      return expectMessages(await sessions.get(agent, id))
    }
    expect(await pairs('claude', 'claude', 'margin-session-basic-2.1.233')).toBe(1)
    expect(await pairs('claude', 'claude', 'claude-code-log-representative_messages')).toBe(2)
    // the capture is the first 12 lines: 5 results arrived, 2 calls were still running
    expect(await pairs('pi', 'pi', 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617')).toBe(5)
    expect(await pairs('codex', 'codex', 'margin-session-basic-0.146.0')).toBe(1)
  })
})
