// sessions.listAll: every agent's sessions in one call. Against the demo home (with a run index for
// tags) and the real captures, it must equal each agent's own list, merged in list's order (the
// sort field, ties by unified id) and cut to the limit, for every sort, direction and filter.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { createRequire } from 'node:module'
import { copyDemoHome, rejection, removeDir, shared, withHome } from './helpers.mjs'

// amux's own text output: off the API's exports, reached as the CLI reaches it.
const cjs = createRequire(import.meta.url)('../index.js')

const ALL = 1_000_000
const ids = (list) => list.map((s) => s.unifiedId)

const KEY = {
  date: (s) => s.updatedAt.getTime(),
  cost: (s) => s.cost?.totalUsd ?? 0,
  turns: (s) => s.turnCount,
}

/** What listAll must return: each agent's full list under `options`, merged as list orders, cut. */
async function expected(sessions, agents, { limit = 100, sort = 'date', sortDirection = 'desc', ...filters }) {
  const lists = await Promise.all(agents.map((agent) => sessions.list(agent, { ...filters, sort, sortDirection, limit: ALL })))
  const sign = sortDirection === 'asc' ? 1 : -1
  const byId = (a, b) => (a.unifiedId < b.unifiedId ? -1 : a.unifiedId > b.unifiedId ? 1 : 0)
  return lists
    .flat()
    .sort((a, b) => sign * (KEY[sort](a) - KEY[sort](b)) || byId(a, b))
    .slice(0, limit)
}

/** Every sort and direction, with and without a cut, under `filters`. */
async function expectMerged(sessions, agents, filters) {
  let seen = 0
  for (const sort of ['date', 'cost', 'turns']) {
    for (const sortDirection of ['desc', 'asc']) {
      for (const limit of [undefined, 3, 1000]) {
        const options = { ...filters, sort, sortDirection, ...(limit === undefined ? {} : { limit }) }
        const want = await expected(sessions, agents, options)
        const got = await sessions.listAll(options)
        expect(ids(got), JSON.stringify(options)).toEqual(ids(want))
        // the same summaries as list gives, Dates and all
        expect(got).toEqual(want)
        seen = Math.max(seen, got.length)
      }
    }
  }
  return seen
}

describe('listAll on the demo home', () => {
  let home
  let savedHome
  let sessions
  let everything

  beforeAll(async () => {
    home = copyDemoHome()
    savedHome = process.env.HOME
    process.env.HOME = home
    // A run index tags the first session of each agent `first`, so the tag filter has work to do.
    const probe = createClient({ configDir: join(home, 'none') }).sessions
    const runs = []
    for (const agent of BUILT_IN_AGENTS) {
      const [first] = await probe.list(agent)
      runs.push({ v: 1, runId: `run-${agent}`, agent, sessionId: first.sessionId, timestamp: first.createdAt.toISOString(), tags: ['first'] })
    }
    mkdirSync(join(home, '.agent-mux'))
    writeFileSync(join(home, '.agent-mux', 'run-index.jsonl'), runs.map((r) => JSON.stringify(r)).join('\n') + '\n')
    sessions = createClient().sessions
    everything = await sessions.listAll({ limit: ALL })
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(home)
  })

  it('holds every agent, newest first by default, cut at 100', async () => {
    expect(new Set(everything.map((s) => s.agent))).toEqual(new Set(BUILT_IN_AGENTS))
    expect(ids(await sessions.listAll())).toEqual(ids(everything.slice(0, 100)))
    const dates = everything.map((s) => s.updatedAt.getTime())
    expect(dates).toEqual([...dates].sort((a, b) => b - a))
  })

  it('equals the agents’ lists merged and cut, for every sort and direction, unfiltered', async () => {
    expect(await expectMerged(sessions, BUILT_IN_AGENTS, {})).toBe(everything.length)
  })

  it('and with each filter: since, until, model, cwd, tags, and all of them at once', async () => {
    const dates = everything.map((s) => s.createdAt.getTime()).sort((a, b) => a - b)
    const mid = new Date(dates[Math.floor(dates.length / 2)])
    const model = everything.find((s) => s.model)?.model
    const cwd = everything.find((s) => s.cwd)?.cwd
    const cases = [{ since: mid }, { until: mid }, { model }, { cwd }, { tags: ['first'] }, { since: new Date(dates[0]), until: mid, cwd }]
    for (const filters of cases) {
      const seen = await expectMerged(sessions, BUILT_IN_AGENTS, filters)
      // each filter keeps some sessions and leaves some out
      expect(seen, JSON.stringify(filters)).toBeGreaterThan(0)
      expect(seen, JSON.stringify(filters)).toBeLessThan(everything.length)
    }
    expect((await sessions.listAll({ tags: ['first'] })).length).toBe(BUILT_IN_AGENTS.length)
  })

  it('tsv.listAll writes the same sessions, one line each, the unified id first', async () => {
    const client = createClient()
    for (const options of [{}, { sort: 'cost', limit: 4 }, { cwd: everything[0].cwd }]) {
      const list = await client.sessions.listAll(options)
      const cost = (s) => (s.cost ? String(Number(s.cost.totalUsd.toFixed(6))) : '')
      const lines = list.map((s) => [s.unifiedId, s.updatedAt.toISOString(), String(s.turnCount), s.model ?? '', cost(s), s.title].join('\t'))
      expect(await cjs.textOutput(client).tsv.listAll(options)).toBe(lines.map((l) => `${l}\n`).join(''))
    }
  })

  it('rejects bad options as list does', async () => {
    for (const options of [{ sort: 'size' }, { sortDirection: 'up' }, { since: new Date('nope') }, { limit: -1 }]) {
      const listed = await rejection(sessions.list('claude', options))
      const all = await rejection(sessions.listAll(options))
      expect(all.code).toBe('VALIDATION_ERROR')
      expect(all.message).toBe(listed.message)
    }
  })
})

// The captures live beside the checkout as ../shared, not in it.
const real = shared('fixtures/real')

describe.skipIf(!real)('listAll over the real captures of several agents', () => {
  it('equals the agents’ lists merged and cut, for every sort, with filters', async () => {
    // HOME is an empty directory: only the captures are read.
    const emptyHome = mkdtempSync(join(tmpdir(), 'amux-nohome-'))
    try {
      await withHome(emptyHome, async () => {
        const dirs = { claude: 'claude', codex: 'codex', copilot: 'copilot', pi: 'pi', opencode: 'opencode/agent-sessions-storage_v2' }
        const sessionDirs = Object.fromEntries(Object.entries(dirs).map(([agent, rel]) => [agent, join(real, rel)]))
        const { sessions } = createClient({ sessionDirs })
        const everything = await sessions.listAll({ limit: ALL })
        expect(new Set(everything.map((s) => s.agent))).toEqual(new Set(Object.keys(dirs)))
        expect(await expectMerged(sessions, BUILT_IN_AGENTS, {})).toBe(everything.length)
        const dates = everything.map((s) => s.createdAt.getTime()).sort((a, b) => a - b)
        const model = everything.find((s) => s.model)?.model
        for (const filters of [{ since: new Date(dates[Math.floor(dates.length / 2)]) }, { model }]) {
          const seen = await expectMerged(sessions, BUILT_IN_AGENTS, filters)
          expect(seen).toBeGreaterThan(0)
          expect(seen).toBeLessThan(everything.length)
        }
      })
    } finally {
      removeDir(emptyHome)
    }
  })
})
