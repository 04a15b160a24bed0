// `amux ui` measured in a real browser (the system's Chromium through playwright-core), against
// the server in this process on one long-lived client, the index warm:
//
//   node bench/ui.mjs search <home> [query…]   keystroke → results on screen; beside it, the same
//                                              search called in process (what the UI adds)
//   node bench/ui.mjs open <home> [bytes]      click → transcript on screen, for the Claude session
//                                              whose file is nearest `bytes` (default 375,000)
//   node bench/ui.mjs huge <home>              the largest Claude session: first messages on
//                                              screen, the main thread's longest task and largest
//                                              gap while it loads and while 5 more windows arrive
//
// The home is read where it is (HOME); the index goes to AGENT_MUX_CACHE_DIR (set it to keep it
// warm between runs). Data: `python3 scripts/gen_home.py --out /tmp/h1g --agents claude,codex
// --sessions 7500 --seed 1 --scale 36` and `--out /tmp/huge-ui --sessions 0 --huge-mb 200 --agents claude`.
// Times are medians (and the slowest) of RUNS runs, printed as a table for bench/RESULTS.md.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const RUNS = Number(process.env.RUNS ?? 9)
const [mode, home, ...rest] = process.argv.slice(2)
if (!['search', 'open', 'huge'].includes(mode) || !home) {
  console.error('usage: node bench/ui.mjs search|open|huge <home> [args]')
  process.exit(2)
}
process.env.HOME = home
const { createClient } = require('../index.js')
const { startUi } = require('../ui/server/index.js')
const { launchChromium } = await import('../__test__/ui-helpers.mjs')

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ms = (x) => `${x.toFixed(0)} ms`
// As `amux ui` makes its client (ui/server/run.js): one for the server's life, watching the stores.
const client = createClient({ redact: true, watch: true })
const ui = await startUi({ client })
const browser = await launchChromium(chromium)
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
const page = await context.newPage()
await page.goto(ui.url)

// In the page: when the last key went down or the last click happened, and when what we wait for
// was first in the DOM and then painted (the frame after it, then a task after that frame).
async function arm(selector) {
  await page.evaluate((sel) => {
    const t = (window.__bench = { sel })
    const stamp = () => {
      t.input = performance.now()
      t.dom = t.shown = undefined
    }
    window.__benchStamp ??= (addEventListener('keydown', () => window.__bench && window.__benchStampNow(), true),
    addEventListener('click', () => window.__bench && window.__benchStampNow(), true),
    true)
    window.__benchStampNow = stamp
    window.__benchObserver?.disconnect()
    window.__benchObserver = new MutationObserver(() => {
      if (t.input === undefined || t.dom !== undefined || !document.querySelector(t.sel)) return
      t.dom = performance.now()
      requestAnimationFrame(() => setTimeout(() => (t.shown = performance.now())))
    })
    window.__benchObserver.observe(document.body, { childList: true, subtree: true, attributes: true })
  }, selector)
}

async function elapsed() {
  await page.waitForFunction(() => window.__bench?.shown !== undefined, null, { timeout: 60_000 })
  return page.evaluate(() => window.__bench.shown - window.__bench.input)
}

// The line that counts the results, once it counts those of `q` (the search page marks it).
const answered = (q) => `p.count[data-for=${JSON.stringify(JSON.stringify({ q }))}]`

async function searchBench(queries) {
  console.log(`| query | hits | keystroke → results on screen (median, max) | search() in process (median) | UI's own share |`)
  console.log('|---|---|---|---|---|')
  for (const q of queries) {
    const shown = []
    const api = []
    let hits = 0
    for (let i = 0; i < RUNS; i++) {
      // The query less its last character is typed and answered first; then the last key.
      await page.goto(new URL(`/search?q=${encodeURIComponent(q.slice(0, -1))}`, page.url()).href)
      await page.locator('p.count, .help').first().waitFor({ timeout: 60_000 })
      await page.focus('#search-box')
      await page.keyboard.press('End')
      await arm(answered(q))
      // A key after a pause asks at once; one within the page's quiet time (150 ms) of the
      // last ask waits for the next key first, and that is measured typed below.
      await page.waitForTimeout(200)
      await page.keyboard.press(q.slice(-1))
      shown.push(await elapsed())
      hits = await page.locator('.results .row').count()
      const t = performance.now()
      await client.sessions.search({ text: q, limit: 25 }) // as many as the page asks for
      api.push(performance.now() - t)
    }
    console.log(`| \`${q}\` | ${hits} | ${ms(median(shown))}, ${ms(Math.max(...shown))} | ${ms(median(api))} | ${ms(median(shown) - median(api))} |`)
  }
  // A word typed at 10 keys a second: every key asks (and abandons the answer before), the last
  // one counts.
  const word = queries[0]
  const typed = []
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    await page.goto(new URL('/search', page.url()).href)
    await page.focus('#search-box')
    await page.keyboard.type(word.slice(0, -1), { delay: 100 })
    await page.waitForTimeout(100)
    await arm(answered(word))
    await page.keyboard.press(word.slice(-1))
    typed.push(await elapsed())
  }
  console.log(`\n\`${word}\` typed at 100 ms a key, last key → results: median ${ms(median(typed))}, max ${ms(Math.max(...typed))}`)
}

function nearest(bytes) {
  const dir = join(home, '.claude', 'projects')
  let best = null
  for (const project of readdirSync(dir)) {
    for (const name of readdirSync(join(dir, project))) {
      if (!name.endsWith('.jsonl')) continue
      const size = statSync(join(dir, project, name)).size
      if (!best || Math.abs(size - bytes) < Math.abs(best.size - bytes)) best = { id: name.slice(0, -6), size }
    }
  }
  return best
}

async function openBench(bytes) {
  const target = nearest(bytes)
  const summary = (await client.sessions.list('claude', { limit: 1_000_000 })).find((s) => s.sessionId === target.id)
  const at = summary.createdAt.toISOString()
  // A list holding only this session, to click on.
  const list = `/sessions?agent=claude&since=${encodeURIComponent(at)}&until=${encodeURIComponent(at)}`
  const times = []
  const api = []
  for (let i = 0; i < RUNS; i++) {
    await page.goto(new URL(list, page.url()).href)
    await page.locator('.rows .row .title').first().waitFor({ timeout: 60_000 })
    await arm('.transcript .msg')
    await page.click('.rows .row .title')
    times.push(await elapsed())
    const t = performance.now()
    await client.sessions.get('claude', target.id)
    api.push(performance.now() - t)
  }
  const shown = await page.locator('.transcript .msg').count()
  console.log(`| session | file | messages (first window) | click → transcript on screen (median, max) | get() in process (median) |`)
  console.log('|---|---|---|---|---|')
  console.log(`| claude:${target.id.slice(0, 8)} | ${(target.size / 1000).toFixed(0)} kB | ${summary.messageCount} (${shown}) | ${ms(median(times))}, ${ms(Math.max(...times))} | ${ms(median(api))} |`)
}

async function hugeBench() {
  const [summary] = await client.sessions.list('claude', { sort: 'turns', limit: 1 })
  await page.goto(new URL('/sessions', page.url()).href)
  await page.locator('.rows .row').first().waitFor({ timeout: 120_000 })
  // Watch the main thread: long tasks, and the largest gap between two 10 ms ticks.
  await page.evaluate(() => {
    window.__main = { tasks: [], gap: 0 }
    new PerformanceObserver((l) => window.__main.tasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' })
    let last = performance.now()
    setInterval(() => {
      const now = performance.now()
      window.__main.gap = Math.max(window.__main.gap, now - last)
      last = now
    }, 10)
  })
  const main = async () => {
    const m = await page.evaluate(() => {
      const out = { longest: Math.max(0, ...window.__main.tasks), count: window.__main.tasks.length, gap: window.__main.gap }
      window.__main.tasks = []
      window.__main.gap = 0
      return out
    })
    return `longest task ${ms(m.longest)} (${m.count} over 50 ms), largest gap ${ms(m.gap)}`
  }
  await arm('.transcript .msg')
  const started = performance.now()
  await page.evaluate((id) => {
    history.pushState(null, '', `/session?id=${encodeURIComponent(id)}`)
    dispatchEvent(new PopStateEvent('popstate'))
    window.__benchStampNow()
  }, summary.unifiedId)
  const first = await elapsed()
  console.log(`${summary.unifiedId}: ${summary.messageCount} messages; first window on screen after ${ms(first)} (wall ${ms(performance.now() - started)}); ${await main()}`)
  const windows = []
  for (let i = 0; i < 5; i++) {
    const before = await page.locator('.transcript .msg').count()
    const t = performance.now()
    await page.locator('.state.more').scrollIntoViewIfNeeded()
    await page.waitForFunction((n) => document.querySelectorAll('.transcript .msg').length > n, before, { timeout: 60_000 })
    windows.push(performance.now() - t)
  }
  console.log(`5 more windows (${await page.locator('.transcript .msg').count()} messages shown): each ${windows.map(ms).join(', ')}; ${await main()}`)
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0)
  console.log(`page's JS heap ${(heap / 1e6).toFixed(0)} MB; server RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`)
}

try {
  await client.sessions.search({ text: 'warm' }) // the index, brought up to date before timing
  if (mode === 'search') await searchBench(rest.length ? rest : ['kubernetes', 'borrow', 'flaky test', 'zzqxjw'])
  if (mode === 'open') await openBench(Number(rest[0] ?? 375_000))
  if (mode === 'huge') await hugeBench()
} finally {
  await browser.close()
  await ui.close()
}
