// Only real sessions are sessions: a file in an agent's store that holds no record of the agent's
// format (generic {"role","content"} rows, as another tool might write) is left out of list, search
// and totalCost, and get rejects it with PARSE_ERROR. One such file per file-based agent, beside the
// demo home's real sessions.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createClient } from '../index.mjs'
import { copyDemoHome, removeDir, withHome } from './helpers.mjs'
import { rejection } from './helpers.mjs'

const MARK = 'quokkanotasession'
const ROWS =
  [
    { role: 'user', content: `What is a ${MARK}?` },
    { role: 'assistant', content: `A ${MARK} is a file of generic chat rows.` },
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n'
const FAKE = 'dddddddd-0000-4000-8000-00000000fa4e'

// agent → [path of the non-agent file under HOME, its content, the id get is asked for]
const FILES = {
  claude: [`.claude/projects/-home-dev-src-shop/${FAKE}.jsonl`, ROWS, FAKE],
  codex: [`.codex/sessions/2026/10/02/rollout-2026-10-02T09-00-00-${FAKE}.jsonl`, ROWS, FAKE],
  gemini: ['.gemini/tmp/shop/chats/session-2026-10-02T09-00-dddddddd.jsonl', ROWS, 'session-2026-10-02T09-00-dddddddd'],
  copilot: [`.copilot/session-state/${FAKE}/events.jsonl`, ROWS, FAKE],
  cursor: [`.cursor/projects/home-dev-src-shop/agent-transcripts/${FAKE}.jsonl`, ROWS, FAKE],
  pi: [`.pi/agent/sessions/--home-dev-src-docs--/2026-10-02T09-00-00-000Z_${FAKE}.jsonl`, ROWS, FAKE],
  omp: [`.omp/agent/sessions/-src-docs/2026-10-02T09-00-00-000Z_${FAKE}.jsonl`, ROWS, FAKE],
  openclaw: [`.openclaw/agents/main/sessions/${FAKE}.jsonl`, ROWS, FAKE],
  opencode: [`.local/share/opencode/storage/session/global/ses_${MARK}.json`, JSON.stringify({ role: 'user', content: MARK }), `ses_${MARK}`],
}

let home
const before = {}
beforeAll(async () => {
  home = copyDemoHome()
  const { sessions } = createClient()
  await withHome(home, async () => {
    for (const agent of Object.keys(FILES)) before[agent] = (await sessions.list(agent, { limit: 10000 })).length
  })
  for (const [path, content] of Object.values(FILES)) {
    mkdirSync(dirname(join(home, path)), { recursive: true })
    writeFileSync(join(home, path), content)
  }
})
afterAll(() => removeDir(home))

describe('a non-agent file beside real sessions', () => {
  for (const [agent, [, , id]] of Object.entries(FILES)) {
    it(`${agent}: not listed, not found, not counted, and get says PARSE_ERROR`, async () => {
      await withHome(home, async () => {
        const { sessions } = createClient()
        const list = await sessions.list(agent, { limit: 10000 })
        // The real sessions are still there; the file adds none.
        if (agent !== 'opencode') expect(before[agent]).toBeGreaterThan(0)
        expect(list.length).toBe(before[agent])
        expect(list.map((s) => s.sessionId)).not.toContain(id)
        expect(await sessions.search({ text: MARK, agent })).toEqual([])
        const cost = await sessions.totalCost({ agent })
        expect(cost.sessionCount).toBe(before[agent])
        const e = await rejection(sessions.get(agent, id))
        expect(e.code, e.message).toBe('PARSE_ERROR')
      })
    })
  }
})
