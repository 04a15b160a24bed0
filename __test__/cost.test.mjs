import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, AgentMuxError } from '../index.mjs'

let home
let savedHome
let savedTz
beforeAll(() => {
  savedHome = process.env.HOME
  savedTz = process.env.TZ
  home = mkdtempSync(join(tmpdir(), 'amux-cost-'))
  process.env.HOME = home
})
afterAll(() => {
  process.env.HOME = savedHome
  if (savedTz === undefined) delete process.env.TZ
  else process.env.TZ = savedTz
  rmSync(home, { recursive: true, force: true })
})

describe('totalCost through the binding', () => {
  it('rejects a malformed pricing option when the client is made', () => {
    let err
    try {
      createClient({ pricing: { 'm-a': { input: 1 } } })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(AgentMuxError)
    expect(err.code).toBe('VALIDATION_ERROR')
  })

  it('counts run-index runs by local day of the process TZ', async () => {
    const cfg = join(home, 'cfg')
    mkdirSync(cfg, { recursive: true })
    writeFileSync(
      join(cfg, 'run-index.jsonl'),
      [
        '{"v":1,"runId":"01A","agent":"codex","model":"m","timestamp":"2025-03-01T20:00:00Z","cost":{"totalUsd":0.25,"inputTokens":10,"outputTokens":1},"tags":["t"]}',
        '{"v":1,"runId":"01B","agent":"codex","timestamp":"2025-03-01T10:00:00Z","cost":{"totalUsd":0.5,"inputTokens":20,"outputTokens":2},"tags":[]}',
        '{"v":1,"runId":"01C","agent":"co',
      ].join('\n'),
    )
    const { sessions } = createClient({ configDir: cfg })
    // Tokyo (+9): 20:00Z on Mar 1 is Mar 2; 10:00Z is still Mar 1.
    process.env.TZ = 'Asia/Tokyo'
    const byDay = await sessions.totalCost({ groupBy: 'day' })
    expect(byDay.totalUsd).toBeCloseTo(0.75, 9)
    expect(byDay.runCount).toBe(2)
    expect(byDay.sessionCount).toBe(0)
    expect(Object.keys(byDay.breakdowns)).toEqual(['2025-03-01', '2025-03-02'])
    expect(byDay.breakdowns['2025-03-02'].totalUsd).toBeCloseTo(0.25, 9)
    // UTC: both on Mar 1.
    process.env.TZ = 'UTC'
    const utc = await sessions.totalCost({ groupBy: 'day' })
    expect(Object.keys(utc.breakdowns)).toEqual(['2025-03-01'])
    const tagged = await sessions.totalCost({ tags: ['t'] })
    expect(tagged.totalUsd).toBeCloseTo(0.25, 9)
  })
})
