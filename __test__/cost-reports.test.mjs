// amux cost daily|weekly|monthly|session|blocks, run for real against the demo home (and the real
// Claude captures, read in place): piped lines, --json in ccusage's shapes (and equal to the
// API's result), the tables drawn on a terminal (a bar in the last column, daily's sparkline,
// the active block's line), and the command-line mistakes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createClient } from '../index.mjs'
import { createRequire } from 'node:module'
import { demoHome, repoRoot, shared, withHome } from './helpers.mjs'
import { inTerminal, ptyAvailable } from './tty.mjs'

// amux's own text output: off the API's exports, reached as the CLI reaches it.
const cjs = createRequire(import.meta.url)('../index.js')

const bin = join(repoRoot, 'bin', 'amux.js')
const STRAY = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'AGENT_MUX_NOW', 'XDG_CONFIG_HOME']

function cleanEnv(home, env) {
  const base = { ...process.env, TZ: 'UTC' }
  for (const name of STRAY) delete base[name]
  return { ...base, HOME: home, ...env }
}

const amux = (args, { home = demoHome, env = {} } = {}) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: cleanEnv(home, env), timeout: 60_000 })
const term = (args, { home = demoHome, cols = 120, env = {} } = {}) =>
  inTerminal(process.execPath, [bin, ...args], { cols, env: cleanEnv(home, { NO_COLOR: '1', ...env }) })
const json = (args, opts) => {
  const r = amux([...args, '--json'], opts)
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

// Inside the demo home's last Claude block (it starts 2026-10-29 23:00 UTC).
const NOW = '2026-10-29T23:40:00Z'
const TOKEN_KEYS = ['inputTokens', 'outputTokens', 'cacheCreationTokens', 'cacheReadTokens', 'totalTokens', 'totalCost', 'modelsUsed', 'modelBreakdowns']

describe('help', () => {
  for (const [command, mentions] of Object.entries({
    daily: ['--agent', '--since', '--until', '--timezone', '--project', '--order', '--breakdown', '--last', '--json', '20260105'],
    weekly: ['--start-of-week', '--timezone', '--breakdown', '--json'],
    monthly: ['--last', '--json'],
    session: ['--limit', '--last', '--order', '--json'],
    blocks: ['--agent', '--active', '--recent', '--session-length', '--token-limit', '--timezone', '--breakdown', '--json'],
  })) {
    it(`amux cost ${command} --help names its options`, () => {
      const r = amux(['cost', command, '--help'])
      expect(r.status).toBe(0)
      for (const m of mentions) expect(r.stdout).toContain(m)
    })
  }
})

describe('--json: ccusage keys, and the API result as it is', () => {
  let client
  beforeAll(() => {
    client = createClient()
  })

  it('daily, weekly, monthly and session rows carry ccusage keys; totals add them up', async () => {
    for (const [command, key, period] of [
      ['daily', 'daily', 'date'],
      ['weekly', 'weekly', 'week'],
      ['monthly', 'monthly', 'month'],
      ['session', 'sessions', 'sessionId'],
    ]) {
      const out = json(['cost', command])
      expect(out[key].length).toBeGreaterThan(0)
      for (const row of out[key]) {
        expect(row).toHaveProperty(period)
        for (const k of TOKEN_KEYS) expect(row).toHaveProperty(k)
        expect(row.totalTokens).toBe(row.inputTokens + row.outputTokens + row.cacheCreationTokens + row.cacheReadTokens)
      }
      const sum = out[key].reduce((s, r) => s + r.totalCost, 0)
      expect(out.totals.totalCost).toBeCloseTo(sum, 12)
      expect(out.totals.totalCost).toBeCloseTo(1.2022854, 6) // the demo home's totalCost
      expect(out.sessionsWithoutUsage).toEqual({ cursor: 3 })
    }
  })

  it('is byte for byte JSON.stringify of the API result', async () => {
    const opts = { env: { TZ: 'UTC' } }
    const r = amux(['cost', 'session', '--agent', 'claude', '--json'], opts)
    const api = await withHome(demoHome, () => client.cost.sessions({ agent: 'claude' }))
    expect(api.sessions[0].lastActivity).toBeInstanceOf(Date)
    expect(r.stdout).toBe(`${JSON.stringify(api, null, 2)}\n`)
  })

  it('json.costBuffer and json.blocksBuffer: the same text as UTF-8 bytes, never a JS string', async () => {
    await withHome(demoHome, async () => {
      for (const report of ['daily', 'weekly', 'monthly', 'sessions']) {
        const bytes = await cjs.textOutput(client).json.costBuffer(report, { order: 'asc' })
        expect(Buffer.isBuffer(bytes)).toBe(true)
        const text = await cjs.textOutput(client).json.cost(report, { order: 'asc' })
        expect(typeof text).toBe('string')
        expect(text).toBe(JSON.stringify(await client.cost[report]({ order: 'asc' }), null, 2))
        expect(bytes.equals(Buffer.from(text, 'utf8'))).toBe(true)
      }
      const blocks = await cjs.textOutput(client).json.blocksBuffer()
      expect(blocks.toString('utf8')).toBe(await cjs.textOutput(client).json.blocks())
      expect(JSON.parse(blocks.toString('utf8')).blocks.length).toBeGreaterThan(0)
    })
  })

  it('cost report --group-by week|month|session|project: the same periods and costs as the reports', () => {
    for (const [groupBy, command, key, period, extra] of [
      ['week', 'weekly', 'weekly', 'week', ['--start-of-week', 'monday']],
      ['month', 'monthly', 'monthly', 'month', []],
      ['session', 'session', 'sessions', 'unifiedId', []],
    ]) {
      const grouped = json(['cost', 'report', '--group-by', groupBy, ...extra])
      const rows = json(['cost', command, ...extra])[key]
      for (const r of rows) expect(grouped.breakdowns[r[period]].totalUsd).toBeCloseTo(r.totalCost, 9)
      // totalCost also counts the sessions that recorded no usage (Cursor's), at $0; the reports
      // give them in sessionsWithoutUsage instead.
      const unknown = Object.values(grouped.breakdowns).filter((b) => !rows.some((r) => r[period] === b.key))
      for (const b of unknown) expect([b.totalUsd, b.inputTokens, b.key.split(':')[0]]).toEqual([0, 0, 'cursor'])
      expect(unknown.length).toBe(groupBy === 'session' ? 3 : 0)
    }
    const byProject = json(['cost', 'report', '--group-by', 'project'])
    const sessions = json(['cost', 'session']).sessions
    const api = sessions.filter((s) => s.projectPath === '/home/dev/src/api')
    expect(api.length).toBeGreaterThan(1)
    const apiCost = api.reduce((sum, s) => sum + s.totalCost, 0)
    expect(byProject.breakdowns['/home/dev/src/api'].totalUsd).toBeCloseTo(apiCost, 9)
  })

  it('weeks start on the day asked; a day of the zone asked; the last periods', () => {
    const sunday = json(['cost', 'weekly', '--agent', 'claude']).weekly.map((w) => new Date(w.week).getUTCDay())
    expect(new Set(sunday)).toEqual(new Set([0]))
    const monday = json(['cost', 'weekly', '--agent', 'claude', '--start-of-week', 'monday']).weekly
    expect(monday.map((w) => new Date(w.week).getUTCDay())).toEqual(monday.map(() => 1))
    // ccusage's spelling of a day; in Tokyo the demo's 2026-10-07 00:08 UTC session is on the 7th.
    const day = json(['cost', 'daily', '--since', '20261007', '--until', '20261007', '--timezone', 'Asia/Tokyo'])
    expect(day.daily.map((d) => d.date)).toEqual(['2026-10-07'])
    expect(day.daily[0].agents).toEqual(['claude'])
    const last = json(['cost', 'monthly', '--last', '1'], { env: { AGENT_MUX_NOW: '2026-11-20T00:00:00Z' } })
    expect(last.monthly.map((m) => m.month)).toEqual(['2026-11'])
  })

  it('blocks: ids on the hour, gaps, and the active block with its burn rate and projection', () => {
    const out = json(['cost', 'blocks', '--token-limit', '100000'], { env: { AGENT_MUX_NOW: NOW } })
    // Claude's blocks are every agent's that has them: --agent claude changes nothing.
    expect(json(['cost', 'blocks', '--agent', 'claude', '--token-limit', '100000'], { env: { AGENT_MUX_NOW: NOW } })).toEqual(out)
    expect(out.blocks.map((b) => b.id)).toEqual([
      '2026-10-07T00:00:00.000Z',
      'gap-2026-10-07T05:16:11.000Z',
      '2026-10-07T23:00:00.000Z',
      'gap-2026-10-08T04:15:30.000Z',
      '2026-10-29T23:00:00.000Z',
    ])
    const active = out.blocks.at(-1)
    expect(active).toMatchObject({ isActive: true, entries: 4, totalTokens: 44161 })
    expect(active.costUSD).toBeCloseTo(0.02273125, 12)
    expect(active.burnRate.tokensPerMinute).toBeGreaterThan(0)
    expect(active.projection.remainingMinutes).toBe(260)
    expect(active.tokenLimitStatus).toMatchObject({ limit: 100000, status: 'exceeds' })
    expect(json(['cost', 'blocks', '--active'], { env: { AGENT_MUX_NOW: NOW } }).blocks).toHaveLength(1)
  })
})

describe('piped: one line per row', () => {
  it('daily: date, tokens, cost, models, then TOTAL; --breakdown a line per model', () => {
    const r = amux(['cost', 'daily', '--agent', 'claude'])
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(
      '2026-10-07\t4534\t1540\t22692\t53780\t82546\t0.11189\tclaude-haiku-4-5-20251001,claude-sonnet-4-5-20250929\n' +
        '2026-10-29\t3880\t1720\t5561\t33000\t44161\t0.022731\tclaude-haiku-4-5-20251001\n' +
        'TOTAL\t8414\t3260\t28253\t86780\t126707\t0.134621\t\n',
    )
    const lines = amux(['cost', 'daily', '--agent', 'claude', '--breakdown']).stdout.replace(/\n$/, '').split('\n')
    expect(lines.map((l) => l.split('\t').at(-1))).toEqual([
      'claude-sonnet-4-5-20250929',
      'claude-haiku-4-5-20251001',
      'claude-haiku-4-5-20251001',
      '',
    ])
  })

  it('session: agent:id and last activity first; blocks: id, times, state', () => {
    const first = amux(['cost', 'session', '--limit', '1']).stdout.split('\n')[0].split('\t')
    expect(first[0]).toMatch(/^[a-z]+:/)
    expect(first[1]).toMatch(/^\d{4}-\d\d-\d\dT/)
    const blocks = amux(['cost', 'blocks'], { env: { AGENT_MUX_NOW: NOW } }).stdout.trim().split('\n')
    expect(blocks.map((l) => l.split('\t')[4])).toEqual(['', 'gap', '', 'gap', 'active'])
  })
})

describe.skipIf(!ptyAvailable)('on a terminal', () => {
  it('cost report --group-by week: the weeks in calendar order, under WEEK', () => {
    const r = term(['cost', 'report', '--group-by', 'week'])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^WEEK\s+SESSIONS/)
    const weeks = [...r.stdout.matchAll(/^(\d{4}-\d{2}-\d{2}) /gm)].map((m) => m[1])
    expect(weeks.length).toBeGreaterThan(1)
    expect(weeks).toEqual([...weeks].sort())
  })

  it('daily: a table with a bar in its last column, then the sparkline of the period', () => {
    const r = term(['cost', 'daily'])
    expect(r.status, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^DATE\s+AGENTS\s+MODELS\s+INPUT\s+OUTPUT\s+CACHE WRITE\s+CACHE READ\s+TOTAL\s+COST$/)
    const days = lines.filter((l) => /^2026-\d\d-\d\d /.test(l))
    expect(days.length).toBe(22)
    for (const d of days) expect(d).toMatch(/\$\d+\.\d+\s+[█▉▊▋▌▍▎▏]+$/)
    expect(lines.find((l) => l.startsWith('TOTAL'))).toContain('$1.20')
    expect(lines).toContainEqual(expect.stringMatching(/^[▁▂▃▄▅▆▇█ ]+ 2026-10-01 → 2026-11-17, \$1\.20 in total, peak \$0\.11 on 2026-10-07$/))
    expect(r.stdout).toContain('no token counts were recorded for 3 sessions (cursor 3)')
  })

  it('--breakdown: a line per model under each row', () => {
    const r = term(['cost', 'monthly', '--agent', 'claude', '--breakdown'])
    expect(r.stdout).toMatch(/└ claude-sonnet-4-5-20250929\s+4,349/)
    expect(r.stdout).toContain('1 month, $0.13 in total')
  })

  it('blocks: the active block, its burn rate, projection and time left', () => {
    const r = term(['cost', 'blocks'], { env: { AGENT_MUX_NOW: NOW } })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/2026-10-29 23:00\s+ACTIVE, 4h 20m left/)
    expect(r.stdout).toMatch(/\(\d+h \d+m gap\)/)
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /active block since 23:00: 4h 20m left \(until 04:00\); burn rate [\d,]+ tokens\/min, \$[\d.]+\/h; projected [\d,]+ tokens, \$[\d.]+ by 04:00/,
    )
  })

  it('session: the costliest first, as many as --limit, and says when there are more', () => {
    const r = term(['cost', 'session', '--limit', '3'])
    const rows = r.stdout.split('\n').filter((l) => /^[a-z]+:[0-9a-f]{8}/.test(l))
    expect(rows).toHaveLength(3)
    expect(r.stdout).toContain('3 sessions shown')
    expect(r.stdout).toContain('more with a higher --limit')
  })
})

describe('mistakes on the command line', () => {
  it('an unknown zone, a bad day, a bad week start → VALIDATION_ERROR, exit 2', () => {
    for (const [args, mention] of [
      [['cost', 'daily', '--timezone', 'Mars/Olympus'], "'Mars/Olympus'"],
      [['cost', 'daily', '--since', '20261399'], "since must be a day (20260105, 2026-01-05) or a date"],
      [['cost', 'weekly', '--start-of-week', 'someday'], "startOfWeek must be one of sunday, monday"],
      [['cost', 'blocks', '--session-length', '0'], "sessionLength must be a number of hours above 0, not '0'"],
      [['cost', 'session', '--last', '0'], "last must be a whole number from 1 up, not '0'"],
      [['cost', 'blocks', '--agent', 'codex'], 'codex has no billing blocks (the agents that have them: claude)'],
    ]) {
      const r = amux(args)
      expect(r.status, r.stderr).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^amux: VALIDATION_ERROR: /)
      expect(r.stderr).toContain(mention)
    }
    for (const command of ['daily', 'weekly', 'monthly', 'session', 'blocks']) {
      const e = amux(['cost', command, '--agent', 'nope', '--json'])
      expect(e.status).toBe(2)
      expect(JSON.parse(e.stdout).error).toMatchObject({ code: 'AGENT_NOT_FOUND', message: expect.stringContaining("unknown agent 'nope'") })
    }
  })
})

const real = shared('fixtures/real')

describe.skipIf(!real)('the real Claude captures, read in place', () => {
  let config
  beforeAll(() => {
    // CLAUDE_CONFIG_DIR/projects leads to the captures themselves (a link, nothing copied).
    config = mkdtempSync(join(tmpdir(), 'amux-real-claude-'))
    symlinkSync(join(real, 'claude'), join(config, 'projects'))
  })
  afterAll(() => rmSync(config, { recursive: true, force: true }))

  it('every report adds up to totalCost, each session to what list says it cost', async () => {
    const env = { CLAUDE_CONFIG_DIR: config }
    const total = json(['cost', 'report', '--agent', 'claude'], { env })
    const sessions = json(['cost', 'session', '--agent', 'claude'], { env })
    const listed = json(['sessions', 'list', 'claude'], { env })
    expect(sessions.sessions.length).toBeGreaterThan(0)
    for (const command of ['daily', 'weekly', 'monthly']) {
      const out = json(['cost', command, '--agent', 'claude'], { env })
      expect(out.totals.totalCost).toBeCloseTo(total.totalUsd, 12)
      expect(out.totals.inputTokens).toBe(total.inputTokens)
    }
    for (const s of sessions.sessions) {
      const l = listed.find((x) => x.sessionId === s.sessionId)
      expect(s.totalCost).toBeCloseTo(l.cost.totalUsd, 12)
    }
    const blocks = json(['cost', 'blocks'], { env })
    const entries = blocks.blocks.reduce((n, b) => n + b.entries, 0)
    expect(entries).toBeGreaterThan(0)
    expect(blocks.blocks.reduce((s, b) => s + b.costUSD, 0)).toBeCloseTo(total.totalUsd, 12)
  })
})
