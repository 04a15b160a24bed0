// One parameter, one message: the same bad value given to the command line (`amux … --json`, run
// for real), an MCP tool (`amux mcp`, through the SDK's client) and the UI's API (its server, in
// this process) comes back with the same code and the same message, word for word, because all
// three read it through the parameters' table (params/). Where the front ends legitimately differ
// (a relative directory), the difference is the table's, and checked here too.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { startUi } from '../ui/server/index.js'
import { removeDir, repoRoot } from './helpers.mjs'
import { http } from './ui-helpers.mjs'

const require = createRequire(import.meta.url)
const { calls, takenBy } = require('../params/index.js')
const bin = join(repoRoot, 'bin', 'amux.js')

let home
let env
let mcp
let ui
let savedHome

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'amux-params-'))
  env = { ...process.env, TZ: 'UTC', HOME: home, AGENT_MUX_NO_CACHE: '1' }
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'pipe' })
  mcp = new Client({ name: 'amux-params-test', version: '1.0.0' })
  await mcp.connect(transport)
  savedHome = process.env.HOME
  process.env.HOME = home
  ui = await startUi({ client: createClient() })
})

afterAll(async () => {
  await mcp?.close()
  await ui?.close()
  process.env.HOME = savedHome
  if (home) removeDir(home)
})

/** `amux …words --json`: its exit status and `{ code, message }`. */
function cli(words) {
  const r = spawnSync(process.execPath, [bin, ...words, '--json'], { encoding: 'utf8', env, timeout: 60_000 })
  expect(r.stderr).toBe('')
  return { status: r.status, ...JSON.parse(r.stdout).error }
}

/** An MCP tool's error result as `{ code, message }` (its one line is `CODE: message`). */
async function tool(name, args) {
  const result = await mcp.callTool({ name, arguments: args })
  expect(result.isError).toBe(true)
  const [, code, message] = /^([A-Z_]+): (.*)$/.exec(result.content[0].text)
  return { code, message }
}

/** The UI's answer to GET /api/<path> as `{ status, code, message }`. */
async function api(path) {
  const res = await http(ui.port, `/api/${path}`, { headers: { Authorization: `token ${ui.token}` } })
  return { status: res.status, ...JSON.parse(res.body).error }
}

const DATE = 'ISO 8601 (2025-01-31, 2025-01-31T09:30Z) or an age (30m, 12h, 7d, 2w)'

// The same mistake in each front end's words, and the one error all three give for it.
const CASES = [
  {
    what: 'a bad date',
    cli: ['sessions', 'list', '--since', 'yesterdayish'],
    mcp: ['list_sessions', { since: 'yesterdayish' }],
    ui: 'sessions?since=yesterdayish',
    code: 'VALIDATION_ERROR',
    message: `since must be a date, ${DATE}, not 'yesterdayish'`,
  },
  {
    what: 'an impossible day',
    cli: ['sessions', 'search', 'x', '--until', '2025-02-31'],
    mcp: ['search_sessions', { query: 'x', until: '2025-02-31' }],
    ui: 'search?q=x&until=2025-02-31',
    code: 'VALIDATION_ERROR',
    message: `until must be a date, ${DATE}, not '2025-02-31'`,
  },
  {
    what: 'a limit that is no number',
    cli: ['sessions', 'search', 'x', '--limit', 'ten'],
    mcp: ['search_sessions', { query: 'x', limit: 'ten' }],
    ui: 'search?q=x&limit=ten',
    code: 'VALIDATION_ERROR',
    message: "limit must be a whole number from 1 up, not 'ten'",
  },
  {
    what: 'a limit of 0',
    cli: ['sessions', 'list', '--limit', '0'],
    mcp: ['list_sessions', { limit: 0 }],
    ui: 'sessions?limit=0',
    code: 'VALIDATION_ERROR',
    message: "limit must be a whole number from 1 up, not '0'",
  },
  {
    what: 'an unknown agent',
    cli: ['sessions', 'search', 'x', '--agent', 'clod'],
    mcp: ['search_sessions', { query: 'x', agent: 'clod' }],
    ui: 'search?q=x&agent=clod',
    code: 'AGENT_NOT_FOUND',
    message: `unknown agent 'clod' (agents: ${BUILT_IN_AGENTS.join(', ')})`,
  },
  {
    what: 'a bad choice',
    cli: ['sessions', 'list', '--sort', 'size'],
    mcp: ['list_sessions', { sort: 'size' }],
    ui: 'sessions?sort=size',
    code: 'VALIDATION_ERROR',
    message: "sort must be one of date, cost, turns, not 'size'",
  },
  {
    what: 'a bad choice of archived sessions',
    cli: ['sessions', 'search', 'x', '--archived', 'sometimes'],
    mcp: ['search_sessions', { query: 'x', archived: 'sometimes' }],
    ui: 'search?q=x&archived=sometimes',
    code: 'VALIDATION_ERROR',
    message: "archived must be one of include, only, exclude, not 'sometimes'",
  },
  {
    what: 'an unknown parameter',
    cli: ['sessions', 'list', '--bogus'],
    mcp: ['list_sessions', { bogus: true }],
    ui: 'sessions?bogus=1',
    code: 'VALIDATION_ERROR',
    message: "unknown parameter 'bogus'",
  },
  {
    what: 'a misspelt parameter',
    cli: ['sessions', 'search', 'x', '--limt', '5'],
    mcp: ['search_sessions', { query: 'x', limt: 5 }],
    ui: 'search?q=x&limt=5',
    code: 'VALIDATION_ERROR',
    message: "unknown parameter 'limt' (did you mean 'limit'?)",
  },
  {
    what: 'a control character',
    cli: ['sessions', 'list', '--model', 'a\u0007b'],
    mcp: ['list_sessions', { model: 'a\u0007b' }],
    ui: 'sessions?model=a%07b',
    code: 'VALIDATION_ERROR',
    message: 'model holds a control character',
  },
]

describe('the same bad value: the same code and message from the CLI, the MCP tool and the UI server', () => {
  it.each(CASES)('$what', async (c) => {
    const expected = { code: c.code, message: c.message }
    const fromCli = cli(c.cli)
    expect(fromCli.status).toBe(2)
    expect({ code: fromCli.code, message: fromCli.message }).toEqual(expected)
    expect(await tool(...c.mcp)).toEqual(expected)
    const fromUi = await api(c.ui)
    expect(fromUi.status).toBe(400)
    expect({ code: fromUi.code, message: fromUi.message }).toEqual(expected)
  })
})

describe('where the front ends differ, the table says so', () => {
  it('a relative --cwd is taken from the current directory; MCP and the UI want an absolute path, in the same words', async () => {
    const r = spawnSync(process.execPath, [bin, 'sessions', 'list', '--cwd', 'src', '--json'], { encoding: 'utf8', env, timeout: 60_000 })
    expect(r.status, r.stdout).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([])
    const expected = { code: 'VALIDATION_ERROR', message: "cwd must be an absolute path, not 'src'" }
    expect(await tool('list_sessions', { cwd: 'src' })).toEqual(expected)
    const fromUi = await api('sessions?cwd=src')
    expect({ code: fromUi.code, message: fromUi.message }).toEqual(expected)
  })

  it("a front end's own bound is the table's: MCP lists at most 1000, the page 500, a script any number", async () => {
    expect(takenBy(calls.list, 'mcp').find((p) => p.name === 'limit').kind.max).toBe(1000)
    expect(await tool('list_sessions', { limit: 1001 })).toEqual({ code: 'VALIDATION_ERROR', message: 'limit must be at most 1000, not 1001' })
    expect((await api('sessions?limit=501')).message).toBe('limit must be at most 500, not 501')
    const r = spawnSync(process.execPath, [bin, 'sessions', 'list', '--limit', '100000', '--json'], { encoding: 'utf8', env, timeout: 60_000 })
    expect(r.status).toBe(0)
  })

  it('every parameter the MCP tools and the UI take is in its schema or its query, made from the same entries', async () => {
    const { tools } = await mcp.listTools()
    const list = tools.find((t) => t.name === 'list_sessions')
    expect(Object.keys(list.inputSchema.properties).sort()).toEqual(takenBy(calls.list, 'mcp').map((p) => p.name).sort())
    for (const p of takenBy(calls.list, 'mcp')) expect(list.inputSchema.properties[p.name].description).toBe(p.help)
    // The UI takes each of list's parameters it names; a parameter of the table it leaves out is refused.
    for (const p of takenBy(calls.list, 'ui')) expect((await api(`sessions?${p.name}=%00`)).message).toBe(`${p.name} holds a control character`)
    expect((await api('sessions?tags=a')).message).toBe("unknown parameter 'tags'")
  })
})
