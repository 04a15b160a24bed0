// amux doctor, run for real: on the demo home every agent is named and read (exit 0); with an
// override variable set it names the variable and its path; with a FIFO where a session file
// goes, a database that is not one and a Pi header of a future version it exits 1 naming each
// with its path; --json carries the same facts as the text.
import { describe, it, expect, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, cpSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync, execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { BUILT_IN_AGENTS } from '../index.mjs'
import { repoRoot, demoHome, copyDemoHome, removeDir } from './helpers.mjs'

const require = createRequire(import.meta.url)
const bin = join(repoRoot, 'bin', 'amux.js')
const { version } = require('../package.json')

// Variables that would send an agent's reader somewhere other than the home under test.
const STRAY = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME', 'NO_COLOR',
  'FORCE_COLOR', 'USERPROFILE', 'XDG_CONFIG_HOME', 'OMP_PROFILE', 'OMP_HOME', 'OPENCLAW_HOME',
  'CLAWDBOT_STATE_DIR', 'CURSOR_CONFIG_DIR',
]

function amux(args, { home, env = {} }) {
  const base = { ...process.env, TZ: 'UTC' }
  for (const name of STRAY) delete base[name]
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...base, HOME: home, ...env }, timeout: 60_000 })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** The text and the JSON of one home, each with its exit status. */
function both(home, env) {
  const text = amux(['doctor'], { home, env })
  const json = amux(['doctor', '--json'], { home, env })
  return { text, json, report: JSON.parse(json.stdout) }
}

/** Every fact of the JSON that a person needs is in the text too. */
function sameFacts(report, text) {
  for (const a of report.agents) {
    expect(text).toContain(a.agent)
    for (const p of a.places) expect(text).toContain(p.path)
    for (const p of a.places.filter((p) => p.chosenBy)) expect(text).toContain(`${p.path}  ← ${p.chosenBy}`)
    if (a.stores > 0) expect(text).toContain(`${a.sessions} session`)
    for (const g of a.skipped) {
      expect(text).toContain(`${g.kind}: ${g.count}`)
      for (const s of g.first) expect(text).toContain(`${s.path}  — ${s.detail}`)
    }
    for (const v of a.versions) expect(text).toContain(`${v.field} ${v.version} (${v.sources})`)
    if (a.retention) expect(text).toContain(`${a.retention.setting} ${a.retention.days} days`)
  }
  expect(text).toContain(`index      ${report.index.dir}`)
  expect(text).toContain(`node ${report.versions.node}, addon ${report.versions.addon}`)
}

const made = []
afterAll(() => made.forEach(removeDir))

describe('amux doctor', () => {
  it('names every agent of the demo home, reads them all and exits 0', () => {
    const { text, json, report } = both(demoHome)
    expect(text.status).toBe(0)
    expect(json.status).toBe(0)
    expect(report.agents.map((a) => a.agent)).toEqual(BUILT_IN_AGENTS)
    expect(report.skipped).toBe(0)
    for (const a of report.agents) expect(a.sessions).toBeGreaterThan(0)
    expect(report.versions).toEqual({ node: process.versions.node, addon: version })
    const claude = report.agents.find((a) => a.agent === 'claude')
    expect(claude.places[0]).toEqual({ path: join(demoHome, '.claude'), chosenBy: null, exists: true })
    expect(claude.retention).toMatchObject({ setting: 'cleanupPeriodDays', days: 30, default: true })
    expect(text.stdout).toContain(`${join(demoHome, '.claude')}  ← default under HOME`)
    expect(text.stdout).toContain('every store found was read')
    // Piped: plain lines, no colour.
    expect(text.stdout).not.toMatch(/\x1b\[/)
    sameFacts(report, text.stdout)
  })

  it('names the override variable in effect and the path it chose', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'amux-doctor-'))
    made.push(tmp)
    const custom = join(tmp, 'claude-config')
    mkdirSync(join(custom, 'projects'), { recursive: true })
    cpSync(join(demoHome, '.claude', 'projects'), join(custom, 'projects'), { recursive: true })
    writeFileSync(join(custom, 'settings.json'), '{"cleanupPeriodDays": 14}')
    const codex = join(tmp, 'codex-home')
    cpSync(join(demoHome, '.codex'), codex, { recursive: true })
    const home = join(tmp, 'home')
    mkdirSync(home)
    const env = { CLAUDE_CONFIG_DIR: custom, CODEX_HOME: codex }
    const { text, report } = both(home, env)
    expect(text.status).toBe(0)
    const claude = report.agents.find((a) => a.agent === 'claude')
    expect(claude.places[0]).toEqual({ path: custom, chosenBy: 'CLAUDE_CONFIG_DIR', exists: true })
    expect(claude.sessions).toBe(3)
    expect(claude.retention).toMatchObject({ file: join(custom, 'settings.json'), days: 14, default: false })
    const cx = report.agents.find((a) => a.agent === 'codex')
    expect(cx.places).toEqual([{ path: codex, chosenBy: 'CODEX_HOME', exists: true }])
    expect(cx.sessions).toBe(3)
    expect(text.stdout).toContain(`${custom}  ← CLAUDE_CONFIG_DIR`)
    expect(text.stdout).toContain(`${codex}  ← CODEX_HOME`)
    expect(text.stdout).toContain('cleanupPeriodDays 14 days')
    sameFacts(report, text.stdout)
  })

  it.runIf(process.platform !== 'win32')('exits 1 naming what it could not read and a future format version', () => {
    const home = copyDemoHome()
    made.push(home)
    const fifo = join(home, '.claude', 'projects', '-home-dev-src-shop', 'pipe.jsonl')
    execFileSync('mkfifo', [fifo])
    const db = join(home, '.hermes', 'state.db')
    writeFileSync(db, 'not a database\n'.repeat(200))
    const pi = join(
      home, '.pi', 'agent', 'sessions', '--home-dev-src-shop--',
      '2026-10-11T08-23-12-000Z_22dd113c-c8c4-4276-b36c-1575a71a56c6.jsonl',
    )
    writeFileSync(pi, readFileSync(pi, 'utf8').replace('"version":3', '"version":99'))
    const { text, json, report } = both(home)
    expect(text.status).toBe(1)
    expect(json.status).toBe(1)
    expect(report.skipped).toBe(3)
    const skips = (agent) => report.agents.find((a) => a.agent === agent).skipped
    expect(skips('claude')).toEqual([
      { kind: 'unreadable', count: 1, first: [{ path: fifo, detail: expect.stringContaining('FIFO') }] },
    ])
    expect(skips('hermes')).toMatchObject([{ kind: 'not understood', count: 1, first: [{ path: db }] }])
    expect(skips('pi')).toMatchObject([{ kind: 'unknown format version', count: 1, first: [{ path: pi }] }])
    expect(skips('pi')[0].first[0].detail).toContain('version 99')
    expect(text.stdout).toContain('3 sources skipped')
    for (const p of [fifo, db, pi]) expect(text.stdout).toContain(p)
    expect(text.stdout).toContain('version 99 (1), newer than known')
    sameFacts(report, text.stdout)
  })
})
