// client.messages.window: part of one session's messages, as `get` returns them, around a query's
// hits (found by the search engine's own matcher) or from an index.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, removeDir, withHome, rejection } from './helpers.mjs'

describe('client.messages.window', () => {
  let home
  beforeAll(() => {
    home = copyDemoHome()
  })
  afterAll(() => removeDir(home))
  const client = () => createClient()
  const inHome = (fn) => withHome(home, fn)

  it("without options holds every message, each as get() returns it, with its index", () =>
    inHome(async () => {
      const c = client()
      for (const agent of BUILT_IN_AGENTS) {
        const [s] = await c.sessions.list(agent, { limit: 1 })
        const session = await c.sessions.get(agent, s.sessionId)
        const w = await c.messages.window(agent, s.sessionId)
        expect(w.hits).toBeUndefined()
        expect(w.session.unifiedId).toBe(session.unifiedId)
        expect(w.session.messageCount).toBe(session.messages.length)
        expect(w.session.createdAt).toBeInstanceOf(Date)
        expect(w.messages.map((m) => m.index)).toEqual(session.messages.map((_, i) => i))
        expect(w.messages.map((m) => m.message)).toEqual(session.messages)
      }
    }))

  it('with around, keeps the messages holding hits and their context', () =>
    inHome(async () => {
      const c = client()
      const [s] = await c.sessions.search({ text: 'kubernetes', agent: 'copilot', limit: 1 })
      const session = await c.sessions.get('copilot', s.sessionId)
      const w = await c.messages.window('copilot', s.sessionId, { around: 'kubernetes', context: 0 })
      expect(w.hits.length).toBeGreaterThan(0)
      expect(w.messages.map((m) => m.index)).toEqual(w.hits.map((h) => h.index))
      for (const h of w.hits) expect(h.snippet.toLowerCase()).toContain('>>>kubernetes<<<')
      // The user's question mentions it: the first message is a hit.
      expect(w.hits[0].index).toBe(session.messages.findIndex((m) => /kubernetes/i.test(m.content)))
      const wide = await c.messages.window('copilot', s.sessionId, { around: 'kubernetes', context: 1 })
      expect(wide.messages.length).toBeGreaterThan(w.messages.length)
      const none = await c.messages.window('copilot', s.sessionId, { around: 'zzqxjw' })
      expect(none.hits).toEqual([])
      expect(none.messages).toEqual([])
    }))

  it('from and limit page through the messages kept', () =>
    inHome(async () => {
      const c = client()
      const [s] = await c.sessions.list('claude', { limit: 1 })
      const w = await c.messages.window('claude', s.sessionId, { from: 2, limit: 3 })
      expect(w.messages.map((m) => m.index)).toEqual([2, 3, 4].filter((i) => i < s.messageCount))
    }))

  it('rejects an unknown session or agent and bad options with typed errors', () =>
    inHome(async () => {
      const c = client()
      expect((await rejection(c.messages.window('claude', 'no-such-session'))).code).toBe('SESSION_NOT_FOUND')
      expect((await rejection(c.messages.window('clod', 'x'))).code).toBe('AGENT_NOT_FOUND')
      const [s] = await c.sessions.list('claude', { limit: 1 })
      for (const options of [{ context: -1 }, { from: 1.5 }, { limit: '3' }, { around: 7 }]) {
        const e = await rejection(c.messages.window('claude', s.sessionId, options))
        expect(e.code).toBe('VALIDATION_ERROR')
      }
    }))
})
