// The amux CLI, run for real: `node bin/amux.js …` as a subprocess against temporary homes (and the
// bundled demo home once it holds sessions), checking stdout, --json, exit status and stderr. A
// plain subprocess has stdout on a pipe (the tab-separated forms); `term` runs it on a
// pseudo-terminal of a given size (the forms drawn for a person).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync, readdirSync, existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { inTerminal, ptyAvailable } from './tty.mjs'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin', 'amux.js')
const demoHome = join(root, 'examples', 'demo-home')
const { version } = require('../package.json')
const stringWidth = require('string-width')

// Variables that would send an agent's reader somewhere other than the home under test, or change
// how the CLI draws its output.
const STRAY = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME',
  'AGENT_MUX_CONFIG_DIR', 'NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'USERPROFILE', 'XDG_CONFIG_HOME', 'OMP_PROFILE',
  'OMP_HOME', 'OPENCLAW_HOME', 'CLAWDBOT_STATE_DIR', 'CURSOR_CONFIG_DIR',
]

function cleanEnv(home, env) {
  const base = { ...process.env, TZ: 'UTC' }
  for (const name of [...STRAY, 'PAGER', 'LESS']) delete base[name]
  return { ...base, HOME: home, ...env }
}

function amux(args, { home, env = {} } = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: cleanEnv(home, env), timeout: 60_000 })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** amux with stdout on a terminal of `cols` × `rows`; PAGER is `cat` unless given. */
function term(args, { home, cols = 100, rows = 50, env = {} } = {}) {
  return inTerminal(process.execPath, [bin, ...args], { cols, rows, env: cleanEnv(home, { PAGER: 'cat', ...env }) })
}

const ESC = /\x1b\[[0-9;]*m/g
const strip = (text) => text.replace(ESC, '')
// columns on a terminal: CJK two, colour codes none (the measure terminals use, via string-width)
const width = (line) => stringWidth(strip(line))

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
    '': ['sessions', 'cost', 'ui'],
    sessions: ['list', 'show', 'search', 'export', 'share', 'diff', 'resume', 'fork'],
    'sessions list': ['[agent]', 'every agent', '--since', '--until', '--model', '--tag', '--cwd', '--limit', '--sort', '--wide', '--json', 'separated by tabs'],
    'sessions show': ['<agent>:<id> | <agent> <id> | <id-prefix>', '--format', 'pager'],
    'sessions search': ['<query...>', '--agent', '--since', '--until', '--model', '--tag', '--cwd', '--limit', '--sort', '--wide', '--json'],
    'sessions export': ['<agent>:<id> | <agent> <id> | <id-prefix>', '--format'],
    'sessions share': ['<agent>:<id> | <agent> <id> | <id-prefix>', '-o, --output <file>', '--no-redact', '--force', 'redacted'],
    'sessions diff': ['<session-a> <session-b>', '<agent>:<id>, <agent> <id>', '--json'],
    'sessions resume': ['not available'],
    'sessions fork': ['not available'],
    cost: ['report'],
    'cost report': ['--agent', '--since', '--until', '--model', '--tag', '--cwd', '--group-by', '--json'],
    ui: ['--port', '--host', '--no-open', 'token'],
    mcp: ['--no-redact', 'redacted by default', 'includeOwnSession: true'],
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

  it('search --help documents the query language with one example each', () => {
    const help = amux(['sessions', 'search', '--help'], { home }).stdout
    expect(help).not.toContain('one phrase')
    const examples = {
      words: "amux sessions search flaky test",
      '"phrase"': `amux sessions search '"flaky test"'`,
      OR: 'amux sessions search kubernetes OR docker',
      NOT: 'amux sessions search test NOT flaky',
      'prefix*': "amux sessions search 'kube*'",
      CJK: 'amux sessions search 大别山',
    }
    for (const [term, example] of Object.entries(examples)) {
      expect(help).toMatch(new RegExp(`^  ${term.replace('*', '\\*')}\\s.*\\s${example.replace(/[*]/g, '\\$&')}$`, 'm'))
    }
  })

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
  it('sessions list: nothing on a pipe, a sentence on a terminal, [] for --json, for every agent', (ctx) => {
    if (!ptyAvailable) ctx.skip()
    expect(term(['sessions', 'list', 'codex'], { home })).toEqual({ status: 0, stdout: 'No codex sessions found.\n', stderr: '' })
    for (const agent of BUILT_IN_AGENTS) {
      expect(amux(['sessions', 'list', agent], { home })).toEqual({ status: 0, stdout: '', stderr: '' })
      const json = amux(['sessions', 'list', agent, '--json'], { home })
      expect(json.status).toBe(0)
      expect(json.stderr).toBe('')
      expect(JSON.parse(json.stdout)).toEqual([])
    }
  })

  it('sessions list without an agent: nothing on a pipe, a sentence on a terminal, [] for --json', () => {
    expect(amux(['sessions', 'list'], { home })).toEqual({ status: 0, stdout: '', stderr: '' })
    expect(amux(['sessions', 'list', '--json'], { home })).toEqual({ status: 0, stdout: '[]\n', stderr: '' })
    if (ptyAvailable) expect(term(['sessions', 'list'], { home })).toEqual({ status: 0, stdout: 'No sessions found.\n', stderr: '' })
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

  it('sessions search: no match is success (exit 0): nothing on a pipe, a sentence on a terminal; --json is []', (ctx) => {
    expect(amux(['sessions', 'search', 'flaky', 'test'], { home })).toEqual({ status: 0, stdout: '', stderr: '' })
    if (ptyAvailable) {
      expect(term(['sessions', 'search', 'flaky', 'test'], { home }).stdout).toBe('No sessions match "flaky test".\n')
      // a phrase brings its own quotes: they are not doubled
      expect(term(['sessions', 'search', '"test flaky"'], { home }).stdout).toBe('No sessions match "test flaky".\n')
    } else ctx.skip()
    const json = amux(
      ['sessions', 'search', 'flaky', '--agent', 'claude', '--since', '2w', '--until', '2030-01-01T00:00Z',
        '--model', 'm', '--tag', 't', '--limit', '3', '--sort', 'date', '--json'],
      { home },
    )
    expect(json.status).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([])
  })

  it('a piped command loads no table, width, transcript or pager code, nor any package (each start pays for what it loads)', (ctx) => {
    const loaded = (args, run) => {
      const out = join(home, `modules-${args.join('-')}.json`)
      const env = { NODE_OPTIONS: `--require ${join(root, '__test__', 'record-modules.cjs')}`, AMUX_TEST_MODULES_OUT: out }
      expect(run(args, { home, env }).status).toBe(0)
      return JSON.parse(readFileSync(out, 'utf8')).join('\n')
    }
    const terminalOnly = /cli-table3|string-width|[\\/]transcript\.js|[\\/]pager\.js/
    // what writes the piped form: cli/lib/tsv.js, or for a session list the native side
    const tsvJs = /[\\/]cli[\\/]lib[\\/]tsv\.js$/m
    const binding = /[\\/]binding\.js$/m
    for (const [args, writer] of [[['sessions', 'search', 'flaky'], tsvJs], [['sessions', 'list', 'claude'], binding], [['cost', 'report'], tsvJs]]) {
      const files = loaded(args, amux)
      expect(files).toMatch(writer)
      expect(files).not.toMatch(terminalOnly)
      // Nothing from node_modules: the command line is parsed by node's own util.parseArgs.
      expect(files).not.toMatch(/[\\/]node_modules[\\/]/)
    }
    // a session list piped needs neither the JS tab-separated writer nor the renderings
    expect(loaded(['sessions', 'list', 'claude'], amux)).not.toMatch(/[\\/](tsv|render)\.js$/m)
    // a start reads its own command's file only; --version reads none, nor the binding
    const ours = (files) => files.split('\n').filter((f) => f.startsWith(root) && !f.includes('record-modules')).map((f) => f.slice(root.length).replaceAll('\\', '/')).sort()
    expect(ours(loaded(['--version'], amux))).toEqual(['bin/amux.js', 'cli/lib/cli.js', 'cli/main.js', 'package.json'])
    expect(ours(loaded(['sessions', 'search', 'flaky'], amux)).filter((f) => f.startsWith('cli/commands/'))).toEqual(['cli/commands/sessions/search.js'])
    if (!ptyAvailable) ctx.skip()
    // the same table code on a terminal, where it draws
    expect(loaded(['cost', 'report'], term)).toMatch(/cli-table3/)
  })

  it('cost report: a TOTAL row of zeros; --json is the all-zero CostSummary', () => {
    expect(amux(['cost', 'report'], { home })).toEqual({ status: 0, stdout: 'TOTAL\t0\t0\t0\t0\t0\t0\n', stderr: '' })
    if (ptyAvailable) {
      const human = term(['cost', 'report'], { home })
      expect(human.status).toBe(0)
      expect(strip(human.stdout).split('\n')[1]).toMatch(/^TOTAL\s+0\s+0\s+0\s+0\s+0\s+\$0\.00$/)
      expect(human.stdout).toContain('0 sessions, $0.00 in total')
    }
    for (const groupBy of ['agent', 'model', 'day', 'tag']) {
      const r = amux(['cost', 'report', '--group-by', groupBy, '--since', '30d', '--json'], { home })
      expect(r.status).toBe(0)
      const summary = JSON.parse(r.stdout)
      expect(summary).toMatchObject({ totalUsd: 0, inputTokens: 0, outputTokens: 0, sessionCount: 0, runCount: 0 })
    }
    if (ptyAvailable) {
      const grouped = term(['cost', 'report', '--group-by', 'model'], { home })
      expect(strip(grouped.stdout).split('\n')[0]).toMatch(/^MODEL\s+SESSIONS\s+INPUT\s+OUTPUT\s+THINKING\s+CACHED\s+COST$/)
    }
  })
})

describe('exit codes: 0 success, 1 the call failed, 2 the command line was wrong; one stderr line', () => {
  it('unknown agent → AGENT_NOT_FOUND, exit 2, for every command that names an agent, in every spelling', () => {
    const cases = [
      ['sessions', 'list', 'nope'],
      ['sessions', 'show', 'nope', 'x'],
      ['sessions', 'show', 'nope:x'],
      ['sessions', 'export', 'nope', 'x'],
      ['sessions', 'diff', 'nope:a', 'claude:b'],
      ['sessions', 'diff', 'claude', 'a', 'nope', 'b'],
      ['sessions', 'search', 'x', '--agent', 'nope'],
      ['cost', 'report', '--agent', 'nope'],
    ]
    for (const args of cases) expectFailure(amux(args, { home }), 2, 'AGENT_NOT_FOUND', "'nope'", 'claude, codex')
  })

  it('missing session → SESSION_NOT_FOUND naming the id, exit 1', () => {
    expectFailure(amux(['sessions', 'show', 'claude', 'abc-123'], { home }), 1, 'SESSION_NOT_FOUND', "'abc-123'")
    for (const format of ['json', 'jsonl', 'markdown']) {
      const r = amux(['sessions', 'export', 'codex', 'zz9', '--format', format], { home })
      expectFailure(r, 1, 'SESSION_NOT_FOUND', "'zz9'", 'codex')
    }
    expectFailure(amux(['sessions', 'diff', 'claude:left', 'codex:right'], { home }), 1, 'SESSION_NOT_FOUND', "'left'")
    // a bare id is looked for in every agent
    expectFailure(amux(['sessions', 'show', 'abc-123'], { home }), 1, 'SESSION_NOT_FOUND', "'abc-123'", 'any agent')
  })

  it('bad dates → VALIDATION_ERROR naming the parameter and the value, exit 2', () => {
    const cases = [
      [['sessions', 'list', 'claude', '--since', 'yesterdayish'], 'since'],
      [['sessions', 'list', 'claude', '--until', '2025-02-31'], 'until'],
      [['sessions', 'search', 'x', '--since', '2025-13-01'], 'since'],
      [['sessions', 'search', 'x', '--until', '12 days'], 'until'],
      [['cost', 'report', '--since', '01/02/2025'], 'since'],
    ]
    for (const [args, name] of cases) expectFailure(amux(args, { home }), 2, 'VALIDATION_ERROR', `: ${name} must be a date, ISO 8601`, `not '${args.at(-1)}'`)
  })

  it('bad formats and choices → VALIDATION_ERROR, exit 2', () => {
    const cases = [
      [['sessions', 'show', 'claude', 'x', '--format', 'xml'], "'xml'"],
      [['sessions', 'export', 'claude', 'x', '--format', 'yaml'], "'yaml'"],
      [['sessions', 'list', 'claude', '--sort', 'size'], "'size'"],
      [['sessions', 'search', 'x', '--sort', 'turns'], "'turns'"],
      [['cost', 'report', '--group-by', 'hour'], "'hour'"],
      [['sessions', 'list', 'claude', '--limit=-3'], "limit must be a whole number from 1 up, not '-3'"],
      [['sessions', 'list', 'claude', '--limit', 'ten'], "limit must be a whole number from 1 up, not 'ten'"],
      [['sessions', 'diff', 'claude', 'x'], 'expected 2 sessions, each as <agent>:<id>, <agent> <id>, or a unique prefix'],
      [['sessions', 'diff', 'claude:a', 'codex:b', 'c'], 'expected 2 sessions'],
      [['sessions', 'show', 'claude:'], "'claude:' names no session id"],
    ]
    for (const [args, mention] of cases) expectFailure(amux(args, { home }), 2, 'VALIDATION_ERROR', mention)
  })

  it('unknown commands and options, missing arguments → exit 2', () => {
    expectFailure(amux(['sessions', 'frob'], { home }), 2, 'VALIDATION_ERROR', "'frob'")
    expectFailure(amux(['frob'], { home }), 2, 'VALIDATION_ERROR', "'frob'")
    expectFailure(amux(['sessions', 'list', 'claude', '--bogus'], { home }), 2, 'VALIDATION_ERROR', "unknown parameter 'bogus'")
    expectFailure(amux(['sessions', 'list', 'claude', '--limt', '3'], { home }), 2, 'VALIDATION_ERROR', "unknown parameter 'limt' (did you mean 'limit'?)")
    expectFailure(amux(['sessions', 'list', 'claude', 'codex'], { home }), 2, 'VALIDATION_ERROR', 'too many arguments')
    expectFailure(amux(['sessions', 'show', 'claude'], { home }), 2, 'VALIDATION_ERROR', "missing the session-id after 'claude'")
    expectFailure(amux(['sessions', 'show'], { home }), 2, 'VALIDATION_ERROR', "'session'")
  })

  it('resume and fork say the run API is not part of this package, exit 1', () => {
    for (const verb of ['resume', 'fork']) {
      expectFailure(amux(['sessions', verb, 'claude', 'abc', '--model', 'x'], { home }), 1, 'CAPABILITY_ERROR', 'run API', verb)
    }
  })
})

describe('with --json, every error is JSON on stdout: { error: { code, message } }, the same exit status', () => {
  // The commands that take --json, as their help says; each is listed below with its failures.
  const JSON_COMMANDS = ['sessions list', 'sessions search', 'sessions diff', 'index status', 'index rebuild', 'cost report']
  const expectJsonError = (result, status, code, ...mentions) => {
    expect(result.status).toBe(status)
    expect(result.stderr).toBe('')
    const parsed = JSON.parse(result.stdout)
    expect(Object.keys(parsed)).toEqual(['error'])
    expect(Object.keys(parsed.error)).toEqual(['code', 'message'])
    expect(parsed.error.code).toBe(code)
    for (const m of mentions) expect(parsed.error.message).toContain(m)
    return parsed.error
  }

  it('the commands that take --json are the ones listed here', () => {
    const groups = { sessions: ['list', 'show', 'search', 'export', 'share', 'diff', 'resume', 'fork'], index: ['status', 'rebuild', 'clear'], cost: ['report'] }
    const all = Object.entries(groups).flatMap(([g, names]) => names.map((n) => `${g} ${n}`))
    const taking = all.filter((c) => /^ {2}--json\s/m.test(amux([...c.split(' '), '--help'], { home }).stdout))
    expect(taking).toEqual(JSON_COMMANDS)
  })

  it('usage errors: an unknown option, a bad value, a missing or extra argument, an unknown agent (exit 2)', () => {
    for (const command of JSON_COMMANDS) {
      const words = command.split(' ')
      expectJsonError(amux([...words, '--bogus', '--json'], { home }), 2, 'VALIDATION_ERROR', "unknown parameter 'bogus'")
      // --json anywhere before `--`, even before the mistake
      expectJsonError(amux([...words, '--json', '--bogus'], { home }), 2, 'VALIDATION_ERROR', "'bogus'")
    }
    const cases = [
      [['sessions', 'list', 'claude', '--limit', 'ten', '--json'], 'VALIDATION_ERROR', 'limit must be a whole number'],
      [['sessions', 'list', '--since', 'yesterdayish', '--json'], 'VALIDATION_ERROR', 'since must be a date'],
      [['sessions', 'list', 'claude', 'codex', '--json'], 'VALIDATION_ERROR', 'too many arguments'],
      [['sessions', 'list', 'nope', '--json'], 'AGENT_NOT_FOUND', "'nope'", 'claude, codex'],
      [['sessions', 'search', '--json'], 'VALIDATION_ERROR', "'query'"],
      [['sessions', 'search', 'x', '--sort', 'turns', '--json'], 'VALIDATION_ERROR', "'turns'"],
      [['sessions', 'search', 'x', '--agent', 'nope', '--json'], 'AGENT_NOT_FOUND', "'nope'"],
      [['sessions', 'diff', '--json'], 'VALIDATION_ERROR', "'sessions'"],
      [['sessions', 'diff', 'claude', 'x', '--json'], 'VALIDATION_ERROR', 'expected 2 sessions'],
      [['sessions', 'diff', 'nope:a', 'claude:b', '--json'], 'AGENT_NOT_FOUND', "'nope'"],
      [['index', 'status', 'extra', '--json'], 'VALIDATION_ERROR', 'too many arguments'],
      [['cost', 'report', '--group-by', 'hour', '--json'], 'VALIDATION_ERROR', "'hour'"],
      [['cost', 'report', '--agent', 'nope', '--json'], 'AGENT_NOT_FOUND', "'nope'"],
    ]
    for (const [args, code, ...mentions] of cases) expectJsonError(amux(args, { home }), 2, code, ...mentions)
  })

  it('failed calls (exit 1), with the message the line on stderr would have had', () => {
    const json = expectJsonError(amux(['sessions', 'diff', 'claude:left', 'codex:right', '--json'], { home }), 1, 'SESSION_NOT_FOUND', "'left'")
    expectFailure(amux(['sessions', 'diff', 'claude:left', 'codex:right'], { home }), 1, 'SESSION_NOT_FOUND', `: ${json.message}`)
    const off = { home, env: { AGENT_MUX_NO_CACHE: '1' } }
    expectJsonError(amux(['index', 'rebuild', '--json'], off), 2, 'VALIDATION_ERROR', 'the index is off')
    expectFailure(amux(['index', 'rebuild'], off), 2, 'VALIDATION_ERROR', 'the index is off')
  })

  it('without --json, or on a command that takes none, or after --, errors stay one line on stderr', () => {
    expectFailure(amux(['sessions', 'list', 'nope'], { home }), 2, 'AGENT_NOT_FOUND')
    expectFailure(amux(['sessions', 'show', 'claude', 'abc', '--json'], { home }), 2, 'VALIDATION_ERROR', "unknown parameter 'json'")
    expectFailure(amux(['sessions', '--json'], { home }), 2, 'VALIDATION_ERROR', "unknown parameter 'json'")
    expectFailure(amux(['sessions', 'list', 'nope', '--', '--json'], { home }), 2, 'VALIDATION_ERROR', 'too many arguments')
  })
})

describe('colour', () => {
  const bold = '\x1b[1m'
  it('on a terminal unless NO_COLOR (or FORCE_COLOR=0); never on a pipe, even with FORCE_COLOR', (ctx) => {
    if (!ptyAvailable) ctx.skip()
    expect(term(['cost', 'report'], { home }).stdout).toContain(`${bold}TOTAL`)
    expect(term(['cost', 'report'], { home, env: { NO_COLOR: '1' } }).stdout).not.toContain('\x1b[')
    expect(term(['cost', 'report'], { home, env: { FORCE_COLOR: '0' } }).stdout).not.toContain('\x1b[')
    expect(amux(['cost', 'report'], { home, env: { FORCE_COLOR: '1' } }).stdout).not.toContain('\x1b[')
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
  const ids = (list) => list.map((s) => s.unifiedId)
  const at = { home: demoHome }
  const needs = (ctx, pty = false) => {
    if (!Object.keys(found).length || (pty && !ptyAvailable)) ctx.skip()
  }
  const sh = (command) => spawnSync('sh', ['-c', command], { encoding: 'utf8', env: cleanEnv(demoHome, {}), cwd: root })

  it('sessions list --json is the API list; piped, one tab-separated line per session that cut -f reads', async (ctx) => {
    needs(ctx)
    for (const [agent, list] of Object.entries(found)) {
      const json = amux(['sessions', 'list', agent, '--json'], at)
      expect(json.status).toBe(0)
      const parsed = JSON.parse(json.stdout)
      expect(ids(parsed)).toEqual(ids(list))
      expect(parsed[0].createdAt).toBe(list[0].createdAt.toISOString())
      const piped = amux(['sessions', 'list', agent], at)
      expect(piped.stderr).toBe('')
      expect(piped.stdout).not.toContain('\x1b[')
      expect(piped.stdout.split('\n').slice(0, -1).map((l) => l.split('\t'))).toEqual(
        list.map((s) => [s.sessionId, s.updatedAt.toISOString(), String(s.turnCount), s.model ?? '', s.cost ? String(Number(s.cost.totalUsd.toFixed(6))) : '', s.title]),
      )
    }
    const [agent, list] = Object.entries(found)[0]
    const cut = sh(`node bin/amux.js sessions list ${agent} | cut -f1`)
    expect(cut.stdout).toBe(list.map((s) => `${s.sessionId}\n`).join(''))
    expect(sh(`node bin/amux.js sessions list ${agent} | wc -l`).stdout.trim()).toBe(String(list.length))
  })

  it('--cwd keeps the sessions started in that directory, for list, search and cost report', async (ctx) => {
    needs(ctx)
    const all = Object.values(found).flat()
    const cwd = all.find((s) => s.cwd && all.some((o) => o.cwd && o.cwd !== s.cwd))?.cwd
    if (!cwd) ctx.skip()
    // a relative spelling is taken from where amux runs, and means the same directory
    for (const spelling of [cwd, `${cwd}/sub/..`]) {
      for (const [agent, list] of Object.entries(found)) {
        const got = JSON.parse(amux(['sessions', 'list', agent, '--cwd', spelling, '--json'], at).stdout)
        expect(ids(got)).toEqual(ids(list.filter((s) => s.cwd === cwd)))
      }
      const hits = JSON.parse(amux(['sessions', 'search', 'the', '--cwd', spelling, '--json'], at).stdout)
      const expected = await api.search({ text: 'the', cwd })
      expect(ids(hits)).toEqual(ids(expected))
      expect(hits.length).toBeGreaterThan(0)
      expect(hits.every((s) => s.cwd === cwd)).toBe(true)
      const cost = JSON.parse(amux(['cost', 'report', '--cwd', spelling, '--json'], at).stdout)
      expect(cost).toEqual(JSON.parse(JSON.stringify(await api.totalCost({ cwd }))))
      expect(cost.sessionCount).toBe(all.filter((s) => s.cwd === cwd).length)
    }
  })

  it('sessions list without an agent: every agent newest first; piped, agent:id first; --json is listAll', async (ctx) => {
    needs(ctx)
    const every = await api.listAll()
    expect(new Set(every.map((s) => s.agent))).toEqual(new Set(Object.keys(found)))
    const json = amux(['sessions', 'list', '--json'], at)
    expect(json.stderr).toBe('')
    expect(ids(JSON.parse(json.stdout))).toEqual(ids(every))
    const piped = amux(['sessions', 'list'], at)
    expect(piped.stderr).toBe('')
    const cost = (s) => (s.cost ? String(Number(s.cost.totalUsd.toFixed(6))) : '')
    expect(piped.stdout.split('\n').slice(0, -1).map((l) => l.split('\t'))).toEqual(
      every.map((s) => [s.unifiedId, s.updatedAt.toISOString(), String(s.turnCount), s.model ?? '', cost(s), s.title]),
    )
    // the options are list's: filters, sort, limit
    const cwd = every.find((s) => s.cwd).cwd
    const options = ['--sort', 'cost', '--limit', '4', '--cwd', cwd, '--since', '2020-01-01']
    const want = await api.listAll({ sort: 'cost', limit: 4, cwd, since: new Date(2020, 0, 1) })
    expect(want.length).toBe(4)
    expect(amux(['sessions', 'list', ...options], at).stdout.split('\n').slice(0, -1).map((l) => l.split('\t')[0])).toEqual(ids(want))
    expect(ids(JSON.parse(amux(['sessions', 'list', ...options, '--json'], at).stdout))).toEqual(ids(want))
  })

  it('sessions list without an agent on a terminal: agent:short-id rows that paste into show, a count line', async (ctx) => {
    needs(ctx, true)
    const every = await api.listAll()
    for (const args of [[], ['--limit', '5'], ['--since', '2020-01-01']]) {
      const r = term(['sessions', 'list', ...args], { ...at, cols: 120 })
      expect(r.status).toBe(0)
      const lines = strip(r.stdout).trimEnd().split('\n')
      expect(lines[0]).toMatch(/^SESSION\s+UPDATED\s+TURNS\s+MODEL\s+COST\s+TITLE$/)
      const rows = lines.slice(1, -1)
      const shown = args[0] === '--limit' ? every.slice(0, 5) : every
      expect(rows).toHaveLength(shown.length)
      expect(lines.at(-1)).toBe(args[0] === '--limit' ? '5 sessions shown, more with a higher --limit' : `${every.length} sessions`)
      rows.forEach((row, i) => {
        const id = row.split(' ')[0]
        expect(id.startsWith(`${shown[i].agent}:`)).toBe(true)
        expect(shown[i].unifiedId.startsWith(id)).toBe(true)
        expect(width(row)).toBeLessThanOrEqual(120)
      })
    }
    // each short id names its session: show prints that session's export
    const lines = strip(term(['sessions', 'list', '--limit', '3'], at).stdout).split('\n').slice(1, 4)
    for (const [i, line] of lines.entries()) {
      const id = line.split(' ')[0]
      expect(id.length).toBeLessThan(every[i].unifiedId.length)
      expect(JSON.parse(amux(['sessions', 'show', id, '--format', 'json'], at).stdout).unifiedId).toBe(every[i].unifiedId)
    }
    const wide = strip(term(['sessions', 'list', '--wide', '--limit', '2'], { ...at, cols: 200 }).stdout).split('\n')
    expect(wide.slice(1, 3).map((l) => l.split(' ')[0])).toEqual(ids(every.slice(0, 2)))
  })

  it('search piped: one line per hit, agent:id in full, the snippet last', async (ctx) => {
    needs(ctx)
    const expected = await api.search({ text: 'kubernetes' })
    if (!expected.length) ctx.skip()
    const lines = amux(['sessions', 'search', 'kubernetes'], at).stdout.trimEnd().split('\n')
    expect(lines.map((l) => l.split('\t')[0])).toEqual(ids(expected))
    expect(lines.map((l) => l.split('\t').at(-1))).toEqual(expected.map((s) => s.snippet ?? ''))
    expect(JSON.parse(amux(['sessions', 'search', 'kubernetes', '--json'], at).stdout).map((s) => s.unifiedId)).toEqual(ids(expected))
  })

  // CJK titles are in gemini, pi and hermes; 80, 100 and 200 columns as people have them.
  for (const cols of [80, 100, 200]) {
    it(`on a ${cols}-column terminal: lines fit, ids are short, the title gets every column left`, async (ctx) => {
      needs(ctx, true)
      for (const [agent, list] of Object.entries(found)) {
        const r = term(['sessions', 'list', agent], { ...at, cols })
        expect(r.status).toBe(0)
        const lines = strip(r.stdout).trimEnd().split('\n')
        expect(lines[0]).toMatch(/^SESSION\s+UPDATED\s+TURNS\s+MODEL\s+COST\s+TITLE$/)
        expect(lines).toHaveLength(list.length + 2)
        const titleAt = lines[0].indexOf('TITLE')
        list.forEach((s, i) => {
          const line = lines[i + 1]
          expect(width(line)).toBeLessThanOrEqual(cols)
          const shown = line.split(' ')[0]
          // the shortest prefix (8 at least) that no other session of the agent starts with
          expect(shown.length).toBeGreaterThanOrEqual(Math.min(8, s.sessionId.length))
          expect(s.sessionId.startsWith(shown)).toBe(true)
          expect(list.filter((o) => o.sessionId.startsWith(shown))).toHaveLength(1)
          if (s.sessionId.length > 8 && !agent.startsWith('opencode')) expect(shown.length).toBe(8)
          // whole, or cut with … where the line meets the edge (one column short for a CJK character)
          const whole = s.title.replace(/\s+/g, ' ').trim()
          if (line.endsWith(whole)) return
          expect(line.endsWith('…')).toBe(true)
          expect(cols - width(line)).toBeLessThanOrEqual(1)
          const cut = line.slice(0, -1)
          expect([...Array(whole.length).keys()].some((n) => n > 8 && cut.endsWith(whole.slice(0, n)))).toBe(true)
        })
        expect(lines.at(-1)).toBe(`${list.length} ${agent} session${list.length === 1 ? '' : 's'}`)
      }
    })
  }

  it('on a terminal the count line says when --limit left sessions out; piped and --json get exactly the limit', async (ctx) => {
    needs(ctx, true)
    const [agent, list] = Object.entries(found).find(([, l]) => l.length >= 2)
    const footer = (args) => strip(term(args, at).stdout).trimEnd().split('\n').at(-1)
    expect(footer(['sessions', 'list', agent, '--limit', '1'])).toBe(`1 ${agent} session shown, more with a higher --limit`)
    expect(footer(['sessions', 'list', agent, '--limit', String(list.length)])).toBe(`${list.length} ${agent} sessions`)
    const hits = await api.search({ text: 'the' })
    expect(hits.length).toBeGreaterThanOrEqual(3)
    expect(footer(['sessions', 'search', 'the', '--limit', '2'])).toBe('2 matching sessions shown, more with a higher --limit')
    expect(footer(['sessions', 'search', 'the', '--limit', String(hits.length)])).toBe(`${hits.length} matching sessions`)
    // the sessions shown are the API's first two, in its order
    const shown = [...strip(term(['sessions', 'search', 'the', '--limit', '2', '--wide'], at).stdout).matchAll(/^\d+\s+(\w+:\S+)/gm)]
    expect(shown.map((m) => m[1])).toEqual(ids(hits.slice(0, 2)))
    expect(amux(['sessions', 'search', 'the', '--limit', '2'], at).stdout.trimEnd().split('\n')).toHaveLength(2)
    expect(JSON.parse(amux(['sessions', 'list', agent, '--limit', '1', '--json'], at).stdout)).toHaveLength(1)
  })

  it('--wide shows ids in full on a terminal', (ctx) => {
    needs(ctx, true)
    const [agent, list] = Object.entries(found)[0]
    const lines = strip(term(['sessions', 'list', agent, '--wide'], at).stdout).split('\n')
    list.forEach((s, i) => expect(lines[i + 1].startsWith(`${s.sessionId}  `)).toBe(true))
    const hits = strip(term(['sessions', 'search', 'kubernetes', '--wide'], at).stdout)
    const short = strip(term(['sessions', 'search', 'kubernetes'], at).stdout)
    for (const m of short.matchAll(/^\d+\s+(\w+):(\S+)/gm)) {
      expect(m[2].length).toBeLessThan(36)
      expect(hits).toMatch(new RegExp(`^\\d+\\s+${m[1]}:${m[2]}\\S{${36 - m[2].length}}\\s`, 'm'))
    }
  })

  it('an id any command printed works in show, export and diff: agent:id, agent id, a unique prefix', async (ctx) => {
    needs(ctx, true)
    const [agent, list] = Object.entries(found)[0]
    const s = list[0]
    const short = strip(term(['sessions', 'list', agent], at).stdout).split('\n')[1].split(' ')[0]
    const hit = strip(term(['sessions', 'search', 'kubernetes'], at).stdout).match(/^1\s+(\S+)/m)[1]
    const expected = (await api.export(agent, s.sessionId, 'json')).trimEnd()
    for (const spelling of [[`${agent}:${s.sessionId}`], [agent, s.sessionId], [`${agent}:${short}`], [agent, short], [short]]) {
      const r = amux(['sessions', 'export', ...spelling], at)
      expect(r.stderr).toBe('')
      expect(r.stdout.trimEnd()).toBe(expected)
    }
    const [hitAgent, hitShort] = [hit.slice(0, hit.indexOf(':')), hit.slice(hit.indexOf(':') + 1)]
    const full = (await api.search({ text: 'kubernetes' }))[0]
    expect(full.unifiedId.startsWith(hit)).toBe(true)
    expect(amux(['sessions', 'show', hit, '--format', 'json'], at).stdout).toContain(`"unifiedId": "${full.unifiedId}"`)
    const diff = amux(['sessions', 'diff', hit, agent, short, '--json'], at)
    expect(diff.status).toBe(0)
    expect(JSON.parse(diff.stdout).a.unifiedId).toBe(full.unifiedId)
    expect(JSON.parse(diff.stdout).b.unifiedId).toBe(s.unifiedId)
    expect(hitAgent).toBe(full.agent)
    expect(hitShort.length).toBeGreaterThanOrEqual(8)
  })

  it('an ambiguous prefix is a command-line error (exit 2) naming every candidate', async (ctx) => {
    needs(ctx)
    // the first character shared by the most sessions across all agents
    const all = Object.values(found).flat()
    const byFirst = {}
    for (const s of all) (byFirst[s.sessionId[0]] ??= []).push(s)
    const [prefix, shared] = Object.entries(byFirst).sort((a, b) => b[1].length - a[1].length)[0]
    expect(shared.length).toBeGreaterThan(1)
    const r = amux(['sessions', 'show', prefix], at)
    expectFailure(r, 2, 'VALIDATION_ERROR', `'${prefix}' is ambiguous: ${shared.length} sessions start with it`, ...shared.map((s) => s.unifiedId))
    // within one agent the same prefix may be unique, or ambiguous among that agent's only
    const first = shared[0]
    const mine = shared.filter((s) => s.agent === first.agent)
    const scoped = amux(['sessions', 'export', first.agent, prefix], at)
    if (mine.length === 1) expect(JSON.parse(scoped.stdout).unifiedId).toBe(first.unifiedId)
    else expectFailure(scoped, 2, 'VALIDATION_ERROR', ...mine.map((s) => s.unifiedId))
  })

  it('show on a terminal is rendered for reading; piped or with --format it is the exact export', async (ctx) => {
    needs(ctx, true)
    const s = found.claude?.find((x) => x.title.includes('flaky')) ?? found.claude?.[0]
    if (!s) ctx.skip()
    const markdown = await api.export('claude', s.sessionId, 'markdown')
    expect(amux(['sessions', 'show', s.unifiedId], at).stdout.trimEnd()).toBe(markdown.trimEnd())
    expect(term(['sessions', 'show', s.unifiedId, '--format', 'markdown'], at).stdout.trimEnd()).toBe(markdown.trimEnd())
    const session = await api.get('claude', s.sessionId)
    // Tokyo time, to see that times are local: nine hours after UTC
    const local = (d) => new Date(d.getTime() + 9 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ')
    const r = term(['sessions', 'show', s.unifiedId], { ...at, rows: 500, env: { TZ: 'Asia/Tokyo' } })
    expect(r.status).toBe(0)
    const text = strip(r.stdout)
    const lines = text.split('\n')
    expect(lines[0]).toBe(session.title)
    expect(lines[2].startsWith(local(session.createdAt))).toBe(true)
    expect(text).not.toMatch(/\\[_*`#]/)
    expect(text).not.toContain('### ')
    expect(text).not.toContain('**')
    // roles in colour, durations and token counts for people
    expect(r.stdout).toMatch(/\x1b\[1m\x1b\[32mUser\x1b\[0m/)
    expect(r.stdout).toMatch(/\x1b\[1m\x1b\[36mAssistant\x1b\[0m/)
    const call = session.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.durationMs >= 60_000)
    if (call) expect(text).toContain(`▸ ${call.toolName} · ${Math.floor(call.durationMs / 60_000)}m ${Math.round((call.durationMs % 60_000) / 1000)}s`)
    expect(text).toContain(`${session.cost.inputTokens.toLocaleString('en-US')} input`)
    expect(session.cost.inputTokens).toBeGreaterThan(999)
    // code kept: a tool's output line for line
    const output = session.messages.find((m) => m.toolResult)?.content
    if (output) for (const line of output.trimEnd().split('\n')) expect(text).toContain(`  ${line}`)
  })

  it('show pages through $PAGER when longer than the screen, and only then', (ctx) => {
    needs(ctx, true)
    const s = Object.values(found).flat()[0]
    const pager = { PAGER: 'sed "s/^/paged: /"' }
    const short = term(['sessions', 'show', s.unifiedId], { ...at, rows: 10, env: pager }).stdout.trimEnd().split('\n')
    expect(short.length).toBeGreaterThan(10)
    expect(short.every((l) => l.startsWith('paged: '))).toBe(true)
    const tall = term(['sessions', 'show', s.unifiedId], { ...at, rows: 1000, env: pager }).stdout
    expect(tall).not.toContain('paged: ')
    // a pager that is not there: the text is shown all the same
    const missing = term(['sessions', 'show', s.unifiedId], { ...at, rows: 10, env: { PAGER: 'no-such-pager-amux' } })
    expect(strip(missing.stdout).split('\n')[0]).toBe(s.title)
  })

  it('diff on a terminal marks the changed words of every modified message; piped, one line per operation', async (ctx) => {
    needs(ctx, true)
    const all = Object.values(found).flat()
    const hits = await api.search({ text: 'kubernetes' })
    const [a, b] = hits.length >= 2 ? hits : all
    const expected = await api.diff(a, b)
    const mods = expected.operations.filter((op) => op.type === 'modification')
    if (!mods.length) ctx.skip()
    const json = JSON.parse(amux(['sessions', 'diff', a.unifiedId, b.unifiedId, '--json'], at).stdout)
    expect(json.stats).toEqual(expected.stats)
    const piped = amux(['sessions', 'diff', a.unifiedId, b.unifiedId], at).stdout.trimEnd().split('\n')
    expect(piped.map((l) => l.split('\t')[0])).toEqual(expected.operations.map((op) => op.type))
    for (const [env, removed, added] of [
      [{}, /\x1b\[1m\x1b\[31m[^\x1b]+\x1b\[0m/, /\x1b\[1m\x1b\[32m[^\x1b]+\x1b\[0m/],
      [{ NO_COLOR: '1' }, /\[-.+?-\]/, /\{\+.+?\+\}/],
    ]) {
      const out = term(['sessions', 'diff', a.unifiedId, b.unifiedId], { ...at, cols: 100, env }).stdout.split('\n')
      const { unchanged, modifications, additions, removals } = expected.stats
      expect(strip(out[2])).toBe(`${unchanged} unchanged, ${modifications} modified, ${additions} added, ${removals} removed`)
      const rowsA = out.filter((l) => strip(l).startsWith('~'))
      expect(rowsA).toHaveLength(mods.length)
      for (const rowA of rowsA) {
        const rowB = out[out.indexOf(rowA) + 1]
        expect(rowA).toMatch(removed)
        expect(rowB).toMatch(added)
        expect(width(rowA)).toBeLessThanOrEqual(100)
      }
    }
  })

  it('cost report --group-by on a terminal: a bar per group scaled to the largest; piped: tsv, notes on stderr', async (ctx) => {
    needs(ctx, true)
    const expected = await api.totalCost({ groupBy: 'agent' })
    const json = JSON.parse(amux(['cost', 'report', '--group-by', 'agent', '--json'], at).stdout)
    expect(json).toEqual(JSON.parse(JSON.stringify(expected)))
    const groups = Object.values(expected.breakdowns).sort((x, y) => y.totalUsd - x.totalUsd || x.key.localeCompare(y.key))
    const lines = strip(term(['cost', 'report', '--group-by', 'agent'], { ...at, cols: 100 }).stdout).split('\n')
    const barOf = (line) => width((/[█▏▎▍▌▋▊▉]*$/.exec(line) ?? [''])[0])
    const rows = groups.map((g) => lines.find((l) => l.startsWith(`${g.key} `)))
    const bars = rows.map(barOf)
    expect(bars[0]).toBe(Math.max(...bars))
    expect(bars[0]).toBeGreaterThanOrEqual(6)
    groups.forEach((g, i) => {
      expect(width(rows[i])).toBeLessThanOrEqual(100)
      // a bar measures its cost against the largest, to an eighth of a column
      expect(Math.abs(bars[i] - (g.totalUsd / groups[0].totalUsd) * bars[0])).toBeLessThanOrEqual(1)
      if (g.totalUsd === 0) expect(bars[i]).toBe(0)
    })
    expect(barOf(lines.find((l) => l.startsWith('TOTAL')))).toBe(0)
    const piped = amux(['cost', 'report', '--group-by', 'agent'], at)
    const tsvRows = piped.stdout.trimEnd().split('\n').map((l) => l.split('\t'))
    expect(tsvRows.map((r) => r[0])).toEqual([...groups.map((g) => g.key), 'TOTAL'])
    expect(tsvRows.at(-1)[1]).toBe(String(expected.sessionCount))
    if (found.cursor) expect(piped.stderr).toMatch(/^note: no token counts were recorded for \d+ sessions? \(cursor\)/)
  })

  it('the unknown-cost note names every day holding a session without token counts, wrapped at words', async (ctx) => {
    needs(ctx, true)
    if (!found.cursor) ctx.skip()
    const days = [...new Set(found.cursor.map((s) => s.createdAt.toISOString().slice(0, 10)))].sort()
    for (const cols of [80, 100]) {
      const out = strip(term(['cost', 'report', '--group-by', 'day'], { ...at, cols }).stdout).trimEnd().split('\n')
      const from = out.findIndex((l) => l.startsWith('note: no token counts'))
      expect(from).toBeGreaterThan(0)
      const note = out.slice(from).filter((l, i) => i === 0 || l.startsWith('      '))
      for (const line of note) expect(width(line)).toBeLessThanOrEqual(cols)
      const text = note.map((l) => l.trim()).join(' ')
      expect(text).toContain(`(cursor) on ${days.join(', ')}, so`)
      // no word was cut: every day is whole on one line
      for (const day of days) expect(note.some((l) => l.includes(day))).toBe(true)
    }
  })
})
