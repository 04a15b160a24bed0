// `amux mcp` over the secret corpus (a session of each of four agents holding one secret of every
// kind in its prompt, title, thinking, tool input and output and answer), run for real and spoken
// to by the MCP SDK's client: every text of every tool, and its structured content, holds none of
// them by default; `amux mcp --no-redact` hands them on.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeDir, requirePython } from './helpers.mjs'
import { connect, textOf } from './mcp-helpers.mjs'
import { SECRETS, SECRET_SESSIONS, leaks, makeSecretHome } from './secrets/corpus.mjs'

const KINDS = SECRETS.map((s) => s.kind)
const IDS = Object.entries(SECRET_SESSIONS).map(([agent, id]) => `${agent}:${id}`)

/**
 * Every tool called the ways that show the sessions' texts: each listing, searches by the words
 * around the secrets and by a secret itself, each session read whole and around a query, every
 * cost report. Each result whole (text and structured content) as one JSON text, by call.
 */
async function everyAnswer(server) {
  const calls = [
    ['list_sessions', {}],
    ['list_sessions', { agent: 'claude' }],
    ...['deploy', 'login', 'rotate', 'credentials', 'Authorization', SECRETS.find((s) => s.kind === 'github-pat').value].map((query) => ['search_sessions', { query, limit: 100 }]),
    ...IDS.flatMap((id) => [
      ['read_session', { id, maxChars: 1_000_000 }],
      ['read_session', { id, around: 'env', context: 0, maxChars: 1_000_000 }],
    ]),
    ...['agent', 'model', 'day'].map((groupBy) => ['cost_report', { groupBy }]),
  ]
  const out = []
  for (const [name, args] of calls) {
    const result = await server.client.callTool({ name, arguments: args })
    expect(result.isError, `${name} ${JSON.stringify(args)}: ${result.content?.[0]?.text}`).toBeFalsy()
    out.push({ call: `${name} ${JSON.stringify(args)}`, result, all: JSON.stringify(result) })
  }
  return out
}

let home
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-secret-home-'))
  makeSecretHome(home, requirePython())
})
afterAll(() => home && removeDir(home))

describe('amux mcp (redacting, the default)', () => {
  let server
  let answers
  beforeAll(async () => {
    server = await connect(home)
    answers = await everyAnswer(server)
  })
  afterAll(() => server?.close())

  it('no tool result holds any secret, in its text or its structured content', () => {
    for (const { call, result, all } of answers) {
      // A search for a secret says what it searched for: the caller's own text, already in its
      // context. Everything else it returns (titles, snippets) must hold none.
      const query = result.structuredContent?.query
      const echoes = query && leaks(query).length > 0
      const told = echoes ? JSON.stringify({ hits: result.structuredContent.hits, text: textOf(result).split('\n').slice(1) }) : all
      expect(leaks(told), call).toEqual([])
    }
  })

  it('still finds and reads every session: titles, snippets and messages carry the redactions', async () => {
    const listed = answers[0].result.structuredContent.sessions
    expect(listed.map((s) => s.id).sort()).toEqual([...IDS].sort())
    for (const s of listed) expect(s.title, s.id).toMatch(/\[REDACTED:[\w-]+:[0-9a-f]{4}\]/)
    const byWords = answers.find((a) => a.call.startsWith('search_sessions {"query":"deploy"')).result.structuredContent.hits
    expect(byWords.map((h) => h.id).sort()).toEqual([...IDS].sort())
    // A query that is itself a secret finds the sessions; what comes back shows the redaction.
    const bySecret = answers.find((a) => a.call.includes(SECRETS.find((s) => s.kind === 'github-pat').value))
    expect(bySecret.result.structuredContent.hits.length).toBeGreaterThan(0)
    for (const id of IDS) {
      const text = textOf(answers.find((a) => a.call.startsWith(`read_session {"id":"${id}","maxChars"`)).result)
      expect(text, id).toContain('[REDACTED:')
      expect(text, id).toContain('Why does the login still break?')
    }
  })

  it('one secret keeps one tag through a session', () => {
    const text = textOf(answers.find((a) => a.call.startsWith(`read_session {"id":"claude:`)).result)
    const tags = text.match(/\[REDACTED:[\w-]+:[0-9a-f]{4}\]/g)
    const counts = new Map()
    for (const t of tags) counts.set(t, (counts.get(t) ?? 0) + 1)
    // The .env block is pasted in the prompt and repeated in the answer: its tags recur.
    expect([...counts.values()].some((n) => n > 1)).toBe(true)
  })

  it('says on stderr that it serves, and not that it hands secrets on', () => {
    expect(server.stderr()).toContain('amux mcp: serving')
    expect(server.stderr()).not.toContain('not redacted')
  })
})

describe('amux mcp --no-redact', () => {
  let server
  let answers
  beforeAll(async () => {
    server = await connect(home, { args: ['--no-redact'] })
    answers = await everyAnswer(server)
  })
  afterAll(() => server?.close())

  it('hands every secret on, as the sessions hold them, and says so on stderr', () => {
    const seen = new Set(answers.flatMap(({ all }) => leaks(all).map((l) => l.split(':')[0])))
    expect([...seen].sort()).toEqual([...KINDS].sort())
    const claude = textOf(answers.find((a) => a.call.startsWith('read_session {"id":"claude:')).result)
    for (const s of SECRETS) for (const needle of s.needles) expect(claude.includes(needle), s.kind).toBe(true)
    expect(claude).not.toContain('[REDACTED:')
    expect(server.stderr()).toContain('secrets not redacted')
  })
})
