// Reading a team database (`createClient({ source })`, `amux --db`, `AGENT_MUX_DB`, the MCP and UI
// servers started with --db) against a real PostgreSQL: two simulated machines (two copies of the
// demo home synced with different --machine and --user) in one database. The team's cost is the
// sum of the machines' local costs and splits by machine and user as they do; every session a
// local search finds, the same search finds in the team database, on both machines; `get` and the
// exports of a synced session are the local ones (both redacted); what the team database cannot
// answer is a CAPABILITY_ERROR, never this machine's data.
import { describe, it, expect, beforeAll, afterAll, inject } from 'vitest'
import { appendFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createClient } from '../index.mjs'
import { repoRoot, copyDemoHome, removeDir, withHome, rejection } from './helpers.mjs'
import { connect, textOf } from './mcp-helpers.mjs'
import { http } from './ui-helpers.mjs'

const bin = join(repoRoot, 'bin', 'amux.js')
const server = inject('pgUrl') || process.env.AGENT_MUX_TEST_PG || ''
if (!server && process.env.AGENT_MUX_REQUIRE_FIXTURES === '1') {
  throw new Error('no PostgreSQL for the team tests (install postgresql, or set AGENT_MUX_TEST_PG) and AGENT_MUX_REQUIRE_FIXTURES=1')
}
if (!server) console.warn('skipping the team database reading tests: no PostgreSQL (initdb) on this machine')

const MACHINES = [
  { machine: 'laptop', user: 'ana' },
  { machine: 'desktop', user: 'bob' },
]

/** A custom title given to one Claude session of the demo home (words no message of it holds). */
const TITLED = {
  file: '.claude/projects/-home-dev-src-api/90c192cf-d3ac-44af-8f21-ddb66cad4a26.jsonl',
  line: { type: 'custom-title', customTitle: 'Quixotic wombat refactoring', sessionId: '90c192cf-d3ac-44af-8f21-ddb66cad4a26' },
}

/** `amux <args>` over `home`, the days in UTC. */
function amux(home, args, extra = {}) {
  const env = { ...process.env, HOME: home, AGENT_MUX_CACHE_DIR: join(home, '.amux-cache'), TZ: 'UTC', ...extra }
  for (const k of ['PGPASSWORD', 'PGUSER', 'PGHOST', 'PGPORT', 'PGDATABASE', 'PGPASSFILE', 'AGENT_MUX_DB']) if (!(k in extra)) delete env[k]
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, timeout: 120_000 })
}

function psql(url, query) {
  const r = spawnSync('psql', [url, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-c', query], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`)
  return r.stdout.trim()
}

let url
let homes = []
let team
let savedTz
/** `v` as JSON with every fraction rounded to 12 significant digits. */
const rounded = (v) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x)))
const near = (a, b) => expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThan(1e-9 * Math.max(1, Math.abs(b)))

/** A client of `home` (this machine's sessions), as the sync read them: redacted. */
const local = (home, fn) => withHome(home, () => fn(createClient({ redact: true, cacheDir: false, indexChild: false })))

describe.skipIf(!server)('a team database read across machines', () => {
  beforeAll(() => {
    savedTz = process.env.TZ
    process.env.TZ = 'UTC'
    const db = `read_${process.pid}`
    psql(server, `CREATE DATABASE ${db}`)
    const u = new URL(server)
    u.pathname = `/${db}`
    url = u.toString()
    homes = MACHINES.map(() => copyDemoHome())
    // A title that none of the session's messages holds: search must find it by its title.
    for (const home of homes) appendFileSync(join(home, TITLED.file), JSON.stringify(TITLED.line) + '\n')
    MACHINES.forEach(({ machine, user }, i) => {
      const r = amux(homes[i], ['sync', url, '--machine', machine, '--user', user, '--json'])
      expect(r.status, r.stderr).toBe(0)
    })
    team = createClient({ source: url })
  })

  afterAll(async () => {
    await team?.close()
    homes.forEach(removeDir)
    process.env.TZ = savedTz
  })

  it("totals the team's cost as the sum of each machine's local totalCost, and splits it by machine and user", async () => {
    const mine = await Promise.all(homes.map((h) => local(h, (c) => c.sessions.totalCost())))
    const all = await team.sessions.totalCost()
    expect(mine[0].totalUsd).toBeGreaterThan(0)
    near(all.totalUsd, mine[0].totalUsd + mine[1].totalUsd)
    expect(all.sessionCount).toBe(mine[0].sessionCount + mine[1].sessionCount)
    for (const k of ['inputTokens', 'outputTokens', 'thinkingTokens', 'cachedTokens']) expect(all[k], k).toBe(mine[0][k] + mine[1][k])

    const byMachine = (await team.sessions.totalCost({ groupBy: 'machine' })).breakdowns
    const byUser = (await team.sessions.totalCost({ groupBy: 'user' })).breakdowns
    expect(Object.keys(byMachine).sort()).toEqual(['desktop', 'laptop'])
    expect(Object.keys(byUser).sort()).toEqual(['ana', 'bob'])
    MACHINES.forEach(({ machine, user }, i) => {
      near(byMachine[machine].totalUsd, mine[i].totalUsd)
      expect(byMachine[machine].sessionCount).toBe(mine[i].sessionCount)
      near(byUser[user].totalUsd, mine[i].totalUsd)
    })
    const onlyLaptop = await team.sessions.totalCost({ machine: 'laptop' })
    near(onlyLaptop.totalUsd, mine[0].totalUsd)
    const onlyBob = await team.sessions.totalCost({ user: 'bob', agent: 'claude' })
    const bobsClaude = await local(homes[1], (c) => c.sessions.totalCost({ agent: 'claude' }))
    near(onlyBob.totalUsd, bobsClaude.totalUsd)
  })

  it('gives every groupBy key the local split, twice over (two copies of one home)', async () => {
    for (const groupBy of ['agent', 'model', 'day', 'month', 'project', 'tag']) {
      const mine = await local(homes[0], (c) => c.sessions.totalCost({ groupBy }))
      const all = await team.sessions.totalCost({ groupBy })
      expect(Object.keys(all.breakdowns).sort(), groupBy).toEqual(Object.keys(mine.breakdowns).sort())
      for (const [key, b] of Object.entries(mine.breakdowns)) {
        near(all.breakdowns[key].totalUsd, 2 * b.totalUsd)
        expect(all.breakdowns[key].sessionCount, `${groupBy} ${key}`).toBe(2 * b.sessionCount)
      }
    }
  })

  it('lists with the local filters and orders, and machine and user as filters', async () => {
    const mine = await local(homes[0], (c) => c.sessions.listAll({ limit: 1000 }))
    const all = await team.sessions.listAll({ limit: 1000 })
    expect(all).toHaveLength(2 * mine.length)
    expect(new Set(all.map((s) => s.machine))).toEqual(new Set(['laptop', 'desktop']))
    const laptop = await team.sessions.listAll({ limit: 1000, machine: 'laptop' })
    expect(laptop.map((s) => s.unifiedId)).toEqual(mine.map((s) => s.unifiedId))
    expect(laptop.every((s) => s.machine === 'laptop' && s.user === 'ana')).toBe(true)
    for (const s of laptop) expect(s.updatedAt).toBeInstanceOf(Date)
    const bob = await team.sessions.list('claude', { user: 'bob', sort: 'cost' })
    const bobsLocal = await local(homes[1], (c) => c.sessions.list('claude', { sort: 'cost' }))
    expect(bob.map((s) => s.unifiedId)).toEqual(bobsLocal.map((s) => s.unifiedId))
    near(bob[0].cost.totalUsd, bobsLocal[0].cost.totalUsd)
    const since = new Date(mine[Math.floor(mine.length / 2)].createdAt)
    const recent = await team.sessions.listAll({ limit: 1000, since, machine: 'desktop', sort: 'turns', sortDirection: 'asc' })
    const recentLocal = await local(homes[1], (c) => c.sessions.listAll({ limit: 1000, since, sort: 'turns', sortDirection: 'asc' }))
    expect(recent.map((s) => s.unifiedId)).toEqual(recentLocal.map((s) => s.unifiedId))
  })

  it('finds on the team database every session a local search finds, on both machines', async () => {
    // CJK texts of one, two and more characters (的注意天: each pair is in a session, the text
    // in none), and phrases whose words are in a session but not together.
    const queries = ['kubernetes', 'flaky test', '"flaky test"', 'docker OR kubernetes', 'test NOT flaky', 'kube*', 'migration', '大别山', 'error',
      '山', '大别', '大别山徒步', '的注意天', '"test flaky"', '"flaky test" OR 大别山徒步']
    let found = 0
    for (const text of queries) {
      const mine = await local(homes[0], (c) => c.sessions.search({ text, limit: 1000 }))
      const all = await team.sessions.search({ text, limit: 1000 })
      const teamKeys = new Set(all.map((s) => `${s.machine} ${s.unifiedId}`))
      for (const s of mine) {
        for (const { machine } of MACHINES) expect(teamKeys.has(`${machine} ${s.unifiedId}`), `${text}: ${machine} ${s.unifiedId}`).toBe(true)
      }
      found += mine.length
      for (const s of all) expect(s.relevanceScore).toBeGreaterThan(0)
    }
    expect(found).toBeGreaterThan(5)
    const only = await team.sessions.search({ text: 'kubernetes', machine: 'desktop' })
    expect(only.length).toBeGreaterThan(0)
    expect(only.every((s) => s.machine === 'desktop')).toBe(true)
    expect(only.some((s) => /kubernetes/i.test(s.snippet ?? ''))).toBe(true)
  })

  it('finds a session by its title alone, as locally, with the title as its snippet', async () => {
    for (const text of ['quixotic wombat', '"wombat refactoring"', 'quixotic NOT zzzunfound']) {
      const mine = await local(homes[0], (c) => c.sessions.search({ text, limit: 1000 }))
      expect(mine.map((s) => s.sessionId), text).toEqual([TITLED.line.sessionId])
      const all = await team.sessions.search({ text, limit: 1000 })
      expect(all.map((s) => `${s.machine} ${s.sessionId}`).sort(), text).toEqual(
        MACHINES.map(({ machine }) => `${machine} ${TITLED.line.sessionId}`).sort(),
      )
      for (const s of all) expect(s.snippet, text).toMatch(/wombat/i)
    }
  })

  it('ranks and cuts in the server: the limit is the best hits, in order', async () => {
    // A word, and the shapes whose candidates are checked a batch at a time (a phrase, a CJK
    // text longer than a pair, either beside a word).
    for (const text of ['error', '"flaky test"', '大别山徒步', 'kubernetes OR "flaky test"', 'error OR 大别山']) {
      const all = await team.sessions.search({ text, limit: 1000 })
      expect(all.length, text).toBeGreaterThan(1)
      for (const limit of [1, 3]) {
        const top = await team.sessions.search({ text, limit })
        expect(top.map((s) => `${s.machine} ${s.unifiedId}`), text).toEqual(all.slice(0, limit).map((s) => `${s.machine} ${s.unifiedId}`))
        for (const s of top) expect(s.matchCount).toBeGreaterThan(0)
      }
      for (let i = 1; i < all.length; i++) expect(all[i - 1].relevanceScore).toBeGreaterThanOrEqual(all[i].relevanceScore)
    }
  })

  it('rebuilds get and the exports of a synced session as its machine gives them', async () => {
    const sessions = await local(homes[0], (c) => c.sessions.listAll({ limit: 1000 }))
    for (const s of sessions) {
      const mine = await local(homes[0], (c) => c.sessions.get(s.agent, s.sessionId))
      const theirs = await team.sessions.get(s.agent, s.sessionId, { machine: 'laptop' })
      expect(theirs.raw).toBeUndefined()
      expect(theirs.machine).toBe('laptop')
      const { raw, ...rest } = mine
      const { machine, user, ...same } = theirs
      // Costs as the sync priced them may differ from a local get's in the last bit.
      expect(rounded(same), s.unifiedId).toEqual(rounded(rest))
      const markdown = await local(homes[0], (c) => c.sessions.export(s.agent, s.sessionId, 'markdown'))
      expect(await team.sessions.export(s.agent, s.sessionId, 'markdown'), `markdown ${s.unifiedId}`).toBe(markdown)
      const lines = (text) => text.trimEnd().split('\n').map((l) => rounded(JSON.parse(l)))
      const jsonl = await local(homes[0], (c) => c.sessions.export(s.agent, s.sessionId, 'jsonl'))
      expect(lines(await team.sessions.export(s.agent, s.sessionId, 'jsonl')), `jsonl ${s.unifiedId}`).toEqual(lines(jsonl))
    }
    const [a, b] = sessions
    const diff = await team.sessions.diff({ agent: a.agent, sessionId: a.sessionId }, { agent: b.agent, sessionId: b.sessionId })
    expect(diff.operations.length).toBeGreaterThan(0)
  })

  it('takes the copy updated last of an id synced from two machines, or the one asked for', async () => {
    const [s] = await team.sessions.listAll({ limit: 1, machine: 'desktop' })
    psql(url, `UPDATE sessions SET updated_at = updated_at + interval '1 day' WHERE machine = 'desktop' AND unified_id = '${s.unifiedId}'`)
    try {
      expect((await team.sessions.get(s.agent, s.sessionId)).machine).toBe('desktop')
      expect((await team.sessions.get(s.agent, s.sessionId, { machine: 'laptop' })).machine).toBe('laptop')
      const missing = await rejection(team.sessions.get(s.agent, s.sessionId, { machine: 'nowhere' }))
      expect(missing.code).toBe('SESSION_NOT_FOUND')
    } finally {
      psql(url, `UPDATE sessions SET updated_at = updated_at - interval '1 day' WHERE machine = 'desktop' AND unified_id = '${s.unifiedId}'`)
    }
  })

  it('runs the cost reports on the synced usage, by machine and user', async () => {
    const mine = await Promise.all(homes.map((h) => local(h, (c) => c.cost.daily())))
    const all = await team.cost.daily()
    near(all.totals.totalCost, mine[0].totals.totalCost + mine[1].totals.totalCost)
    expect(all.daily.map((r) => r.date)).toEqual(mine[0].daily.map((r) => r.date))
    const laptop = await team.cost.sessions({ machine: 'laptop' })
    const laptopLocal = await local(homes[0], (c) => c.cost.sessions())
    expect(laptop.sessions.map((r) => r.unifiedId)).toEqual(laptopLocal.sessions.map((r) => r.unifiedId))
    near(laptop.totals.totalCost, laptopLocal.totals.totalCost)
  })

  it('says what it cannot answer with CAPABILITY_ERROR, and refuses machine and user on this machine', async () => {
    for (const call of [() => team.index.status(), () => team.keep.status(), () => team.cost.blocks(), () => team.index.rebuild()]) {
      expect((await rejection(call())).code).toBe('CAPABILITY_ERROR')
    }
    // A filter the team's rows cannot apply is refused, never ignored (every session would answer).
    for (const call of [
      () => team.sessions.listAll({ project: 'api' }),
      () => team.sessions.search({ text: 'kubernetes', project: 'api' }),
      () => team.sessions.totalCost({ project: '/home/dev/src/api' }),
      () => team.cost.daily({ project: 'api' }),
    ]) {
      const e = await rejection(call())
      expect(e.code).toBe('CAPABILITY_ERROR')
      expect(e.message).toMatch(/project/)
    }
    await local(homes[0], async (c) => {
      const e = await rejection(c.sessions.listAll({ machine: 'laptop' }))
      expect(e.code).toBe('VALIDATION_ERROR')
      expect(e.message).toMatch(/team database/)
      expect((await rejection(c.sessions.totalCost({ groupBy: 'user' }))).code).toBe('VALIDATION_ERROR')
    })
  })

  it('reads the team database from the command line: --db, and AGENT_MUX_DB', () => {
    const empty = mkdtempSync(join(tmpdir(), 'amux-nohome-'))
    try {
      const listed = amux(empty, ['--db', url, 'sessions', 'list', '--machine', 'desktop', '--limit', '1000', '--json'])
      expect(listed.status, listed.stderr).toBe(0)
      const rows = JSON.parse(listed.stdout)
      expect(rows.length).toBeGreaterThan(10)
      expect(rows.every((s) => s.machine === 'desktop')).toBe(true)
      const cost = amux(empty, ['cost', 'report', '--group-by', 'user', '--json'], { AGENT_MUX_DB: url })
      expect(cost.status, cost.stderr).toBe(0)
      expect(Object.keys(JSON.parse(cost.stdout).breakdowns).sort()).toEqual(['ana', 'bob'])
      const index = amux(empty, ['--db', url, 'index', 'status'])
      expect(index.status).toBe(1)
      expect(index.stderr).toMatch(/^amux: CAPABILITY_ERROR: /)
      const here = amux(empty, ['sessions', 'list', '--machine', 'desktop'])
      expect(here.status).toBe(2)
      expect(here.stderr).toMatch(/team database/)
    } finally {
      removeDir(empty)
    }
  })

  it('serves the team database over MCP when started with AGENT_MUX_DB', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'amux-nohome-'))
    // `amux mcp` under AGENT_MUX_DB, as an agent's MCP configuration would start it.
    const { client, close } = await connect(empty, { env: { AGENT_MUX_DB: url } })
    try {
      const text = textOf(await client.callTool({ name: 'search_sessions', arguments: { query: 'kubernetes', machine: 'laptop' } }))
      expect(text).toMatch(/kubernetes/i)
      const mine = await local(homes[0], (c) => c.sessions.search({ text: 'kubernetes', limit: 10 }))
      for (const s of mine) expect(text).toContain(s.sessionId.slice(0, 8))
      const { tools } = await client.listTools()
      for (const t of tools) expect(t.description, t.name).not.toMatch(/on this machine/)
      const byMachine = await client.callTool({ name: 'cost_report', arguments: { groupBy: 'machine' } })
      expect(byMachine.structuredContent.groups.map((g) => g.key).sort()).toEqual(['desktop', 'laptop'])
      const byUser = await client.callTool({ name: 'cost_report', arguments: { groupBy: 'user' } })
      expect(byUser.structuredContent.groups.map((g) => g.key).sort()).toEqual(['ana', 'bob'])
    } finally {
      await close()
      removeDir(empty)
    }
  })

  it('serves the team database in the UI when started with --db', async () => {
    const { runUi } = await import('../ui/server/run.js')
    const out = { write: () => {} }
    const ui = await runUi({ source: url, open: false, out, err: out })
    try {
      const token = new URL(ui.url).searchParams.get('token')
      const res = await http(ui.port, `/api/sessions?token=${token}&machine=desktop&limit=500`)
      expect(res.status, res.body).toBe(200)
      const body = JSON.parse(res.body)
      const rows = body.sessions ?? body
      expect(rows.length).toBeGreaterThan(10)
      expect(rows.every((s) => s.machine === 'desktop')).toBe(true)
      const found = JSON.parse((await http(ui.port, `/api/search?token=${token}&q=kubernetes&machine=laptop`)).body).results
      const mine = await local(homes[0], (c) => c.sessions.search({ text: 'kubernetes', limit: 1000 }))
      expect(found.map((s) => s.unifiedId).sort()).toEqual(expect.arrayContaining(mine.map((s) => s.unifiedId).sort()))
      expect(found.every((s) => s.machine === 'laptop')).toBe(true)
    } finally {
      await ui.close()
    }
  })
})
