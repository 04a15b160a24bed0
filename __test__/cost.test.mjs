import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, AgentMuxError, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, removeDir, withHome } from './helpers.mjs'

let home
let savedHome
let savedTz
beforeAll(() => {
  savedHome = process.env.HOME
  savedTz = process.env.TZ
  home = mkdtempSync(join(tmpdir(), 'amux-cost-'))
  process.env.HOME = home
})
afterAll(() => {
  process.env.HOME = savedHome
  if (savedTz === undefined) delete process.env.TZ
  else process.env.TZ = savedTz
  rmSync(home, { recursive: true, force: true })
})

describe('totalCost through the binding', () => {
  it('rejects a malformed pricing option when the client is made', () => {
    let err
    try {
      createClient({ pricing: { 'm-a': { input: 1 } } })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(AgentMuxError)
    expect(err.code).toBe('VALIDATION_ERROR')
  })

  it('counts run-index runs by local day of the process TZ', async () => {
    const cfg = join(home, 'cfg')
    mkdirSync(cfg, { recursive: true })
    writeFileSync(
      join(cfg, 'run-index.jsonl'),
      [
        '{"v":1,"runId":"01A","agent":"codex","model":"m","timestamp":"2025-03-01T20:00:00Z","cost":{"totalUsd":0.25,"inputTokens":10,"outputTokens":1},"tags":["t"]}',
        '{"v":1,"runId":"01B","agent":"codex","timestamp":"2025-03-01T10:00:00Z","cost":{"totalUsd":0.5,"inputTokens":20,"outputTokens":2},"tags":[]}',
        '{"v":1,"runId":"01C","agent":"co',
      ].join('\n'),
    )
    const { sessions } = createClient({ configDir: cfg })
    // Tokyo (+9): 20:00Z on Mar 1 is Mar 2; 10:00Z is still Mar 1.
    process.env.TZ = 'Asia/Tokyo'
    const byDay = await sessions.totalCost({ groupBy: 'day' })
    expect(byDay.totalUsd).toBeCloseTo(0.75, 9)
    expect(byDay.runCount).toBe(2)
    expect(byDay.sessionCount).toBe(0)
    expect(Object.keys(byDay.breakdowns)).toEqual(['2025-03-01', '2025-03-02'])
    expect(byDay.breakdowns['2025-03-02'].totalUsd).toBeCloseTo(0.25, 9)
    // UTC: both on Mar 1.
    process.env.TZ = 'UTC'
    const utc = await sessions.totalCost({ groupBy: 'day' })
    expect(Object.keys(utc.breakdowns)).toEqual(['2025-03-01'])
    const tagged = await sessions.totalCost({ tags: ['t'] })
    expect(tagged.totalUsd).toBeCloseTo(0.25, 9)
  })
})

// The demo home (30 sessions, one model each) plus a run index in the default place,
// $HOME/.agent-mux/run-index.jsonl. Every expected figure is summed here from get() results.
describe('totalCost groupings over the demo home and a run index', () => {
  let demo
  let all // [{agent, id, usd, model, day}] from get()
  let a
  let b
  beforeAll(async () => {
    demo = copyDemoHome()
    process.env.TZ = 'UTC'
    const { sessions } = createClient()
    all = await withHome(demo, async () => {
      const out = []
      for (const agent of BUILT_IN_AGENTS) {
        for (const s of await sessions.list(agent, { limit: 1000 })) {
          const g = await sessions.get(agent, s.sessionId)
          out.push({
            agent,
            id: s.sessionId,
            usd: g.cost?.totalUsd ?? 0,
            model: g.model ?? '',
            day: g.createdAt.toISOString().slice(0, 10),
          })
        }
      }
      return out
    })
    a = all.find((s) => s.agent === 'claude')
    b = all.find((s) => s.agent === 'codex')
    mkdirSync(join(demo, '.agent-mux'))
    writeFileSync(
      join(demo, '.agent-mux', 'run-index.jsonl'),
      [
        // Two runs of session A without cost: tags and a run count, its estimate stays.
        `{"v":1,"runId":"01A1","agent":"claude","sessionId":"${a.id}","timestamp":"2026-10-02T10:00:00Z","tags":["alpha"]}`,
        `{"v":1,"runId":"01A2","agent":"claude","sessionId":"claude:${a.id}","timestamp":"2026-10-02T11:00:00Z","tags":["alpha"]}`,
        // The same run written again (start line, then completion): still one run.
        `{"v":1,"runId":"01A2","agent":"claude","sessionId":"${a.id}","timestamp":"2026-10-02T11:00:00Z","tags":[]}`,
        // A run of session B with a recorded cost: the session costs what the run recorded.
        `{"v":1,"runId":"01B1","agent":"codex","sessionId":"${b.id}","model":"gpt-5-codex","timestamp":"2026-10-03T10:00:00Z","cost":{"totalUsd":1.25,"inputTokens":1000,"outputTokens":100},"tags":["alpha","gamma"]}`,
        // Unknown version: ignored entirely.
        `{"v":2,"runId":"01X1","agent":"claude","sessionId":"${a.id}","timestamp":"2026-10-02T10:00:00Z","cost":{"totalUsd":100,"inputTokens":1,"outputTokens":1},"tags":["ghost"]}`,
        // A run whose session is not on disk: counts by itself, on its own day and model.
        '{"v":1,"runId":"01O1","agent":"codex","model":"m-orphan","timestamp":"2026-09-15T12:00:00Z","cost":{"totalUsd":0.5,"inputTokens":40,"outputTokens":4},"tags":["beta"]}',
        // Torn last line.
        `{"v":1,"runId":"01T1","agent":"claude","sessionId":"${a.id}","timest`,
      ].join('\n'),
    )
  })
  afterAll(() => removeDir(demo))

  const cost = (opts) => withHome(demo, () => createClient().sessions.totalCost(opts))
  // Session usd after the run index: B's run recorded 1.25.
  const usd = (s) => (s === b ? 1.25 : s.usd)
  const sumBy = (key) => {
    const m = {}
    for (const s of all) m[key(s)] = (m[key(s)] ?? 0) + usd(s)
    return m
  }
  const expectBreakdowns = (got, want) => {
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort())
    for (const [k, v] of Object.entries(want)) expect(got[k].totalUsd, k).toBeCloseTo(v, 9)
  }

  it('has 30 single-model sessions to sum', () => {
    expect(all.length).toBe(30)
    expect(a.usd).toBeGreaterThan(0)
    expect(b.usd).toBeGreaterThan(0)
    expect(b.usd).not.toBeCloseTo(1.25, 3)
  })

  it('totals every session once, plus the orphan run; counts runs', async () => {
    const c = await cost({})
    const sessionsUsd = all.reduce((t, s) => t + usd(s), 0)
    expect(c.totalUsd).toBeCloseTo(sessionsUsd + 0.5, 9)
    expect(c.sessionCount).toBe(30)
    // 30 sessions count one run each, A counts its two runs, plus the orphan.
    expect(c.runCount).toBe(30 + 1 + 1)
    expect(c.breakdowns).toBeUndefined()
  })

  it('groups by day (UTC), the orphan on its own day', async () => {
    // Each usage record goes on its own day: B's cost is its run's record, of 2026-10-03.
    const want = sumBy((s) => (s === b ? '2026-10-03' : s.day))
    want['2026-09-15'] = 0.5
    const c = await cost({ groupBy: 'day' })
    expectBreakdowns(c.breakdowns, want)
    expect(c.breakdowns['2026-09-15'].sessionCount).toBe(0)
    const sessionsOn = (d) => all.filter((s) => s.day === d).length
    expect(c.breakdowns[a.day].sessionCount).toBe(sessionsOn(a.day))
  })

  it('groups by model, the orphan under its run model', async () => {
    const want = sumBy((s) => s.model)
    want['m-orphan'] = 0.5
    const c = await cost({ groupBy: 'model' })
    expectBreakdowns(c.breakdowns, want)
    expect(c.unpricedModels).toBeUndefined()
  })

  it('groups by agent', async () => {
    const want = sumBy((s) => s.agent)
    want.codex += 0.5
    const c = await cost({ groupBy: 'agent' })
    expectBreakdowns(c.breakdowns, want)
    expect(c.breakdowns.claude.sessionCount).toBe(3)
  })

  it('groups by tag: a session in each of its tags, the untagged under ""', async () => {
    const c = await cost({ groupBy: 'tag' })
    const untagged = all.filter((s) => s !== a && s !== b).reduce((t, s) => t + s.usd, 0)
    expectBreakdowns(c.breakdowns, { alpha: a.usd + 1.25, gamma: 1.25, beta: 0.5, '': untagged })
    expect(c.breakdowns.alpha.sessionCount).toBe(2)
    expect(c.breakdowns[''].sessionCount).toBe(28)
    // Filters by tag: only A and B carry alpha.
    const alpha = await cost({ tags: ['alpha'] })
    expect(alpha.totalUsd).toBeCloseTo(a.usd + 1.25, 9)
    expect(alpha.sessionCount).toBe(2)
  })

  it('shows tags and run-index costs on the sessions themselves', async () => {
    const { sessions } = createClient()
    const [sa, sb] = await withHome(demo, () =>
      Promise.all([sessions.get('claude', a.id), sessions.get('codex', b.id)]),
    )
    expect(sa.tags).toEqual(['alpha'])
    expect(sa.cost.totalUsd).toBeCloseTo(a.usd, 12)
    expect(sb.tags).toEqual(['alpha', 'gamma'])
    expect(sb.cost.totalUsd).toBe(1.25)
    expect(sb.cost.inputTokens).toBe(1000)
    // Claude alone: 3 sessions, A with its 2 runs.
    expect((await cost({ agent: 'claude' })).runCount).toBe(4)
  })
})
