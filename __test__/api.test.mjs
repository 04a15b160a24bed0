import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createClient, AgentMuxError, BUILT_IN_AGENTS } from '../index.mjs'
import { rejection, withHome, demoHome } from './helpers.mjs'

const require = createRequire(import.meta.url)
const cjs = require('../index.js')
const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\/]$/, '')

let home
let savedHome
beforeAll(() => {
  savedHome = process.env.HOME
  home = mkdtempSync(join(tmpdir(), 'amux-empty-'))
  process.env.HOME = home
})
afterAll(() => {
  process.env.HOME = savedHome
  rmSync(home, { recursive: true, force: true })
})

describe('module shape', () => {
  it('plain node can require() and import() the package and they share one class', () => {
    const script = `
      const cjs = require(${JSON.stringify(root)});
      import(${JSON.stringify(root + '/index.mjs')}).then((esm) => {
        const same = esm.createClient === cjs.createClient && esm.AgentMuxError === cjs.AgentMuxError;
        const s = esm.createClient().sessions;
        console.log(JSON.stringify({ same, id: s.resolveUnifiedId('claude', 'x'), n: cjs.BUILT_IN_AGENTS.length }));
      });`
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })
    expect(JSON.parse(out)).toEqual({ same: true, id: 'claude:x', n: 10 })
    expect(typeof require('../index.js').createClient).toBe('function')
  })

  it('AgentMuxError is an Error with code, recoverable and name', () => {
    const e = new AgentMuxError('PARSE_ERROR', 'x')
    expect(e).toBeInstanceOf(Error)
    expect(e.name).toBe('AgentMuxError')
    expect(e.code).toBe('PARSE_ERROR')
    expect(e.recoverable).toBe(false)
  })
})

describe('ids', () => {
  const { sessions } = createClient()
  it('resolveUnifiedId joins with one colon', () => {
    expect(sessions.resolveUnifiedId('hermes', '550e8400-e29b')).toBe('hermes:550e8400-e29b')
    expect(sessions.resolveUnifiedId('pi', 'a:b')).toBe('pi:a:b')
  })
  it('resolveNativeId splits on the first colon and rejects unknown agents', () => {
    expect(sessions.resolveNativeId('codex:a:b:c')).toEqual({ agent: 'codex', nativeSessionId: 'a:b:c' })
    expect(sessions.resolveNativeId('unknown-agent:123')).toBeNull()
    expect(sessions.resolveNativeId('not-a-valid-id')).toBeNull()
    expect(sessions.resolveNativeId('claude:')).toBeNull()
    expect(sessions.resolveNativeId(':x')).toBeNull()
    expect(sessions.resolveNativeId(42)).toBeNull()
  })
  it('resolve functions are synchronous', () => {
    expect(typeof sessions.resolveUnifiedId('claude', 'x')).toBe('string')
  })
})

describe('the public surface', () => {
  it('is the spec plus documented additions: no text namespaces, amux reaches its own apart', async () => {
    const client = createClient()
    expect(Object.keys(client).sort()).toEqual(['close', 'cost', 'doctor', 'index', 'keep', 'messages', 'sessions', 'sync'])
    // The CLI's lines and JSON text: not an export a library user sees (nor in index.d.ts).
    expect(Object.keys(cjs)).not.toContain('textOutput')
    const { tsv, json } = cjs.textOutput(client)
    expect(tsv.rows([['a', 1]])).toBe('a\t1\n')
    expect(typeof json.costBuffer).toBe('function')
    expect(cjs.textOutput(client).tsv).toBe(tsv)
    expect(() => cjs.textOutput({ sessions: client.sessions })).toThrow(cjs.AgentMuxError)
  })
})

describe('error codes', () => {
  const { sessions } = createClient()
  it('unknown agent is AGENT_NOT_FOUND for list/get/export/diff, [] for search', async () => {
    for (const p of [
      () => sessions.list('nope'),
      () => sessions.get('nope', 'x'),
      () => sessions.export('nope', 'x', 'json'),
      () => sessions.diff({ agent: 'nope', sessionId: 'a' }, { agent: 'claude', sessionId: 'b' }),
    ]) {
      const e = await rejection(p())
      expect(e).toBeInstanceOf(AgentMuxError)
      expect(e.code).toBe('AGENT_NOT_FOUND')
      expect(e.message).toContain('nope')
    }
    expect(await sessions.search({ text: 'x', agent: 'nope' })).toEqual([])
  })

  it('missing session is SESSION_NOT_FOUND naming the id', async () => {
    const e = await rejection(sessions.get('claude', 'does-not-exist'))
    expect(e.code).toBe('SESSION_NOT_FOUND')
    expect(e.message).toContain('does-not-exist')
    expect((await rejection(sessions.export('codex', 'nope', 'markdown'))).code).toBe('SESSION_NOT_FOUND')
  })

  it('ids that try to leave the store are SESSION_NOT_FOUND', async () => {
    for (const id of ['../../etc/passwd', '/etc/passwd', 'a\\b', 'x\0y', '..']) {
      expect((await rejection(sessions.get('claude', id))).code).toBe('SESSION_NOT_FOUND')
    }
  })

  it('invalid arguments are VALIDATION_ERROR', async () => {
    const cases = [
      () => sessions.list(42),
      () => sessions.list('claude', { limit: -1 }),
      () => sessions.list('claude', { limit: NaN }),
      () => sessions.list('claude', { limit: Infinity }),
      () => sessions.list('claude', { since: new Date('garbage') }),
      () => sessions.list('claude', { since: '2025-01-01' }),
      () => sessions.list('claude', { sort: 'size' }),
      () => sessions.get('claude', 7),
      () => sessions.search({}),
      () => sessions.search(null),
      () => sessions.export('claude', 'x', 'yaml'),
      () => sessions.totalCost({ groupBy: 'year' }),
      () => sessions.diff(null, { agent: 'claude', sessionId: 'x' }),
    ]
    for (const p of cases) {
      const e = await rejection(p())
      expect(e).toBeInstanceOf(AgentMuxError)
      expect(e.code).toBe('VALIDATION_ERROR')
    }
  })

  it('a native error carries its code itself, with a plain message', async () => {
    // Straight from the binding, under index.js: the code is the error's own, not JSON in its text.
    const { NativeClient } = require('../binding.js')
    const native = new NativeClient('{}')
    const rejected = await rejection(native.list(JSON.stringify({ agent: 'claude', options: { limit: -1 } })))
    expect(rejected.code).toBe('VALIDATION_ERROR')
    expect(rejected.message).toBe('limit must be a non-negative integer')
    let thrown
    try {
      new NativeClient(JSON.stringify({ configDir: 'relative/dir' }))
    } catch (e) {
      thrown = e
    }
    expect(thrown.code).toBe('VALIDATION_ERROR')
    expect(thrown.message).toMatch(/^configDir must be an absolute path/)
    // Through the API: an AgentMuxError whose message has no JSON in it.
    const e = await rejection(sessions.list('claude', { sort: 'size' }))
    expect(e).toBeInstanceOf(AgentMuxError)
    expect(e.code).toBe('VALIDATION_ERROR')
    expect(e.recoverable).toBe(false)
    expect(e.message).toBe("sort must be one of 'date', 'cost', 'turns'")
    expect(e.message).not.toMatch(/[{}"]/)
  })

  it('createClient rejects a relative configDir synchronously', () => {
    expect(() => createClient({ configDir: 'relative/dir' })).toThrow(AgentMuxError)
    try {
      createClient({ configDir: 'relative/dir' })
    } catch (e) {
      expect(e.code).toBe('VALIDATION_ERROR')
      expect(e.message).toContain('configDir')
    }
  })

  it('createClient validates every run option of the spec, naming the field', () => {
    const invalid = [
      ['timeout', { timeout: -1 }],
      ['timeout', { timeout: 1.5 }],
      ['timeout', { timeout: NaN }],
      ['timeout', { timeout: Infinity }],
      ['timeout', { timeout: '100' }],
      ['inactivityTimeout', { inactivityTimeout: -5 }],
      ['inactivityTimeout', { inactivityTimeout: 0.25 }],
      ['inactivityTimeout', { inactivityTimeout: true }],
      ['approvalMode', { approvalMode: 'auto' }],
      ['approvalMode', { approvalMode: 'YOLO' }],
      ['approvalMode', { approvalMode: 1 }],
      ['stream', { stream: 'yes' }],
      ['stream', { stream: 1 }],
      ['stream', { stream: 'AUTO' }],
      ['projectConfigDir', { projectConfigDir: 'relative/dir' }],
      ['projectConfigDir', { projectConfigDir: 42 }],
      ['retryPolicy', { retryPolicy: 3 }],
      ['retryPolicy.maxAttempts', { retryPolicy: { maxAttempts: 0 } }],
      ['retryPolicy.maxAttempts', { retryPolicy: { maxAttempts: 2.5 } }],
      ['retryPolicy.baseDelayMs', { retryPolicy: { baseDelayMs: -1 } }],
      ['retryPolicy.baseDelayMs', { retryPolicy: { baseDelayMs: 'x' } }],
      ['retryPolicy.maxDelayMs', { retryPolicy: { baseDelayMs: 500, maxDelayMs: 499 } }],
      ['retryPolicy.maxDelayMs', { retryPolicy: { maxDelayMs: 999 } }], // default base 1000
      ['retryPolicy.maxDelayMs', { retryPolicy: { maxDelayMs: 1e3 + 0.5 } }],
      ['retryPolicy.jitterFactor', { retryPolicy: { jitterFactor: -0.1 } }],
      ['retryPolicy.jitterFactor', { retryPolicy: { jitterFactor: 1.01 } }],
      ['retryPolicy.jitterFactor', { retryPolicy: { jitterFactor: '0.5' } }],
      ['retryPolicy.retryOn', { retryPolicy: { retryOn: 'TIMEOUT' } }],
      ['retryPolicy.retryOn', { retryPolicy: { retryOn: ['TIMEOUT', 'SOMETIMES'] } }],
      ['retryPolicy.retryOn', { retryPolicy: { retryOn: [7] } }],
      ['defaultAgent', { defaultAgent: 7 }],
      ['defaultModel', { defaultModel: {} }],
      ['debug', { debug: 'yes' }],
    ]
    for (const [field, options] of invalid) {
      let thrown
      try {
        createClient(options)
      } catch (e) {
        thrown = e
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(AgentMuxError)
      expect(thrown.code).toBe('VALIDATION_ERROR')
      expect(thrown.message.startsWith(field), thrown.message).toBe(true)
    }
    // Valid values, at the edges of their ranges, are accepted.
    const ok = createClient({
      defaultAgent: 'codex',
      defaultModel: 'gpt-5',
      approvalMode: 'yolo',
      timeout: 0,
      inactivityTimeout: 120000,
      stream: 'auto',
      projectConfigDir: join(home, 'project', '.agent-mux'),
      debug: false,
      retryPolicy: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, jitterFactor: 0, retryOn: ['RATE_LIMITED'] },
    })
    expect(typeof ok.sessions.list).toBe('function')
    for (const stream of [true, false]) expect(() => createClient({ stream })).not.toThrow()
    for (const approvalMode of ['prompt', 'deny']) expect(() => createClient({ approvalMode })).not.toThrow()
  })
})

describe('empty and missing stores', () => {
  const { sessions } = createClient()
  it('every agent lists [] when its store does not exist', async () => {
    for (const agent of BUILT_IN_AGENTS) {
      expect(await sessions.list(agent)).toEqual([])
    }
  })
  it('totalCost with nothing is all zeros', async () => {
    expect(await sessions.totalCost()).toEqual({
      totalUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      thinkingTokens: 0,
      cachedTokens: 0,
      sessionCount: 0,
      runCount: 0,
    })
  })
  it('search with nothing is []', async () => {
    expect(await sessions.search({ text: 'anything' })).toEqual([])
  })
})

describe('tsv.list: the lines amux prints to a pipe', () => {
  // What the CLI printed from the API's objects before the lines were written natively.
  const number = (n) => (Number.isFinite(n) ? String(Number(n.toFixed(6))) : '')
  const field = (v) => (v === undefined ? '' : String(v).replace(/[\t\r\n]/g, ' '))
  const expected = (list) =>
    list
      .map((s) => [s.sessionId, s.updatedAt.toISOString(), s.turnCount, s.model, number(s.cost?.totalUsd), s.title].map(field).join('\t') + '\n')
      .join('')

  it('holds the sessions list returns, in its order, for every agent and option', async () => {
    const mux = createClient()
    const optionSets = [{}, { sort: 'cost' }, { sort: 'turns', limit: 2 }, { since: new Date('2026-10-20T00:00:00Z') }, { limit: 0 }]
    let lines = 0
    await withHome(demoHome, async () => {
      for (const agent of BUILT_IN_AGENTS) {
        for (const options of optionSets) {
          const list = await mux.sessions.list(agent, options)
          const text = await cjs.textOutput(mux).tsv.list(agent, options)
          expect(text, `${agent} ${JSON.stringify(options)}`).toBe(expected(list))
          lines += list.length
        }
      }
    })
    expect(lines).toBeGreaterThan(30) // the demo home has sessions of every agent
  })

  it('rejects what list rejects, with the same codes', async () => {
    const { tsv } = cjs.textOutput(createClient())
    expect((await rejection(tsv.list('nope'))).code).toBe('AGENT_NOT_FOUND')
    for (const options of [{ limit: -1 }, { sort: 'size' }, { since: '2025-01-01' }]) {
      const e = await rejection(tsv.list('claude', options))
      expect(e).toBeInstanceOf(cjs.AgentMuxError)
      expect(e.code).toBe('VALIDATION_ERROR')
    }
  })
})
