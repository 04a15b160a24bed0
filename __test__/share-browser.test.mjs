// The share file in a real browser: playwright-core driving the system's Chromium opens the file
// of the hostile fixture and of a demo session with every network request refused. It renders in
// full with nothing fetched (the document itself is the one request), its stylesheet applied
// under its CSP, a folded tool call opens, code is highlighted, no payload runs. A screenshot of
// each goes to target/ui-screenshots/ (share-*.png), beside the UI's.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { createClient } from '../index.mjs'
import { removeDir, repoRoot, withHome } from './helpers.mjs'
import { uiHome, chromiumPath, launchChromium, HOSTILE_ID } from './ui-helpers.mjs'

const executablePath = chromiumPath()
if (!executablePath && process.env.AGENT_MUX_REQUIRE_FIXTURES === '1') {
  throw new Error('Chromium is needed for the share file browser test (apt-get install chromium; or set CHROMIUM_PATH)')
}
if (!executablePath) console.warn('skipping the share file browser test: no Chromium (apt-get install chromium, or set CHROMIUM_PATH)')

const SHOTS = process.env.AMUX_UI_SCREENSHOTS ?? join(repoRoot, 'target', 'ui-screenshots')
const CLAUDE = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'

let home
let out
let browser

beforeAll(async () => {
  if (!executablePath) return
  home = uiHome()
  out = mkdtempSync(join(tmpdir(), 'amux-share-browser-'))
  browser = await launchChromium(chromium)
  mkdirSync(SHOTS, { recursive: true })
})

afterAll(async () => {
  await browser?.close()
  if (home) removeDir(home)
  if (out) removeDir(out)
})

/** The share file of `unifiedId`, written to a file, opened offline: the page and what it saw. */
async function openShared(unifiedId) {
  const [agent, id] = unifiedId.split(':')
  const { html, session } = await withHome(home, async () => {
    const client = createClient()
    return { html: await client.sessions.export(agent, id, 'html', { redact: true }), session: await client.sessions.get(agent, id) }
  })
  const file = join(out, `${agent}-${id}.html`)
  writeFileSync(file, html)
  const url = pathToFileURL(file).href
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true })
  const requests = []
  const problems = []
  // Every request refused but the file itself (the routes see its navigation too).
  await context.route('**', (route) => (route.request().url() === url ? route.continue() : route.abort()))
  const page = await context.newPage()
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => problems.push(`console ${m.type()}: ${m.text()}`))
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`)
    d.dismiss()
  })
  await page.goto(url)
  await page.waitForLoadState('load')
  return { page, context, session, requests, problems, url }
}

describe.skipIf(!executablePath)('the share file in Chromium, offline', () => {
  it('renders every message of a demo session, its folds open, its code is highlighted, nothing is fetched', async () => {
    const { page, context, session, requests, problems, url } = await openShared(CLAUDE)
    expect(await page.locator('h1').textContent()).toBe(session.title)
    expect(await page.locator('body > ol > li').count()).toBe(session.messages.length)
    // The stylesheet applied (its hash matches the CSP): the messages have their border.
    expect(await page.locator('body > ol > li').first().evaluate((e) => getComputedStyle(e).borderTopStyle)).toBe('solid')
    const fold = page.locator('details.call').first()
    expect(await fold.evaluate((d) => d.open)).toBe(false)
    const code = fold.locator('pre')
    expect(await code.isVisible()).toBe(false)
    await fold.locator('summary').click()
    expect(await fold.evaluate((d) => d.open)).toBe(true)
    expect(await code.isVisible()).toBe(true)
    expect(await page.locator('pre i').count()).toBeGreaterThan(0)
    // Highlighted in colour: a string is not drawn in the text's colour.
    const colours = await page.locator('pre i.s').first().evaluate((e) => [getComputedStyle(e).color, getComputedStyle(e.closest('pre')).color])
    expect(colours[0]).not.toBe(colours[1])
    await page.screenshot({ path: join(SHOTS, 'share-claude.png'), fullPage: true })
    // Dark when the system is, as the page is.
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    expect(await background()).toBe('rgb(255, 255, 255)')
    await page.emulateMedia({ colorScheme: 'dark' })
    expect(await background()).toBe('rgb(20, 22, 26)')
    await page.screenshot({ path: join(SHOTS, 'share-claude-dark.png'), fullPage: true })
    expect(requests).toEqual([url])
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows the hostile fixture as text: no payload runs, nothing is fetched', async () => {
    const { page, context, session, requests, problems, url } = await openShared(HOSTILE_ID)
    for (const d of await page.locator('details').all()) await d.evaluate((e) => (e.open = true))
    expect(await page.evaluate(() => window.__amuxXss)).toBeUndefined()
    expect(await page.evaluate(() => document.querySelectorAll('script, img, iframe, svg, object, embed, [onerror], [onload]').length)).toBe(0)
    const text = await page.locator('body > ol').innerText()
    expect(text).toContain(`<script>window.__amuxXss = 'prompt'</script>`)
    expect(text).toContain(`<img src=x onerror="window.__amuxXss = 'img'">`)
    expect(text).toContain(`<a href="javascript:window.__amuxXss='raw'">raw link</a>`)
    expect(text).toContain(`<script>window.__amuxXss = 'output'</script>`)
    expect(text).toContain(`<script>window.__amuxXss = 'thinking'</script>`)
    expect(await page.locator('h1').textContent()).toBe(session.title)
    const hrefs = await page.evaluate(() => [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')))
    for (const href of hrefs) expect(href).toMatch(/^(#m\d+|[A-Za-z0-9._-]+\.html)$/)
    await page.screenshot({ path: join(SHOTS, 'share-hostile.png'), fullPage: true })
    expect(requests).toEqual([url])
    expect(problems).toEqual([])
    await context.close()
  })
})
