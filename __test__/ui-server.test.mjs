// `amux ui`'s server over plain HTTP: who it answers (token, Host), what every answer carries
// (CSP, no CORS), how it refuses bad requests (400/404/405 as JSON, never a stack), the windows of
// a transcript, the export bytes, that it writes nothing, the page's weight, and that the hostile
// fixture is what its script writes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'
import { createClient } from '../index.mjs'
import { startUi } from '../ui/server/index.js'
import { DIST } from '../ui/server/assets.js'
import { removeDir, repoRoot, snapshot } from './helpers.mjs'
import { spawn, spawnSync } from 'node:child_process'
import { uiHome, http, genUiFixture, HOSTILE, HOSTILE_ID } from './ui-helpers.mjs'

const CLAUDE = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'

let home
let savedHome
let ui
let sessions
const get = (path, headers = {}) => http(ui.port, path, { headers: { Authorization: `token ${ui.token}`, ...headers } })
const json = async (path) => {
  const res = await get(path)
  return { status: res.status, body: JSON.parse(res.body) }
}

beforeAll(async () => {
  home = uiHome()
  savedHome = process.env.HOME
  process.env.HOME = home
  const client = createClient()
  sessions = client.sessions
  ui = await startUi({ client })
})

afterAll(async () => {
  await ui?.close()
  process.env.HOME = savedHome
  if (home) removeDir(home)
})

describe('who the server answers', () => {
  it('prints a loopback URL with a random token', () => {
    expect(ui.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${ui.port}/\\?token=[\\w-]{32}$`))
    expect(ui.server.address().address).toBe('127.0.0.1')
  })

  it('refuses every request without the token with 403, pages, assets and API alike', async () => {
    const asset = [...readdirSync(join(DIST, 'assets'))].find((f) => f.endsWith('.js'))
    for (const path of ['/', '/search?q=x', `/assets/${asset}`, '/api/meta', '/api/search?q=kubernetes', '/nope']) {
      const res = await http(ui.port, path)
      expect(res.status, path).toBe(403)
      expect(JSON.parse(res.body).error.code).toBe('FORBIDDEN')
      expect(res.body).not.toContain('kubernetes deployment')
    }
    expect((await http(ui.port, '/api/meta?token=wrong')).status).toBe(403)
    expect((await http(ui.port, '/api/meta', { headers: { Cookie: `amux-ui-${ui.port}=wrong` } })).status).toBe(403)
  })

  it('refuses a foreign Host with 403 even with the token (DNS rebinding)', async () => {
    for (const host of [`evil.example:${ui.port}`, `127.0.0.1.nip.io:${ui.port}`, `localhost:${ui.port + 1}`, '127.0.0.1', `[::1]x:${ui.port}`]) {
      const res = await http(ui.port, `/api/meta?token=${ui.token}`, { headers: { Host: host } })
      expect(res.status, host).toBe(403)
    }
    // No Host at all: node's own server refuses an HTTP/1.1 request without one (400).
    expect((await http(ui.port, `/api/meta?token=${ui.token}`, { headers: { Host: null } })).status).toBe(400)
    for (const host of [`localhost:${ui.port}`, `127.0.0.1:${ui.port}`, `LOCALHOST:${ui.port}`]) {
      expect((await http(ui.port, `/api/meta?token=${ui.token}`, { headers: { Host: host } })).status, host).toBe(200)
    }
  })

  it('trades the printed URL for a cookie and takes the token out of the address', async () => {
    const res = await http(ui.port, `/search?q=a&token=${ui.token}`)
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe('/search?q=a')
    const cookie = res.headers['set-cookie'][0]
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    const page = await http(ui.port, '/search?q=a', { headers: { Cookie: cookie.split(';')[0] } })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
  })

  it('answers GET only', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']) {
      const res = await http(ui.port, '/api/meta', { method, headers: { Authorization: `token ${ui.token}` } })
      expect(res.status, method).toBe(405)
      expect(res.headers.allow).toBe('GET')
    }
  })

  it('sends a strict CSP and no CORS header on any answer, even to a cross-origin request', async () => {
    for (const path of ['/', '/api/meta', '/api/search?q=kubernetes', '/api/nope', '/api/session?id=bad']) {
      const res = await get(path, { Origin: 'https://evil.example' })
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-')), path).toEqual([])
      const csp = res.headers['content-security-policy']
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/)
      expect(res.headers['x-content-type-options']).toBe('nosniff')
    }
    // The page runs no inline script: its only script is the bundle, loaded from our own origin.
    const page = (await get('/')).body
    expect(page.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(/^<script type="module" src="\/assets\/app-\w+\.js">$/)])
    expect(page).not.toMatch(/<script[^>]*>[^<]/)
  })
})

describe('bad requests', () => {
  const cases = [
    ['/api/search?q=a&bogus=1', 400, /unknown parameter 'bogus'/],
    ['/api/search?q=a&q=b', 400, /more than once/],
    ['/api/search?q=a&limit=0', 400, /limit/],
    ['/api/search?q=a&limit=ten', 400, /limit/],
    ['/api/search?q=a&sort=score', 400, /sort must be one of/],
    ['/api/search?q=a&agent=vim', 400, /^unknown agent 'vim' \(agents: claude, /],
    ['/api/sessions?since=someday', 400, /^since must be a date, .*, not 'someday'$/],
    ['/api/sessions?until=2026-02-31', 400, /^until must be a date/],
    ['/api/sessions?cwd=relative/dir', 400, /^cwd must be an absolute path, not 'relative\/dir'$/],
    ['/api/sessions?limit=5&limt=5', 400, /^unknown parameter 'limt' \(did you mean 'limit'\?\)$/],
    ['/api/sessions?limit=501', 400, /^limit must be at most 500, not 501$/],
    ['/api/sessions?limit=5%0A', 400, /^limit holds a control character$/],
    ['/api/search?q=%00', 400, /control character/],
    ['/api/session', 400, /id is required/],
    ['/api/session?id=no-colon', 400, /id must be a session id/],
    ['/api/session?id=vim:1', 400, /id must be a session id/],
    ['/api/session?id=claude:', 400, /id must be a session id/],
    ['/api/session?id=claude:no-such-session', 404, /no claude session with id 'no-such-session'/],
    [`/api/session/message?id=${CLAUDE}&index=999`, 404, /has no message 999/],
    [`/api/export?id=${CLAUDE}&format=pdf`, 400, /format must be one of/],
    ['/api/diff?a=claude:x', 400, /b is required/],
    ['/api/cost?by=tag', 400, /by must be one of/],
    ['/api/resolve?ref=zzzzzz', 404, /no session of any agent has an id starting with 'zzzzzz'/],
    ['/api/nothing-here', 404, /no API at/],
    ['/not-a-page', 404, /nothing at/],
  ]
  it.each(cases)('%s → %i with a JSON error', async (path, status, message) => {
    const res = await get(path)
    expect(res.status).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const { error } = JSON.parse(res.body)
    expect(Object.keys(error).sort()).toEqual(['code', 'message'])
    expect(error.message).toMatch(message)
    expect(res.body).not.toMatch(/\bat .*\.(js|mjs):\d+/)
  })
})

describe('answers', () => {
  it('search finds the three kubernetes sessions, as the API does', async () => {
    const { body } = await json('/api/search?q=kubernetes')
    const api = await sessions.search({ text: 'kubernetes' })
    expect(body.results.map((s) => s.unifiedId)).toEqual(api.map((s) => s.unifiedId))
    expect(body.results).toHaveLength(3)
    const { body: inShop } = await json('/api/search?q=kubernetes&cwd=/home/dev/src/api')
    expect(inShop.results).toEqual([])
  })

  it('lists every agent\'s sessions newest first, a page at a time', async () => {
    const all = (await json('/api/sessions?limit=500')).body
    expect(all.sessions).toHaveLength(32) // the demo home's 30, the hostile one and its fork
    const times = all.sessions.map((s) => Date.parse(s.updatedAt))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    const page2 = (await json('/api/sessions?limit=10&offset=10')).body
    expect(page2.sessions.map((s) => s.unifiedId)).toEqual(all.sessions.slice(10, 20).map((s) => s.unifiedId))
    expect(page2.more).toBe(true)
    const byCost = (await json('/api/sessions?sort=cost&agent=claude')).body.sessions
    expect(byCost.map((s) => s.unifiedId)).toEqual((await sessions.list('claude', { sort: 'cost' })).map((s) => s.unifiedId))
  })

  it('sends a transcript in windows, each message whole once asked', async () => {
    const first = (await json(`/api/session?id=${CLAUDE}&count=3`)).body
    expect(first.session.title).toBe('Fix flaky checkout flow test on CI')
    expect(first.session.messages).toBeUndefined()
    expect(first.resume).toBe('cd /home/dev/src/api && claude --resume 90c192cf-d3ac-44af-8f21-ddb66cad4a26')
    expect([first.total, first.from, first.next, first.messages.length]).toEqual([8, 0, 3, 3])
    const rest = (await json(`/api/session?id=${CLAUDE}&from=3`)).body
    expect(rest.session).toBeUndefined()
    expect([rest.from, rest.next, rest.messages.map((m) => m.index)]).toEqual([3, null, [3, 4, 5, 6, 7]])
    const whole = await sessions.get('claude', CLAUDE.slice(7))
    const call = first.messages[1].toolCalls[0]
    expect(call).toMatchObject({ name: 'Bash', preview: 'npm test -- --grep checkout', resultAt: 2 })
    expect(JSON.parse(call.input.text)).toEqual(whole.messages[1].toolCalls[0].input)
    expect(first.messages[2].toolResult.output.text).toBe(whole.messages[2].toolResult.output)
  })

  it('export answers exactly the bytes of export(), as a download', async () => {
    for (const format of ['json', 'jsonl', 'markdown']) {
      const res = await get(`/api/export?id=${encodeURIComponent(HOSTILE_ID)}&format=${format}`)
      expect(res.status).toBe(200)
      expect(res.body).toBe(await sessions.export('claude', HOSTILE_ID.slice(7), format))
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="claude-bdd640fb-0667-4ad1-9c80-317fa3b1799d\.(json|jsonl|md)"$/)
    }
  })

  it('cost figures are totalCost\'s, per agent and per day', async () => {
    const { body } = await json('/api/cost?by=agent')
    const byAgent = await sessions.totalCost({ groupBy: 'agent' })
    expect(body.totals).toEqual(byAgent)
    for (const s of body.series) {
      const perDay = await sessions.totalCost({ agent: s.key, groupBy: 'day' })
      expect(Object.values(s.days).reduce((a, b) => a + b, 0)).toBeCloseTo(byAgent.breakdowns[s.key].totalUsd, 9)
      expect(Object.keys(s.days).sort()).toEqual(Object.keys(perDay.breakdowns).sort())
    }
    expect(body.unknown).toEqual({ cursor: 3 })
    const { body: byModel } = await json('/api/cost?by=model&since=2026-10-15')
    const models = await sessions.totalCost({ groupBy: 'model', since: new Date(2026, 9, 15) })
    expect(byModel.totals).toEqual(models)
    const drawn = byModel.series.flatMap((s) => Object.values(s.days)).reduce((a, b) => a + b, 0)
    expect(drawn).toBeCloseTo(models.totalUsd, 9)
  })

  it('lineage: forked from, continued in, and whether it is archived', async () => {
    const fork = 'claude:b39cfd4b-8abe-4d78-8520-10116895cea8'
    expect((await json(`/api/session/lineage?id=${encodeURIComponent(fork)}`)).body).toEqual({
      forkedFrom: { unifiedId: HOSTILE_ID, title: `<img src=x onerror="window.__amuxXss='title'"> hostile markup` },
      continuedIn: [],
      archived: false,
    })
    expect((await json(`/api/session/lineage?id=${encodeURIComponent(HOSTILE_ID)}`)).body).toEqual({
      forkedFrom: null,
      continuedIn: [{ unifiedId: fork, title: 'Move auth middleware to the token verifier' }],
      archived: false,
    })
  })

  it('resolves what a person types for a session, as the CLI does', async () => {
    expect((await json('/api/resolve?ref=claude:90c192cf')).body).toEqual({ unifiedId: CLAUDE })
    expect((await json('/api/resolve?ref=90c1')).body).toEqual({ unifiedId: CLAUDE })
    expect((await json('/api/resolve?ref=5')).status).toBe(400)
  })

  it('writes nothing into the home, whatever it is asked', async () => {
    const before = snapshot(home)
    const id = encodeURIComponent(CLAUDE)
    for (const path of ['/api/meta', '/api/search?q=test', '/api/sessions', `/api/session?id=${id}`, `/api/session/message?id=${id}&index=1`,
      `/api/session/lineage?id=${id}`, `/api/export?id=${id}&format=markdown`, `/api/diff?a=${id}&b=${encodeURIComponent(HOSTILE_ID)}`,
      '/api/cost?by=model', '/api/index', '/', '/cost']) {
      expect((await get(path)).status, path).toBeLessThan(300)
    }
    expect(snapshot(home)).toEqual(before)
  })
})

// The command as a user runs it: its own process, the URL on stdout, Ctrl-C to stop.
function startCommand(args, env = {}) {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'amux.js'), 'ui', ...args], {
    env: { ...process.env, HOME: home, DISPLAY: '', WAYLAND_DISPLAY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  const url = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d
      const m = /http:\/\/[^\s]+\/\?token=[\w-]+/.exec(out)
      if (m) resolve(new URL(m[0]))
    })
    child.on('exit', (code) => reject(new Error(`amux ui exited (${code}): ${out}${err}`)))
  })
  const exit = new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })))
  return { child, url, exit, stderr: () => err }
}

describe('amux ui, the command', () => {
  it('prints a loopback URL with its token, answers from the library, and stops on Ctrl-C', async () => {
    const run = startCommand(['--no-open'])
    const url = await run.url
    expect(url.hostname).toBe('127.0.0.1')
    const res = await http(Number(url.port), `/api/search?q=kubernetes&token=${url.searchParams.get('token')}`)
    expect(JSON.parse(res.body).results).toHaveLength(3)
    expect((await http(Number(url.port), '/api/meta')).status).toBe(403)
    run.child.kill('SIGINT')
    const { code, out } = await run.exit
    expect(code).toBe(0)
    expect(out).toContain('Stop with Ctrl-C')
  })

  it('listens where --host and --port say, and says so when that is wider than loopback', async () => {
    const run = startCommand(['--no-open', '--host', '0.0.0.0'])
    const url = await run.url
    expect(url.hostname).toBe('127.0.0.1')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(run.stderr()).toContain('--host 0.0.0.0 lets other machines reach this server')
    run.child.kill('SIGINT')
    expect((await run.exit).code).toBe(0)
  })

  it('refuses a bad port, and one in use, with exit 2', async () => {
    const bad = spawnSync(process.execPath, [join(repoRoot, 'bin', 'amux.js'), 'ui', '--port', 'http'], { encoding: 'utf8', env: { ...process.env, HOME: home } })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/^amux: VALIDATION_ERROR: .*Not a port number/)
    const taken = spawnSync(process.execPath, [join(repoRoot, 'bin', 'amux.js'), 'ui', '--no-open', '--port', String(ui.port)], { encoding: 'utf8', env: { ...process.env, HOME: home } })
    expect(taken.status).toBe(2)
    expect(taken.stderr).toBe(`amux: VALIDATION_ERROR: port ${ui.port} is already in use on 127.0.0.1\n`)
  })
})

describe('progress', () => {
  it('tells the page how far a first call has built the index', async () => {
    expect((await json('/api/progress')).body).toEqual({ progress: null })
    const cacheDir = mkdtempSync(join(tmpdir(), 'amux-ui-progress-'))
    let latest = null
    const client = createClient({ cacheDir, onProgress: (p) => (latest = p) })
    const building = await startUi({ client, progress: () => latest })
    try {
      const res = await http(building.port, '/api/search?q=kubernetes', { headers: { Authorization: `token ${building.token}` } })
      expect(res.status).toBe(200)
      // The search did not wait for the index: a thread fills it after, and its progress
      // reaches the page until it is done.
      let progress
      for (let i = 0; i < 200; i++) {
        progress = JSON.parse((await http(building.port, '/api/progress', { headers: { Authorization: `token ${building.token}` } })).body).progress
        if (progress && progress.done === progress.total) break
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(progress).toMatchObject({ agent: expect.any(String), done: expect.any(Number), total: expect.any(Number) })
      expect(progress.done).toBe(progress.total)
    } finally {
      // The thread's last commit, before its directory goes.
      await client.index.update()
      await building.close()
      removeDir(cacheDir)
    }
  })
})

describe('the page and its fixture', () => {
  it('the page\'s assets weigh at most 500 kB gzipped', () => {
    const files = ['index.html', ...readdirSync(join(DIST, 'assets')).filter((f) => !f.endsWith('.txt')).map((f) => join('assets', f))]
    const gzipped = files.reduce((n, f) => n + gzipSync(readFileSync(join(DIST, f)), { level: 9 }).length, 0)
    expect(gzipped).toBeLessThanOrEqual(500_000)
    expect(gzipped).toBeGreaterThan(10_000) // the bundle is there
  })

  it('the hostile fixture is exactly what scripts/gen_ui_fixture.py writes', () => {
    const out = genUiFixture()
    try {
      const dir = join('.claude', 'projects', '-home-dev-src-hostile')
      const names = readdirSync(join(HOSTILE, dir)).sort()
      expect(readdirSync(join(out, dir)).sort()).toEqual(names)
      expect(names).toHaveLength(2)
      for (const name of names) expect(readFileSync(join(out, dir, name), 'utf8'), name).toBe(readFileSync(join(HOSTILE, dir, name), 'utf8'))
    } finally {
      removeDir(out)
    }
  })
})
