// Which sessions touched a file, through every front end: the library's `sessions.touched` and
// `sessions.touches`, `amux sessions touched` (JSON, piped lines, a terminal), `file:` in a
// search, the MCP tool `files_touched` and the UI's API, on a generated home whose sessions also
// edit files with each agent's own edit tool (gen_home.py --file-edits).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createClient } from '../index.mjs'
import { startUi } from '../ui/server/index.js'
import { genHome, removeDir, repoRoot, withHome, rejection } from './helpers.mjs'
import { connect, textOf } from './mcp-helpers.mjs'
import { http } from './ui-helpers.mjs'
import { inTerminal, ptyAvailable } from './tty.mjs'

const bin = join(repoRoot, 'bin', 'amux.js')
let home

// The edits gen_home.py wrote, read back from the Claude files themselves: every Edit call's
// file, old and new strings.
function claudeEdits() {
  const out = []
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.jsonl')) {
        for (const line of readFileSync(p, 'utf8').split('\n').filter(Boolean)) {
          const rec = JSON.parse(line)
          for (const b of Array.isArray(rec.message?.content) ? rec.message.content : []) {
            if (b.type === 'tool_use' && b.name === 'Edit') out.push({ sessionId: rec.sessionId, ...b.input })
          }
        }
      }
    }
  }
  walk(join(home, '.claude', 'projects'))
  return out
}

const lines = (s) => (s === '' ? 0 : s.split('\n').length)

function amux(args, env = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home, TZ: 'UTC', AGENT_MUX_CACHE_DIR: join(home, '.amux-cache'), ...env },
    timeout: 60_000,
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-touched-'))
  genHome(home, ['--sessions', '40', '--seed', '5', '--scale', '1', '--file-edits'])
})

afterAll(() => removeDir(home))

describe('sessions.touched and sessions.touches', () => {
  it('finds every Edit a Claude session made, with its lines, request and message', async () => {
    const edits = claudeEdits()
    expect(edits.length).toBeGreaterThan(3)
    await withHome(home, async () => {
      const client = createClient({ cacheDir: false })
      for (const e of edits.slice(0, 4)) {
        const found = await client.sessions.touched(e.file_path, { action: 'edit' })
        const mine = found.find((s) => s.unifiedId === `claude:${e.sessionId}`)
        expect(mine, e.file_path).toBeDefined()
        const t = mine.touches.find((t) => t.added === lines(e.new_string) && t.removed === lines(e.old_string))
        expect(t, JSON.stringify(mine.touches)).toBeDefined()
        expect(t.path).toBe(e.file_path)
        expect(t.at).toBeInstanceOf(Date)
        expect(typeof t.request).toBe('string')
        // The message it names holds the call.
        const session = await client.sessions.get('claude', e.sessionId)
        const calls = session.messages[t.messageIndex].toolCalls ?? []
        expect(calls.some((c) => c.toolName === 'Edit' && c.input.file_path === e.file_path)).toBe(true)
        // A session's own files hold it too.
        const own = await client.sessions.touches('claude', e.sessionId)
        expect(own.some((x) => x.path === e.file_path && x.action === 'edit')).toBe(true)
      }
      await client.close()
    })
  })

  it('answers the same from the index as from the stores, newest first', async () => {
    await withHome(home, async () => {
      const scan = createClient({ cacheDir: false })
      const indexed = createClient({ cacheDir: join(home, '.lib-cache') })
      for (const path of ['**/*.ts', '/home/dev/src/**', '**/src/auth/*']) {
        const a = await scan.sessions.touched(path, { limit: 1000 })
        const b = await indexed.sessions.touched(path, { limit: 1000 })
        expect(b).toEqual(a)
        const when = (s) => Math.max(...s.touches.map((t) => (t.at ?? s.updatedAt).getTime()))
        for (let i = 1; i < a.length; i++) expect(when(a[i - 1])).toBeGreaterThanOrEqual(when(a[i]))
      }
      // The agents whose edit tools gen_home writes each edited something.
      const edited = new Set((await indexed.sessions.touched('**', { action: 'edit', limit: 1000 })).map((s) => s.agent))
      expect([...edited].sort()).toEqual(['claude', 'codex', 'gemini', 'omp', 'openclaw', 'pi'])
      await scan.close()
      await indexed.close()
    })
  })

  it('takes a relative path from the current directory, and refuses a glob that does not parse', async () => {
    await withHome(home, async () => {
      const client = createClient({ cacheDir: false })
      const [e] = claudeEdits()
      const dir = e.file_path.slice(0, e.file_path.lastIndexOf('/'))
      const before = process.cwd()
      let found
      try {
        process.chdir(tmpdir())
        expect(await client.sessions.touched(e.file_path.slice(tmpdir().length + 1))).toEqual([])
      } finally {
        process.chdir(before)
      }
      found = await client.sessions.touched(e.file_path)
      expect(found.length).toBeGreaterThan(0)
      expect(found.every((s) => s.touches.every((t) => t.path === e.file_path))).toBe(true)
      expect(dir.startsWith('/home/dev/src/')).toBe(true)
      const err = await rejection(client.sessions.touched('src/[oops'))
      expect(err.code).toBe('VALIDATION_ERROR')
      expect((await rejection(client.sessions.touched('x', { action: 'rename' }))).code).toBe('VALIDATION_ERROR')
      expect(await client.sessions.touched('/no/session/touched/this.rs')).toEqual([])
      await client.close()
    })
  })

  it('keeps the sessions of one project with project, in the library and the CLI', async () => {
    let shop
    await withHome(home, async () => {
      for (const cacheDir of [false, join(home, '.project-cache')]) {
        const client = createClient({ cacheDir })
        const all = await client.sessions.touched('/home/dev/src/**', { limit: 1000 })
        shop = await client.sessions.touched('/home/dev/src/**', { limit: 1000, project: '/home/dev/src/shop' })
        expect(shop.length).toBeGreaterThan(0)
        expect(shop.length).toBeLessThan(all.length)
        expect(shop).toEqual(all.filter((s) => s.cwd === '/home/dev/src/shop'))
        expect(await client.sessions.touched('/home/dev/src/**', { project: 'shop', limit: 1000 })).toEqual(shop)
        await client.close()
      }
    })
    const cli = amux(['sessions', 'touched', '/home/dev/src/**', '--project', '/home/dev/src/shop', '--limit', '1000', '--json'])
    expect(cli.status).toBe(0)
    expect(JSON.parse(cli.stdout).map((s) => s.unifiedId)).toEqual(shop.map((s) => s.unifiedId))
  })

  it('keeps a search to the sessions that touched a file with file:', async () => {
    await withHome(home, async () => {
      const client = createClient({ cacheDir: false })
      const [e] = claudeEdits()
      const alone = await client.sessions.search({ text: `file:${e.file_path}` })
      const touched = await client.sessions.touched(e.file_path)
      expect(alone.map((s) => s.unifiedId).sort()).toEqual(touched.map((s) => s.unifiedId).sort())
      const all = await client.sessions.search({ text: 'test', limit: 500 })
      const within = await client.sessions.search({ text: `file:/home/dev/src/shop/** test`, limit: 500 })
      expect(within.length).toBeGreaterThan(0)
      expect(within.length).toBeLessThan(all.length)
      expect(within.every((s) => s.cwd === '/home/dev/src/shop')).toBe(true)
      await client.close()
    })
  })
})

describe('amux sessions touched', () => {
  it('prints the sessions as JSON, newest first, and one line per touch to a pipe', () => {
    const [e] = claudeEdits()
    const json = amux(['sessions', 'touched', e.file_path, '--json'])
    expect(json.status).toBe(0)
    const found = JSON.parse(json.stdout)
    expect(found.length).toBeGreaterThan(0)
    for (const s of found) {
      expect(Object.keys(s)).toEqual(expect.arrayContaining(['unifiedId', 'agent', 'title', 'touches']))
      for (const t of s.touches) expect(Object.keys(t)).toEqual(expect.arrayContaining(['path', 'action', 'at', 'messageIndex']))
    }
    const piped = amux(['sessions', 'touched', e.file_path, '--action', 'edit'])
    expect(piped.status).toBe(0)
    const rows = piped.stdout.trim().split('\n').map((l) => l.split('\t'))
    expect(rows.length).toBe(found.flatMap((s) => s.touches.filter((t) => t.action === 'edit')).length)
    expect(rows.every((r) => r[2] === 'edit' && r[3] === e.file_path)).toBe(true)
  })

  it('takes a relative path from its directory, exits 0 on no session and 2 on a bad glob', () => {
    const [e] = claudeEdits()
    const cut = e.file_path.indexOf('/src/', '/home/dev/src/'.length)
    const dir = e.file_path.slice(0, cut >= 0 ? cut : e.file_path.lastIndexOf('/'))
    const rel = e.file_path.slice(dir.length + 1)
    // The process runs in a directory that does not exist here: the path is only text to match.
    const run = spawnSync(process.execPath, [bin, 'sessions', 'touched', rel, '--json'], {
      encoding: 'utf8',
      cwd: tmpdir(),
      env: { ...process.env, HOME: home, AGENT_MUX_NO_CACHE: '1' },
    })
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual([])
    const none = amux(['sessions', 'touched', '/no/such/file.rs', '--json'])
    expect(none.status).toBe(0)
    expect(JSON.parse(none.stdout)).toEqual([])
    const bad = amux(['sessions', 'touched', 'src/[oops'])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/^amux: VALIDATION_ERROR: .*glob/)
  })

  it.skipIf(!ptyAvailable)('draws each session, its touches and the request that led to them on a terminal', async () => {
    const [e] = claudeEdits()
    const out = inTerminal(process.execPath, [bin, 'sessions', 'touched', e.file_path], {
      cols: 120,
      rows: 50,
      env: { ...process.env, HOME: home, TZ: 'UTC', NO_COLOR: '1', AGENT_MUX_CACHE_DIR: join(home, '.amux-cache') },
    })
    expect(out.status).toBe(0)
    const text = out.stdout.replace(/\x1b\[[0-9;]*m/g, '')
    expect(text).toContain('»')
    expect(text).toMatch(/edit\s+\S+ \+\d+ -\d+ {2}msg \d+/)
    expect(text).toMatch(/\d+ sessions? touched/)
  })
})

describe('MCP files_touched and the UI', () => {
  it('answers files_touched with the sessions and their touches, and a bad glob as an error', async () => {
    const server = await connect(home)
    try {
      const [e] = claudeEdits()
      const result = await server.client.callTool({ name: 'files_touched', arguments: { path: e.file_path } })
      expect(result.isError).toBeFalsy()
      const { sessions } = result.structuredContent
      expect(sessions.some((s) => s.id === `claude:${e.sessionId}` && s.touches.some((t) => t.action === 'edit'))).toBe(true)
      expect(textOf(result)).toContain(`claude:${e.sessionId}`)
      const bad = await server.client.callTool({ name: 'files_touched', arguments: { path: 'src/[oops' } })
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toMatch(/^VALIDATION_ERROR: /)
    } finally {
      await server.close()
    }
  })

  it("lists a session's files, each linking to the sessions that touched it", async () => {
    const saved = process.env.HOME
    process.env.HOME = home
    const client = createClient({ cacheDir: false })
    const ui = await startUi({ client })
    try {
      const get = async (path) => {
        const res = await http(ui.port, path, { headers: { Authorization: `token ${ui.token}` } })
        return { status: res.status, body: JSON.parse(res.body) }
      }
      const [e] = claudeEdits()
      const files = await get(`/api/session/files?id=${encodeURIComponent(`claude:${e.sessionId}`)}`)
      expect(files.status).toBe(200)
      expect(files.body.files.some((t) => t.path === e.file_path && t.action === 'edit')).toBe(true)
      const touched = await get(`/api/touched?path=${encodeURIComponent(e.file_path)}`)
      expect(touched.status).toBe(200)
      expect(touched.body.sessions.some((s) => s.unifiedId === `claude:${e.sessionId}`)).toBe(true)
      const bad = await get(`/api/touched?path=${encodeURIComponent('src/[oops')}`)
      expect(bad.status).toBe(400)
      expect(bad.body.error.code).toBe('VALIDATION_ERROR')
      // The page's link: a search for file:"<path>".
      const search = await get(`/api/search?q=${encodeURIComponent(`file:"${e.file_path}"`)}`)
      expect(search.body.results.map((s) => s.unifiedId)).toContain(`claude:${e.sessionId}`)
      const page = readFileSync(join(repoRoot, 'ui', 'page', 'pages', 'session.jsx'), 'utf8')
      expect(page).toContain("api('session/files'")
    } finally {
      await ui.close()
      await client.close()
      process.env.HOME = saved
    }
  })
})
