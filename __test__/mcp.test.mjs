// `amux mcp`, run for real: `node bin/amux.js mcp` as a child process with HOME at a copy of the
// demo home, spoken to by the MCP SDK's own Client over stdio (and, at the end, by the official
// MCP Inspector's CLI, a client nobody here wrote). Every answer is checked against what the
// library itself returns for the same question.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { spawn, execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync, mkdirSync, rmSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, removeDir, repoRoot, withHome } from './helpers.mjs'
import { bin, connect, serverEnv, textOf } from './mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const { version } = require('../package.json')
const { calls, takenBy } = require('../params/index.js')
const TOOL_NAMES = ['search_sessions', 'read_session', 'list_sessions', 'cost_report', 'recent_activity', 'files_touched']

/** A failed call: an error result whose one line starts with the AgentMuxError code. */
function expectToolError(result, code, ...mentions) {
  expect(result.isError).toBe(true)
  const text = textOf(result)
  expect(text).not.toContain('\n')
  expect(text).toMatch(new RegExp(`^${code}: \\S`))
  for (const m of mentions) expect(text).toContain(m)
  return text
}

// The library's own answers, for comparison, in this process over the same home.
const api = (home, fn) => withHome(home, () => fn(createClient().sessions))

/** A Claude session written into `home` with the given messages (one JSONL line each). */
function writeClaudeSession(home, id, messages) {
  const dir = join(home, '.claude', 'projects', '-home-dev-src-big')
  mkdirSync(dir, { recursive: true })
  const start = Date.parse('2026-10-01T10:00:00Z')
  const lines = messages.map(([role, text], i) =>
    JSON.stringify({
      type: role,
      sessionId: id,
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      parentUuid: i ? `00000000-0000-4000-8000-${String(i - 1).padStart(12, '0')}` : null,
      cwd: '/home/dev/src/big',
      timestamp: new Date(start + i * 1000).toISOString(),
      message: role === 'user' ? { role, content: text } : { role, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
    }),
  )
  const file = join(dir, `${id}.jsonl`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

describe('amux mcp', () => {
  let home
  let server
  beforeAll(async () => {
    home = copyDemoHome()
    server = await connect(home)
  })
  afterAll(async () => {
    await server?.close()
    removeDir(home)
  })

  it('initializes as agent-mux with tools, and logs only to stderr', () => {
    expect(server.client.getServerVersion()).toMatchObject({ name: 'agent-mux', version })
    expect(server.client.getServerCapabilities().tools).toBeDefined()
    expect(server.client.getInstructions()).toContain('search_sessions')
    expect(server.stderr()).toContain('amux mcp: serving')
  })

  it('lists the five tools with strict input schemas, output schemas and read-only annotations', async () => {
    const { tools } = await server.client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort())
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    const params = (name) => Object.keys(byName[name].inputSchema.properties).sort()
    // The parameters' table as MCP takes it: every filter of list, search and totalCost (a new
    // one added to the table appears here with no change to the tools), and the tools' own.
    const filters = calls.filters.map((p) => p.name)
    const fromTable = (call) => takenBy(call, 'mcp').map((p) => p.name).sort()
    expect(params('search_sessions')).toEqual(fromTable(calls.search))
    expect(params('search_sessions')).toEqual(expect.arrayContaining(['agent', 'query', 'limit', 'sort', ...filters]))
    expect(params('read_session')).toEqual(['around', 'context', 'id', 'includeOwnSession', 'maxChars', 'offset'])
    expect(params('list_sessions')).toEqual(fromTable(calls.list))
    expect(params('list_sessions')).toEqual(expect.arrayContaining(['agent', 'limit', 'sort', ...filters]))
    expect(params('cost_report')).toEqual(fromTable(calls.totalCost))
    expect(params('cost_report')).toEqual(expect.arrayContaining(['agent', 'groupBy', ...filters]))
    expect(params('files_touched')).toEqual(fromTable(calls.touched))
    expect(filters).toEqual(expect.arrayContaining(['since', 'until', 'model', 'tags', 'cwd']))
    expect(byName.list_sessions.inputSchema.properties.limit.maximum).toBe(1000)
    expect(byName.list_sessions.inputSchema.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } })
    expect(byName.search_sessions.inputSchema.required).toEqual(['query'])
    expect(byName.read_session.inputSchema.required).toEqual(['id'])
    expect(byName.cost_report.inputSchema.required).toEqual(['groupBy'])
    expect(byName.cost_report.inputSchema.properties.groupBy.enum).toEqual(['agent', 'model', 'day', 'machine', 'user'])
    expect(byName.search_sessions.inputSchema.properties.agent.enum).toEqual([...BUILT_IN_AGENTS])
    expect(byName.search_sessions.inputSchema.properties.limit.default).toBe(10)
    expect(byName.list_sessions.inputSchema.properties.limit.default).toBe(20)
    expect(byName.read_session.inputSchema.properties.maxChars.default).toBe(16000)
    expect(byName.read_session.inputSchema.properties.context.default).toBe(2)
    // The query language is taught in the description.
    for (const word of ['"flaky test"', 'OR', 'NOT', 'kube*']) expect(byName.search_sessions.description).toContain(word)
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object')
      expect(t.inputSchema.additionalProperties).toBe(false)
      expect(t.outputSchema.type).toBe('object')
      expect(t.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false, destructiveHint: false })
    }
    expect(Object.keys(byName.search_sessions.outputSchema.properties)).toEqual(['query', 'hits'])
    expect(Object.keys(byName.read_session.outputSchema.properties)).toContain('nextOffset')
  })

  it('search_sessions returns the library search hits, with id, title, cwd, update, score, matchCount and snippet', async () => {
    const result = await server.client.callTool({ name: 'search_sessions', arguments: { query: 'kubernetes' } })
    expect(result.isError).toBeFalsy()
    const expected = await api(home, (s) => s.search({ text: 'kubernetes', limit: 10 }))
    expect(expected.length).toBeGreaterThan(1)
    const { hits } = result.structuredContent
    expect(hits.map((h) => h.id)).toEqual(expected.map((s) => s.unifiedId))
    hits.forEach((h, i) => {
      const s = expected[i]
      expect(h).toMatchObject({ agent: s.agent, title: s.title, cwd: s.cwd, updatedAt: s.updatedAt.toISOString(), matchCount: s.matchCount })
      expect(h.score).toBeCloseTo(s.relevanceScore, 3)
      expect(h.snippet).toMatch(/>>>kubernetes<<</i)
    })
    const text = textOf(result)
    for (const h of hits) expect(text).toContain(h.id)
    expect(text).toContain('>>>')

    // Filters: one agent, a working directory, a limit, dates as ages or ISO 8601.
    const one = await server.client.callTool({ name: 'search_sessions', arguments: { query: 'kubernetes', agent: 'copilot', limit: 1 } })
    expect(one.structuredContent.hits.map((h) => h.agent)).toEqual(['copilot'])
    const cwd = '/home/dev/src/docs'
    const docker = await api(home, (s) => s.search({ text: 'docker' }))
    const inCwd = await server.client.callTool({ name: 'search_sessions', arguments: { query: 'docker', cwd } })
    expect(inCwd.structuredContent.hits.map((h) => h.id)).toEqual(docker.filter((s) => s.cwd === cwd).map((s) => s.unifiedId))
    expect(inCwd.structuredContent.hits.length).toBeGreaterThan(0)
    expect(inCwd.structuredContent.hits.length).toBeLessThan(docker.length)
    const future = await server.client.callTool({ name: 'search_sessions', arguments: { query: 'kubernetes', since: '2999-01-01' } })
    expect(future.structuredContent.hits).toEqual([])
    expect(textOf(future)).toMatch(/^No session matches/)
    const recent = await server.client.callTool({ name: 'search_sessions', arguments: { query: 'kubernetes', since: '100000d' } })
    expect(recent.structuredContent.hits.length).toBe(hits.length)
  })

  it('list_sessions lists every agent newest first, or one agent, with filters', async () => {
    const result = await server.client.callTool({ name: 'list_sessions', arguments: {} })
    const all = await api(home, (s) => s.listAll({ limit: 1000 }))
    expect(all.length).toBeGreaterThan(20)
    for (let i = 1; i < all.length; i++) expect(all[i - 1].updatedAt >= all[i].updatedAt).toBe(true)
    const { sessions } = result.structuredContent
    expect(sessions.map((s) => s.id)).toEqual(all.slice(0, 20).map((s) => s.unifiedId))
    expect(new Set(sessions.map((s) => s.agent)).size).toBeGreaterThan(3)
    expect(sessions[0]).toMatchObject({ messageCount: all[0].messageCount, updatedAt: all[0].updatedAt.toISOString() })
    for (const s of sessions) expect(textOf(result)).toContain(s.id)

    const codex = await server.client.callTool({ name: 'list_sessions', arguments: { agent: 'codex', limit: 2 } })
    const codexExpected = await api(home, (s) => s.list('codex', { limit: 2 }))
    expect(codex.structuredContent.sessions.map((s) => s.id)).toEqual(codexExpected.map((s) => s.unifiedId))
    const cwd = '/home/dev/src/infra'
    const inCwd = await server.client.callTool({ name: 'list_sessions', arguments: { cwd, limit: 100 } })
    expect(inCwd.structuredContent.sessions.length).toBe(all.filter((s) => s.cwd === cwd).length)
  })

  it('cost_report gives totalCost grouped, with the unknown-cost note', async () => {
    for (const groupBy of ['agent', 'model', 'day']) {
      const result = await server.client.callTool({ name: 'cost_report', arguments: { groupBy } })
      const expected = await api(home, (s) => s.totalCost({ groupBy }))
      const { total, groups, notes } = result.structuredContent
      expect(total.totalUsd).toBeCloseTo(expected.totalUsd, 9)
      expect(total.sessionCount).toBe(expected.sessionCount)
      expect(groups.map((g) => g.key).sort()).toEqual(Object.keys(expected.breakdowns).sort())
      for (const g of groups) expect(g.totalUsd).toBeCloseTo(expected.breakdowns[g.key].totalUsd, 9)
      // Cursor records no token counts: its $0 is unknown, and the report says so.
      expect(notes.join('\n')).toMatch(/no token counts were recorded for \d+ sessions \(cursor\)/)
      expect(textOf(result)).toContain('unknown, not free')
    }
    const one = await server.client.callTool({ name: 'cost_report', arguments: { groupBy: 'model', agent: 'codex', since: '2000-01-01' } })
    const oneExpected = await api(home, (s) => s.totalCost({ groupBy: 'model', agent: 'codex', since: new Date(2000, 0, 1) }))
    expect(one.structuredContent.total.totalUsd).toBeCloseTo(oneExpected.totalUsd, 9)
    expect(one.structuredContent.notes).toEqual([])
  })

  it('read_session gives the session as text: a header line, then messages with role and time', async () => {
    const [s] = await api(home, (a) => a.search({ text: 'kubernetes', agent: 'claude', limit: 1 }))
    const session = await api(home, (a) => a.get('claude', s.sessionId))
    const result = await server.client.callTool({ name: 'read_session', arguments: { id: s.unifiedId } })
    expect(result.isError).toBeFalsy()
    const text = textOf(result)
    const lines = text.split('\n')
    expect(lines[0]).toContain(s.unifiedId)
    expect(lines[0]).toContain(JSON.stringify(session.title))
    expect(lines[0]).toContain(`${session.messages.length} messages`)
    session.messages.forEach((m, i) => {
      const head = lines.find((l) => l.startsWith(`[#${i}] `))
      expect(head).toBeDefined()
      expect(head).toContain(m.role)
      if (m.timestamp) expect(head).toContain(m.timestamp.toISOString().replace('.000Z', 'Z'))
    })
    expect(result.structuredContent).toMatchObject({ id: s.unifiedId, agent: 'claude', messageCount: session.messages.length, offset: 0, truncated: false, text })
    expect(result.structuredContent.nextOffset).toBeUndefined()

    // The same session by a unique prefix of its id, and spelt `agent id`.
    const byPrefix = await server.client.callTool({ name: 'read_session', arguments: { id: s.sessionId.slice(0, 8) } })
    expect(textOf(byPrefix)).toBe(text)
    const spaced = await server.client.callTool({ name: 'read_session', arguments: { id: `claude ${s.sessionId}` } })
    expect(textOf(spaced)).toBe(text)
  })

  it('read_session cuts tool outputs with a marker saying how much was left out', async () => {
    const id = '11111111-2222-4333-8444-555555555555'
    const file = writeClaudeSession(home, id, [['user', 'run the tests']])
    const output = 'x'.repeat(5000)
    const call = { type: 'assistant', sessionId: id, uuid: 'a1', parentUuid: null, cwd: '/home/dev/src/big', timestamp: '2026-10-01T10:00:05Z', message: { role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }] } }
    const answer = { type: 'user', sessionId: id, uuid: 'u2', parentUuid: 'a1', cwd: '/home/dev/src/big', timestamp: '2026-10-01T10:00:09Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: output }] } }
    writeFileSync(file, `${JSON.stringify(call)}\n${JSON.stringify(answer)}\n`, { flag: 'a' })
    const result = await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}` } })
    const text = textOf(result)
    expect(text).toContain('→ Bash {"command":"npm test"}')
    expect(text).toContain('result of Bash')
    expect(text).toContain('[… 3,500 more characters left out]')
    expect(text).not.toContain('x'.repeat(1501))
    rmSync(file)
  })

  describe('around', () => {
    const id = '22222222-3333-4444-8555-666666666666'
    const words = Array.from({ length: 40 }, (_, i) => (i === 11 || i === 30 ? `message ${i} mentions the zebrafish migration` : `message ${i} is about nothing much`))
    let file
    beforeAll(() => {
      file = writeClaudeSession(home, id, words.map((w, i) => [i % 2 ? 'assistant' : 'user', w]))
    })
    afterAll(() => rmSync(file))

    it('keeps only the messages with hits and their context, eliding the rest with counts', async () => {
      const result = await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}`, around: 'zebrafish', context: 2 } })
      const text = textOf(result)
      const shown = [...text.matchAll(/^\[#(\d+)\]/gm)].map((m) => Number(m[1]))
      expect(shown).toEqual([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])
      const elided = [...text.matchAll(/^… (\d+) messages …$/gm)].map((m) => Number(m[1]))
      expect(elided).toEqual([9, 14, 7])
      expect(shown.length + elided.reduce((a, b) => a + b)).toBe(40)
      expect(text.split('\n')[0]).toContain('2 messages with hits of "zebrafish"')
      expect(text).toMatch(/^\[#11\] assistant · .* · hit$/m)
      expect(text).not.toContain('message 20 ')
      expect(result.structuredContent).toMatchObject({ hitCount: 2, messageCount: 40, truncated: false })

      // The query language is the search's: a phrase, a prefix, OR.
      const ask = async (around, context = 0) => {
        const r = await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}`, around, context } })
        return [...textOf(r).matchAll(/^\[#(\d+)\]/gm)].map((m) => Number(m[1]))
      }
      expect(await ask('"zebrafish migration"')).toEqual([11, 30])
      expect(await ask('zebra*')).toEqual([11, 30])
      expect(await ask('"message 5" OR "message 7"')).toEqual([5, 7])
      expect(await ask('"migration zebrafish"')).toEqual([])
    })

    it('answers under one second on a warm server', async () => {
      const start = performance.now()
      await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}`, around: 'zebrafish' } })
      expect(performance.now() - start).toBeLessThan(1000)
    })
  })

  describe('maxChars and offset', () => {
    const id = '33333333-4444-4555-8666-777777777777'
    const big = Array.from({ length: 400 }, (_, i) => `line ${i} of a long answer`).join('\n')
    let file
    beforeAll(() => {
      file = writeClaudeSession(home, id, [
        ['user', 'explain everything'],
        ['assistant', big],
        ['user', 'thanks'],
      ])
    })
    afterAll(() => rmSync(file))

    it('pages through a message larger than maxChars, each page within maxChars, losing nothing', async () => {
      const whole = await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}`, maxChars: 100000 } })
      const full = textOf(whole)
      expect(full.length).toBeGreaterThan(big.length)
      expect(whole.structuredContent.truncated).toBe(false)
      const maxChars = 1000
      let offset = 0
      let joined = ''
      let pages = 0
      for (;;) {
        const r = await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}`, maxChars, offset } })
        const text = textOf(r)
        expect(text.length).toBeLessThanOrEqual(maxChars)
        expect(r.structuredContent.offset).toBe(offset)
        pages++
        if (!r.structuredContent.truncated) {
          joined += text
          break
        }
        const next = r.structuredContent.nextOffset
        expect(text).toMatch(new RegExp(`\\[cut here: call read_session again with offset ${next} for the rest\\]$`))
        expect(next).toBeGreaterThan(offset)
        joined += text.slice(0, text.lastIndexOf('\n['))
        offset = next
      }
      expect(pages).toBeGreaterThan(big.length / maxChars)
      expect(joined).toBe(full)
    })

    it('pages the same way with around', async () => {
      const args = { id: `claude:${id}`, around: 'answer', context: 0 }
      const full = textOf(await server.client.callTool({ name: 'read_session', arguments: { ...args, maxChars: 100000 } }))
      const first = await server.client.callTool({ name: 'read_session', arguments: { ...args, maxChars: 600 } })
      expect(textOf(first).length).toBeLessThanOrEqual(600)
      const next = first.structuredContent.nextOffset
      const second = await server.client.callTool({ name: 'read_session', arguments: { ...args, maxChars: 600, offset: next } })
      expect(textOf(second).startsWith(full.slice(next, next + 100))).toBe(true)
    })

    it('refuses an offset past the end', async () => {
      const r = await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}`, offset: 10_000_000 } })
      expectToolError(r, 'VALIDATION_ERROR', 'offset 10000000 is past the end')
    })
  })

  describe('bad input is an error result, and the server lives on', () => {
    const call = (name, args) => server.client.callTool({ name, arguments: args })
    it('unknown arguments', async () => {
      expect(expectToolError(await call('search_sessions', { query: 'x', bogus: 1 }), 'VALIDATION_ERROR')).toBe("VALIDATION_ERROR: unknown parameter 'bogus'")
      expectToolError(await call('read_session', { id: 'x', maxchars: 5 }), 'VALIDATION_ERROR', "unknown parameter 'maxchars' (did you mean 'maxChars'?)")
      expectToolError(await call('list_sessions', { order: 'cost' }), 'VALIDATION_ERROR', "unknown parameter 'order'")
      expectToolError(await call('cost_report', { groupBy: 'agent', timezone: 'UTC' }), 'VALIDATION_ERROR', "unknown parameter 'timezone'")
    })
    it('missing or mistyped arguments', async () => {
      expectToolError(await call('search_sessions', {}), 'VALIDATION_ERROR', 'query is required')
      expectToolError(await call('search_sessions', { query: 'x', limit: 'ten' }), 'VALIDATION_ERROR', "limit must be a whole number from 1 up, not 'ten'")
      expectToolError(await call('search_sessions', { query: 'x', limit: 101 }), 'VALIDATION_ERROR', 'limit must be at most 100, not 101')
      expectToolError(await call('list_sessions', { cwd: 'src' }), 'VALIDATION_ERROR', "cwd must be an absolute path, not 'src'")
      expectToolError(await call('list_sessions', { tags: 'a' }), 'VALIDATION_ERROR', 'tags')
      expectToolError(await call('cost_report', { groupBy: 'tag' }), 'VALIDATION_ERROR', "groupBy must be one of agent, model, day, machine, user, not 'tag'")
      expectToolError(await call('read_session', { id: 'x', maxChars: 10 }), 'VALIDATION_ERROR', "maxChars must be a whole number from 500 up, not '10'")
    })
    it('a bad date', async () => {
      expectToolError(await call('search_sessions', { query: 'x', since: 'last tuesday' }), 'VALIDATION_ERROR', 'since must be a date, ISO 8601', "not 'last tuesday'")
      expectToolError(await call('list_sessions', { until: '2025-02-31' }), 'VALIDATION_ERROR', 'until')
      expectToolError(await call('cost_report', { groupBy: 'day', since: '7 days' }), 'VALIDATION_ERROR', 'since')
    })
    it('an unknown agent', async () => {
      expectToolError(await call('search_sessions', { query: 'x', agent: 'clod' }), 'AGENT_NOT_FOUND', "'clod'", 'claude')
      expectToolError(await call('list_sessions', { agent: 'clod' }), 'AGENT_NOT_FOUND')
      expectToolError(await call('cost_report', { groupBy: 'agent', agent: 'clod' }), 'AGENT_NOT_FOUND')
      expectToolError(await call('read_session', { id: 'clod:1234' }), 'AGENT_NOT_FOUND', "'clod'")
    })
    it('an unknown or ambiguous id', async () => {
      expectToolError(await call('read_session', { id: 'zzzzzzzz' }), 'SESSION_NOT_FOUND', 'zzzzzzzz')
      expectToolError(await call('read_session', { id: 'claude:00000000-dead-beef' }), 'SESSION_NOT_FOUND')
      // Two demo sessions of different agents share a first character: a one-character prefix is ambiguous.
      const all = (await api(home, (s) => Promise.all(BUILT_IN_AGENTS.map((a) => s.list(a, { limit: 1000 }))))).flat()
      const first = all.map((s) => s.sessionId[0]).find((c, i, cs) => cs.indexOf(c) !== i)
      expectToolError(await call('read_session', { id: first }), 'VALIDATION_ERROR', 'ambiguous')
    })
    it('still answers after all of that', async () => {
      const r = await call('list_sessions', { limit: 1 })
      expect(r.isError).toBeFalsy()
      expect(r.structuredContent.sessions).toHaveLength(1)
    })
  })

  it('answers two calls in flight at once', async () => {
    const calls = [
      server.client.callTool({ name: 'search_sessions', arguments: { query: 'docker' } }),
      server.client.callTool({ name: 'read_session', arguments: { id: 'claude:6513270e-269e-4d37-b2a7-4de452e6b438' } }),
      server.client.callTool({ name: 'cost_report', arguments: { groupBy: 'agent' } }),
    ]
    const [search, read, cost] = await Promise.all(calls)
    const expected = await api(home, (s) => s.search({ text: 'docker', limit: 10 }))
    expect(search.structuredContent.hits.map((h) => h.id)).toEqual(expected.map((s) => s.unifiedId))
    expect(read.structuredContent.id).toBe('claude:6513270e-269e-4d37-b2a7-4de452e6b438')
    expect(cost.structuredContent.groups.length).toBe(BUILT_IN_AGENTS.length)
  })

  it('answers SESSION_NOT_FOUND for a session deleted between a search and a read', async () => {
    const id = '44444444-5555-4666-8777-888888888888'
    const file = writeClaudeSession(home, id, [['user', 'the quokka deployment is stuck'], ['assistant', 'quokka fixed']])
    const found = await server.client.callTool({ name: 'search_sessions', arguments: { query: 'quokka' } })
    expect(found.structuredContent.hits.map((h) => h.id)).toEqual([`claude:${id}`])
    rmSync(file)
    expectToolError(await server.client.callTool({ name: 'read_session', arguments: { id: `claude:${id}` } }), 'SESSION_NOT_FOUND', id)
    expectToolError(await server.client.callTool({ name: 'read_session', arguments: { id: id.slice(0, 12) } }), 'SESSION_NOT_FOUND')
  })
})

describe('amux mcp on the wire', () => {
  let home
  beforeAll(() => {
    home = copyDemoHome()
  })
  afterAll(() => removeDir(home))

  /** Lines written to a raw server, and the JSON lines it answers with (stdout). */
  function raw(lines, expectReplies) {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'mcp'], { env: serverEnv(home), stdio: ['pipe', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      const timer = setTimeout(() => {
        child.kill()
        reject(new Error(`timed out; stdout so far: ${out}; stderr: ${err}`))
      }, 30_000)
      child.stdout.on('data', (d) => {
        out += d
        if (out.split('\n').filter(Boolean).length >= expectReplies) child.stdin.end()
      })
      child.stderr.on('data', (d) => (err += d))
      child.on('close', () => {
        clearTimeout(timer)
        resolve({ replies: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)), stdout: out, stderr: err })
      })
      for (const l of lines) child.stdin.write(`${l}\n`)
    })
  }

  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })

  it('answers a malformed message with the protocol error, and goes on serving', async () => {
    const { replies, stdout, stderr } = await raw(
      [
        'this is not json',
        '{"jsonrpc":"2.0","id":7,"method":',
        init,
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        JSON.stringify({ jsonrpc: '2.0', id: 8, foo: 'bar' }),
        JSON.stringify([1, 2]),
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }),
      ],
      7,
    )
    // stdout holds nothing but JSON-RPC messages, one per line.
    for (const line of stdout.split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0')
    expect(stderr).toContain('amux mcp: serving')
    const byId = (id) => replies.filter((r) => r.id === id)
    const parseErrors = byId(null).filter((r) => r.error?.code === -32700)
    expect(parseErrors).toHaveLength(2)
    expect(byId(8)).toEqual([{ jsonrpc: '2.0', id: 8, error: { code: -32600, message: expect.stringContaining('Invalid Request') } }])
    expect(byId(null).filter((r) => r.error?.code === -32600)).toHaveLength(1)
    expect(byId(1)[0].result.serverInfo.name).toBe('agent-mux')
    expect(byId(2)[0].result.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort())
    expect(byId(3)[0].error.code).toBe(-32602)
  })
})

describe('the official MCP Inspector (CLI mode) against amux mcp', () => {
  const inspector = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js')
  let home
  beforeAll(() => {
    home = copyDemoHome()
  })
  afterAll(() => removeDir(home))

  const run = (args) =>
    promisify(execFile)(process.execPath, [inspector, '--cli', process.execPath, bin, 'mcp', ...args], {
      env: serverEnv(home),
      timeout: 60_000,
    })

  it('lists the tools', async () => {
    const { stdout } = await run(['--method', 'tools/list'])
    const { tools } = JSON.parse(stdout)
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort())
    expect(tools.find((t) => t.name === 'search_sessions').annotations.readOnlyHint).toBe(true)
  })

  it('calls search_sessions', async () => {
    const { stdout } = await run(['--method', 'tools/call', '--tool-name', 'search_sessions', '--tool-arg', 'query=kubernetes', '--tool-arg', 'agent=copilot'])
    const result = JSON.parse(stdout)
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.hits.map((h) => h.agent)).toEqual(['copilot'])
    expect(result.content[0].text).toContain('copilot:5b4b1b75-321c-4296-abd8-c67656d050cd')
  })
})
