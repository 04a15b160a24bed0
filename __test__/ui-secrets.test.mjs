// `amux ui` over the secret corpus (a session of each of four agents holding one secret of every
// kind in its prompt, title, thinking, tool input and output and answer): the API's answers and
// the pages Chromium renders hold none of them by default; the session page's switch shows them,
// for that page only, and only to a request from this machine. Screenshots of the session page,
// hidden and shown, go with the others (target/ui-screenshots/).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { createClient } from '../index.mjs'
import { startUi } from '../ui/server/index.js'
import { createApi } from '../ui/server/api.js'
import { removeDir, repoRoot, requirePython } from './helpers.mjs'
import { http, chromiumPath, launchChromium } from './ui-helpers.mjs'
import { SECRETS, SECRET_SESSIONS, leaks, makeSecretHome } from './secrets/corpus.mjs'

const executablePath = chromiumPath()
if (!executablePath && process.env.AGENT_MUX_REQUIRE_FIXTURES === '1') {
  throw new Error('Chromium is needed for the UI tests (apt-get install chromium; or set CHROMIUM_PATH)')
}

const SHOTS = process.env.AMUX_UI_SCREENSHOTS ?? join(repoRoot, 'target', 'ui-screenshots')
const KINDS = SECRETS.map((s) => s.kind).sort()
const IDS = Object.entries(SECRET_SESSIONS).map(([agent, id]) => `${agent}:${id}`)
const CLAUDE = `claude:${SECRET_SESSIONS.claude}`
const CODEX = `codex:${SECRET_SESSIONS.codex}`
const enc = encodeURIComponent
const kindsIn = (text) => [...new Set(leaks(text).map((l) => l.split(':')[0]))].sort()

let home
let savedHome
let ui
let client
const get = (path) => http(ui.port, path, { headers: { Authorization: `token ${ui.token}` } })

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'amux-ui-secrets-'))
  makeSecretHome(home, requirePython())
  savedHome = process.env.HOME
  process.env.HOME = home
  // As `amux ui` makes its client (ui/server/run.js); the command itself is tested below.
  client = createClient({ redact: true })
  ui = await startUi({ client })
})

afterAll(async () => {
  await ui?.close()
  if (savedHome !== undefined) process.env.HOME = savedHome
  if (home) removeDir(home)
})

describe("the UI's API", () => {
  /** Every route that answers with session text, for every session of the corpus. */
  async function everyAnswer(extra = '') {
    const paths = ['/api/sessions?limit=500', '/api/search?q=deploy', `/api/search?q=${enc(SECRETS[4].value)}`, '/api/cost', '/api/cost?by=model', `/api/diff?a=${enc(CLAUDE)}&b=${enc(CODEX)}`]
    for (const id of IDS) {
      const window = JSON.parse((await get(`/api/session?id=${enc(id)}`)).body)
      paths.push(`/api/session?id=${enc(id)}`, `/api/session/lineage?id=${enc(id)}`)
      for (let index = 0; index < window.total; index++) paths.push(`/api/session/message?id=${enc(id)}&index=${index}`)
      for (const format of ['json', 'jsonl', 'markdown']) paths.push(`/api/export?id=${enc(id)}&format=${format}`)
    }
    const out = []
    for (const path of paths) {
      const res = await get(path + extra)
      out.push({ path, status: res.status, body: res.body })
    }
    return out
  }

  it('no answer holds any secret by default; titles, messages and exports carry the redactions', async () => {
    const answers = await everyAnswer()
    for (const { path, status, body } of answers) {
      expect(status, path).toBe(200)
      expect(leaks(body), path).toEqual([])
    }
    const listed = JSON.parse(answers[0].body).sessions
    expect(listed.map((s) => s.unifiedId).sort()).toEqual([...IDS].sort())
    for (const s of listed) expect(s.title).toMatch(/\[REDACTED:[\w-]+:[0-9a-f]{4}\]/)
    expect(JSON.parse(answers[2].body).results.length).toBeGreaterThan(0)
    for (const { path, body } of answers.filter((a) => a.path.startsWith('/api/export'))) expect(body, path).toContain('[REDACTED:')
  })

  it('redact=false shows them on the session routes, and nowhere else', async () => {
    const window = await get(`/api/session?id=${enc(CLAUDE)}&redact=false`)
    expect(kindsIn(window.body)).toEqual(KINDS)
    expect(kindsIn((await get(`/api/session/message?id=${enc(CLAUDE)}&index=0&redact=false`)).body)).toEqual(KINDS)
    expect(kindsIn((await get(`/api/export?id=${enc(CLAUDE)}&format=markdown&redact=false`)).body)).toEqual(KINDS)
    expect(leaks((await get(`/api/session?id=${enc(CLAUDE)}&redact=true`)).body)).toEqual([])
    for (const path of ['/api/search?q=deploy', '/api/sessions', `/api/diff?a=${enc(CLAUDE)}&b=${enc(CODEX)}`]) {
      const res = await get(`${path}${path.includes('?') ? '&' : '?'}redact=false`)
      expect(res.status, path).toBe(400)
      expect(JSON.parse(res.body).error.message).toBe("unknown parameter 'redact'")
    }
    expect((await get(`/api/session?id=${enc(CLAUDE)}&redact=maybe`)).status).toBe(400)
  })

  it('refuses redact=false to a request from another machine', async () => {
    const answer = createApi(client)
    const url = (q) => new URL(`http://127.0.0.1/api/session?id=${enc(CLAUDE)}${q}`)
    const remote = await answer(url('&redact=false'), { local: false })
    expect(remote.status).toBe(403)
    expect(remote.json.error.code).toBe('FORBIDDEN')
    const redacted = await answer(url(''), { local: false })
    expect(redacted.status).toBe(200)
    expect(leaks(JSON.stringify(redacted.json))).toEqual([])
  })
})

describe('amux ui, the command', () => {
  it('redacts by default, and shows a session on redact=false', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'amux.js'), 'ui', '--no-open'], {
      env: { ...process.env, HOME: home, DISPLAY: '', WAYLAND_DISPLAY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      const url = await new Promise((resolve, reject) => {
        let out = ''
        child.stdout.on('data', (d) => {
          out += d
          const m = /http:\/\/[^\s]+\/\?token=[\w-]+/.exec(out)
          if (m) resolve(new URL(m[0]))
        })
        child.on('exit', (code) => reject(new Error(`amux ui exited (${code}): ${out}`)))
      })
      const ask = (path) => http(Number(url.port), `${path}&token=${url.searchParams.get('token')}`)
      const listed = await ask('/api/sessions?limit=500')
      expect(JSON.parse(listed.body).sessions).toHaveLength(IDS.length)
      expect(leaks(listed.body)).toEqual([])
      expect(listed.body).toContain('[REDACTED:')
      expect(leaks((await ask(`/api/session?id=${enc(CLAUDE)}`)).body)).toEqual([])
      expect(kindsIn((await ask(`/api/session?id=${enc(CLAUDE)}&redact=false`)).body)).toEqual(KINDS)
    } finally {
      child.kill('SIGINT')
    }
  })
})

describe.skipIf(!executablePath)('the pages in Chromium', () => {
  let browser
  let context
  beforeAll(async () => {
    browser = await launchChromium(chromium)
    mkdirSync(SHOTS, { recursive: true })
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(ui.url)
    await page.close()
  })
  afterAll(() => browser?.close())

  async function open() {
    const page = await context.newPage()
    const problems = []
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`))
    return { page, problems, go: (path) => page.goto(new URL(path, ui.url).href) }
  }
  // Everything the page holds: its markup and every text, folded ones too.
  const everything = async (page) => `${await page.content()}\n${await page.evaluate(() => document.body.textContent)}`

  it('search, sessions, diff and cost show no secret', async () => {
    const { page, problems, go } = await open()
    for (const [path, ready] of [
      ['/search?q=deploy', '.results .row'],
      ['/sessions', '.rows .row'],
      [`/diff?a=${enc(CLAUDE)}&b=${enc(CODEX)}`, '.diff-row'],
      ['/cost?period=all', 'svg.chart rect.bar'],
    ]) {
      await go(path)
      await page.locator(ready).first().waitFor()
      expect(leaks(await everything(page)), path).toEqual([])
    }
    await go('/sessions')
    await page.locator('.rows .row').first().waitFor()
    expect(await page.locator('.rows .row .title').first().textContent()).toContain('[REDACTED:')
    expect(problems).toEqual([])
    await page.close()
  })

  it('a session page hides them, says so, and its switch shows them for that page only', async () => {
    const { page, problems, go } = await open()
    await go(`/session?id=${enc(CLAUDE)}`)
    await page.locator('.transcript .msg').first().waitFor()
    const secrets = page.locator('.session-header .secrets')
    expect((await secrets.textContent()).replace(/\s+/g, ' ')).toBe('Secrets hidden · Show')
    for (const fold of await page.locator('details').all()) await fold.evaluate((d) => (d.open = true))
    expect(leaks(await everything(page))).toEqual([])
    expect(await page.locator('.session-header h1').textContent()).toMatch(/^Rotate \[REDACTED:[\w-]+:[0-9a-f]{4}\] and \[REDACTED:/)
    await page.screenshot({ path: join(SHOTS, 'session-secrets-hidden.png'), fullPage: true })

    await secrets.locator('button[role=switch]').click()
    await expect.poll(() => secrets.locator('.state').textContent()).toBe('Secrets shown')
    await expect.poll(async () => kindsIn(await everything(page))).toEqual(KINDS)
    expect(await secrets.locator('button').getAttribute('aria-checked')).toBe('true')
    for (const fold of await page.locator('details').all()) await fold.evaluate((d) => (d.open = true))
    expect(await page.locator('.session-header h1').textContent()).not.toContain('[REDACTED:')
    expect(await page.locator('a[data-format=markdown]').getAttribute('href')).toContain('redact=false')
    await page.screenshot({ path: join(SHOTS, 'session-secrets-shown.png'), fullPage: true })

    // Another session opens hidden; coming back, so is this one, and so after a reload.
    await page.locator('#search-box').fill('deploy')
    await page.locator(`.results .row a.title[href*="${enc(CODEX)}"]`).click()
    await page.locator('.session-header .secrets').waitFor()
    await expect.poll(() => page.locator('.session-header h1').textContent()).toContain('[REDACTED:')
    expect(await page.locator('.session-header .secrets .state').textContent()).toBe('Secrets hidden')
    expect(leaks(await everything(page))).toEqual([])
    await page.goBack()
    await page.goBack()
    await expect.poll(() => page.url()).toContain(enc(CLAUDE))
    await page.locator('.transcript .msg').first().waitFor()
    expect(await page.locator('.session-header .secrets .state').textContent()).toBe('Secrets hidden')
    await expect.poll(async () => leaks(await everything(page))).toEqual([])
    await secrets.locator('button[role=switch]').click()
    await expect.poll(async () => kindsIn(await everything(page))).toEqual(KINDS)
    await page.reload()
    await page.locator('.transcript .msg').first().waitFor()
    expect(await page.locator('.session-header .secrets .state').textContent()).toBe('Secrets hidden')
    expect(leaks(await everything(page))).toEqual([])
    expect(problems).toEqual([])
    await page.close()
  })
})
