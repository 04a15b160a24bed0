// Secrets redacted through the public API and `amux sessions export --redact`: a home whose
// sessions (four agents) hold one secret of each kind everywhere a session holds text; every
// output is grepped for every secret. Without `redact` the results are today's, secrets and all.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '../index.mjs'
import { SECRETS, SECRET_SESSIONS, leaks, makeSecretHome } from './secrets/corpus.mjs'
import { rejection, removeDir, repoRoot, requirePython, withHome } from './helpers.mjs'

const TAG = /\[REDACTED:[a-z0-9-]+:[0-9a-f]{4}\]/g
const SESSIONS = Object.entries(SECRET_SESSIONS)
const byKind = Object.fromEntries(SECRETS.map((s) => [s.kind, s.value]))

let home, cache
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'amux-secrets-'))
  cache = mkdtempSync(join(tmpdir(), 'amux-secrets-cache-'))
  makeSecretHome(home, requirePython())
})
afterAll(() => {
  removeDir(home)
  removeDir(cache)
})

// With the index (a query that is a secret is looked up in our own cache) and without it.
describe.each([
  ['with the index', () => ({ cacheDir: cache, indexUpdates: 'wait', indexChild: false })],
  ['without an index', () => ({ cacheDir: false })],
])('redact: %s', (_, options) => {
  const client = (more = {}) => createClient({ ...options(), ...more })
  const inHome = (fn) => withHome(home, fn)

  it('the corpus plants every secret, and an unredacted read shows them all', async () => {
    const plain = client()
    for (const [agent, id] of SESSIONS) {
      const s = await inHome(() => plain.sessions.get(agent, id))
      const shown = leaks(JSON.stringify(s))
      expect(shown.length, `${agent}: ${shown.join(', ')}`).toBe(SECRETS.reduce((n, x) => n + x.needles.length, 0))
    }
    const titles = (await inHome(() => plain.sessions.listAll())).map((s) => s.title).join('\n')
    expect(titles).toContain(byKind['github-pat'])
  })

  it('list, listAll and get of a redacting client show no secret, in any field', async () => {
    const c = client({ redact: true })
    const all = await inHome(() => c.sessions.listAll())
    expect(all.map((s) => s.agent).sort()).toEqual(SESSIONS.map(([a]) => a).sort())
    expect(leaks(JSON.stringify(all))).toEqual([])
    for (const s of all) expect(s.title).toMatch(TAG)
    for (const [agent, id] of SESSIONS) {
      expect(leaks(JSON.stringify(await inHome(() => c.sessions.list(agent))))).toEqual([])
      const s = await inHome(() => c.sessions.get(agent, id))
      expect(s.messages.length).toBeGreaterThan(1)
      expect(leaks(JSON.stringify(s)), agent).toEqual([])
      // Content, thinking, tool inputs and outputs, and raw records all carry tags.
      const text = JSON.stringify(s.messages)
      expect(text.match(TAG).length, agent).toBeGreaterThan(SECRETS.length)
      expect(JSON.stringify(s.raw)).toMatch(TAG)
    }
  })

  it('per call: redact on a plain client, and off on a redacting one', async () => {
    const [agent, id] = SESSIONS[0]
    const plain = client()
    const redacting = client({ redact: true })
    expect(leaks(JSON.stringify(await inHome(() => plain.sessions.get(agent, id, { redact: true }))))).toEqual([])
    expect(leaks(JSON.stringify(await inHome(() => redacting.sessions.get(agent, id, { redact: false }))))).not.toEqual([])
    expect(leaks(JSON.stringify(await inHome(() => plain.sessions.listAll({ redact: true }))))).toEqual([])
    expect(leaks(JSON.stringify(await inHome(() => redacting.sessions.listAll({ redact: false }))))).not.toEqual([])
  })

  it('two mentions of one secret carry the same tag, and different secrets different tags', async () => {
    const c = client({ redact: true })
    const s = await inHome(() => c.sessions.get('claude', SECRET_SESSIONS.claude))
    const titleTags = s.title.match(TAG)
    expect(titleTags.length).toBe(2)
    expect(titleTags[0]).not.toBe(titleTags[1])
    // The title's keys are in the first prompt too, under the same tags.
    const prompt = s.messages[0].content
    for (const t of titleTags) expect(prompt).toContain(t)
    const codex = await inHome(() => c.sessions.get('codex', SECRET_SESSIONS.codex))
    for (const t of titleTags) expect(codex.title).toContain(t)
  })

  it('search: words around a secret and the secret itself find the sessions; titles and snippets show tags', async () => {
    const c = client({ redact: true })
    for (const q of ['deploy fails', 'login', 'rotate', 'ANTHROPIC_API_KEY']) {
      const hits = await inHome(() => c.sessions.search({ text: q }))
      expect(hits.length, q).toBe(SESSIONS.length)
      expect(leaks(JSON.stringify(hits)), q).toEqual([])
    }
    for (const kind of ['github-pat', 'aws-access-key-id', 'stripe-secret-key']) {
      const hits = await inHome(() => c.sessions.search({ text: byKind[kind] }))
      expect(hits.length, kind).toBeGreaterThan(0)
      expect(leaks(JSON.stringify(hits)), kind).toEqual([])
      for (const h of hits) expect(h.snippet, kind).toMatch(/>>>\[REDACTED:[a-z0-9-]+:[0-9a-f]{4}\]/)
    }
    const plain = await inHome(() => client().sessions.search({ text: byKind['github-pat'] }))
    expect(plain.map((h) => h.snippet).join('\n')).toContain(byKind['github-pat'])
  })

  it('export in every format, redacted, holds no secret; without redact it is the export of today', async () => {
    const c = client()
    for (const [agent, id] of SESSIONS) {
      for (const format of ['json', 'jsonl', 'markdown']) {
        const out = await inHome(() => c.sessions.export(agent, id, format, { redact: true }))
        expect(leaks(out), `${agent} ${format}`).toEqual([])
        expect(out).toMatch(TAG)
        const today = await inHome(() => c.sessions.export(agent, id, format))
        expect(await inHome(() => c.sessions.export(agent, id, format, { redact: false }))).toBe(today)
        expect(leaks(today).length, `${agent} ${format}`).toBeGreaterThan(0)
      }
    }
  })

  it('message windows and diffs are redacted too', async () => {
    const c = client({ redact: true })
    for (const [agent, id] of SESSIONS) {
      const w = await inHome(() => c.messages.window(agent, id, { around: byKind['github-pat'] }))
      expect(w.hits.length, agent).toBeGreaterThan(0)
      expect(leaks(JSON.stringify(w)), agent).toEqual([])
      expect(w.hits[0].snippet).toMatch(TAG)
    }
    const d = await inHome(() =>
      c.sessions.diff({ agent: 'claude', sessionId: SECRET_SESSIONS.claude }, { agent: 'gemini', sessionId: SECRET_SESSIONS.gemini }),
    )
    expect(d.operations.length).toBeGreaterThan(0)
    expect(leaks(JSON.stringify(d))).toEqual([])
  })
})

describe('redact: options and the command line', () => {
  it('a redact that is not a boolean is a VALIDATION_ERROR', async () => {
    expect(() => createClient({ redact: 'yes' })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }))
    const c = createClient({ cacheDir: false })
    const [agent, id] = SESSIONS[0]
    // Each call's rejection is handled as soon as it is made: one that settles while an earlier
    // one is awaited is otherwise an unhandled rejection.
    const rejections = [
      c.sessions.get(agent, id, { redact: 1 }),
      c.sessions.export(agent, id, 'json', { redact: 'no' }),
      c.sessions.listAll({ redact: 'no' }),
      c.sessions.search({ text: 'x', redact: 0 }),
      c.messages.window(agent, id, { redact: 'no' }),
    ].map(rejection)
    for (const r of rejections) expect((await r).code).toBe('VALIDATION_ERROR')
  })

  it('amux sessions export --redact prints no secret; without it, every secret', () => {
    const run = (args) =>
      spawnSync(process.execPath, [join(repoRoot, 'bin', 'amux.js'), ...args], {
        encoding: 'utf8',
        env: { ...process.env, HOME: home, AGENT_MUX_NO_CACHE: '1', TZ: 'UTC' },
        timeout: 60_000,
      })
    for (const format of ['json', 'markdown']) {
      const red = run(['sessions', 'export', `claude:${SECRET_SESSIONS.claude}`, '--format', format, '--redact'])
      expect(red.status, red.stderr).toBe(0)
      expect(leaks(red.stdout)).toEqual([])
      expect(red.stdout).toMatch(TAG)
      const plain = run(['sessions', 'export', `claude:${SECRET_SESSIONS.claude}`, '--format', format])
      expect(plain.status, plain.stderr).toBe(0)
      expect(leaks(plain.stdout).length).toBeGreaterThan(0)
    }
  })
})
