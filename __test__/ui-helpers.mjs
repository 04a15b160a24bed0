// Shared by the UI suites: the home they run against (a copy of the demo home, plus the hostile
// fixture and, when asked, a long session), the server started in process, and plain HTTP
// requests that can send any Host header.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { copyDemoHome, repoRoot, requirePython } from './helpers.mjs'

export const HOSTILE = join(repoRoot, '__test__', 'fixtures', 'ui-hostile')
export const HOSTILE_ID = 'claude:bdd640fb-0667-4ad1-9c80-317fa3b1799d'

/** scripts/gen_ui_fixture.py into a new temporary directory; that directory. */
export function genUiFixture(args = []) {
  const out = mkdtempSync(join(tmpdir(), 'amux-ui-fixture-'))
  execFileSync(requirePython(), [join(repoRoot, 'scripts', 'gen_ui_fixture.py'), '--out', out, ...args], { stdio: 'ignore' })
  return out
}

/** A copy of the demo home with the hostile session in it (and a long one with `long`). */
export function uiHome({ long = false } = {}) {
  const home = copyDemoHome()
  cpSync(HOSTILE, home, { recursive: true })
  if (long) cpSync(genUiFixture(['--long-turns', '100']), home, { recursive: true })
  return home
}

/**
 * GET (or `method`) `path` on the server, with `headers` as given (a `Host: null` sends none):
 * { status, headers, body }.
 */
export function http(port, path, { method = 'GET', headers = {} } = {}) {
  const all = { Host: `127.0.0.1:${port}`, ...headers }
  const setHost = all.Host !== null
  if (!setHost) delete all.Host
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, setHost, headers: all }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The system's Chromium (playwright-core drives it; Playwright's own download is not used). */
export function chromiumPath() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean)
  return candidates.find((p) => existsSync(p)) ?? null
}

// Headless, offline and quiet: nothing but the page under test reaches the network.
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/**
 * The system's Chromium, launched by playwright-core (with a fresh profile of its own) and a HOME
 * of its own: the tests point HOME at a sessions home, where Chromium would otherwise leave
 * ~/.config/chromium.
 *
 * A launch is tried three times: Debian's Chromium has crashed while starting (SIGSEGV before
 * the page existed) in a CI run where every other browser test passed. Such a crash says
 * nothing of the page; a browser that never starts still fails the suite.
 */
export async function launchChromium(chromium, tries = 3) {
  for (let attempt = 1; ; attempt++) {
    const home = mkdtempSync(join(tmpdir(), 'amux-chromium-home-'))
    try {
      const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, env: { ...process.env, HOME: home } })
      browser.on('disconnected', () => rmSync(home, { recursive: true, force: true }))
      return browser
    } catch (err) {
      rmSync(home, { recursive: true, force: true })
      if (attempt >= tries) throw err
      console.error(`Chromium did not start (attempt ${attempt} of ${tries}): ${String(err.message).split('\n')[0]}`)
    }
  }
}
