// Hostile stores: every case has an expected outcome (skipped, or a typed error), and none may hang,
// crash Node, or read outside the store.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { createClient, AgentMuxError } from '../index.mjs'
import { removeDir, snapshot, withHome, repoRoot } from './helpers.mjs'

const fixtures = join(repoRoot, '__test__', 'fixtures', 'hostile')
const good = (id) =>
  [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: id, timestamp: '2026-01-02T03:04:05.000Z', cwd: '/w',
      message: { role: 'user', content: `hello from ${id}` } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: id, timestamp: '2026-01-02T03:04:06.000Z', cwd: '/w',
      requestId: 'r1', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hi' }],
        usage: { input_tokens: 3, output_tokens: 4 } } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n'

let home
let outside
let project
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-hostile-'))
  outside = mkdtempSync(join(tmpdir(), 'amux-outside-'))
  project = join(home, '.claude', 'projects', '-w')
  mkdirSync(project, { recursive: true })
  const put = (name, content) => writeFileSync(join(project, name), content)
  put('11111111-1111-4111-8111-111111111111.jsonl', good('11111111-1111-4111-8111-111111111111'))
  for (const f of ['truncated', 'garbage', 'invalid-utf8', 'nul-bytes']) {
    copyFileSync(join(fixtures, `${f}.jsonl`), join(project, `${f}.jsonl`))
  }
  put('empty.jsonl', '')
  put('deep.jsonl', '['.repeat(100_000) + '\n' + good('deep').split('\n')[0] + '\n')
  // a 100 MB single line, written in chunks
  const fd = openSync(join(project, 'huge-line.jsonl'), 'w')
  const chunk = Buffer.alloc(1 << 20, 'a')
  writeSync(fd, '{"type":"user","message":{"role":"user","content":"')
  for (let i = 0; i < 100; i++) writeSync(fd, chunk)
  writeSync(fd, '"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}\n')
  closeSync(fd)
  mkdirSync(join(project, 'dir-named-like-a-session.jsonl'))
  symlinkSync(project, join(project, 'loop'))
  writeFileSync(join(outside, 'secret.jsonl'), good('22222222-2222-4222-8222-222222222222'))
  symlinkSync(join(outside, 'secret.jsonl'), join(project, '22222222-2222-4222-8222-222222222222.jsonl'))
  symlinkSync(outside, join(home, '.claude', 'projects', 'escape'))
  execFileSync('mkfifo', [join(project, 'fifo.jsonl')])
  put('unreadable.jsonl', good('unreadable'))
  chmodSync(join(project, 'unreadable.jsonl'), 0o000)
  // databases that are not, or are damaged
  for (const db of [join(home, '.hermes', 'state.db'), join(home, '.local', 'share', 'opencode', 'opencode.db')]) {
    mkdirSync(dirname(db), { recursive: true })
    copyFileSync(join(fixtures, 'not-a-database.db'), db)
  }
}, 120_000)

afterAll(() => {
  removeDir(home)
  removeDir(outside)
})

describe('hostile stores', () => {
  it('list reads what it can, skips the rest, and never leaves the store', async () => {
    const before = snapshot(home)
    await withHome(home, async () => {
      const { sessions } = createClient()
      const ids = (await sessions.list('claude', { limit: 1000 })).map((s) => s.sessionId)
      expect(ids).not.toContain('22222222-2222-4222-8222-222222222222') // symlink out of the store
      expect(ids).not.toContain('dir-named-like-a-session')
      expect(ids).not.toContain('fifo')
      expect(ids).not.toContain('garbage')
      expect(await sessions.list('hermes')).toEqual([])
      expect(await sessions.list('opencode')).toEqual([])
      expect(Array.isArray(await sessions.search({ text: 'hello' }))).toBe(true)
      const cost = await sessions.totalCost()
      expect(cost.sessionCount).toBe(ids.length)
    })
    expect(snapshot(home)).toEqual(before)
  }, 120_000)

  it('get on damaged data is a typed error, never a crash', async () => {
    await withHome(home, async () => {
      const { sessions } = createClient()
      for (const id of ['garbage', 'empty', 'fifo', 'dir-named-like-a-session', '22222222-2222-4222-8222-222222222222']) {
        const err = await sessions.get('claude', id).then(() => null, (e) => e)
        expect(err, id).toBeInstanceOf(AgentMuxError)
        expect(['PARSE_ERROR', 'SESSION_NOT_FOUND'], id).toContain(err.code)
      }
      const hermes = await sessions.get('hermes', '20260101_000000_abcdef').then(() => null, (e) => e)
      expect(hermes).toBeInstanceOf(AgentMuxError)
      expect(['PARSE_ERROR', 'SESSION_NOT_FOUND']).toContain(hermes.code)
    })
  }, 120_000)
})
