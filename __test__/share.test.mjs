// The share file (`export(…, 'html')`, `amux sessions share`): one self-contained HTML file. For
// every session of the demo home and the hostile fixture, and for the secret corpus: it holds a
// strict CSP and nothing that loads or points elsewhere, only the markup the renderer writes
// (session text stays text), no secret when redacted, and it weighs at most twice the markdown
// export. The CLI writes it where it says and never over a file unless told.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync, statSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { createClient } from '../index.mjs'
import { removeDir, repoRoot, withHome } from './helpers.mjs'
import { uiHome, genUiFixture, HOSTILE_ID } from './ui-helpers.mjs'
import { SECRETS, leaks, makeSecretHome } from './secrets/corpus.mjs'

const bin = join(repoRoot, 'bin', 'amux.js')

// Everything the renderer writes: these elements with these attributes, and nothing else.
const TAGS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'b', 'i', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dl', 'dt', 'dd', 'div', 'span', 'code', 'pre', 'ol', 'ul', 'li', 'p', 'a', 'time', 'details', 'summary', 'strong', 'em', 's', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'br', 'hr'])
const ATTRIBUTES = new Set(['lang', 'charset', 'http-equiv', 'name', 'content', 'class', 'id', 'href', 'title', 'start'])

/** What is wrong with `html` as a share file (none: []). */
function problems(html) {
  const found = []
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)
  if (!csp) found.push('no CSP meta tag')
  else if (!/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'$/.test(csp[1])) found.push(`CSP ${csp[1]}`)
  if (html.indexOf('<meta http-equiv="Content-Security-Policy"') > html.indexOf('<style>')) found.push('the CSP comes after the style')
  // Every tag, with its attributes: the body's text holds no `<` or `>` of its own.
  const body = html.replace(/<style>[^<]*<\/style>/, '<style></style>').replace(/^<!doctype html>\n/, '')
  for (const [, close, tag, attributes] of body.matchAll(/<(\/?)([^\s>]*)([^>]*)>/g)) {
    if (!TAGS.has(tag)) found.push(`tag <${close}${tag}>`)
    for (const [, name, value] of attributes.matchAll(/\s([^\s=]+)="([^"]*)"/g)) {
      if (!ATTRIBUTES.has(name)) found.push(`attribute ${name} on <${tag}>`)
      if (name === 'href' && !/^(#m\d+|[A-Za-z0-9._-]+\.html)$/.test(value)) found.push(`href ${value}`)
    }
    if (attributes.replace(/\s([^\s=]+)="([^"]*)"/g, '').trim()) found.push(`<${tag}${attributes}>`)
  }
  // Nothing in the stylesheet loads anything either (`src=` in a tag is an attribute not allowed above).
  if (/url\(|@import/i.test(/<style>([^<]*)<\/style>/.exec(html)?.[1] ?? '')) found.push('a stylesheet that loads')
  return found
}

let home
let client

beforeAll(() => {
  home = uiHome({ long: true })
  client = createClient()
})

afterAll(() => removeDir(home))

const inHome = (fn) => withHome(home, fn)

describe('the share file of every demo session', () => {
  // The head (CSP, stylesheet) is the same ~2 kB in every file, most of a short session's file:
  // what the session adds, its body, weighs at most twice its markdown export.
  it('is self-contained, holds only its own markup, and its body weighs at most twice the markdown export', async () => {
    await inHome(async () => {
      const all = await client.sessions.listAll({ limit: 1000 })
      expect(all.length).toBeGreaterThanOrEqual(33)
      const ratios = []
      for (const s of all) {
        const html = await client.sessions.export(s.agent, s.sessionId, 'html', { redact: true })
        const markdown = await client.sessions.export(s.agent, s.sessionId, 'markdown')
        expect(problems(html), s.unifiedId).toEqual([])
        const session = await client.sessions.get(s.agent, s.sessionId)
        expect((html.match(/<li class="(user|assistant|tool|system)" id="m\d+">/g) ?? []).length, s.unifiedId).toBe(session.messages.length)
        const body = html.length - html.indexOf('<body>')
        expect(html.indexOf('<body>'), s.unifiedId).toBeLessThan(2500 + s.title.length * 2)
        ratios.push([s.unifiedId, body / markdown.length, body, markdown.length])
      }
      const worst = ratios.sort((a, b) => b[1] - a[1])[0]
      expect(worst[1], `${worst[0]}: a body of ${worst[2]} B of HTML, ${worst[3]} B of markdown`).toBeLessThanOrEqual(2)
    })
  })

  it('draws the markdown, the highlighted code and the folds the page draws', async () => {
    await inHome(async () => {
      const [a] = await client.sessions.search({ text: 'kubernetes', agent: 'claude', limit: 1 })
      const html = await client.sessions.export(a.agent, a.sessionId, 'html')
      expect(html).toContain(`<h1>${a.title}</h1>`)
      expect(html).toContain('<span class="g">claude</span>')
      expect(html).toContain(':root{--g:#d97757}</style>')
      expect(html).toMatch(/<details class="call"><summary><b>[A-Za-z]+<\/b>/)
      expect(html).toMatch(/<pre><code>[^]*<i class="[ksnctvyr]">/)
      expect(html).not.toContain('hljs')
      expect(html).toContain('<p class="dim">Shared with amux · not redacted</p>')
    })
  })

  it('stays text for the hostile fixture: every payload is shown, none is markup', async () => {
    await inHome(async () => {
      const [agent, id] = HOSTILE_ID.split(':')
      const html = await client.sessions.export(agent, id, 'html', { redact: true })
      expect(problems(html)).toEqual([])
      for (const shown of [
        `&lt;script&gt;window.__amuxXss = 'prompt'&lt;/script&gt;`,
        `&lt;img src=x onerror="window.__amuxXss = 'img'"&gt;`,
        `&lt;a href="javascript:window.__amuxXss='raw'"&gt;raw link&lt;/a&gt;`,
        `&lt;script&gt;window.__amuxXss = 'output'&lt;/script&gt;`,
        `&lt;img src=x onerror="window.__amuxXss='tail'"&gt;`,
        `&lt;script&gt;window.__amuxXss = 'thinking'&lt;/script&gt;`,
        `<h1>&lt;img src=x onerror="window.__amuxXss='title'"&gt; hostile markup</h1>`,
        // A web address is written out, not linked: the file points nowhere.
        'the docs<span class="dim"> (https://example.com/docs?a=1&amp;b=2)</span>',
        '[image: pixel]<span class="dim"> (https://example.com/pixel.png)</span>',
      ]) {
        expect(html).toContain(shown)
      }
      // Its fork: "continued in", a link to that session's share file beside it.
      expect(html).toMatch(/<dt>continued in<\/dt><dd><a href="claude-[0-9a-f-]+\.html"/)
    })
  })

  it('names its parent when it was forked', async () => {
    await inHome(async () => {
      const [agent, id] = HOSTILE_ID.split(':')
      const fork = (await client.sessions.list(agent, { limit: 1000 })).find((s) => s.forkedFrom === id)
      const html = await client.sessions.export(agent, fork.sessionId, 'html')
      expect(html).toContain(`<dt>forked from</dt><dd><a href="claude-${id}.html" title="${HOSTILE_ID}">`)
      expect(html).toContain(`&lt;img src=x onerror="window.__amuxXss='title'"&gt; hostile markup</a>`)
    })
  })
})

describe('the share file of a large session', () => {
  it('weighs at most twice the markdown export', async () => {
    const big = genUiFixture(['--long-turns', '400'])
    try {
      await withHome(big, async () => {
        const own = createClient()
        const [s] = await own.sessions.list('claude', { limit: 1 })
        const html = await own.sessions.export('claude', s.sessionId, 'html')
        const markdown = await own.sessions.export('claude', s.sessionId, 'markdown')
        expect(markdown.length).toBeGreaterThan(300_000)
        expect(problems(html)).toEqual([])
        expect(html.length / markdown.length, `${html.length} B of HTML, ${markdown.length} B of markdown`).toBeLessThanOrEqual(2)
      })
    } finally {
      removeDir(big)
    }
  })
})

describe('the secret corpus', () => {
  let secrets
  beforeAll(() => {
    secrets = mkdtempSync(join(tmpdir(), 'amux-share-secrets-'))
    makeSecretHome(secrets)
  })
  afterAll(() => removeDir(secrets))

  it('no secret is in the redacted share file of any of its sessions, and every one is in the unredacted ones', async () => {
    await withHome(secrets, async () => {
      const own = createClient()
      const all = await own.sessions.listAll({ limit: 1000 })
      expect(all.length).toBeGreaterThanOrEqual(4)
      let plain = ''
      for (const s of all) {
        const html = await own.sessions.export(s.agent, s.sessionId, 'html', { redact: true })
        expect(leaks(html), s.unifiedId).toEqual([])
        expect(problems(html), s.unifiedId).toEqual([])
        expect(html).toContain('[REDACTED:')
        expect(html).toContain('Shared with amux · secrets redacted')
        plain += await own.sessions.export(s.agent, s.sessionId, 'html', { redact: false })
      }
      // The corpus holds them all: the redacted files lack them because they were redacted.
      const kinds = new Set(leaks(plain).map((l) => l.split(':')[0]))
      expect([...kinds].sort()).toEqual(SECRETS.map((s) => s.kind).sort())
      // A client that redacts everything redacts its share files too.
      const redacting = createClient({ redact: true })
      for (const s of all) expect(leaks(await redacting.sessions.export(s.agent, s.sessionId, 'html'))).toEqual([])
    })
  })

  it('amux sessions share redacts unless --no-redact', async () => {
    const [s] = await withHome(secrets, () => createClient().sessions.listAll({ limit: 1 }))
    const dir = mkdtempSync(join(tmpdir(), 'amux-share-out-'))
    try {
      const run = amux(['sessions', 'share', s.unifiedId, '-o', '-'], secrets, dir)
      expect(run.status).toBe(0)
      expect(run.stdout).toMatch(/^<!doctype html>/)
      expect(leaks(run.stdout)).toEqual([])
      const plain = amux(['sessions', 'share', s.unifiedId, '-o', '-', '--no-redact'], secrets, dir)
      expect(plain.status).toBe(0)
      expect(leaks(plain.stdout).length).toBeGreaterThan(0)
    } finally {
      removeDir(dir)
    }
  })
})

function amux(args, homeDir, cwd) {
  const env = { ...process.env, HOME: homeDir, TZ: 'UTC' }
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, cwd, timeout: 60_000 })
}

describe('amux sessions share', () => {
  it('writes <agent>-<id>.html here and prints its path; refuses an existing file unless --force', () => {
    const dir = mkdtempSync(join(tmpdir(), 'amux-share-cwd-'))
    try {
      const [agent, id] = HOSTILE_ID.split(':')
      const first = amux(['sessions', 'share', HOSTILE_ID], home, dir)
      const path = join(dir, `${agent}-${id}.html`)
      expect(first.stderr).toBe('')
      expect(first.status).toBe(0)
      expect(first.stdout).toBe(`${path}\n`)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(problems(readFileSync(path, 'utf8'))).toEqual([])

      writeFileSync(path, 'kept')
      const again = amux(['sessions', 'share', HOSTILE_ID], home, dir)
      expect(again.status).toBe(2)
      expect(again.stdout).toBe('')
      expect(again.stderr).toBe(`amux: VALIDATION_ERROR: ${path} exists: --force overwrites it, -o names another file\n`)
      expect(readFileSync(path, 'utf8')).toBe('kept')

      const forced = amux(['sessions', 'share', HOSTILE_ID, '--force'], home, dir)
      expect(forced.status).toBe(0)
      expect(readFileSync(path, 'utf8')).toMatch(/^<!doctype html>/)

      const named = amux(['sessions', 'share', HOSTILE_ID, '-o', 'sub.html'], home, dir)
      expect(named.stdout).toBe(`${join(dir, 'sub.html')}\n`)
      expect(existsSync(join(dir, 'sub.html'))).toBe(true)

      const nowhere = amux(['sessions', 'share', HOSTILE_ID, '-o', join(dir, 'missing', 'x.html')], home, dir)
      expect(nowhere.status).toBe(1)
      expect(nowhere.stderr).toMatch(/^amux: INTERNAL: cannot write .*missing\/x\.html: ENOENT/)
    } finally {
      removeDir(dir)
    }
  })
})
