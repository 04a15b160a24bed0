// amux keep, run for real on a private copy of the demo home, amux's config and data directories
// in temporary ones: `keep on` takes copies (directories 0700, files 0600) and `keep status` says
// it is on by the setting; a deleted source still answers, marked archived, in the CLI (--json,
// the terminal's table, the piped lines left as they were), the MCP tools and the UI's API;
// `keep forget` deletes a kept copy (asking first on a terminal); `keep off` stops and says how to
// delete what was kept; a damaged kept copy is never served; bad input is a usage error (exit 2)
// that names the value.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createClient } from '../index.mjs'
import { repoRoot, copyDemoHome, removeDir, python } from './helpers.mjs'
import { inTerminal, ptyAvailable } from './tty.mjs'

const require = createRequire(import.meta.url)
const { createApi } = require('../ui/server/api.js')
const { retentionSentence } = require('../human/keep.js')
const bin = join(repoRoot, 'bin', 'amux.js')

// Variables that would send an agent's reader somewhere other than the home under test.
const STRAY = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME', 'NO_COLOR',
  'FORCE_COLOR', 'COLUMNS', 'USERPROFILE', 'XDG_CONFIG_HOME', 'OMP_PROFILE', 'OMP_HOME', 'OPENCLAW_HOME',
  'CLAWDBOT_STATE_DIR', 'CURSOR_CONFIG_DIR', 'PAGER', 'LESS',
]

// The session whose source is deleted: the demo's Claude session about a flaky checkout test.
const GONE = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'
const GONE_FILE = join('.claude', 'projects', '-home-dev-src-api', '90c192cf-d3ac-44af-8f21-ddb66cad4a26.jsonl')

let top
let home
let env

beforeAll(() => {
  top = mkdtempSync(join(tmpdir(), 'amux-keep-cli-'))
  home = copyDemoHome()
  const base = { ...process.env, TZ: 'UTC' }
  for (const name of STRAY) delete base[name]
  // Not yet there: amux makes them, with its own modes.
  env = { ...base, HOME: home, AGENT_MUX_DATA_DIR: join(top, 'data'), AGENT_MUX_CONFIG_DIR: join(top, 'config') }
})

afterAll(() => {
  removeDir(home)
  removeDir(top)
})

function amux(...args) {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, timeout: 60_000 })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** `amux … --json`, parsed, after checking it succeeded. */
function json(...args) {
  const run = amux(...args, '--json')
  expect(run.stderr, args.join(' ')).toBe('')
  expect(run.status, args.join(' ')).toBe(0)
  return JSON.parse(run.stdout)
}

/** Every directory and file under `dir` (itself included) with its permission bits. */
function modes(dir) {
  const out = [[dir, statSync(dir).mode & 0o777, true]]
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...modes(path))
    else out.push([path, statSync(path).mode & 0o777, false])
  }
  return out
}

// Every usage error is one line `amux: VALIDATION_ERROR: …` on stderr and exit 2.
function expectUsage(run, ...mentions) {
  expect(run.status).toBe(2)
  expect(run.stdout).toBe('')
  const lines = run.stderr.split('\n').filter(Boolean)
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^amux: VALIDATION_ERROR: /)
  for (const m of mentions) expect(lines[0]).toContain(m)
}

describe('amux keep', () => {
  it('is off by default, and says so and why', () => {
    const status = json('keep', 'status')
    expect(status).toMatchObject({ on: false, origin: 'default', dir: join(top, 'data'), sessions: 0, archived: 0 })
    const piped = amux('keep', 'status')
    expect(piped.status).toBe(0)
    const rows = piped.stdout.trimEnd().split('\n').map((l) => l.split('\t'))
    expect(rows.slice(0, 7)).toEqual([
      ['on', 'false'],
      ['origin', 'default'],
      ['dir', join(top, 'data')],
      ['settingFile', status.settingFile],
      ['sessions', '0'],
      ['archived', '0'],
      ['bytes', String(status.bytes)],
    ])
    expect(rows.slice(7)).toEqual(status.retention.map((r) => ['retention', r.agent, String(r.days ?? ''), String(r.atRisk)]))
  })

  it('doctor says what each retention will delete that is not kept, and what keeps it', () => {
    const status = json('keep', 'status')
    const doctor = amux('doctor')
    expect(doctor.status).toBe(0)
    for (const r of status.retention) expect(doctor.stdout).toContain(retentionSentence(r))
    expect(doctor.stdout).toMatch(/keep +off \(the default\), 0 sessions kept/)
    if (status.retention.some((r) => r.atRisk > 0)) expect(doctor.stdout).toContain('`amux keep on` keeps a copy of every session')
  })

  it('on: keeps every session now, in the data directory, directories 0700 and files 0600', () => {
    const listed = json('sessions', 'list', '--limit', '1000000')
    const on = json('keep', 'on')
    expect(on).toMatchObject({ on: true, origin: 'setting', dir: join(top, 'data') })
    expect(on.sessions).toBeGreaterThanOrEqual(listed.length)
    expect(on.bytes).toBeGreaterThan(0)
    const status = json('keep', 'status')
    expect(status).toMatchObject({ on: true, origin: 'setting', archived: 0 })
    expect(status.settingFile.startsWith(join(top, 'config'))).toBe(true)
    for (const [path, mode, isDir] of [...modes(join(top, 'data')), [status.settingFile, statSync(status.settingFile).mode & 0o777, false]]) {
      expect([path, mode.toString(8)]).toEqual([path, isDir ? '700' : '600'])
    }
    // The text says where the copies go and what they cost.
    const text = amux('keep', 'on')
    expect(text.status).toBe(0)
    expect(text.stdout).toContain(`on, by the setting in ${status.settingFile}`)
    expect(text.stdout).toContain(`in ${join(top, 'data')}`)
    expect(text.stdout).toContain('a session that grows costs only what it added')
  })

  it('a deleted source still answers, marked archived, in --json, the table and the counts', (ctx) => {
    const before = json('sessions', 'list', 'claude')
    unlinkSync(join(home, GONE_FILE))
    const only = json('sessions', 'list', '--archived', 'only')
    expect(only.map((s) => [s.unifiedId, s.archived])).toEqual([[GONE, true]])
    // Default include: the same list as before the deletion, that one marked.
    const after = json('sessions', 'list', 'claude')
    expect(after.map((s) => s.unifiedId)).toEqual(before.map((s) => s.unifiedId))
    expect(after.filter((s) => s.archived).map((s) => s.unifiedId)).toEqual([GONE])
    expect(json('sessions', 'list', 'claude', '--archived', 'exclude').map((s) => s.unifiedId)).not.toContain(GONE)
    const hits = json('sessions', 'search', 'flaky', '--archived', 'only')
    expect(hits.map((s) => [s.unifiedId, s.archived])).toEqual([[GONE, true]])
    expect(json('keep', 'status').archived).toBe(1)
    // Billing blocks take archived as the cost reports do: its requests count under include and
    // only, not under exclude.
    const entries = (which) => json('cost', 'blocks', '--archived', which).blocks.reduce((n, b) => n + b.entries, 0)
    const [all, gone, rest] = ['include', 'only', 'exclude'].map(entries)
    expect(gone).toBeGreaterThan(0)
    expect(all).toBe(gone + rest)
    // The report's note on sessions that recorded no tokens counts the sessions the report takes:
    // the archived one recorded tokens, so a report of it alone has no such note.
    const noted = (...args) => amux('cost', 'report', ...args).stderr
    expect(noted()).toContain('no token counts were recorded')
    expect(noted('--archived', 'only')).not.toContain('no token counts were recorded')
    // Piped, the columns stay as scripts read them: six fields, no mark.
    const piped = amux('sessions', 'list', 'claude')
    const lines = piped.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(before.length)
    for (const line of lines) expect(line.split('\t')).toHaveLength(6)
    if (!ptyAvailable) return ctx.skip()
    const shown = inTerminal(process.execPath, [bin, 'sessions', 'list', 'claude'], { cols: 120, env: { ...env, NO_COLOR: '1' } })
    expect(shown.status).toBe(0)
    const row = shown.stdout.split('\n').find((l) => l.startsWith('90c192cf'))
    expect(row).toContain('[archived] Fix flaky checkout flow test on CI')
    expect(shown.stdout).toContain(`${before.length} claude sessions, 1 archived (kept by amux, the agent deleted its source)`)
  })

  it('the MCP tools carry the mark and take archived', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'pipe' })
    const mcp = new Client({ name: 'amux-keep-test', version: '1.0.0' })
    await mcp.connect(transport)
    try {
      const listed = await mcp.callTool({ name: 'list_sessions', arguments: { archived: 'only' } })
      expect(listed.isError).toBeFalsy()
      expect(listed.structuredContent.sessions.map((s) => [s.id, s.archived])).toEqual([[GONE, true]])
      expect(listed.content[0].text).toContain('archived: the agent deleted it, amux kept a copy')
      // The note on sessions without tokens counts only the sessions the report takes.
      const cost = async (archived) => (await mcp.callTool({ name: 'cost_report', arguments: { groupBy: 'agent', archived } })).structuredContent.notes.join('\n')
      expect(await cost('include')).toContain('no token counts were recorded')
      expect(await cost('only')).not.toContain('no token counts were recorded')
      const found = await mcp.callTool({ name: 'search_sessions', arguments: { query: 'flaky', archived: 'exclude' } })
      expect(found.structuredContent.hits.map((h) => h.id)).not.toContain(GONE)
      const read = await mcp.callTool({ name: 'read_session', arguments: { id: GONE } })
      expect(read.isError).toBeFalsy()
      expect(read.content[0].text.split('\n')[0]).toContain('archived: the agent deleted it, amux kept a copy')
    } finally {
      await mcp.close()
    }
  })

  it("the UI's API takes archived and answers /api/keep", async () => {
    const saved = { ...process.env }
    Object.assign(process.env, { HOME: home, AGENT_MUX_DATA_DIR: env.AGENT_MUX_DATA_DIR, AGENT_MUX_CONFIG_DIR: env.AGENT_MUX_CONFIG_DIR })
    try {
      const answer = createApi(createClient())
      const get = async (path) => (await answer(new URL(`http://127.0.0.1/api/${path}`))).json
      const listed = await get('sessions?archived=only')
      expect(listed.sessions.map((s) => [s.unifiedId, s.archived])).toEqual([[GONE, true]])
      const keep = await get('keep')
      expect(keep).toMatchObject({ on: true, origin: 'setting', archived: 1 })
      const lineage = await get(`session/lineage?id=${encodeURIComponent(GONE)}`)
      expect(lineage.archived).toBe(true)
      // The agent cannot resume a session whose file it deleted: the page offers no command.
      const page = await get(`session?id=${encodeURIComponent(GONE)}`)
      expect(page.session.archived).toBe(true)
      expect(page.resume).toBeUndefined()
      const live = listed.sessions.length && (await get('sessions?archived=exclude&agent=claude')).sessions[0]
      expect((await get(`session?id=${encodeURIComponent(live.unifiedId)}`)).resume).toMatch(/^cd .* && claude --resume /)
      const bad = await answer(new URL('http://127.0.0.1/api/sessions?archived=sometimes'))
      expect(bad.status).toBe(400)
    } finally {
      for (const name of ['HOME', 'AGENT_MUX_DATA_DIR', 'AGENT_MUX_CONFIG_DIR']) {
        if (saved[name] === undefined) delete process.env[name]
        else process.env[name] = saved[name]
      }
    }
  })

  it('forget asks first on a terminal, and a no forgets nothing', (ctx) => {
    if (!python || !ptyAvailable) return ctx.skip()
    const answered = answerOnTerminal(['keep', 'forget', GONE], 'n')
    expect(answered.stdout).toContain('Forget the kept copies of 1 session? 1 of them has no source any more and will be gone for good. [y/N]')
    expect(answered.status).toBe(1)
    expect(answered.stderr).toContain('amux: ABORTED: nothing forgotten')
    expect(json('sessions', 'list', '--archived', 'only').map((s) => s.unifiedId)).toEqual([GONE])
  })

  it('forget <id> deletes the kept copy; an archived session is then gone', () => {
    const forgot = amux('keep', 'forget', GONE)
    expect(forgot).toMatchObject({ status: 0, stderr: '' })
    expect(forgot.stdout).toBe('forgot 1 kept session\n')
    expect(json('sessions', 'list', '--archived', 'only')).toEqual([])
    expect(json('keep', 'status').archived).toBe(0)
    const shown = amux('sessions', 'show', GONE)
    expect(shown.status).toBe(1)
    expect(shown.stderr).toMatch(/^amux: SESSION_NOT_FOUND: /)
  })

  it('off: stops keeping and says how to delete what was kept', () => {
    const off = amux('keep', 'off')
    expect(off.status).toBe(0)
    expect(off.stdout).toContain('off, by the setting in')
    const status = json('keep', 'status')
    expect(status).toMatchObject({ on: false, origin: 'setting' })
    expect(status.sessions).toBeGreaterThan(0)
    expect(off.stdout).toContain('amux keep forget --before <date>')
    expect(off.stdout).toContain(`or remove ${join(top, 'data')}`)
  })

  it('forget --before deletes the kept copies of the sessions older than the date, keep off or on', () => {
    const kept = json('keep', 'status').sessions
    expect(kept).toBeGreaterThan(0)
    const result = json('keep', 'forget', '--before', '2099-01-01')
    expect(result.forgotten).toBe(kept)
    expect(json('keep', 'status').sessions).toBe(0)
  })

  it('a damaged kept copy is never served', () => {
    // A store of its own, every live session kept in it, then one source deleted and every chunk garbage.
    const saved = env
    env = { ...env, AGENT_MUX_DATA_DIR: join(top, 'data2'), AGENT_MUX_CONFIG_DIR: join(top, 'config2') }
    try {
      expect(json('keep', 'on').sessions).toBeGreaterThan(0)
      unlinkSync(join(home, '.claude', 'projects', '-home-dev-src-shop', '6513270e-269e-4d37-b2a7-4de452e6b438.jsonl'))
      const chunks = join(top, 'data2', 'kept', 'chunks')
      for (const dir of readdirSync(chunks)) for (const name of readdirSync(join(chunks, dir))) writeFileSync(join(chunks, dir, name), 'garbage')
      expect(json('sessions', 'list', '--archived', 'only')).toEqual([])
      expect(amux('sessions', 'show', 'claude:6513270e-269e-4d37-b2a7-4de452e6b438').status).toBe(1)
      // A new process's status finds it, and counts as archived only what is served; a verify
      // finds the garbage in the live sources' copies too.
      const status = json('keep', 'status')
      expect(status.archived).toBe(0)
      expect(status.damaged.join('\n')).toContain('cannot be served')
      const verified = json('keep', 'status', '--verify')
      expect(verified.damaged.length).toBeGreaterThan(status.damaged.length)
      expect(verified.damaged.filter((d) => d.includes('not a kept chunk')).length).toBeGreaterThan(1)
    } finally {
      env = saved
    }
  })

  it('bad input is a usage error that names it (exit 2)', () => {
    const maybe = amux('keep', 'maybe')
    expect(maybe.status).toBe(2)
    expect(maybe.stderr).toBe("amux: VALIDATION_ERROR: unknown command 'maybe'\n")
    expectUsage(amux('sessions', 'list', '--archived', 'sometimes'), "archived must be one of include, only, exclude, not 'sometimes'")
    expectUsage(amux('keep', 'forget', '--before', 'notadate'), "before must be a date", "not 'notadate'")
    expectUsage(amux('keep', 'forget'), 'name the sessions to forget, or give --before <date>')
    const asJson = amux('keep', 'forget', '--before', 'notadate', '--json')
    expect(asJson.status).toBe(2)
    expect(JSON.parse(asJson.stdout).error.code).toBe('VALIDATION_ERROR')
  })
})

/**
 * amux with stdin and stdout on a terminal, `answer` typed once its question is on the screen:
 * `{ status, stdout, stderr }`, stdout holding the question (which goes to stderr, the terminal).
 */
function answerOnTerminal(args, answer) {
  const runner = `
import os, sys, subprocess, pty, select
master, slave = pty.openpty()
child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
out = b''
sent = False
while True:
    ready, _, _ = select.select([master], [], [], 30)
    if not ready:
        break
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not sent and b'[y/N]' in out:
        os.write(master, sys.argv[1].encode() + b'\\n')
        sent = True
child.wait()
sys.stdout.buffer.write(out)
sys.exit(child.returncode)
`
  const run = spawnSync(python, ['-c', runner, answer, process.execPath, bin, ...args], { encoding: 'utf8', env, timeout: 60_000 })
  const text = run.stdout.replace(/\r\n/g, '\n')
  // stdout and stderr share the terminal: the error line is told apart by its prefix.
  return { status: run.status, stdout: text, stderr: text.split('\n').filter((l) => l.startsWith('amux: ')).join('\n') }
}
