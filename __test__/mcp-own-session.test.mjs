// `amux mcp` leaves the calling agent's own live session out of its results: run for real, as the
// agent would start it (in its working directory, with what it sets in the environment, or
// giving MCP roots), over a home of a few Claude sessions written for the test: one in the
// server's directory written a minute ago (the caller's), one there an hour ago, and one written
// a minute ago elsewhere.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import { removeDir } from './helpers.mjs'
import { connect, textOf } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const { OwnSession } = require('../mcp/own-session.js')

const MINUTE = 60_000
const WORD = 'marmoset'

/** A Claude session of two messages about WORD, in `cwd`, its last line written `agoMs` ago. */
function writeClaude(home, id, cwd, agoMs) {
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'))
  mkdirSync(dir, { recursive: true })
  const end = Date.now() - agoMs
  const line = (i, role, text) =>
    JSON.stringify({
      type: role,
      sessionId: id,
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      parentUuid: i ? `00000000-0000-4000-8000-${String(i - 1).padStart(12, '0')}` : null,
      cwd,
      timestamp: new Date(end - (1 - i) * 5000).toISOString(),
      message: role === 'user' ? { role, content: text } : { role, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
    })
  const file = join(dir, `${id}.jsonl`)
  writeFileSync(file, `${line(0, 'user', `what does the ${WORD} job in ${cwd} do`)}\n${line(1, 'assistant', `the ${WORD} job runs nightly`)}\n`)
  utimesSync(file, new Date(end), new Date(end))
}

const OWN = '0a0a0a0a-1111-4222-8333-444444444444'
const OLDER = '0b0b0b0b-1111-4222-8333-444444444444'
const ELSEWHERE = '0c0c0c0c-1111-4222-8333-444444444444'
const id = (s) => `claude:${s}`

let home
let work
let other
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-own-home-'))
  work = mkdtempSync(join(tmpdir(), 'amux-own-work-'))
  other = mkdtempSync(join(tmpdir(), 'amux-own-other-'))
  writeClaude(home, OWN, work, MINUTE)
  writeClaude(home, OLDER, work, 60 * MINUTE)
  writeClaude(home, ELSEWHERE, other, MINUTE)
})
afterAll(() => {
  for (const dir of [home, work, other]) if (dir) removeDir(dir)
})

const listed = async (server, args = {}) => (await server.client.callTool({ name: 'list_sessions', arguments: args })).structuredContent.sessions.map((s) => s.id).sort()
const found = async (server, args = {}) => (await server.client.callTool({ name: 'search_sessions', arguments: { query: WORD, ...args } })).structuredContent.hits.map((h) => h.id).sort()
const read = (server, session, args = {}) => server.client.callTool({ name: 'read_session', arguments: { id: session, ...args } })

describe('started in the working directory of a live session', () => {
  let server
  beforeAll(async () => {
    server = await connect(home, { cwd: work })
  })
  afterAll(() => server?.close())

  it('list_sessions and search_sessions leave it out, and keep the older one there and the one elsewhere', async () => {
    expect(await listed(server)).toEqual([id(OLDER), id(ELSEWHERE)].sort())
    expect(await found(server)).toEqual([id(OLDER), id(ELSEWHERE)].sort())
  })

  it('includeOwnSession brings it back', async () => {
    const all = [id(OWN), id(OLDER), id(ELSEWHERE)].sort()
    expect(await listed(server, { includeOwnSession: true })).toEqual(all)
    expect(await found(server, { includeOwnSession: true })).toEqual(all)
  })

  it('a limit still gives that many of the others', async () => {
    expect(await listed(server, { limit: 2 })).toEqual([id(OLDER), id(ELSEWHERE)].sort())
    expect(await listed(server, { limit: 1 })).toEqual([id(ELSEWHERE)])
  })

  it('read_session refuses it, saying how to read it; includeOwnSession reads it', async () => {
    const refused = await read(server, id(OWN))
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^SESSION_NOT_FOUND: .*session this call is made from.*includeOwnSession: true/)
    const byPrefix = await read(server, OWN.slice(0, 8))
    expect(byPrefix.isError).toBe(true)
    const whole = await read(server, id(OWN), { includeOwnSession: true })
    expect(whole.isError).toBeFalsy()
    expect(textOf(whole)).toContain(`the ${WORD} job runs nightly`)
    expect((await read(server, id(OLDER))).isError).toBeFalsy()
  })

  it('every tool that lists or reads sessions says how to include it', async () => {
    const { tools } = await server.client.listTools()
    for (const name of ['list_sessions', 'search_sessions', 'read_session']) {
      const tool = tools.find((t) => t.name === name)
      expect(tool.description, name).toContain('includeOwnSession: true')
      expect(tool.inputSchema.properties.includeOwnSession).toMatchObject({ type: 'boolean', default: false })
    }
  })
})

describe('the session the agent names in the environment', () => {
  it('CLAUDE_CODE_SESSION_ID: only that session is left out, wherever the server runs', async () => {
    const server = await connect(home, { cwd: work, env: { CLAUDE_CODE_SESSION_ID: ELSEWHERE } })
    try {
      expect(await listed(server)).toEqual([id(OWN), id(OLDER)].sort())
      expect(await found(server)).toEqual([id(OWN), id(OLDER)].sort())
      expect((await read(server, id(ELSEWHERE))).isError).toBe(true)
      expect(await listed(server, { includeOwnSession: true })).toHaveLength(3)
    } finally {
      await server.close()
    }
  })
})

describe("the client's MCP roots", () => {
  it('a live session in a root is left out as one in the server\'s directory is', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'amux-own-cwd-'))
    const server = await connect(home, { cwd: elsewhere, roots: [pathToFileURL(other).href] })
    try {
      expect(await listed(server)).toEqual([id(OWN), id(OLDER)].sort())
      expect(await found(server)).toEqual([id(OWN), id(OLDER)].sort())
    } finally {
      await server.close()
      removeDir(elsewhere)
    }
  })

  it('a server started anywhere else, with no roots, leaves nothing out', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'amux-own-cwd-'))
    const server = await connect(home, { cwd: elsewhere })
    try {
      expect(await listed(server)).toHaveLength(3)
    } finally {
      await server.close()
      removeDir(elsewhere)
    }
  })
})

describe('OwnSession', () => {
  const now = () => Date.parse('2026-11-28T12:00:00Z')
  const at = (ago) => new Date(now() - ago)
  it('matches a directory with or without its trailing separator, within ten minutes', () => {
    const own = new OwnSession({ env: {}, cwd: '/work/repo/', now })
    expect(own.is({ agent: 'codex', sessionId: 'x', cwd: '/work/repo', updatedAt: at(9 * MINUTE) })).toBe(true)
    expect(own.is({ agent: 'codex', sessionId: 'x', cwd: '/work/repo/', updatedAt: at(0) })).toBe(true)
    expect(own.is({ agent: 'codex', sessionId: 'x', cwd: '/work/repo', updatedAt: at(11 * MINUTE) })).toBe(false)
    expect(own.is({ agent: 'codex', sessionId: 'x', cwd: '/work/repo/sub', updatedAt: at(0) })).toBe(false)
    expect(own.is({ agent: 'codex', sessionId: 'x', updatedAt: at(0) })).toBe(false)
  })
  it('takes the id an agent sets over the directory, and skips roots that are not files', () => {
    const codex = new OwnSession({ env: { CODEX_THREAD_ID: ' 0199 ' }, cwd: '/work/repo', now })
    expect(codex.named).toEqual({ agent: 'codex', sessionId: '0199' })
    expect(codex.is({ agent: 'codex', sessionId: '0199', cwd: '/elsewhere', updatedAt: at(99 * MINUTE) })).toBe(true)
    expect(codex.is({ agent: 'claude', sessionId: '0199', cwd: '/work/repo', updatedAt: at(0) })).toBe(false)
    const rooted = new OwnSession({ env: {}, cwd: '/work/repo', now })
    rooted.setRoots([{ uri: 'https://example.com/x' }, { uri: 'file:///srv/app' }, { uri: 'file://%%%' }, {}])
    expect(rooted.is({ agent: 'pi', sessionId: 'y', cwd: '/srv/app', updatedAt: at(0) })).toBe(true)
    expect(rooted.is({ agent: 'pi', sessionId: 'y', cwd: '/work/repo', updatedAt: at(0) })).toBe(true)
  })
})
