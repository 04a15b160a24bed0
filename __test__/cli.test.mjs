// The amux CLI, run for real: `node bin/amux.js …` as a subprocess against temporary homes (and the
// bundled demo home once it holds sessions), checking stdout, --json, exit status and stderr.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync, readdirSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin', 'amux.js')
const demoHome = join(root, 'examples', 'demo-home')
const { version } = require('../package.json')

// Variables that would send an agent's reader somewhere other than the home under test, or change
// how the CLI draws its output.
const STRAY = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME',
  'AGENT_MUX_CONFIG_DIR', 'NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'USERPROFILE', 'XDG_CONFIG_HOME', 'OMP_PROFILE',
  'OMP_HOME', 'OPENCLAW_HOME', 'CLAWDBOT_STATE_DIR', 'CURSOR_CONFIG_DIR',
]

function amux(args, { home, env = {} } = {}) {
  const base = { ...process.env, TZ: 'UTC' }
  for (const name of STRAY) delete base[name]
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...base, HOME: home, ...env },
    timeout: 60_000,
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

// Every failure is exactly one line on stderr, `amux: <CODE>: <message>`, and nothing on stdout.
function expectFailure(result, status, code, ...mentions) {
  expect(result.status).toBe(status)
  expect(result.stdout).toBe('')
  const lines = result.stderr.split('\n').filter(Boolean)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(new RegExp(`^amux: ${code}: `))
  for (const m of mentions) expect(lines[0]).toContain(m)
}

let home
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-cli-empty-'))
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe('help and version', () => {
  const commands = {
    '': ['sessions', 'cost'],
    sessions: ['list', 'show', 'search', 'export', 'diff', 'resume', 'fork'],
    'sessions list': ['<agent>', '--since', '--until', '--model', '--tag', '--limit', '--sort', '--json'],
    'sessions show': ['<agent> <session-id>', '--format'],
    'sessions search': ['<query...>', '--agent', '--since', '--until', '--model', '--tag', '--limit', '--sort', '--json'],
    'sessions export': ['<agent> <session-id>', '--format'],
    'sessions diff': ['<a> <b>', '--json'],
    'sessions resume': ['not available'],
    'sessions fork': ['not available'],
    cost: ['report'],
    'cost report': ['--agent', '--since', '--until', '--model', '--tag', '--group-by', '--json'],
  }
  for (const [command, mentions] of Object.entries(commands)) {
    it(`amux ${command} --help prints its usage on stdout and exits 0`, () => {
      const r = amux([...command.split(' ').filter(Boolean), '--help'], { home })
      expect(r.status).toBe(0)
      expect(r.stderr).toBe('')
      expect(r.stdout.startsWith(`Usage: amux${command ? ` ${command}` : ''} `)).toBe(true)
      for (const m of mentions) expect(r.stdout).toContain(m)
    })
  }

  it('--version prints the package version', () => {
    const r = amux(['--version'], { home })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe(`${version}\n`)
  })

  it('no command is a usage error: help on stderr, exit 2', () => {
    const r = amux([], { home })
    expect(r.status).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('Usage: amux [options] [command]')
  })
})

describe('an empty home', () => {
  it('sessions list: a sentence for people, [] for --json, for every agent', () => {
    for (const agent of BUILT_IN_AGENTS) {
      const human = amux(['sessions', 'list', agent], { home })
      expect(human).toEqual({ status: 0, stdout: `No ${agent} sessions found.\n`, stderr: '' })
      const json = amux(['sessions', 'list', agent, '--json'], { home })
      expect(json.status).toBe(0)
      expect(json.stderr).toBe('')
      expect(JSON.parse(json.stdout)).toEqual([])
    }
  })

  it('sessions list takes every filter at once', () => {
    const r = amux(
      ['sessions', 'list', 'codex', '--since', '2025-01-01', '--until', '7d', '--model', 'gpt-5', '--tag', 'a',
        '--tag', 'b', '--limit', '5', '--sort', 'cost', '--json'],
      { home },
    )
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([])
  })

  it('sessions search: words join into one query; --json is []', () => {
    const human = amux(['sessions', 'search', 'flaky', 'test'], { home })
    expect(human).toEqual({ status: 0, stdout: 'No sessions match "flaky test".\n', stderr: '' })
    const json = amux(
      ['sessions', 'search', 'flaky', '--agent', 'claude', '--since', '2w', '--until', '2030-01-01T00:00Z',
        '--model', 'm', '--tag', 't', '--limit', '3', '--sort', 'date', '--json'],
      { home },
    )
    expect(json.status).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([])
  })

  it('cost report: a TOTAL row of zeros; --json is the all-zero CostSummary', () => {
    const human = amux(['cost', 'report'], { home })
    expect(human.status).toBe(0)
    expect(human.stdout.split('\n')[1]).toMatch(/^TOTAL\s+0\s+0\s+0\s+0\s+0\s+\$0\.00$/)
    expect(human.stdout).toContain('0 sessions, $0.00 in total')
    for (const groupBy of ['agent', 'model', 'day', 'tag']) {
      const r = amux(['cost', 'report', '--group-by', groupBy, '--since', '30d', '--json'], { home })
      expect(r.status).toBe(0)
      const summary = JSON.parse(r.stdout)
      expect(summary).toMatchObject({ totalUsd: 0, inputTokens: 0, outputTokens: 0, sessionCount: 0, runCount: 0 })
    }
    const grouped = amux(['cost', 'report', '--group-by', 'model'], { home })
    expect(grouped.stdout.split('\n')[0]).toMatch(/^MODEL\s+SESSIONS\s+INPUT\s+OUTPUT\s+THINKING\s+CACHED\s+COST$/)
  })
})

describe('errors: one stderr line with the code; exit 1, or 2 for usage', () => {
  it('unknown agent → AGENT_NOT_FOUND, exit 1, for every command that names an agent', () => {
    const cases = [
      ['sessions', 'list', 'nope'],
      ['sessions', 'show', 'nope', 'x'],
      ['sessions', 'export', 'nope', 'x'],
      ['sessions', 'diff', 'nope:a', 'claude:b'],
      ['sessions', 'search', 'x', '--agent', 'nope'],
      ['cost', 'report', '--agent', 'nope'],
    ]
    for (const args of cases) expectFailure(amux(args, { home }), 1, 'AGENT_NOT_FOUND', "'nope'", 'claude, codex')
  })

  it('missing session → SESSION_NOT_FOUND naming the id, exit 1', () => {
    expectFailure(amux(['sessions', 'show', 'claude', 'abc-123'], { home }), 1, 'SESSION_NOT_FOUND', "'abc-123'")
    for (const format of ['json', 'jsonl', 'markdown']) {
      const r = amux(['sessions', 'export', 'codex', 'zz9', '--format', format], { home })
      expectFailure(r, 1, 'SESSION_NOT_FOUND', "'zz9'", 'codex')
    }
    expectFailure(amux(['sessions', 'diff', 'claude:left', 'codex:right', '--json'], { home }), 1, 'SESSION_NOT_FOUND', "'left'")
  })

  it('bad dates → VALIDATION_ERROR naming the option, exit 2', () => {
    const cases = [
      [['sessions', 'list', 'claude', '--since', 'yesterdayish'], '--since'],
      [['sessions', 'list', 'claude', '--until', '2025-02-31'], '--until'],
      [['sessions', 'search', 'x', '--since', '2025-13-01'], '--since'],
      [['sessions', 'search', 'x', '--until', '12 days'], '--until'],
      [['cost', 'report', '--since', '01/02/2025'], '--since'],
    ]
    for (const [args, option] of cases) expectFailure(amux(args, { home }), 2, 'VALIDATION_ERROR', option, 'Not a date')
  })

  it('bad formats and choices → VALIDATION_ERROR, exit 2', () => {
    const cases = [
      [['sessions', 'show', 'claude', 'x', '--format', 'xml'], "'xml'"],
      [['sessions', 'export', 'claude', 'x', '--format', 'yaml'], "'yaml'"],
      [['sessions', 'list', 'claude', '--sort', 'size'], "'size'"],
      [['sessions', 'search', 'x', '--sort', 'turns'], "'turns'"],
      [['cost', 'report', '--group-by', 'week'], "'week'"],
      [['sessions', 'list', 'claude', '--limit', '-3'], '--limit'],
      [['sessions', 'list', 'claude', '--limit', 'ten'], '--limit'],
      [['sessions', 'diff', 'claude', 'x'], '<agent>:<session-id>'],
    ]
    for (const [args, mention] of cases) expectFailure(amux(args, { home }), 2, 'VALIDATION_ERROR', mention)
  })

  it('unknown commands and options, missing arguments → exit 2', () => {
    expectFailure(amux(['sessions', 'frob'], { home }), 2, 'VALIDATION_ERROR', "'frob'")
    expectFailure(amux(['frob'], { home }), 2, 'VALIDATION_ERROR', "'frob'")
    expectFailure(amux(['sessions', 'list', 'claude', '--bogus'], { home }), 2, 'VALIDATION_ERROR', "'--bogus'")
    expectFailure(amux(['sessions', 'list'], { home }), 2, 'VALIDATION_ERROR', "'agent'")
    expectFailure(amux(['sessions', 'show', 'claude'], { home }), 2, 'VALIDATION_ERROR', "'session-id'")
  })

  it('resume and fork say the run API is not part of this package, exit 1', () => {
    for (const verb of ['resume', 'fork']) {
      expectFailure(amux(['sessions', verb, 'claude', 'abc', '--model', 'x'], { home }), 1, 'CAPABILITY_ERROR', 'run API', verb)
    }
  })
})

describe('colour', () => {
  const bold = '\x1b[1m'
  it('only when asked for (FORCE_COLOR) or on a terminal, never with NO_COLOR', () => {
    expect(amux(['cost', 'report'], { home }).stdout).not.toContain('\x1b[')
    expect(amux(['cost', 'report'], { home, env: { FORCE_COLOR: '1' } }).stdout).toContain(`${bold}TOTAL`)
    expect(amux(['cost', 'report'], { home, env: { FORCE_COLOR: '1', NO_COLOR: '1' } }).stdout).not.toContain('\x1b[')
  })
  it('--json output never carries colour', () => {
    const r = amux(['cost', 'report', '--json'], { home, env: { FORCE_COLOR: '1' } })
    expect(r.stdout).not.toContain('\x1b[')
    expect(JSON.parse(r.stdout).sessionCount).toBe(0)
  })
})

// examples/demo-home is filled by the repository's generator; until it holds sessions these skip.
describe('the demo home (real content)', () => {
  const found = {}
  let api
  let savedHome
  beforeAll(async () => {
    if (!existsSync(demoHome) || readdirSync(demoHome).every((n) => n === '.keep')) {
      console.warn('examples/demo-home is empty: demo CLI tests skipped')
      return
    }
    // The in-process API reads HOME at each call: point it at the demo home for the comparisons.
    savedHome = process.env.HOME
    process.env.HOME = demoHome
    for (const name of STRAY) delete process.env[name]
    api = createClient().sessions
    for (const agent of BUILT_IN_AGENTS) {
      const list = await api.list(agent)
      if (list.length) found[agent] = list
    }
  })
  afterAll(() => {
    if (savedHome !== undefined) process.env.HOME = savedHome
  })
  const env = { COLUMNS: '100' }
  const ids = (list) => list.map((s) => s.unifiedId)

  it('sessions list --json is the API list; the table fits 100 columns and names every session', async (ctx) => {
    if (!Object.keys(found).length) ctx.skip()
    for (const [agent, list] of Object.entries(found)) {
      const json = amux(['sessions', 'list', agent, '--json'], { home: demoHome, env })
      expect(json.status).toBe(0)
      const parsed = JSON.parse(json.stdout)
      expect(ids(parsed)).toEqual(ids(list))
      expect(parsed[0].createdAt).toBe(list[0].createdAt.toISOString())
      const human = amux(['sessions', 'list', agent], { home: demoHome, env })
      expect(human.status).toBe(0)
      const lines = human.stdout.trimEnd().split('\n')
      expect(lines[0]).toMatch(/^SESSION\s+UPDATED\s+TURNS\s+MODEL\s+COST\s+TITLE$/)
      expect(lines).toHaveLength(list.length + 2)
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(100)
      list.forEach((s, i) => {
        expect(lines[i + 1].startsWith(s.sessionId)).toBe(true)
        // at 100 columns with 36-character ids the absolute date is the first thing dropped
        expect(lines[i + 1]).toMatch(/(just now|\d+(m|h|d|w|mo|y) ago)( · \d{4}-\d\d-\d\d \d\d:\d\d)?/)
        if (s.cost) expect(lines[i + 1]).toContain('$')
      })
      expect(lines.at(-1)).toBe(`${list.length} ${agent} session${list.length === 1 ? '' : 's'}`)
    }
  })

  it('sessions show/export print the API export in each format', async (ctx) => {
    if (!Object.keys(found).length) ctx.skip()
    const [agent, list] = Object.entries(found)[0]
    const id = list[0].sessionId
    const md = amux(['sessions', 'show', agent, id], { home: demoHome })
    expect(md.status).toBe(0)
    expect(md.stdout.trimEnd()).toBe((await api.export(agent, id, 'markdown')).trimEnd())
    const json = JSON.parse(amux(['sessions', 'export', agent, id], { home: demoHome }).stdout)
    expect(json.unifiedId).toBe(`${agent}:${id}`)
    const jsonl = amux(['sessions', 'show', agent, id, '--format', 'jsonl'], { home: demoHome }).stdout.trimEnd().split('\n')
    expect(jsonl.length).toBe((await api.get(agent, id)).messages.length + 1)
    for (const line of jsonl) JSON.parse(line)
  })

  it('sessions search kubernetes: --json is the API result; snippets show the hit', async (ctx) => {
    const expected = api ? await api.search({ text: 'kubernetes' }) : []
    if (!expected.length) ctx.skip()
    const json = amux(['sessions', 'search', 'kubernetes', '--json'], { home: demoHome })
    expect(ids(JSON.parse(json.stdout))).toEqual(ids(expected))
    const human = amux(['sessions', 'search', 'kubernetes'], { home: demoHome, env })
    expect(human.status).toBe(0)
    for (const s of expected) expect(human.stdout).toContain(s.unifiedId)
    if (expected.some((s) => s.snippet)) expect(human.stdout).toMatch(/>>>kubernetes<<</i)
    const coloured = amux(['sessions', 'search', 'kubernetes'], { home: demoHome, env: { ...env, FORCE_COLOR: '1' } })
    if (expected.some((s) => s.snippet)) expect(coloured.stdout).toMatch(/\x1b\[1;33mkubernetes\x1b\[0m/i)
  })

  it('sessions diff --json is the API diff; the human view states the same counts', async (ctx) => {
    const all = Object.values(found).flat()
    if (all.length < 2) ctx.skip()
    const [a, b] = all
    const expected = await api.diff({ agent: a.agent, sessionId: a.sessionId }, { agent: b.agent, sessionId: b.sessionId })
    const json = JSON.parse(amux(['sessions', 'diff', a.unifiedId, b.unifiedId, '--json'], { home: demoHome }).stdout)
    expect(json.stats).toEqual(expected.stats)
    expect(json.operations).toHaveLength(expected.operations.length)
    const human = amux(['sessions', 'diff', a.unifiedId, b.unifiedId], { home: demoHome, env }).stdout
    const { unchanged, modifications, additions, removals } = expected.stats
    expect(human).toContain(`${unchanged} unchanged, ${modifications} modified, ${additions} added, ${removals} removed`)
  })

  it('cost report --group-by agent --json is the API total; the table has one row per agent', async (ctx) => {
    if (!Object.keys(found).length) ctx.skip()
    const expected = await api.totalCost({ groupBy: 'agent' })
    const json = JSON.parse(amux(['cost', 'report', '--group-by', 'agent', '--json'], { home: demoHome }).stdout)
    expect(json).toEqual(JSON.parse(JSON.stringify(expected)))
    const lines = amux(['cost', 'report', '--group-by', 'agent'], { home: demoHome, env }).stdout.trimEnd().split('\n')
    const table = lines.filter((l) => !l.startsWith('note: '))
    // header, one row per agent, TOTAL, the sessions/runs line
    expect(table).toHaveLength(Object.keys(expected.breakdowns ?? {}).length + 3)
    for (const key of Object.keys(expected.breakdowns ?? {})) expect(table.some((l) => l.startsWith(`${key} `))).toBe(true)
  })
})
