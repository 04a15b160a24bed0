// The CLI's human output, in-process: table sizing, dates, money, highlighting, diff folding,
// option parsing and the progress line. Inputs are API-shaped values built here, so these run
// whatever the adapters can read today.
import { describe, it, expect } from 'vitest'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const format = require('../bin/lib/format.js')
const render = require('../bin/lib/render.js')
const args = require('../bin/lib/args.js')
const { withProgress } = require('../bin/lib/progress.js')

const NOW = Date.parse('2025-06-15T12:00:00Z')
const plain = format.painter(false)
const colour = format.painter(true)
const width = (line) => format.visibleWidth(line)

function summary(i, extra = {}) {
  return {
    agent: 'claude',
    sessionId: `0c5d6a3e-${String(i).padStart(4, '0')}-4b1e-9f0a-5e3c2d1b0a9${i}`,
    unifiedId: `claude:0c5d6a3e-${String(i).padStart(4, '0')}-4b1e-9f0a-5e3c2d1b0a9${i}`,
    title: `Make the kubernetes readiness probe tolerate slow starts in the staging cluster, attempt ${i}`,
    createdAt: new Date(NOW - (i + 1) * 3_600_000),
    updatedAt: new Date(NOW - i * 3_600_000 - 120_000),
    turnCount: 3 + i,
    messageCount: 9 + i,
    model: 'claude-sonnet-4-5',
    cost: { totalUsd: 1.5 * i + 0.004, inputTokens: 100, outputTokens: 20 },
    tags: [],
    ...extra,
  }
}

describe('dates, money and numbers', () => {
  it('relative dates pick the largest whole unit', () => {
    const at = (ms) => format.relativeDate(new Date(NOW - ms), NOW)
    expect(at(10_000)).toBe('just now')
    expect(at(5 * 60_000)).toBe('5m ago')
    expect(at(3 * 3_600_000 + 59 * 60_000)).toBe('3h ago')
    expect(at(2 * 86_400_000)).toBe('2d ago')
    expect(at(15 * 86_400_000)).toBe('2w ago')
    expect(at(65 * 86_400_000)).toBe('2mo ago')
    expect(at(800 * 86_400_000)).toBe('2y ago')
    expect(at(-2 * 3_600_000)).toBe('in 2h')
  })
  it('absolute dates are local wall-clock minutes', () => {
    const d = new Date(2025, 0, 5, 7, 3, 59)
    expect(format.absoluteDate(d)).toBe('2025-01-05 07:03')
  })
  it('dollars keep small amounts visible and group thousands', () => {
    expect(format.usd(0)).toBe('$0.00')
    expect(format.usd(0.00123)).toBe('$0.0012')
    expect(format.usd(1.235)).toBe('$1.24')
    expect(format.usd(12345.6)).toBe('$12,345.60')
    expect(format.usd(undefined)).toBe('–')
    expect(format.count(1234567)).toBe('1,234,567')
  })
})

describe('colour switch', () => {
  it('NO_COLOR beats FORCE_COLOR beats the terminal test', () => {
    const tty = { isTTY: true }
    expect(format.colorEnabled(tty, {})).toBe(true)
    expect(format.colorEnabled({ isTTY: false }, {})).toBe(false)
    expect(format.colorEnabled(tty, { NO_COLOR: '1' })).toBe(false)
    expect(format.colorEnabled(tty, { NO_COLOR: '' })).toBe(true)
    expect(format.colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true)
    expect(format.colorEnabled(tty, { FORCE_COLOR: '0' })).toBe(false)
    expect(format.colorEnabled({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: 'x' })).toBe(false)
  })
  it('terminal width: the TTY, else $COLUMNS, else 120', () => {
    expect(format.terminalWidth({ isTTY: true, columns: 73 }, { COLUMNS: '200' })).toBe(73)
    expect(format.terminalWidth({ isTTY: false }, { COLUMNS: '91' })).toBe(91)
    expect(format.terminalWidth({ isTTY: false }, {})).toBe(120)
  })
})

describe('session list table', () => {
  const sessions = [summary(0), summary(1), summary(12, { cost: undefined, model: undefined, title: '' })]

  it('fits the terminal: titles shorten with an ellipsis; dates go relative-only before titles drop under 40 columns', () => {
    for (const cols of [100, 140, 160]) {
      const out = render.sessionList('claude', sessions, { width: cols, paint: plain, now: NOW })
      const lines = out.trimEnd().split('\n')
      expect(lines).toHaveLength(5)
      for (const line of lines) expect(width(line)).toBeLessThanOrEqual(cols)
      expect(lines[1]).toContain(sessions[0].sessionId)
      // 140 columns would leave the title 39 with both dates: the absolute date gives way
      expect(lines[1]).toContain(cols === 160 ? `2m ago · ${format.absoluteDate(sessions[0].updatedAt)}` : '2m ago ')
      expect(lines[1].includes('·')).toBe(cols === 160)
      const titleAt = lines[0].indexOf('TITLE')
      // 100 columns cannot give the title 40 even with relative dates; the wider ones do
      expect(width(lines[1].slice(titleAt)) >= 40).toBe(cols !== 100)
      expect(lines[1]).toContain('$0.0040')
      expect(lines[2]).toContain('$1.50')
      expect(lines[2]).toContain('1h ago')
      expect(lines[1]).toMatch(/ Make the kuber.*…$/)
      expect(lines[3]).toMatch(/\s–\s+–\s+\(untitled\)$/)
      expect(lines[4]).toBe('3 claude sessions')
    }
  })
  it('columns line up: every row starts its TITLE at the header\'s offset', () => {
    const out = render.sessionList('claude', sessions, { width: 200, paint: plain, now: NOW })
    const lines = out.trimEnd().split('\n')
    const at = lines[0].indexOf('TITLE')
    expect(lines[1].slice(at)).toBe(sessions[0].title)
    expect(lines[2].slice(at)).toBe(sessions[1].title)
  })
})

describe('wide characters', () => {
  it('CJK counts two columns: a CJK title is cut to the same width as a Latin one', () => {
    expect(width('帮我总结')).toBe(8)
    expect(width('\x1b[1mab\x1b[0m')).toBe(2)
    const rows = [
      summary(0, { title: '帮我总结一下大别山徒步路线的注意事项，并写成清单。' }),
      summary(1, { title: 'Write release notes for version 2.3 from the merged pull requests' }),
    ]
    const out = render.sessionList('gemini', rows, { width: 110, paint: plain, now: NOW })
    const lines = out.trimEnd().split('\n')
    for (const line of lines.slice(0, 3)) expect(width(line)).toBeLessThanOrEqual(110)
    const at = lines[0].indexOf('TITLE')
    // the same display width for both truncated titles (less one column when a two-column
    // character does not fit the last odd column), and the CJK one is cut on a character
    expect(width(lines[2].slice(at)) - width(lines[1].slice(at))).toBeGreaterThanOrEqual(0)
    expect(width(lines[2].slice(at)) - width(lines[1].slice(at))).toBeLessThanOrEqual(1)
    expect(width(lines[1])).toBeGreaterThan(lines[1].length)
    expect(lines[1].slice(at)).toMatch(/^帮我总结一下.*…$/)
  })
})

describe('search results', () => {
  const hits = [
    summary(1, { relevanceScore: 1, snippet: '…the >>>kubernetes<<< pod\nrestarts when >>>Kubernetes<<< drains…' }),
    summary(2, { relevanceScore: 0.4567 }),
  ]
  it('shows rank, id, score, and the snippet under its row with markers when colourless', () => {
    const out = render.searchResults('kubernetes', hits, { width: 120, paint: plain, now: NOW })
    const lines = out.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^#\s+SESSION\s+UPDATED\s+SCORE\s+COST\s+TITLE$/)
    expect(lines[1]).toMatch(/^1\s+claude:0c5d6a3e-0001\S+\s.*\s1\.00\s+\$1\.50\s+Make the/)
    expect(lines[2]).toBe('   …the >>>kubernetes<<< pod restarts when >>>Kubernetes<<< drains…')
    expect(lines[3]).toMatch(/^2\s+claude:.*\s0\.46\s/)
    expect(lines[4]).toBe('2 matching sessions')
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(120)
  })
  it('with colour the markers become highlighting', () => {
    const out = render.searchResults('kubernetes', hits, { width: 120, paint: colour, now: NOW })
    expect(out).not.toContain('>>>')
    expect(out).toContain('\x1b[1;33mkubernetes\x1b[0m pod restarts when \x1b[1;33mKubernetes\x1b[0m')
  })
})

describe('cost report', () => {
  const report = {
    totalUsd: 7.5,
    inputTokens: 3000,
    outputTokens: 700,
    thinkingTokens: 50,
    cachedTokens: 12000,
    sessionCount: 4,
    runCount: 0,
    breakdowns: {
      'gpt-5': { key: 'gpt-5', totalUsd: 1.25, inputTokens: 1000, outputTokens: 200, thinkingTokens: 50, cachedTokens: 0, sessionCount: 1 },
      'claude-opus-4': { key: 'claude-opus-4', totalUsd: 6.25, inputTokens: 2000, outputTokens: 500, thinkingTokens: 0, cachedTokens: 12000, sessionCount: 3 },
    },
    unpricedModels: ['mystery-1'],
  }
  it('groups largest spend first, then TOTAL, sessions/runs line and unpriced note', () => {
    const lines = render.costReport(report, 'model', { width: 100, paint: plain }).trimEnd().split('\n')
    expect(lines[0]).toMatch(/^MODEL\s+SESSIONS\s+INPUT\s+OUTPUT\s+THINKING\s+CACHED\s+COST$/)
    expect(lines[1]).toMatch(/^claude-opus-4\s+3\s+2,000\s+500\s+0\s+12,000\s+\$6\.25$/)
    expect(lines[2]).toMatch(/^gpt-5\s+1\s+1,000\s+200\s+50\s+0\s+\$1\.25$/)
    expect(lines[3]).toMatch(/^TOTAL\s+4\s+3,000\s+700\s+50\s+12,000\s+\$7\.50$/)
    expect(lines[4]).toBe('4 sessions, $7.50 in total')
    expect(lines[5]).toBe('note: no price known for mystery-1; their tokens count as $0')
    // numbers are right-aligned: the COST column ends every row at the same offset
    expect(new Set(lines.slice(0, 4).map((l) => l.length)).size).toBe(1)
  })
  it('names untagged sessions, counts runs only when the run index adds some, flags token-less groups', () => {
    const byTag = {
      ...report,
      runCount: 6,
      unpricedModels: [],
      breakdowns: {
        '': { key: '', totalUsd: 0, inputTokens: 0, outputTokens: 0, thinkingTokens: 0, cachedTokens: 0, sessionCount: 3 },
        ci: { ...report.breakdowns['gpt-5'], key: 'ci' },
      },
    }
    const lines = render.costReport(byTag, 'tag', { width: 100, paint: plain }).trimEnd().split('\n')
    expect(lines[1]).toMatch(/^ci\s+1\s/)
    expect(lines[2]).toMatch(/^\(untagged\)\s+3\s+0\s/)
    expect(lines[4]).toBe('4 sessions (6 runs), $7.50 in total')
    expect(lines[5]).toBe('note: no token counts were recorded for (untagged), so $0.00 there means unknown, not free')
    expect(lines).toHaveLength(6)
  })
  it('days read in calendar order', () => {
    const byDay = {
      ...report,
      breakdowns: {
        '2025-06-02': { ...report.breakdowns['gpt-5'], key: '2025-06-02', totalUsd: 9 },
        '2025-06-01': { ...report.breakdowns['gpt-5'], key: '2025-06-01', totalUsd: 1 },
      },
    }
    const lines = render.costReport(byDay, 'day', { width: 100, paint: plain }).split('\n')
    expect(lines[1].startsWith('2025-06-01')).toBe(true)
    expect(lines[2].startsWith('2025-06-02')).toBe(true)
  })
})

describe('diff view', () => {
  const msg = (role, content) => ({ role, content })
  const unchanged = (i) => ({ type: 'unchanged', indexA: i, indexB: i, messageA: msg('user', `same ${i}`), messageB: msg('user', `same ${i}`) })
  const diff = {
    a: { agent: 'claude', sessionId: 'a', unifiedId: 'claude:a' },
    b: { agent: 'codex', sessionId: 'b', unifiedId: 'codex:b' },
    operations: [
      ...[0, 1, 2, 3, 4, 5].map(unchanged),
      { type: 'modification', indexA: 6, indexB: 6, messageA: msg('assistant', 'old answer'), messageB: msg('assistant', 'new answer') },
      { type: 'removal', indexA: 7, messageA: { role: 'assistant', content: '', toolCalls: [{ toolCallId: '1', toolName: 'Bash', input: {} }] } },
      { type: 'addition', indexB: 7, messageB: msg('tool', 'line one\nline two') },
    ],
    stats: { removals: 1, additions: 1, modifications: 1, unchanged: 6 },
  }
  it('folds long unchanged runs and marks each change', () => {
    const lines = render.sessionDiff(diff, { width: 100, paint: plain }).trimEnd().split('\n')
    expect(lines.slice(0, 3)).toEqual(['--- claude:a', '+++ codex:b', '6 unchanged, 1 modified, 1 added, 1 removed'])
    expect(lines[3]).toMatch(/^\s+A\s+B\s+ROLE\s+MESSAGE$/)
    expect(lines[4]).toMatch(/^\s+0\s+0\s+user\s+same 0$/)
    expect(lines[5]).toMatch(/… 4 unchanged messages …$/)
    expect(lines[6]).toMatch(/^\s+5\s+5\s+user\s+same 5$/)
    // a modification is A's text over B's, each under its own index column
    expect(lines[7]).toMatch(/^~\s+6\s+assistant\s+old answer$/)
    expect(lines[8]).toMatch(/^\s{6}6\s+assistant\s+new answer$/)
    expect(lines[9]).toMatch(/^-\s+7\s+assistant\s+\[calls Bash\]$/)
    expect(lines[10]).toMatch(/^\+\s+7\s+tool\s+line one line two$/)
    expect(lines).toHaveLength(11)
  })
})

describe('option values', () => {
  it('dates: ISO 8601 (local unless offset) and ages; bare --until dates include the whole day', () => {
    expect(args.parseDate('2025-01-31').getTime()).toBe(new Date(2025, 0, 31).getTime())
    expect(args.parseDate('2025-01-31', { endOfDay: true }).getTime()).toBe(new Date(2025, 1, 1).getTime() - 1)
    expect(args.parseDate('2025-12-31', { endOfDay: true }).getTime()).toBe(new Date(2026, 0, 1).getTime() - 1)
    expect(args.parseDate('2025-01-31T09:30').getTime()).toBe(new Date(2025, 0, 31, 9, 30).getTime())
    expect(args.parseDate('2025-01-31T09:30:00Z', { endOfDay: true }).toISOString()).toBe('2025-01-31T09:30:00.000Z')
    expect(args.parseDate('2025-01-31T09:30+02:00').toISOString()).toBe('2025-01-31T07:30:00.000Z')
    expect(args.parseDate('7d', { now: NOW }).getTime()).toBe(NOW - 7 * 86_400_000)
    expect(args.parseDate('90m', { now: NOW }).getTime()).toBe(NOW - 90 * 60_000)
    for (const bad of ['2025-02-30', '2025-1-5', 'tomorrow', '7 days', '', '1e3', '2025-01-31T25:00']) {
      expect(() => args.parseDate(bad)).toThrow(/Not a date/)
    }
  })
  it('limits, repeatable tags, <agent>:<id> refs', () => {
    expect(args.limit('0')).toBe(0)
    expect(args.limit('25')).toBe(25)
    expect(() => args.limit('2.5')).toThrow(/whole number/)
    expect(args.collect('b', args.collect('a'))).toEqual(['a', 'b'])
    expect(args.sessionRef('pi:proj/x:y')).toEqual({ agent: 'pi', sessionId: 'proj/x:y' })
    for (const bad of ['claude', ':x', 'claude:']) expect(() => args.sessionRef(bad)).toThrow(/<agent>:<session-id>/)
  })
})

describe('progress line', () => {
  const stream = (isTTY) => {
    const writes = []
    return { isTTY, writes, write: (s) => writes.push(s) }
  }
  const after = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms))

  it('draws on a terminal once the call outlasts the delay, then erases itself', async () => {
    const s = stream(true)
    const value = await withProgress('searching', after(250, 42), { stream: s, delayMs: 50, intervalMs: 40 })
    expect(value).toBe(42)
    const drawn = s.writes.filter((w) => w.includes('searching'))
    expect(drawn.length).toBeGreaterThanOrEqual(3)
    expect(drawn.at(-1)).toMatch(/searching 0\.\ds$/)
    expect(s.writes.at(-1)).toBe('\r\x1b[K')
  })
  it('prints nothing for a quick call or when stderr is not a terminal', async () => {
    const quick = stream(true)
    expect(await withProgress('x', after(5, 'ok'), { stream: quick, delayMs: 200 })).toBe('ok')
    const piped = stream(false)
    await withProgress('x', after(120, 1), { stream: piped, delayMs: 10 })
    expect(quick.writes).toEqual([])
    expect(piped.writes).toEqual([])
  })
  it('passes rejections through after erasing its line', async () => {
    const s = stream(true)
    const failing = after(120).then(() => {
      throw new Error('boom')
    })
    await expect(withProgress('x', failing, { stream: s, delayMs: 20 })).rejects.toThrow('boom')
    expect(s.writes.at(-1)).toBe('\r\x1b[K')
  })
})
