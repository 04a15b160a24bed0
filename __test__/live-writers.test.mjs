// Live writers: while another process appends to a Claude session and a Codex rollout (torn lines
// included) and inserts Hermes sessions into a WAL database it holds open, list/get/search run in
// a loop. No call may fail, every session returned must be internally consistent, and nothing in
// the home may be written by us: only the writer's own files change, and once it has closed the
// database, reading it again creates no -wal or -shm.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { createClient } from '../index.mjs'
import { countTurns, genHome, removeDir, repoRoot, requirePython, snapshot, withHome } from './helpers.mjs'

const SECONDS = 6

/** Everything a session must agree with itself on; returns the problems found. */
function inconsistencies(s) {
  const out = []
  if (s.messageCount !== s.messages.length) out.push(`messageCount ${s.messageCount} != ${s.messages.length}`)
  if (s.turnCount !== countTurns(s.messages)) out.push(`turnCount ${s.turnCount} != ${countTurns(s.messages)}`)
  if (s.updatedAt < s.createdAt) out.push('updatedAt before createdAt')
  const calls = new Map()
  for (const [i, m] of s.messages.entries()) {
    for (const c of m.toolCalls ?? []) {
      if (calls.has(c.toolCallId)) out.push(`tool call ${c.toolCallId} twice`)
      calls.set(c.toolCallId, { call: c, answered: false })
    }
    if (m.toolResult) {
      const c = calls.get(m.toolResult.toolCallId)
      if (!c) out.push(`message ${i}: result for unknown call ${m.toolResult.toolCallId}`)
      else c.answered = true
    }
  }
  for (const [id, { call, answered }] of calls) {
    // a call whose result is not written yet has no output; one with a result carries it
    if (answered !== (call.output !== undefined)) out.push(`tool call ${id}: answered=${answered}, output=${call.output !== undefined}`)
  }
  return out
}

let home
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-live-'))
  genHome(home, ['--sessions', '9', '--seed', '5', '--scale', '1', '--agents', 'claude,codex,hermes'])
})
afterAll(() => home && removeDir(home))

describe('live writers', () => {
  it('list/get/search stay consistent and write nothing while agents write', async () => {
    const before = snapshot(home)
    const hermesDir = join(home, '.hermes')
    const writer = spawn(requirePython(), [join(repoRoot, '__test__', 'live-writer.py'), home, String(SECONDS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const lines = createInterface({ input: writer.stdout })[Symbol.asyncIterator]()
    expect((await lines.next()).value).toBe('ready')
    const finished = new Promise((resolve) => writer.on('exit', (code) => resolve(code)))
    let done = false
    finished.then(() => (done = true))

    const stats = { rounds: 0, gets: 0, searches: 0 }
    const seen = { claude: [], codex: [] } // every get of the growing sessions, in order
    const problems = []
    let hermesIds = new Set()
    await withHome(home, async () => {
      const { sessions } = createClient()
      while (!done) {
        stats.rounds++
        for (const agent of ['claude', 'codex', 'hermes']) {
          const list = await sessions.list(agent, { limit: 1000 })
          const ids = new Set(list.map((s) => s.sessionId))
          if (agent === 'hermes') {
            // committed sessions never disappear, and each is complete (one transaction)
            for (const id of hermesIds) if (!ids.has(id)) problems.push(`hermes ${id} vanished`)
            hermesIds = ids
          }
          for (const summary of list) {
            const full = await sessions.get(agent, summary.sessionId)
            stats.gets++
            for (const p of inconsistencies(full)) problems.push(`${agent} ${summary.sessionId}: ${p}`)
            if (agent === 'hermes') {
              // gen_home writes four messages per turn: user, tool call, tool result, answer
              if (full.messages.length !== 4 * full.turnCount) problems.push(`hermes ${summary.sessionId}: torn session`)
              if (summary.messageCount !== full.messages.length) problems.push(`hermes ${summary.sessionId}: list/get differ`)
            } else if (summary.messageCount > full.messages.length) {
              problems.push(`${agent} ${summary.sessionId}: shrank from ${summary.messageCount} to ${full.messages.length}`)
            }
            seen[agent]?.push(full)
          }
        }
        for (const q of [{ text: 'kubernetes' }, { text: 'step', agent: 'hermes' }, { text: 'Let me check', agent: 'claude' }]) {
          const hits = await sessions.search(q)
          stats.searches++
          for (const h of hits) if (h.messageCount < 1) problems.push(`search hit ${h.sessionId} has no messages`)
        }
        // only the writer's database files may be beside state.db
        for (const f of readdirSync(hermesDir)) {
          if (!['state.db', 'state.db-wal', 'state.db-shm'].includes(f)) problems.push(`unexpected ${f}`)
        }
      }
    })
    expect(await finished).toBe(0)
    const written = JSON.parse((await lines.next()).value)
    expect(problems).toEqual([])
    expect(stats.rounds).toBeGreaterThan(2)

    // If one of our reads still had the db open when the writer closed it, SQLite kept the
    // writer's -wal/-shm (only the last connection removes them). Let the writer open and close its
    // db once more, as the agent would on its next run, so the check below sees its clean state.
    if (existsSync(join(hermesDir, 'state.db-wal'))) {
      execFileSync(requirePython(), ['-c', 'import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.execute("select count(*) from sqlite_master").fetchall(); c.close()', join(hermesDir, 'state.db')])
    }

    // Files other than the writer's are byte-identical; the writer's are the two new session files
    // and the Hermes db, whose -wal and -shm it removed on close.
    const during = snapshot(home)
    const writerFiles = [written.claude.path, written.codex.path, join(hermesDir, 'state.db')]
    for (const [p, v] of before) if (!writerFiles.includes(p)) expect(during.get(p), p).toBe(v)
    const added = [...during.keys()].filter((p) => !before.has(p)).sort()
    expect(added.filter((p) => during.get(p) !== "dir")).toEqual(
      [written.claude.path, written.codex.path].sort(),
    )

    await withHome(home, async () => {
      const { sessions } = createClient()
      // every Hermes session the writer committed is there, complete
      const hermes = await sessions.list('hermes', { limit: 1000 })
      for (const id of written.hermes) expect(hermes.map((s) => s.sessionId)).toContain(id)
      expect(hermes.length).toBe(3 + written.hermes.length)
      // each growing session, read while torn, was a prefix of the final one: earlier messages
      // never change, only the last may still be growing
      for (const agent of ['claude', 'codex']) {
        const final = await sessions.get(agent, written[agent].id)
        expect(inconsistencies(final)).toEqual([])
        const views = seen[agent].filter((s) => s.sessionId === written[agent].id)
        expect(views.length).toBeGreaterThan(2)
        let grew = 0
        for (const [k, v] of views.entries()) {
          const stable = v.messages.slice(0, -1).map((m) => [m.role, m.content])
          expect(stable, `${agent} view ${k}`).toEqual(final.messages.slice(0, stable.length).map((m) => [m.role, m.content]))
          if (k > 0 && v.messages.length > views[k - 1].messages.length) grew++
          expect(v.messages.length).toBeGreaterThanOrEqual(k > 0 ? views[k - 1].messages.length : 0)
        }
        expect(grew).toBeGreaterThan(1)
      }
      await sessions.search({ text: 'kubernetes' })
    })
    // reading the closed database again created nothing and changed nothing
    expect(snapshot(home)).toEqual(during)
    expect(readdirSync(hermesDir)).toEqual(['state.db'])
    console.log(`live writers: ${stats.rounds} rounds, ${stats.gets} gets, ${stats.searches} searches, ` +
      `${written.hermes.length} hermes sessions inserted, ${written.claude.lines}+${written.codex.lines} lines appended`)
  }, 120_000)
})
