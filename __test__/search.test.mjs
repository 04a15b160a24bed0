// sessions.search through the public JS API: the query language, Hermes' sanitiser, CJK, every
// filter and sort, cross-agent ranking, snippets. Homes: a copy of the demo home with a few extra
// Claude sessions (made from a demo session by replacing its text), and a small generated home.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '../index.mjs'
import { copyDemoHome, genHome, removeDir, withHome } from './helpers.mjs'

const BASE_ID = '6513270e-269e-4d37-b2a7-4de452e6b438'
const BASE_DIR = '.claude/projects/-home-dev-src-shop'
const BASE_PROMPT = 'Why does my kubernetes deployment keep restarting the api pod?'
// Extra sessions: id → the prompt that replaces the base one (and its title).
const EXTRA = {
  'aaaaaaaa-0000-4000-8000-000000000001': 'Why is chat-send returning 429 from the auth-refresh endpoint?',
  'aaaaaaaa-0000-4000-8000-000000000002': '别忘了山上的大石头，明天带上雨衣',
  'aaaaaaaa-0000-4000-8000-000000000003': 'Tune mem_limit in my-app.config.ts for the zebrafish job',
}

let home
let gen
const ids = (v) => v.map((s) => s.unifiedId)

async function search(query, h = home) {
  return withHome(h, () => createClient().sessions.search(query))
}

beforeAll(() => {
  home = copyDemoHome()
  const base = readFileSync(join(home, BASE_DIR, `${BASE_ID}.jsonl`), 'utf8')
  for (const [id, prompt] of Object.entries(EXTRA)) {
    const text = base
      .replaceAll(BASE_ID, id)
      .replaceAll(BASE_PROMPT, prompt)
      .replace(/"aiTitle":"[^"]*"/, `"aiTitle":${JSON.stringify(prompt.slice(0, 60))}`)
    writeFileSync(join(home, BASE_DIR, `${id}.jsonl`), text)
  }
  // tags come from agent-mux's run index
  mkdirSync(join(home, '.agent-mux'), { recursive: true })
  const run = (runId, sessionId, tags) =>
    JSON.stringify({ v: 1, runId, agent: 'claude', sessionId, timestamp: '2026-10-07T10:00:00Z', tags })
  writeFileSync(
    join(home, '.agent-mux', 'run-index.jsonl'),
    [run('r1', 'aaaaaaaa-0000-4000-8000-000000000001', ['triage']), run('r2', BASE_ID, ['ops', 'triage'])].join('\n') + '\n',
  )
  gen = mkdtempSync(join(tmpdir(), 'amux-gen-'))
  genHome(gen, ['--sessions', '40', '--seed', '5', '--scale', '1'])
})

afterAll(() => {
  removeDir(home)
  removeDir(gen)
})

describe('query language', () => {
  it('words: every word must match, in any order', async () => {
    // the three demo sessions, and the three extra ones (their tool output still names it)
    expect(ids(await search({ text: 'kubernetes' })).sort()).toEqual(
      [
        'claude:6513270e-269e-4d37-b2a7-4de452e6b438',
        'copilot:5b4b1b75-321c-4296-abd8-c67656d050cd',
        'pi:22dd113c-c8c4-4276-b36c-1575a71a56c6',
        ...Object.keys(EXTRA).map((id) => `claude:${id}`),
      ].sort(),
    )
    // only the demo sessions still say "restarting"
    const both = await search({ text: 'restarting kubernetes' })
    expect(both.length).toBe(3)
    expect(await search({ text: 'sqlite zebrafish' })).toEqual([])
    expect((await search({ text: 'zebrafish' })).length).toBe(1)
  })

  it('"phrase" needs the words side by side', async () => {
    const words = await search({ text: 'restarting kubernetes' })
    const phrase = await search({ text: '"restarting kubernetes"' })
    expect(words.length).toBe(3)
    expect(phrase).toEqual([])
    expect(ids(await search({ text: '"the api pod"' })).length).toBe(3)
  })

  it('OR takes either side, NOT removes', async () => {
    const k = await search({ text: 'kubernetes' })
    const s = await search({ text: 'sqlite' })
    const either = await search({ text: 'kubernetes OR sqlite' })
    expect(new Set(ids(either))).toEqual(new Set([...ids(k), ...ids(s)]))
    // every kubernetes session also mentions the liveness probe
    expect(await search({ text: 'kubernetes NOT probe' })).toEqual([])
    const notSqlite = await search({ text: 'kubernetes NOT sqlite' })
    expect(ids(notSqlite).sort()).toEqual(ids(k).sort())
  })

  it('prefix* matches word starts only', async () => {
    const pre = await search({ text: 'middle*' })
    expect(pre.length).toBe(3)
    expect(pre[0].snippet).toContain('>>>middleware<<<')
    expect(await search({ text: 'iddleware*' })).toEqual([])
  })

  it('Hermes sanitiser: hyphenated and dotted terms are phrases, stray syntax is dropped', async () => {
    const one = ['claude:aaaaaaaa-0000-4000-8000-000000000001']
    expect(ids(await search({ text: 'chat-send 429' }))).toEqual(one)
    expect(ids(await search({ text: 'auth-refresh' }))).toEqual(one)
    expect(ids(await search({ text: '"unterminated chat-send' }))).toEqual([])
    expect(ids(await search({ text: 'chat-send AND' }))).toEqual(one)
    expect(ids(await search({ text: 'OR auth-refresh' }))).toEqual(one)
    expect(ids(await search({ text: '(chat-send)' }))).toEqual(one)
    const three = ['claude:aaaaaaaa-0000-4000-8000-000000000003']
    expect(ids(await search({ text: 'my-app.config.ts' }))).toEqual(three)
    expect(ids(await search({ text: 'mem_limit' }))).toEqual(three)
    expect(ids(await search({ text: '***zebra*' }))).toEqual(three)
    // nothing left after sanitising: no results, never an error
    expect(await search({ text: '()*^' })).toEqual([])
  })
})

describe('CJK', () => {
  it('three or more characters: the exact sequence', async () => {
    const hits = await search({ text: '大别山' })
    expect(hits.length).toBeGreaterThan(0)
    expect(ids(hits)).not.toContain('claude:aaaaaaaa-0000-4000-8000-000000000002')
    expect(ids(await search({ text: '山上的大石头' }))).toEqual(['claude:aaaaaaaa-0000-4000-8000-000000000002'])
  })

  it('one or two characters: substring', async () => {
    expect(ids(await search({ text: '别忘' }))).toEqual(['claude:aaaaaaaa-0000-4000-8000-000000000002'])
    const shan = ids(await search({ text: '山' }))
    expect(shan).toContain('claude:aaaaaaaa-0000-4000-8000-000000000002')
    expect(shan.length).toBeGreaterThan(1)
  })
})

describe('filters, sort, limit', () => {
  it('agent, unknown agent', async () => {
    expect(ids(await search({ text: 'kubernetes', agent: 'pi' }))).toEqual(['pi:22dd113c-c8c4-4276-b36c-1575a71a56c6'])
    expect(await search({ text: 'kubernetes', agent: 'nope' })).toEqual([])
  })

  it('since / until bound createdAt', async () => {
    const all = await search({ text: 'kubernetes' })
    const cut = new Date('2026-10-10T00:00:00Z')
    const after = await search({ text: 'kubernetes', since: cut })
    const before = await search({ text: 'kubernetes', until: cut })
    expect(after.every((s) => s.createdAt >= cut)).toBe(true)
    expect(before.every((s) => s.createdAt <= cut)).toBe(true)
    expect(after.length + before.length).toBe(all.length)
    expect(after.length).toBe(2)
  })

  it('model', async () => {
    const v = await search({ text: 'kubernetes', model: 'gpt-5' })
    expect(ids(v)).toEqual(['copilot:5b4b1b75-321c-4296-abd8-c67656d050cd'])
  })

  it('tags from the run index (any tag matches)', async () => {
    expect(ids(await search({ text: 'kubernetes', tags: ['ops'] }))).toEqual([`claude:${BASE_ID}`])
    const triage = ids(await search({ text: 'kubernetes OR chat-send', tags: ['triage'] })).sort()
    expect(triage).toEqual([`claude:${BASE_ID}`, 'claude:aaaaaaaa-0000-4000-8000-000000000001'].sort())
    expect(await search({ text: 'kubernetes', tags: ['nothing'] })).toEqual([])
  })

  it('results carry the cost, tags and run count list reports, whatever the sort', async () => {
    const listed = new Map()
    await withHome(home, async () => {
      const mux = createClient()
      for (const agent of ['claude', 'copilot', 'pi', 'hermes']) {
        for (const s of await mux.sessions.list(agent)) listed.set(s.unifiedId, s)
      }
    })
    const base = listed.get(`claude:${BASE_ID}`)
    expect(base.tags).toEqual(['ops', 'triage'])
    expect(base.cost.totalUsd).toBeGreaterThan(0)
    let checked = 0
    for (const sort of ['relevance', 'date', 'cost']) {
      for (const hit of await search({ text: 'kubernetes OR pyproject', sort })) {
        const l = listed.get(hit.unifiedId)
        if (!l) continue
        expect([hit.cost, hit.tags, hit.runCount]).toEqual([l.cost, l.tags, l.runCount])
        checked++
      }
    }
    expect(checked).toBeGreaterThanOrEqual(9)
  })

  it('sort by relevance (default), date and cost; limit cuts after sorting', async () => {
    const rel = await search({ text: 'kubernetes OR sqlite' })
    const scores = rel.map((s) => s.relevanceScore)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    const date = await search({ text: 'kubernetes OR sqlite', sort: 'date' })
    const times = date.map((s) => s.updatedAt.getTime())
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    const cost = await search({ text: 'kubernetes OR sqlite', sort: 'cost' })
    const usd = cost.map((s) => s.cost?.totalUsd ?? 0)
    expect([...usd].sort((a, b) => b - a)).toEqual(usd)
    expect(new Set(ids(date))).toEqual(new Set(ids(rel)))
    const two = await search({ text: 'kubernetes OR sqlite', sort: 'date', limit: 2 })
    expect(ids(two)).toEqual(ids(date).slice(0, 2))
    expect(await search({ text: 'kubernetes', limit: 0 })).toEqual([])
  })
})

describe('ranking and snippets', () => {
  it('merges agents with scores in 0..1, the best at 1', async () => {
    const v = await search({ text: 'flaky test' }, gen)
    const agents = new Set(v.map((s) => s.agent))
    expect(agents.size).toBeGreaterThan(3)
    expect(v[0].relevanceScore).toBe(1)
    expect(v.every((s) => s.relevanceScore > 0 && s.relevanceScore <= 1)).toBe(true)
    // deterministic: the same call gives the same order
    expect(ids(await search({ text: 'flaky test' }, gen))).toEqual(ids(v))
  })

  it('phrase hits outrank scattered words', async () => {
    const v = await search({ text: '"flaky test"' })
    expect(v[0].snippet).toContain('>>>flaky test<<<')
  })

  it('Hermes hits carry FTS5 snippets, made for the results returned', async () => {
    const [word] = await search({ text: 'pyproject', agent: 'hermes' })
    expect(word.sessionId).toBe('20261110_013400_174489')
    expect(word.snippet).toBe('Our wheel is missing the data files, fix >>>pyproject<<<.toml packaging.')
    // trigram path (3+ CJK characters), cut to one result
    const cjk = await search({ text: '大别山', agent: 'hermes', limit: 1 })
    expect(cjk.map((s) => s.sessionId)).toEqual(['20261101_000727_347a73'])
    expect(cjk[0].snippet.startsWith('>>>大别山<<<')).toBe(true)
    expect(cjk[0].matchCount).toBe(5)
  })

  it('snippets mark hits, stay short, and count matches', async () => {
    const v = await search({ text: 'kubernetes' })
    for (const s of v) {
      expect(s.snippet).toMatch(/>>>kubernetes<<</i)
      expect(s.snippet.replaceAll('>>>', '').replaceAll('<<<', '').length).toBeLessThanOrEqual(200)
      expect(s.matchCount).toBeGreaterThanOrEqual(1)
    }
    // The base Claude session says "kubernetes" in its prompt, its title and its thinking.
    expect(v.find((s) => s.sessionId === BASE_ID).matchCount).toBe(3)
  })
})

describe('text past ASCII', () => {
  // Results cross from Rust as JSON with every character past ASCII escaped; they must arrive
  // as the agent wrote them: accents, CJK, an emoji (a surrogate pair), typographic quotes and
  // U+2028, which JSON allows raw and JavaScript source did not.
  const PROMPT = 'Crab 🦀 café naïve 大别山 “quoted” \u2028 okapi end'
  let own
  beforeAll(() => {
    own = copyDemoHome()
    const id = 'aaaaaaaa-0000-4000-8000-00000000000f'
    const text = readFileSync(join(own, BASE_DIR, `${BASE_ID}.jsonl`), 'utf8')
      .replaceAll(BASE_ID, id)
      .replaceAll(BASE_PROMPT, PROMPT)
      .replace(/"aiTitle":"[^"]*"/, `"aiTitle":${JSON.stringify(PROMPT)}`)
    writeFileSync(join(own, BASE_DIR, `${id}.jsonl`), text)
  })
  afterAll(() => removeDir(own))

  it('arrives in list and search as written (titles and snippets fold whitespace)', async () => {
    const shown = 'Crab 🦀 café naïve 大别山 “quoted” okapi end'
    const listed = await withHome(own, () => createClient().sessions.list('claude'))
    expect(listed.filter((s) => s.title === shown)).toHaveLength(1)
    const [hit] = await search({ text: 'okapi' }, own)
    expect(hit.title).toBe(shown)
    expect(hit.snippet).toBe('Crab 🦀 café naïve 大别山 “quoted” >>>okapi<<< end')
    const [cjk] = await search({ text: '大别山', agent: 'claude' }, own)
    expect(cjk.title).toBe(shown)
    const session = await withHome(own, () => createClient().sessions.get('claude', hit.sessionId))
    expect(session.messages[0].content).toBe(PROMPT)
    // Exports cross as text, not JSON: UTF-8 as it is.
    const md = await withHome(own, () => createClient().sessions.export('claude', hit.sessionId, 'markdown'))
    expect(md).toContain('Crab 🦀 café naïve 大别山 “quoted”')
  })
})

describe('a search given up (options.signal)', () => {
  it('rejects with ABORTED when its signal aborts first, and answers as before when it never does', async () => {
    const client = await withHome(home, () => createClient())
    const before = new AbortController()
    before.abort()
    const early = await withHome(home, () => client.sessions.search({ text: 'kubernetes' }, { signal: before.signal })).catch((e) => e)
    expect(early.name).toBe('AgentMuxError')
    expect(early.code).toBe('ABORTED')

    // Aborted while under way: it stops at a stage of its work (or has answered by then).
    const during = new AbortController()
    const call = withHome(home, () => client.sessions.search({ text: 'kubernetes' }, { signal: during.signal }))
    during.abort()
    const settled = await call.then((v) => ({ v }), (e) => ({ e }))
    if (settled.e) expect(settled.e.code).toBe('ABORTED')
    else expect(settled.v.length).toBeGreaterThan(0)

    const kept = new AbortController()
    const plain = await withHome(home, () => client.sessions.search({ text: 'kubernetes' }))
    const signalled = await withHome(home, () => client.sessions.search({ text: 'kubernetes' }, { signal: kept.signal }))
    expect(ids(signalled)).toEqual(ids(plain))
    expect(plain.length).toBeGreaterThan(0)
  })
})
