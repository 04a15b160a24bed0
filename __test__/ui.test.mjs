// `amux ui` in a real browser: playwright-core driving the system's Chromium (Playwright's own
// browser download is not used) against the server started in process on a copy of the demo
// home, with the hostile fixture and a long session added. Every page renders (a screenshot of
// each, 360 and 1,920 px wide, light and dark, goes to target/ui-screenshots/); search, the
// transcript's folds, exports, the diff, the cost chart and the hostile fixture are checked
// against the API's own answers.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, unlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { createClient } from '../index.mjs'
import { startUi } from '../ui/server/index.js'
import { copyDemoHome, removeDir, repoRoot, snapshot } from './helpers.mjs'
import { uiHome, chromiumPath, launchChromium, HOSTILE_ID } from './ui-helpers.mjs'

const { retentionSentence } = createRequire(import.meta.url)('../human/keep.js')

const executablePath = chromiumPath()
if (!executablePath && process.env.AGENT_MUX_REQUIRE_FIXTURES === '1') {
  throw new Error('Chromium is needed for the UI tests (apt-get install chromium; or set CHROMIUM_PATH)')
}
if (!executablePath) console.warn('skipping the UI browser tests: no Chromium (apt-get install chromium, or set CHROMIUM_PATH)')

const SHOTS = process.env.AMUX_UI_SCREENSHOTS ?? join(repoRoot, 'target', 'ui-screenshots')
const CLAUDE = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'
const COPILOT_K8S = 'copilot:5b4b1b75-321c-4296-abd8-c67656d050cd'
const CLAUDE_K8S = 'claude:6513270e-269e-4d37-b2a7-4de452e6b438'
const LONG = 'claude:c33f4584-b23b-41d8-893c-d01609de8895'
const enc = encodeURIComponent

let home
let savedHome
let ui
let sessions
let keep
let browser
let context
let before

beforeAll(async () => {
  if (!executablePath) return
  home = uiHome({ long: true })
  before = snapshot(home)
  savedHome = process.env.HOME
  process.env.HOME = home
  const client = createClient()
  sessions = client.sessions
  keep = client.keep
  ui = await startUi({ client })
  browser = await launchChromium(chromium)
  mkdirSync(SHOTS, { recursive: true })
  // Signed in once, through the printed URL: the token becomes a cookie and leaves the address.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
  const page = await context.newPage()
  await page.goto(ui.url)
  expect(new URL(page.url()).search).toBe('')
  expect((await context.cookies()).map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([[`amux-ui-${ui.port}`, true, 'Strict']])
  await page.close()
})

afterAll(async () => {
  await browser?.close()
  await ui?.close()
  if (savedHome !== undefined) process.env.HOME = savedHome
  if (home) removeDir(home)
})

/** A new page in the signed-in context, failing the test on any script error, console error or dialog. */
async function open() {
  const page = await context.newPage()
  const problems = []
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`))
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`)
    d.dismiss()
  })
  return { page, problems, close: () => page.close(), go: (path) => page.goto(new URL(path, ui.url).href) }
}

const PAGES = [
  ['search', `/search?q=kubernetes`, '.results .row'],
  ['sessions', '/sessions', '.rows .row'],
  ['session', `/session?id=${enc(CLAUDE)}`, '.transcript .msg'],
  ['diff', `/diff?a=${enc(COPILOT_K8S)}&b=${enc(CLAUDE_K8S)}`, '.diff-row.modification'],
  ['cost', '/cost?period=all', 'svg.chart rect.bar'],
  ['index', '/index', '.index-facts'],
]

describe.skipIf(!executablePath)('amux ui in Chromium', () => {
  it('renders every page at 360 and 1,920 px, light and dark, and saves a screenshot of each', async () => {
    const { page, close, problems, go } = await open()
    for (const [name, path, ready] of PAGES) {
      await go(path)
      await page.locator(ready).first().waitFor()
      for (const scheme of ['light', 'dark']) {
        for (const width of [360, 1920]) {
          await page.setViewportSize({ width, height: 900 })
          await page.emulateMedia({ colorScheme: scheme })
          await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
          // Nothing wider than the screen: the page scrolls down, never sideways.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
          expect(overflow, `${name} at ${width} px`).toBeLessThanOrEqual(0)
          await page.screenshot({ path: join(SHOTS, `${name}-${width}-${scheme}.png`) })
        }
      }
    }
    expect(problems).toEqual([])
    await close()
  })

  it('search: results as you type find the three kubernetes sessions; the address keeps the query', async () => {
    const { page, close, problems, go } = await open()
    await go('/sessions')
    await page.keyboard.press('/')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search-box')
    await page.keyboard.type('kubernetes')
    const rows = page.locator('.results[data-for*="kubernetes"] .row')
    await expect.poll(() => rows.count()).toBe(3)
    const expected = (await sessions.search({ text: 'kubernetes' })).map((s) => s.title)
    expect(await rows.locator('.title').allTextContents()).toEqual(expected)
    expect(await rows.first().locator('.snippet mark').first().textContent()).toBe('kubernetes')
    expect(page.url()).toMatch(/\/search\?q=kubernetes$/)
    // Reload keeps the search; the filters narrow it (and go into the address too).
    await page.reload()
    await expect.poll(() => page.locator('.results .row').count()).toBe(3)
    await page.selectOption('select[name=agent]', 'claude')
    await expect.poll(() => page.locator('.results .row').count()).toBe(1)
    expect(page.url()).toContain('agent=claude')
    await page.selectOption('select[name=agent]', '')
    await expect.poll(() => page.locator('.results .row').count()).toBe(3)
    // Keyboard: / into the box, Escape out of it, j j Enter opens the second result; back returns.
    await page.keyboard.press('/')
    await page.keyboard.press('Escape')
    await page.keyboard.press('j')
    await page.keyboard.press('j')
    expect(await page.locator('.row.selected .title').textContent()).toBe(expected[1])
    await page.keyboard.press('Enter')
    await page.locator('.session-header h1').waitFor()
    expect(await page.locator('.session-header h1').textContent()).toBe(expected[1])
    await page.goBack()
    await expect.poll(() => page.locator('.results .row').count()).toBe(3)
    expect(await page.inputValue('#search-box')).toBe('kubernetes')
    await page.goForward()
    await page.locator('.session-header h1').waitFor()
    await page.goBack()
    await page.goBack()
    await page.locator('.sessions-page').waitFor()
    expect(problems, JSON.stringify(problems)).toEqual([])
    await close()
  })

  it('a session shows its tool calls and thinking folded, and unfolds them', async () => {
    const { page, close, problems, go } = await open()
    await go(`/session?id=${enc(CLAUDE)}`)
    const call = page.locator('details.tool-call').first()
    await call.waitFor()
    const whole = await sessions.get('claude', CLAUDE.slice(7))
    expect(await page.locator('.transcript .msg').count()).toBe(whole.messages.length)
    expect(await page.locator('details.tool-call[open], details.thinking[open], details.tool-result[open]').count()).toBe(0)
    const input = call.locator('pre.code')
    expect(await input.isVisible()).toBe(false)
    expect(await call.locator('summary').textContent()).toContain('npm test -- --grep checkout')
    await call.locator('summary').click()
    expect(await call.getAttribute('open')).toBe('')
    expect(await input.isVisible()).toBe(true)
    expect(JSON.parse(await input.textContent())).toEqual(whole.messages[1].toolCalls[0].input)
    const thinking = page.locator('details.thinking').first()
    await thinking.locator('summary').click()
    expect(await thinking.locator('.markdown').textContent()).toBe(whole.messages[1].thinking)
    // Each message says when, which model, its tokens and cost; the session how to resume it.
    const head = await page.locator('.msg.role-assistant .msg-head').first().textContent()
    expect(head).toContain('claude-sonnet-4-5-20250929')
    expect(head).toContain('3,536 in')
    expect(head).toContain('$0.04')
    const resume = 'cd /home/dev/src/api && claude --resume 90c192cf-d3ac-44af-8f21-ddb66cad4a26'
    expect(await page.locator('.resume code').textContent()).toBe(resume)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(ui.url).origin })
    await page.click('.resume button')
    await page.locator('.resume button').getByText('copied').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(resume)
    expect(problems).toEqual([])
    await close()
  })

  it('each export download holds exactly the bytes of export()', async () => {
    const { page, close, problems, go } = await open()
    await go(`/session?id=${enc(CLAUDE)}`)
    for (const format of ['json', 'jsonl', 'markdown']) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`a[data-format=${format}]`)])
      const bytes = readFileSync(await download.path(), 'utf8')
      expect(bytes).toBe(await sessions.export('claude', CLAUDE.slice(7), format))
      expect(download.suggestedFilename()).toBe(`claude-${CLAUDE.slice(7)}.${format === 'markdown' ? 'md' : format}`)
    }
    expect(problems).toEqual([])
    await close()
  })

  it('a long session arrives window after window as the reader scrolls', async () => {
    const { page, close, problems, go } = await open()
    await go(`/session?id=${enc(LONG)}`)
    const messages = page.locator('.transcript .msg')
    await messages.first().waitFor()
    const total = (await sessions.get('claude', LONG.slice(7))).messages.length
    expect(total).toBeGreaterThan(300)
    const first = await messages.count()
    expect(first).toBeLessThan(total)
    for (let i = 0; i < 100 && (await messages.count()) < total; i++) {
      await page.keyboard.press('End')
      await page.waitForTimeout(100)
    }
    expect(await messages.count()).toBe(total)
    expect(await messages.last().getAttribute('data-index')).toBe(String(total - 1))
    expect(problems).toEqual([])
    await close()
  })

  it('the diff shows both sessions side by side with the changed words marked', async () => {
    const { page, close, problems, go } = await open()
    await go(`/diff?a=${enc(COPILOT_K8S)}&b=${enc(CLAUDE_K8S)}`)
    await page.locator('.diff-row.modification').first().waitFor()
    const { stats } = await sessions.diff({ agent: 'copilot', sessionId: COPILOT_K8S.slice(8) }, { agent: 'claude', sessionId: CLAUDE_K8S.slice(7) })
    expect(await page.locator('.stats').textContent()).toBe(
      `${stats.unchanged} unchanged · ${stats.modifications} modified · ${stats.additions} added · ${stats.removals} removed`,
    )
    expect(await page.locator('.diff-row.modification').count()).toBe(stats.modifications)
    expect(await page.locator('.diff-row.removal').count()).toBe(stats.removals)
    const first = page.locator('.diff-row.modification').first()
    expect(await first.locator('del').allTextContents()).toEqual(['[calls bash]'])
    expect(await first.locator('ins').allTextContents()).toEqual(['Let me check.'])
    // In the tool output only the numbers that differ are marked, not the lines around them.
    const output = page.locator('.diff-row.modification').nth(1)
    expect(await output.locator('del').first().textContent()).toMatch(/^\d+\s*$/)
    expect(await output.locator('ins').first().textContent()).toMatch(/^\d+\s*$/)
    // Picking two sessions by what the CLI accepts (prefixes) leads to the same diff.
    await go('/diff')
    await page.fill('input[name=a]', 'copilot:5b4b1b75')
    await page.fill('input[name=b]', '6513270e')
    await page.click('button[type=submit]')
    await page.locator('.diff-row.modification').first().waitFor()
    expect(new URL(page.url()).searchParams.get('b')).toBe(CLAUDE_K8S)
    expect(problems).toEqual([])
    await close()
  })

  it('the cost chart has a bar for each agent with costs, and its totals equal totalCost', async () => {
    const { page, close, problems, go } = await open()
    await go('/cost?period=all&by=agent')
    await page.locator('svg.chart rect.bar').first().waitFor()
    const cost = await sessions.totalCost({ groupBy: 'agent' })
    const bars = await page.locator('svg.chart rect.bar').evaluateAll((rects) => rects.map((r) => [r.dataset.key, Number(r.dataset.usd), r.getBBox().height]))
    const drawn = {}
    for (const [agent, usd, height] of bars) {
      expect(height).toBeGreaterThan(0)
      drawn[agent] = (drawn[agent] ?? 0) + usd
    }
    const withCosts = Object.values(cost.breakdowns).filter((b) => b.totalUsd > 0)
    expect(Object.keys(drawn).sort()).toEqual(withCosts.map((b) => b.key).sort())
    for (const b of withCosts) expect(drawn[b.key]).toBeCloseTo(b.totalUsd, 9)
    // The table: one row per agent with sessions, its cost as totalCost's, and the total.
    for (const b of Object.values(cost.breakdowns).filter((x) => x.sessionCount > 0)) {
      const row = page.locator(`table.totals tbody tr[data-key="${b.key}"]`)
      if (b.key === 'cursor') {
        expect(await row.locator('td').last().textContent()).toBe('unknown')
        expect(await row.getAttribute('data-usd')).toBeNull()
      } else {
        expect(Number(await row.getAttribute('data-usd'))).toBe(b.totalUsd)
      }
    }
    expect(Number(await page.locator('table.totals tfoot tr').getAttribute('data-usd'))).toBe(cost.totalUsd)
    expect(await page.locator('.note').first().textContent()).toContain('3 cursor sessions recorded no token counts')
    // By model, for a custom period: the bars still add up to totalCost for it.
    await go('/cost?period=custom&since=2026-10-15&until=2026-11-30&by=model')
    await page.locator('svg.chart rect.bar').first().waitFor()
    const usd = await page.locator('svg.chart rect.bar').evaluateAll((rects) => rects.reduce((n, r) => n + Number(r.dataset.usd), 0))
    const period = await sessions.totalCost({ since: new Date(2026, 9, 15), until: new Date(2026, 10, 30, 23, 59, 59, 999) })
    expect(usd).toBeCloseTo(period.totalUsd, 9)
    expect(problems).toEqual([])
    await close()
  })

  it('hostile session text stays text everywhere it is shown', async () => {
    const { page, close, problems, go } = await open()
    const reports = []
    page.on('console', (m) => /Content Security Policy|Trusted Type/i.test(m.text()) && reports.push(m.text()))
    const check = async (where) => {
      expect(await page.evaluate(() => window.__amuxXss), where).toBeUndefined()
      const injected = await page.evaluate(() => ({
        scripts: document.scripts.length,
        elements: document.querySelectorAll('main img, main iframe, main script, main svg:not(.chart), main [onerror], main [onload]').length,
        links: [...document.querySelectorAll('main a[href]')]
          .map((a) => [a.getAttribute('href'), a.getAttribute('rel')])
          .filter(([href]) => !href.startsWith('/') && !href.startsWith('#')),
      }))
      expect(injected.scripts, where).toBe(1)
      expect(injected.elements, where).toBe(0)
      for (const [href, rel] of injected.links) {
        expect(href, where).toMatch(/^https?:\/\//)
        expect(rel, where).toBe('noopener noreferrer')
      }
      return injected
    }
    await go(`/session?id=${enc(HOSTILE_ID)}`)
    await page.locator('.transcript .msg').first().waitFor()
    for (const fold of await page.locator('details').all()) await fold.locator('summary').click()
    // The long tool output is cut; "show all" brings the rest, its markup text as well.
    expect(await page.locator('main').innerText()).not.toContain('line 119 of a long tool output')
    await page.locator('.tool-result button.show-all').click()
    await page.locator('.tool-result pre').getByText('line 119 of a long tool output').waitFor()
    const text = await page.locator('main').innerText()
    expect(text).toContain(`line 119 of a long tool output\n<img src=x onerror="window.__amuxXss='tail'">`)
    expect(text).toContain(`<script>window.__amuxXss = 'prompt'</script>`)
    expect(text).toContain(`<img src=x onerror="window.__amuxXss = 'img'">`)
    expect(text).toContain(`[click me](javascript:window.__amuxXss='link')`)
    expect(text).toContain(`<a href="javascript:window.__amuxXss='raw'">raw link</a>`)
    expect(text).toContain(`<script>window.__amuxXss = 'output'</script>`)
    expect(text).toContain(`<script>window.__amuxXss = 'thinking'</script>`)
    expect(await page.locator('.session-header h1').textContent()).toBe(`<img src=x onerror="window.__amuxXss='title'"> hostile markup`)
    const { links } = await check('session')
    expect(links).toEqual([['https://example.com/docs?a=1&b=2', 'noopener noreferrer'], ['https://example.com/pixel.png', 'noopener noreferrer']])
    // Lineage: the fork is linked from its parent, and back, titles as text.
    await page.click('.lineage a')
    await page.locator('.session-header h1').getByText('Move auth middleware to the token verifier').waitFor()
    expect(await page.locator('.lineage a').textContent()).toBe(`<img src=x onerror="window.__amuxXss='title'"> hostile markup`)
    await check('fork')
    await go('/search?q=hostile')
    await page.locator('.results .row').first().waitFor()
    expect(await page.locator('.results .row .title').first().textContent()).toContain('<img src=x')
    await check('search')
    await go('/search?q=amuxXss')
    await page.locator('.results .row .snippet').first().waitFor()
    expect(await page.locator('.results .row .snippet').first().textContent()).toContain('window.__amuxXss')
    await check('snippet')
    await go('/sessions')
    await page.locator('.rows .row').first().waitFor()
    await check('sessions')
    await go(`/diff?a=${enc(HOSTILE_ID)}&b=${enc(CLAUDE)}`)
    await page.locator('.diff-row').nth(1).waitFor()
    expect(await page.locator('.diff').innerText()).toContain(`<script>window.__amuxXss = 'prompt'</script>`)
    await check('diff')
    expect(reports).toEqual([])
    expect(problems).toEqual([])
    await close()
  })

  it('index: the kept sessions, and what each retention will delete that is not kept', async () => {
    const { page, close, problems, go } = await open()
    await go('/index')
    await page.locator('.keep-facts').waitFor()
    const status = await keep.status()
    expect(await page.locator('.keep-facts .retention dd').allTextContents()).toEqual(status.retention.map(retentionSentence))
    expect(await page.locator('.keep-facts').textContent()).toContain(status.dir)
    const risky = !status.on && status.retention.some((r) => r.atRisk > 0)
    expect(await page.locator('.keep-hint').count()).toBe(risky ? 1 : 0)
    if (risky) expect(await page.locator('.keep-hint').textContent()).toContain('amux keep on keeps a copy of every session')
    expect(problems).toEqual([])
    await close()
  })

  it('an archived session carries its badge in the lists and on its page', async () => {
    // A home of its own, kept, then its Claude session's source deleted.
    const kept = copyDemoHome()
    const dirs = mkdtempSync(join(tmpdir(), 'amux-ui-keep-'))
    const saved = { HOME: process.env.HOME, AGENT_MUX_DATA_DIR: process.env.AGENT_MUX_DATA_DIR, AGENT_MUX_CONFIG_DIR: process.env.AGENT_MUX_CONFIG_DIR }
    Object.assign(process.env, { HOME: kept, AGENT_MUX_DATA_DIR: join(dirs, 'data'), AGENT_MUX_CONFIG_DIR: join(dirs, 'config') })
    const client = createClient({ keep: true })
    let server
    let signedIn
    try {
      await client.sessions.listAll({ limit: 1_000_000 })
      unlinkSync(join(kept, '.claude', 'projects', '-home-dev-src-api', '90c192cf-d3ac-44af-8f21-ddb66cad4a26.jsonl'))
      server = await startUi({ client })
      signedIn = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      const page = await signedIn.newPage()
      await page.goto(server.url)
      await page.goto(new URL('/sessions?archived=only', server.url).href)
      const rows = page.locator('.rows .row')
      await expect.poll(() => rows.count()).toBe(1)
      expect(await rows.first().locator('.archived').textContent()).toBe('archived: source deleted')
      await page.goto(new URL('/sessions', server.url).href)
      await page.locator('.rows .row').first().waitFor()
      const badged = page.locator('.rows .row:has(.archived) .title')
      expect(await badged.allTextContents()).toEqual(['Fix flaky checkout flow test on CI'])
      await page.goto(new URL(`/session?id=${enc(CLAUDE)}`, server.url).href)
      await page.locator('.transcript .msg').first().waitFor()
      expect(await page.locator('.session-header .archived').textContent()).toBe('archived: source deleted')
    } finally {
      await signedIn?.close()
      await server?.close()
      await client.close()
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
      removeDir(kept)
      removeDir(dirs)
    }
  })

  it('left the home it read byte for byte as it was', () => {
    expect(snapshot(home)).toEqual(before)
  })
})
