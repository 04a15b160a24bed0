// Hostile stores: every case has an expected outcome (skipped, or a typed error), and none may hang,
// crash Node, or read outside the store.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { createClient, AgentMuxError } from '../index.mjs'
import { removeDir, requirePython, snapshot, withHome, repoRoot } from './helpers.mjs'

const fixtures = join(repoRoot, '__test__', 'fixtures', 'hostile')
const good = (id) =>
  [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: id, timestamp: '2026-01-02T03:04:05.000Z', cwd: '/w',
      message: { role: 'user', content: `hello from ${id}` } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: id, timestamp: '2026-01-02T03:04:06.000Z', cwd: '/w',
      requestId: 'r1', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'hi' }],
        usage: { input_tokens: 3, output_tokens: 4 } } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n'

// Windows has no FIFOs or device files, and chmod cannot make a file unreadable there: those
// cases are POSIX-only (their ids then read as not found, like any absent file). Its symlinks need
// Developer Mode or administrator rights, which GitHub's runners have; without them the symlink
// cases are left out the same way.
const posix = process.platform !== 'win32'
const link = (target, path) => {
  try {
    symlinkSync(target, path)
  } catch (e) {
    if (posix || e.code !== 'EPERM') throw e
    console.warn(`no symlinks on this Windows (EPERM): ${path} left out`)
  }
}

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
  // a 60 MB single line (under the 64 MiB line ceiling), written in chunks
  const fd = openSync(join(project, 'huge-line.jsonl'), 'w')
  const chunk = Buffer.alloc(1 << 20, 'a')
  writeSync(fd, '{"type":"user","message":{"role":"user","content":"')
  for (let i = 0; i < 60; i++) writeSync(fd, chunk)
  writeSync(fd, '"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}\n')
  closeSync(fd)
  mkdirSync(join(project, 'dir-named-like-a-session.jsonl'))
  link(project, join(project, 'loop'))
  writeFileSync(join(outside, 'secret.jsonl'), good('22222222-2222-4222-8222-222222222222'))
  link(join(outside, 'secret.jsonl'), join(project, '22222222-2222-4222-8222-222222222222.jsonl'))
  link(outside, join(home, '.claude', 'projects', 'escape'))
  if (posix) execFileSync('mkfifo', [join(project, 'fifo.jsonl')])
  put('unreadable.jsonl', good('unreadable'))
  chmodSync(join(project, 'unreadable.jsonl'), 0o000)
  // device files named like sessions: a symlink to /dev/zero (outside the store) and, where the
  // system lets us make one, a character device inside the store
  if (posix) {
    symlinkSync('/dev/zero', join(project, '33333333-3333-4333-8333-333333333333.jsonl'))
    try {
      execFileSync('mknod', [join(project, '44444444-4444-4444-8444-444444444444.jsonl'), 'c', '1', '5'], { stdio: 'ignore' })
    } catch {
      console.warn('mknod not permitted: the in-store device case is covered by the /dev/zero symlink only')
    }
  }
  // databases that are not, or are damaged
  for (const db of [join(home, '.hermes', 'state.db'), join(home, '.local', 'share', 'opencode', 'opencode.db')]) {
    mkdirSync(dirname(db), { recursive: true })
    copyFileSync(join(fixtures, 'not-a-database.db'), db)
  }
  // a table missing and cells of the wrong types, in dbs built with the agents' tables
  execFileSync(requirePython(), [join(repoRoot, '__test__', 'hostile-dbs.py'), home])
}, 120_000)

afterAll(() => {
  removeDir(home)
  removeDir(outside)
})

const AGENTS = ['claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'pi', 'omp', 'openclaw', 'hermes']
// mode 000 stops no one as root, and nothing on Windows (see `posix`)
const readsUnreadable = process.getuid?.() === 0 || !posix
const damagedDbs = () => existsSync(join(home, '.hermes', 'profiles', 'types', 'state.db'))
const asRoot = process.getuid?.() === 0
const inStoreDevice = () => {
  try {
    return lstatSync(join(project, '44444444-4444-4444-8444-444444444444.jsonl')).isCharacterDevice()
  } catch {
    return false
  }
}
const codeOf = (p) => p.then(() => 'ok', (e) => (e instanceof AgentMuxError ? e.code : `untyped: ${e}`))

describe('hostile stores', () => {
  it('list reads what it can, skips the rest, and never leaves the store', async () => {
    const before = snapshot(home)
    await withHome(home, async () => {
      const { sessions } = createClient()
      const list = await sessions.list('claude', { limit: 1000 })
      const byId = Object.fromEntries(list.map((s) => [s.sessionId, s.messageCount]))
      // read: the good session, the 100k-`[` file's good line, the 100 MB line, invalid UTF-8
      // (repaired) and, as root or on Windows, the mode-000 file. Skipped: torn-only, garbage, raw NUL
      // inside a string (invalid JSON), empty, a directory, a FIFO, symlinks out of the store
      // (a session and /dev/zero), a device, and the symlink loop.
      const expected = { '11111111-1111-4111-8111-111111111111': 2, deep: 1, 'huge-line': 1, 'invalid-utf8': 1 }
      if (readsUnreadable) expected.unreadable = 2
      expect(byId).toEqual(expected)
      // the db without its messages table is skipped; wrong types read with defaults
      expect((await sessions.list('hermes')).map((s) => [s.sessionId, s.messageCount])).toEqual([['20260101_000000_bbbbbb', 1]])
      expect((await sessions.list('opencode')).map((s) => [s.sessionId, s.messageCount])).toEqual([['ses_wrongtypes00000000000001', 0]])
      const hits = await sessions.search({ text: 'hello from', agent: 'claude' })
      expect(hits.map((h) => h.sessionId).sort()).toEqual(
        ['11111111-1111-4111-8111-111111111111', 'deep', ...(readsUnreadable ? ['unreadable'] : [])],
      )
      const cost = await sessions.totalCost({ agent: 'claude' })
      expect(cost.sessionCount).toBe(list.length)
    })
    expect(snapshot(home)).toEqual(before)
  }, 120_000)

  it('get gives each hostile file its typed outcome', async () => {
    await withHome(home, async () => {
      const { sessions } = createClient()
      const outcomes = {}
      for (const id of ['truncated', 'garbage', 'nul-bytes', 'empty', 'dir-named-like-a-session', 'fifo', 'loop',
        '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444']) {
        outcomes[id] = await codeOf(sessions.get('claude', id))
      }
      expect(outcomes).toEqual({
        truncated: 'PARSE_ERROR', // a torn line and nothing else
        garbage: 'PARSE_ERROR',
        'nul-bytes': 'PARSE_ERROR', // a raw NUL inside a JSON string is not JSON
        empty: 'PARSE_ERROR',
        'dir-named-like-a-session': 'SESSION_NOT_FOUND',
        fifo: 'SESSION_NOT_FOUND', // never opened, so never blocks
        loop: 'SESSION_NOT_FOUND',
        '22222222-2222-4222-8222-222222222222': 'SESSION_NOT_FOUND', // symlink out of the store
        '33333333-3333-4333-8333-333333333333': 'SESSION_NOT_FOUND', // symlink to /dev/zero
        '44444444-4444-4444-8444-444444444444': 'SESSION_NOT_FOUND', // a device, or absent
      })
      expect((await sessions.get('claude', 'invalid-utf8')).messages[0].content).toBe('caf\uFFFD \uFFFD\uFFFD bad utf8')
      expect(await codeOf(sessions.get('claude', 'unreadable'))).toBe(readsUnreadable ? 'ok' : 'PARSE_ERROR')
      // the root state.db is not a database: get names it, whatever other dbs hold
      const hermes = await sessions.get('hermes', '20260101_000000_abcdef').then(() => null, (e) => e)
      expect(hermes.code).toBe('PARSE_ERROR')
      expect(await codeOf(sessions.get('opencode', 'ses_missingpart0000000000001'))).toBe('PARSE_ERROR')
      const typed = await sessions.get('hermes', '20260101_000000_bbbbbb')
      // the BLOB content is decoded lossily; the message whose role is a number is dropped
      expect(typed.messages.map((m) => [m.role, m.content])).toEqual([['user', '\uFFFD\u0000\uFFFD']])
      expect((await sessions.get('opencode', 'ses_wrongtypes00000000000001')).messages).toEqual([])
    })
  }, 120_000)

  it('the 60 MB line and 100k nesting finish in bounded time with exact content', async () => {
    await withHome(home, async () => {
      const { sessions } = createClient()
      let t = Date.now()
      const huge = await sessions.get('claude', 'huge-line')
      const hugeMs = Date.now() - t
      expect(huge.messages.map((m) => m.content.length)).toEqual([60 << 20])
      t = Date.now()
      const deep = await sessions.get('claude', 'deep')
      const deepMs = Date.now() - t
      expect(deep.messages.map((m) => m.content)).toEqual(['hello from deep'])
      // generous bounds for a loaded debug build; a quadratic or unbounded parse takes minutes
      expect(hugeMs).toBeLessThan(30_000)
      expect(deepMs).toBeLessThan(5_000)
      console.log(`hostile: 60 MB line get ${hugeMs} ms, 100k nesting get ${deepMs} ms`)
    })
  }, 120_000)

  it('ids with traversal are refused for every agent before any path is built', async () => {
    await withHome(home, async () => {
      const { sessions } = createClient()
      const ids = ['..', '.', '../../etc/passwd', '/etc/passwd', 'a/../../b', '..\\..\\x', 'C:\\x', '~root', 'x\0y', '']
      for (const agent of AGENTS) {
        for (const id of ids) {
          const code = await codeOf(sessions.get(agent, id))
          expect(['SESSION_NOT_FOUND', 'VALIDATION_ERROR'], `${agent} ${JSON.stringify(id)}`).toContain(code)
        }
        // and through the other id-taking methods
        expect(await codeOf(sessions.export(agent, '../../etc/passwd', 'json'))).toMatch(/SESSION_NOT_FOUND|VALIDATION_ERROR/)
      }
    })
  }, 120_000)
})
