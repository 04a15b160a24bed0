// Session calls run off the JS thread: while many of them are in flight (on one client and on
// several), timers keep firing. The home holds a few thousand small Claude Code sessions in the
// real layout (~/.claude/projects/<cwd-slug>/<sessionId>.jsonl, lines shaped like Claude Code
// 2.1 transcripts), so the calls have real work to do once the Claude reader is in.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { createClient } from '../index.mjs'

const SESSIONS = 3000
const STRAY = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB',
  'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR', 'OPENCLAW_STATE_DIR', 'HERMES_HOME', 'AGENT_MUX_CONFIG_DIR']

function claudeSession(i, cwd) {
  const sessionId = randomUUID()
  const start = Date.UTC(2025, 0, 1) + i * 60_000
  const common = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.233', gitBranch: 'main' }
  const userUuid = randomUUID()
  const user = {
    parentUuid: null,
    ...common,
    type: 'user',
    message: { role: 'user', content: `Why does kubernetes job ${i} restart its pod?` },
    uuid: userUuid,
    timestamp: new Date(start).toISOString(),
  }
  const assistant = {
    parentUuid: userUuid,
    ...common,
    message: {
      model: 'claude-sonnet-4-5-20250929',
      id: `msg_${String(i).padStart(8, '0')}`,
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: `Job ${i}: the liveness probe fails before the app listens; raise initialDelaySeconds.` }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048, output_tokens: 40, service_tier: 'standard' },
    },
    requestId: `req_${String(i).padStart(8, '0')}`,
    type: 'assistant',
    uuid: randomUUID(),
    timestamp: new Date(start + 4000).toISOString(),
  }
  return { sessionId, text: `${JSON.stringify(user)}\n${JSON.stringify(assistant)}\n` }
}

let home
let saved
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-busy-'))
  const cwd = '/home/dev/platform'
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'))
  mkdirSync(dir, { recursive: true })
  for (let i = 0; i < SESSIONS; i++) {
    const { sessionId, text } = claudeSession(i, cwd)
    writeFileSync(join(dir, `${sessionId}.jsonl`), text)
  }
  saved = { ...process.env }
  for (const name of STRAY) delete process.env[name]
  process.env.HOME = home
}, 120_000)

afterAll(() => {
  process.env = saved
  rmSync(home, { recursive: true, force: true })
})

describe('the event loop stays free', () => {
  it('timers fire while many list/search/totalCost/get calls are in flight on two clients', async () => {
    const clients = [createClient().sessions, createClient().sessions]
    const ticks = []
    const timer = setInterval(() => ticks.push(performance.now()), 5)
    const started = performance.now()
    let inFlight = 0
    let ticksWhileBusy = 0
    let rounds = 0
    // Keep calls in flight for at least 400 ms, whatever the readers cost today: a blocking call
    // would starve the 5 ms timer for as long as it ran.
    while (performance.now() - started < 400) {
      const before = ticks.length
      inFlight = 0
      const batch = []
      for (const s of clients) {
        batch.push(s.list('claude', { limit: 5000 }), s.search({ text: 'kubernetes', limit: 10 }), s.totalCost({ groupBy: 'model' }))
        batch.push(s.get('claude', 'no-such-session').catch((e) => e.code))
      }
      inFlight = batch.length
      const results = await Promise.all(batch)
      ticksWhileBusy += ticks.length - before
      rounds++
      // Every call answered with the same shape each time: lists agree across clients.
      expect(results[0]).toEqual(results[4])
      expect(results[3]).toBe('SESSION_NOT_FOUND')
    }
    clearInterval(timer)
    const elapsed = performance.now() - started
    let maxGap = 0
    for (let i = 1; i < ticks.length; i++) maxGap = Math.max(maxGap, ticks[i] - ticks[i - 1])
    console.log(
      `event loop: ${rounds} rounds of ${inFlight} concurrent calls over ${SESSIONS} sessions in ${elapsed.toFixed(0)} ms; ` +
        `${ticksWhileBusy} timer ticks while calls were pending, largest gap ${maxGap.toFixed(1)} ms`,
    )
    // 400 ms of 5 ms ticks is ~80; a loop blocked by the calls would see (next to) none.
    expect(ticksWhileBusy).toBeGreaterThanOrEqual(20)
  })
})
