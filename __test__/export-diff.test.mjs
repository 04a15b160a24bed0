// export and diff through the public JS API (issue 7): every demo session in all three formats,
// checked against get() itself; Markdown that hostile content cannot restructure; diffs whose
// counts are checked against an independent LCS; the spec's error codes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, BUILT_IN_AGENTS } from '../index.mjs'
import { copyDemoHome, rejection, removeDir } from './helpers.mjs'

const ROLE_TITLE = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' }

/**
 * The block structure of a Markdown document as CommonMark sees it, for what these tests need:
 * ATX headings, and raw HTML lines, outside fenced code blocks. A fence opens with 3+ backticks
 * or tildes (up to 3 spaces indent) and closes with a line of the same char, at least as long,
 * and nothing else. `open` is true when the document ends inside a fence.
 */
function blocks(md) {
  const headings = []
  const html = []
  let fence = null
  for (const line of md.split('\n')) {
    if (fence) {
      const close = line.match(/^ {0,3}(`{3,}|~{3,})\s*$/)
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) fence = null
      continue
    }
    const open = line.match(/^ {0,3}(`{3,}|~{3,})(.*)$/)
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      fence = open[1]
      continue
    }
    const h = line.match(/^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/)
    if (h) headings.push({ level: h[1].length, text: h[2] ?? '' })
    if (/^ {0,3}<[/!?A-Za-z]/.test(line)) html.push(line.trim())
  }
  return { headings, html, open: fence !== null }
}

/** Inline Markdown text back to plain text: backslash escapes and the entities the export writes. */
function plain(md) {
  return md
    .replace(/\\([!-\/:-@[-`{-~])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&')
}

/** Length of the longest common subsequence of two message lists on (role, content). */
function lcsLength(a, b) {
  const key = (m) => m.role + '\u0000' + m.content
  const ka = a.map(key)
  const kb = b.map(key)
  let prev = new Array(kb.length + 1).fill(0)
  for (let i = 1; i <= ka.length; i++) {
    const cur = new Array(kb.length + 1).fill(0)
    for (let j = 1; j <= kb.length; j++) {
      cur[j] = ka[i - 1] === kb[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1])
    }
    prev = cur
  }
  return prev[kb.length]
}

/**
 * What every diff must satisfy: operations walk both message lists in order exactly once, carry
 * the messages at their indices, stats count the operations, and `unchanged` is a maximal common
 * subsequence.
 */
function checkDiff(d, sa, sb) {
  expect(d.a).toEqual({ agent: sa.agent, sessionId: sa.sessionId, unifiedId: sa.unifiedId })
  expect(d.b).toEqual({ agent: sb.agent, sessionId: sb.sessionId, unifiedId: sb.unifiedId })
  const { additions, removals, modifications, unchanged } = d.stats
  expect(additions + removals + modifications + unchanged).toBe(d.operations.length)
  const count = (t) => d.operations.filter((o) => o.type === t).length
  expect({ additions, removals, modifications, unchanged }).toEqual({
    additions: count('addition'),
    removals: count('removal'),
    modifications: count('modification'),
    unchanged: count('unchanged'),
  })
  let ia = 0
  let ib = 0
  for (const op of d.operations) {
    if (op.type !== 'addition') {
      expect(op.indexA).toBe(ia++)
      expect(op.messageA).toEqual(sa.messages[op.indexA])
    } else expect(op.indexA).toBeUndefined()
    if (op.type !== 'removal') {
      expect(op.indexB).toBe(ib++)
      expect(op.messageB).toEqual(sb.messages[op.indexB])
    } else expect(op.indexB).toBeUndefined()
    if (op.type === 'unchanged') {
      expect(op.messageA.role).toBe(op.messageB.role)
      expect(op.messageA.content).toBe(op.messageB.content)
    }
    if (op.type === 'modification') {
      expect(op.messageA.role).toBe(op.messageB.role)
      expect(op.messageA.content).not.toBe(op.messageB.content)
    }
  }
  expect(ia).toBe(sa.messages.length)
  expect(ib).toBe(sb.messages.length)
  expect(unchanged).toBe(lcsLength(sa.messages, sb.messages))
  return d.stats
}

describe('exports of every demo session', () => {
  let home
  let savedHome
  let sessions
  const demo = [] // [agent, Session]
  beforeAll(async () => {
    home = copyDemoHome()
    savedHome = process.env.HOME
    process.env.HOME = home
    sessions = createClient().sessions
    for (const agent of BUILT_IN_AGENTS) {
      for (const s of await sessions.list(agent)) demo.push([agent, await sessions.get(agent, s.sessionId)])
    }
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(home)
  })

  it('covers 30 sessions', () => {
    expect(demo.length).toBe(30)
  })

  it('json is exactly JSON.stringify(await get(), null, 2)', async () => {
    for (const [agent, g] of demo) {
      const text = await sessions.export(agent, g.sessionId, 'json')
      expect(typeof text).toBe('string')
      expect(text, g.unifiedId).toBe(JSON.stringify(g, null, 2))
      // Dates went out as ISO strings
      expect(JSON.parse(text).createdAt).toBe(g.createdAt.toISOString())
    }
  })

  it('jsonl: a header line, then one line per message equal to get() messages', async () => {
    for (const [agent, g] of demo) {
      const text = await sessions.export(agent, g.sessionId, 'jsonl')
      expect(text.endsWith('\n')).toBe(true)
      const lines = text.slice(0, -1).split('\n')
      expect(lines.length).toBe(g.messages.length + 1)
      const parsed = lines.map((l) => JSON.parse(l)) // every line parses on its own
      const { messages, raw, ...fields } = g
      expect(lines[0]).toBe(JSON.stringify({ type: 'session', ...fields }))
      expect(parsed[0].unifiedId).toBe(`${agent}:${g.sessionId}`)
      expect(parsed[0].messages).toBeUndefined()
      messages.forEach((m, i) => {
        expect(parsed[i + 1].type).toBeUndefined()
        expect(lines[i + 1], `${g.unifiedId} message ${i}`).toBe(JSON.stringify(m))
        expect(parsed[i + 1]).toEqual(JSON.parse(JSON.stringify(m)))
      })
    }
  })

  it('markdown: header, one ### section per message in order, cost summary', async () => {
    for (const [agent, g] of demo) {
      const md = await sessions.export(agent, g.sessionId, 'markdown')
      const { headings, html, open } = blocks(md)
      expect(open).toBe(false)
      expect(headings[0].level).toBe(1)
      // a heading drops trailing blanks (a title cut at 100 chars can end in one)
      expect(plain(headings[0].text)).toBe(g.title.trimEnd())
      expect(md).toContain(`- **Agent:** ${agent}\n`)
      expect(md).toContain(`- **Unified ID:** \`${g.unifiedId}\`\n`)
      expect(md).toContain(`- **Model:** ${g.model}\n`)
      expect(md).toContain(`- **Created:** ${g.createdAt.toISOString()}\n`)
      const sections = headings.filter((h) => h.level === 3).map((h) => h.text)
      expect(sections).toEqual(g.messages.map((m) => ROLE_TITLE[m.role]))
      expect(headings.filter((h) => h.level === 2).map((h) => h.text)).toEqual(['Messages', 'Cost summary'])
      const thinking = g.messages.filter((m) => m.thinking && m.thinking.trim()).length
      expect(html.filter((l) => l === '<details>').length).toBe(thinking)
      expect(html.filter((l) => l === '</details>').length).toBe(thinking)
      const summary = md.slice(md.indexOf('## Cost summary'))
      if (agent === 'cursor') {
        expect(summary).toContain('No cost recorded for this session.')
        expect(md).toContain('- **Cost:** not recorded\n')
      } else {
        expect(summary).toContain(`- **Total:** $${g.cost.totalUsd.toFixed(4)}\n`)
        expect(summary).toContain(`- **Input tokens:** ${g.cost.inputTokens}\n`)
        expect(summary).toContain(`- **Output tokens:** ${g.cost.outputTokens}\n`)
      }
      // every tool call's name is in the document
      for (const tc of g.messages.flatMap((m) => m.toolCalls ?? [])) {
        expect(md).toContain(`**Tool call:** \`${tc.toolName}\` (\`${tc.toolCallId}\`)`)
      }
    }
  })
})

// A Claude Code session as Claude writes it (projects/<cwd-slug>/<id>.jsonl), built line by line.
function claudeLines(sessionId, cwd, turns) {
  const base = { isSidechain: false, userType: 'external', entrypoint: 'cli', cwd, sessionId, version: '2.1.197', gitBranch: 'main' }
  const lines = []
  let parent = null
  let t = Date.parse('2026-03-01T10:00:00.000Z')
  const push = (rec) => {
    const uuid = `${sessionId.slice(0, 8)}-${lines.length}`
    t += 1000
    lines.push({ parentUuid: parent, ...base, ...rec, uuid, timestamp: new Date(t).toISOString() })
    parent = uuid
  }
  turns.forEach((turn, i) => {
    push({ type: 'user', message: { role: 'user', content: turn.prompt }, promptId: `p${i}`, permissionMode: 'default' })
    const msg = (content) => ({
      model: 'claude-sonnet-4-5-20250929',
      id: `msg_${sessionId.slice(0, 8)}_${i}`,
      type: 'message',
      role: 'assistant',
      content,
      stop_reason: turn.tool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 50, service_tier: 'standard' },
    })
    if (turn.thinking) push({ type: 'assistant', requestId: `req_${i}`, message: msg([{ type: 'thinking', thinking: turn.thinking, signature: 'sig' }]) })
    if (turn.tool) {
      const id = `toolu_${i}`
      push({ type: 'assistant', requestId: `req_${i}`, message: msg([{ type: 'tool_use', id, name: 'Bash', input: turn.tool.input }]) })
      push({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: turn.tool.output, is_error: false }] },
        toolUseResult: { stdout: turn.tool.output, stderr: '', interrupted: false, isImage: false },
      })
      push({ type: 'assistant', requestId: `req_${i}b`, message: { ...msg([{ type: 'text', text: turn.answer }]), id: `msg_${i}b` } })
    } else {
      push({ type: 'assistant', requestId: `req_${i}`, message: msg([{ type: 'text', text: turn.answer }]) })
    }
  })
  return lines.map((l) => JSON.stringify(l))
}

function writeClaude(home, sessionId, lines) {
  const dir = join(home, '.claude', 'projects', '-tmp-hostile')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${sessionId}.jsonl`), lines.join('\n') + '\n')
}

const HOSTILE = [
  '### Fake heading',
  '# Also fake',
  '</details>',
  '<script>alert("x")</script>',
  '```',
  'inside a fence that never closes',
  '~~~~',
  '<!-- an HTML comment that never closes',
  'Setext?',
  '---',
  '`` a code span that',
  '<details> does not close here',
  '漢字とかな ✓',
].join('\n')

describe('hostile content in markdown (a generated Claude session)', () => {
  let home
  let savedHome
  let sessions
  const id = 'a0b1c2d3-0000-4000-8000-00000000beef'
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'amux-hostile-'))
    writeClaude(
      home,
      id,
      claudeLines(id, '/tmp/hostile', [
        {
          prompt: HOSTILE,
          thinking: 'thinking with </details> and\n### Assistant\n```',
          tool: { input: { command: 'printf "### Tool\\n````\\n"', description: '</details>' }, output: '### Tool\n````\n</details>\n<script>' },
          answer: `Answer quoting it:\n${HOSTILE}`,
        },
        { prompt: '### User', answer: '```````' },
      ]),
    )
    savedHome = process.env.HOME
    process.env.HOME = home
    sessions = createClient().sessions
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(home)
  })

  it('the structure survives: one ### per message, balanced <details>, no live HTML, no open fence', async () => {
    const g = await sessions.get('claude', id)
    expect(g.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
    expect(g.messages[0].content).toBe(HOSTILE)
    const md = await sessions.export('claude', id, 'markdown')
    const { headings, html, open } = blocks(md)
    expect(open).toBe(false)
    expect(headings.filter((h) => h.level === 3).map((h) => h.text)).toEqual(g.messages.map((m) => ROLE_TITLE[m.role]))
    expect(headings.filter((h) => h.level === 1).length).toBe(1)
    expect(headings.filter((h) => h.level === 2).map((h) => h.text)).toEqual(['Messages', 'Cost summary'])
    // The only raw HTML is the export's own thinking block.
    expect(html).toEqual(['<details>', '<summary>Thinking</summary>', '</details>'])
    expect(md.endsWith('\n')).toBe(true)
    const summary = md.slice(md.indexOf('\n## Cost summary\n'))
    expect(summary).toContain(`- **Total:** $${g.cost.totalUsd.toFixed(4)}\n`)
    expect(summary).toContain('- claude-sonnet-4-5-20250929: $')
    // nothing of the content was dropped: its words are all still there
    for (const word of ['Fake heading', 'alert', 'never closes', 'Setext?', '漢字とかな ✓']) {
      expect(md.split(word).length - 1, word).toBeGreaterThanOrEqual(2)
    }
  })

  it('json and jsonl carry hostile content exactly', async () => {
    const g = await sessions.get('claude', id)
    expect(await sessions.export('claude', id, 'json')).toBe(JSON.stringify(g, null, 2))
    const lines = (await sessions.export('claude', id, 'jsonl')).trimEnd().split('\n')
    expect(lines.length).toBe(7)
    expect(JSON.parse(lines[1]).content).toBe(HOSTILE)
  })

  it('native records with integer-like keys print in JS key order in json', async () => {
    const odd = 'a0b1c2d3-0000-4000-8000-0000000000dd'
    writeClaude(
      home,
      odd,
      claudeLines(odd, '/tmp/hostile', [
        { prompt: 'keys', tool: { input: { b: 1, 10: 'ten', 9: 'nine', '01': 'zero-one', big: 12345678901234567890 }, output: 'ok' }, answer: 'done' },
      ]),
    )
    const g = await sessions.get('claude', odd)
    const input = g.messages[1].toolCalls[0].input
    // integer-like keys first, then the file's order, as JSON.parse of the native line gives
    expect(Object.keys(input)).toEqual(['9', '10', 'b', '01', 'big'])
    expect(await sessions.export('claude', odd, 'json')).toBe(JSON.stringify(g, null, 2))
    const jsonl = (await sessions.export('claude', odd, 'jsonl')).split('\n')
    expect(jsonl[2]).toBe(JSON.stringify(g.messages[1]))
  })
})

describe('diff through the JS API', () => {
  let home
  let savedHome
  let sessions
  let claude // a demo Claude session with tool calls
  const forkId = 'f0f0f0f0-0000-4000-8000-000000000001'
  const editId = 'f0f0f0f0-0000-4000-8000-000000000002'
  beforeAll(async () => {
    home = copyDemoHome()
    savedHome = process.env.HOME
    process.env.HOME = home
    sessions = createClient().sessions
    const list = await sessions.list('claude', { sort: 'turns', sortDirection: 'desc' })
    claude = await sessions.get('claude', list[0].sessionId)
    // The session file, copied under new ids: one with two more lines (a fork that went on), one
    // with the last answer's text changed.
    const projects = join(home, '.claude', 'projects')
    const file = readdirSync(projects)
      .map((d) => join(projects, d, `${claude.sessionId}.jsonl`))
      .find((p) => {
        try {
          return readFileSync(p).length > 0
        } catch {
          return false
        }
      })
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    const withId = (sid) => lines.map((l) => l.split(claude.sessionId).join(sid))
    const dir = join(projects, '-home-dev-src-forks')
    mkdirSync(dir)
    const extra = claudeLines(forkId, claude.cwd, [{ prompt: 'And one more thing after the fork.', answer: 'Forked answer.' }])
    writeFileSync(join(dir, `${forkId}.jsonl`), [...withId(forkId), ...extra].join('\n') + '\n')
    const edited = withId(editId)
    const lastText = edited.findLastIndex((l) => l.includes('"type":"text"') && l.includes('"role":"assistant"'))
    const rec = JSON.parse(edited[lastText])
    rec.message.content = [{ type: 'text', text: 'A different final answer.' }]
    edited[lastText] = JSON.stringify(rec)
    writeFileSync(join(dir, `${editId}.jsonl`), edited.join('\n') + '\n')
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(home)
  })

  it('a session against itself: everything unchanged', async () => {
    for (const agent of BUILT_IN_AGENTS) {
      for (const s of await sessions.list(agent)) {
        const g = await sessions.get(agent, s.sessionId)
        const d = await sessions.diff({ agent, sessionId: s.sessionId }, { agent, sessionId: s.sessionId })
        const stats = checkDiff(d, g, g)
        expect(stats).toEqual({ additions: 0, removals: 0, modifications: 0, unchanged: g.messages.length })
        for (const op of d.operations) {
          if (op.messageA.timestamp) expect(op.messageA.timestamp).toBeInstanceOf(Date)
        }
      }
    }
  })

  it('a fork that went on: shared prefix unchanged, the rest additions', async () => {
    const fork = await sessions.get('claude', forkId)
    expect(fork.messages.length).toBe(claude.messages.length + 2)
    const d = await sessions.diff({ agent: 'claude', sessionId: claude.sessionId }, { agent: 'claude', sessionId: forkId })
    expect(checkDiff(d, claude, fork)).toEqual({ additions: 2, removals: 0, modifications: 0, unchanged: claude.messages.length })
    expect(d.operations.slice(-2).map((o) => [o.type, o.messageB.role, o.messageB.content])).toEqual([
      ['addition', 'user', 'And one more thing after the fork.'],
      ['addition', 'assistant', 'Forked answer.'],
    ])
    // and the other way round: removals
    const back = await sessions.diff({ agent: 'claude', sessionId: forkId }, { agent: 'claude', sessionId: claude.sessionId })
    expect(checkDiff(back, fork, claude)).toEqual({ additions: 0, removals: 2, modifications: 0, unchanged: claude.messages.length })
    expect(back.b.unifiedId).toBe(claude.unifiedId)
  })

  it('a changed answer is one modification at its place', async () => {
    const edit = await sessions.get('claude', editId)
    const d = await sessions.diff({ agent: 'claude', sessionId: claude.sessionId }, { agent: 'claude', sessionId: editId })
    expect(checkDiff(d, claude, edit)).toEqual({ additions: 0, removals: 0, modifications: 1, unchanged: claude.messages.length - 1 })
    const mod = d.operations.find((o) => o.type === 'modification')
    expect(mod.indexA).toBe(claude.messages.length - 1)
    expect(mod.messageB.content).toBe('A different final answer.')
  })

  it('across agents: every pair of the first session of each agent', async () => {
    const firsts = []
    for (const agent of BUILT_IN_AGENTS) {
      const [s] = await sessions.list(agent)
      firsts.push(await sessions.get(agent, s.sessionId))
    }
    let withCommon = 0
    for (const a of firsts) {
      for (const b of firsts) {
        if (a === b) continue
        const d = await sessions.diff({ agent: a.agent, sessionId: a.sessionId }, { agent: b.agent, sessionId: b.sessionId })
        expect(d.a.unifiedId).toBe(a.unifiedId)
        expect(d.b.unifiedId).toBe(b.unifiedId)
        const stats = checkDiff(d, a, b)
        if (stats.unchanged > 0) withCommon++
      }
    }
    // the demo reuses prompts across agents, so some pairs share messages
    expect(withCommon).toBeGreaterThan(0)
  })
})

describe('export and diff errors', () => {
  let home
  let savedHome
  let sessions
  let id
  beforeAll(async () => {
    home = copyDemoHome()
    savedHome = process.env.HOME
    process.env.HOME = home
    sessions = createClient().sessions
    id = (await sessions.list('pi'))[0].sessionId
  })
  afterAll(() => {
    process.env.HOME = savedHome
    removeDir(home)
  })

  it('unknown format is VALIDATION_ERROR', async () => {
    for (const format of ['xml', 'JSON', '', undefined, 42]) {
      const e = await rejection(sessions.export('pi', id, format))
      expect(e.code, String(format)).toBe('VALIDATION_ERROR')
    }
  })

  it('missing session is SESSION_NOT_FOUND', async () => {
    for (const agent of BUILT_IN_AGENTS) {
      expect((await rejection(sessions.export(agent, 'no-such-session', 'json'))).code).toBe('SESSION_NOT_FOUND')
    }
    const real = { agent: 'pi', sessionId: id }
    const missing = { agent: 'pi', sessionId: 'no-such-session' }
    expect((await rejection(sessions.diff(real, missing))).code).toBe('SESSION_NOT_FOUND')
    expect((await rejection(sessions.diff(missing, real))).code).toBe('SESSION_NOT_FOUND')
  })

  it('unknown agent is AGENT_NOT_FOUND', async () => {
    expect((await rejection(sessions.export('nope', id, 'json'))).code).toBe('AGENT_NOT_FOUND')
    const real = { agent: 'pi', sessionId: id }
    const alien = { agent: 'nope', sessionId: id }
    expect((await rejection(sessions.diff(real, alien))).code).toBe('AGENT_NOT_FOUND')
    expect((await rejection(sessions.diff(alien, real))).code).toBe('AGENT_NOT_FOUND')
    // an unknown agent wins over a missing session on the other side
    expect((await rejection(sessions.diff({ agent: 'pi', sessionId: 'gone' }, alien))).code).toBe('AGENT_NOT_FOUND')
  })
})
