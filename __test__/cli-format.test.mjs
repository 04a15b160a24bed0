// The CLI's human output, in-process: table sizing, dates, money, highlighting, diff folding,
// option parsing and the progress line. Inputs are API-shaped values built here, so these run
// whatever the adapters can read today.
import { describe, it, expect } from 'vitest'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const format = require('../cli/lib/format.js')
const render = require('../cli/lib/render.js')
const { readDate } = require('../human/dates.js')
const { kinds } = require('../params/index.js')
const tsv = require('../cli/lib/tsv.js')
const ids = require('../human/ids.js')
const { recordedNoTokens } = require('../human/cost.js')
const { wordDiff, sideLine } = require('../human/words.js')
const { renderSession, markdownText, rowsTaken } = require('../cli/lib/transcript.js')
const { withProgress } = require('../cli/lib/progress.js')

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
  it("the page's ages count the same whole units as the command line's", async () => {
    const { age } = await import('../ui/page/lib/format.js')
    const words = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' })
    const day = 86_400_000
    // 25 days are 3 weeks in both: one rounded to 4 before.
    expect(format.relativeDate(new Date(NOW - 25 * day), NOW)).toBe('3w ago')
    expect(age(new Date(NOW - 25 * day), NOW)).toBe(words.format(-3, 'week'))
    expect(age(new Date(NOW - 50 * 60_000), NOW)).toBe(words.format(-50, 'minute'))
    expect(age(new Date(NOW + 2 * 3_600_000 + 40 * 60_000), NOW)).toBe(words.format(2, 'hour'))
    expect(age(new Date(NOW - 10_000), NOW)).toBe('just now')
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
  it('durations as a person says them: the two largest units', () => {
    expect(format.duration(850)).toBe('850ms')
    expect(format.duration(11_000)).toBe('11s')
    expect(format.duration(72_000)).toBe('1m 12s')
    expect(format.duration(3_600_000 + 5 * 60_000 + 9_000)).toBe('1h 5m')
    expect(format.duration(2 * 86_400_000 + 3_600_000)).toBe('2d 1h')
    expect(format.duration(3_600_000)).toBe('1h')
    expect(format.clockTime(new Date(2025, 0, 5, 7, 3, 9))).toBe('07:03:09')
  })
  it('wrap breaks at spaces only, indents what follows, and never exceeds the width', () => {
    const text = 'note: no token counts were recorded for 3 sessions (cursor), so $0.00 there means unknown, not free'
    const lines = format.wrap(text, 40, '      ').split('\n')
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(40)
    expect(lines.slice(1).every((l) => l.startsWith('      ') && l[6] !== ' ')).toBe(true)
    // every word intact: joining the lines gives the words back
    expect(lines.map((l) => l.trim()).join(' ')).toBe(text)
    expect(format.wrap('a-very-long-word-that-cannot-break short', 10)).toBe('a-very-long-word-that-cannot-break\nshort')
  })
  it('bars are the fraction of the width in eighths, never empty above zero', () => {
    expect(format.bar(1, 10)).toBe('█'.repeat(10))
    expect(format.bar(0.5, 10)).toBe('█████')
    expect(format.bar(0.05, 10)).toBe('▌')
    expect(format.bar(0.0625, 10)).toBe('▋')
    expect(format.bar(0.01, 10)).toBe('▏')
    expect(format.bar(0, 10)).toBe('')
    expect(width(format.bar(0.33, 30))).toBeLessThanOrEqual(10)
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

describe('session list table: the column budget', () => {
  const cjk = '帮我总结一下大别山徒步路线的注意事项，并写成清单。然后把清单翻译成英文，再加上每一段的海拔和预计用时。'
  const sessions = [summary(0), summary(1, { title: cjk }), summary(12, { cost: undefined, model: undefined, title: '' })]
  const all = sessions.map((s) => s.sessionId)
  const short = ids.shortIds(all, all)

  it('short ids are the shortest unique prefixes, 8 characters at least', () => {
    // 0c5d6a3e-0000-…, 0c5d6a3e-0001-…, 0c5d6a3e-0012-…: they part after 12, 13 and 12 characters
    expect(short).toEqual(['0c5d6a3e-0000', '0c5d6a3e-0001', '0c5d6a3e-001'])
    expect(ids.shortIds(['abcdef1234'], ['abcdef1234', 'zzz'])).toEqual(['abcdef12'])
    // an id that another id extends is shown whole; an id shorter than 8 too
    expect(ids.shortIds(['abcdefghij', 'abc'], ['abcdefghij', 'abcdefghijk', 'abc'])).toEqual(['abcdefghij', 'abc'])
  })

  for (const cols of [80, 100, 200]) {
    it(`at ${cols} columns every line fits, ids are short, and the title gets every column left`, () => {
      const out = render.sessionList('claude', sessions, { width: cols, paint: plain, now: NOW }, short)
      const lines = out.trimEnd().split('\n')
      expect(lines).toHaveLength(5)
      for (const line of lines) expect(width(line)).toBeLessThanOrEqual(cols)
      lines.slice(1, 4).forEach((line, i) => expect(line.startsWith(`${short[i]} `)).toBe(true))
      const titleAt = lines[0].indexOf('TITLE')
      const modelAt = lines[0].indexOf('MODEL')
      if (cols === 200) {
        // room for everything: whole titles, whole models, both dates
        expect(lines[1].slice(titleAt)).toBe(sessions[0].title)
        expect(lines[2].slice(titleAt)).toBe(cjk)
        expect(lines[1]).toContain(' claude-sonnet-4-5  ')
        expect(lines[1]).toContain(`2m ago · ${format.absoluteDate(sessions[0].updatedAt)}`)
      } else {
        // the model gave way first (cut to 12 columns), then the title took every column left:
        // the row ends at the edge (a CJK character that would straddle it leaves one column)
        expect(lines[1].slice(modelAt, modelAt + 12)).toBe('claude-sonn…')
        expect(cols - width(lines[1])).toBe(0)
        expect(cols - width(lines[2])).toBeLessThanOrEqual(1)
        expect(lines[1]).toMatch(/ Make the kuber.*…$/)
        expect(lines[2]).toMatch(/ 帮我总结一下.*…$/)
        expect(lines[1]).not.toContain('·')
        expect(width(lines[1].slice(titleAt))).toBe(cols - titleAt)
      }
      expect(lines[1]).toContain('$0.0040')
      expect(lines[2]).toContain('$1.50')
      expect(lines[3]).toMatch(/\s–\s+–\s+\(untitled\)$/)
      expect(lines[4]).toBe('3 claude sessions')
    })
  }

  it('full ids (--wide) take their room from the title, not from the ids', () => {
    const lines = render.sessionList('claude', sessions, { width: 100, paint: plain, now: NOW }).trimEnd().split('\n')
    expect(lines[1].startsWith(`${sessions[0].sessionId}  `)).toBe(true)
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(100)
    const titleAt = lines[0].indexOf('TITLE')
    expect(width(lines[1].slice(titleAt))).toBeLessThan(40)
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
  it('says "no match" once quoted, without doubling the quotes of a phrase', () => {
    const view = { width: 100, paint: plain, now: NOW }
    expect(render.searchResults('flaky test', [], view)).toBe('No sessions match "flaky test".\n')
    expect(render.searchResults('"test flaky"', [], view)).toBe('No sessions match "test flaky".\n')
    expect(render.searchResults('kube* NOT "api pod"', [], view)).toBe('No sessions match kube* NOT "api pod".\n')
  })
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
  it('says when the limit left sessions out, and never calls a cut list empty', () => {
    const view = { width: 120, paint: plain, now: NOW }
    expect(render.searchResults('kubernetes', hits, view, undefined, true).trimEnd().split('\n').at(-1)).toBe(
      '2 matching sessions shown, more with a higher --limit',
    )
    expect(render.searchResults('kubernetes', [], view, undefined, true)).toBe('0 matching sessions shown, more with a higher --limit\n')
    expect(render.sessionList('claude', [], view, undefined, true)).toBe('0 claude sessions shown, more with a higher --limit\n')
    expect(render.sessionList('claude', [], view)).toBe('No claude sessions found.\n')
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
    // 70 columns leave no room for bars
    const lines = render.costReport(report, 'model', { width: 70, paint: plain }).trimEnd().split('\n')
    expect(lines[0]).toMatch(/^MODEL\s+SESSIONS\s+INPUT\s+OUTPUT\s+THINKING\s+CACHED\s+COST$/)
    expect(lines[1]).toMatch(/^claude-opus-4\s+3\s+2,000\s+500\s+0\s+12,000\s+\$6\.25$/)
    expect(lines[2]).toMatch(/^gpt-5\s+1\s+1,000\s+200\s+50\s+0\s+\$1\.25$/)
    expect(lines[3]).toMatch(/^TOTAL\s+4\s+3,000\s+700\s+50\s+12,000\s+\$7\.50$/)
    expect(lines[4]).toBe('4 sessions, $7.50 in total')
    expect(lines).toHaveLength(5)
    expect(render.costNotes(report, 'model', [])).toEqual(['note: no price known for mystery-1; their tokens count as $0'])
    // numbers are right-aligned: the COST column ends every row at the same offset
    expect(new Set(lines.slice(0, 4).map((l) => l.length)).size).toBe(1)
  })
  it('with room, a bar per group beside its cost, scaled to the largest; none for TOTAL or without --group-by', () => {
    const five = {
      ...report,
      breakdowns: Object.fromEntries(
        [6.25, 3.125, 1.25, 0.01, 0].map((usd, i) => [`m${i}`, { ...report.breakdowns['gpt-5'], key: `m${i}`, totalUsd: usd }]),
      ),
    }
    for (const cols of [80, 100, 200]) {
      const lines = render.costReport(five, 'model', { width: cols, paint: plain }).trimEnd().split('\n')
      const bars = lines.slice(1, 6).map((l) => (/[█▏▎▍▌▋▊▉]+$/.exec(l) ?? [''])[0])
      const full = width(bars[0])
      // as wide as the terminal allows (at most 40 columns), the others in proportion
      expect(full).toBe(Math.min(40, cols - width(lines[6]) - 2))
      expect(Math.abs(width(bars[1]) - full / 2)).toBeLessThanOrEqual(1)
      expect(Math.abs(width(bars[2]) - full / 5)).toBeLessThanOrEqual(1)
      expect(bars[3]).toBe('▏')
      expect(bars[4]).toBe('')
      expect(lines[6]).toMatch(/^TOTAL.*\$7\.50$/)
      for (const line of lines) expect(width(line)).toBeLessThanOrEqual(cols)
    }
    const plainTotal = render.costReport(report, undefined, { width: 200, paint: plain })
    expect(plainTotal).not.toMatch(/[█▏]/)
    const coloured = render.costReport(five, 'model', { width: 100, paint: colour })
    expect(coloured).toContain('\x1b[36m█')
  })
  it('names untagged sessions and counts runs only when the run index adds some', () => {
    const byTag = {
      ...report,
      runCount: 6,
      unpricedModels: [],
      breakdowns: {
        '': { key: '', totalUsd: 0, inputTokens: 0, outputTokens: 0, thinkingTokens: 0, cachedTokens: 0, sessionCount: 3 },
        ci: { ...report.breakdowns['gpt-5'], key: 'ci' },
      },
    }
    const lines = render.costReport(byTag, 'tag', { width: 70, paint: plain }).trimEnd().split('\n')
    expect(lines[1]).toMatch(/^ci\s+1\s/)
    expect(lines[2]).toMatch(/^\(untagged\)\s+3\s+0\s/)
    expect(lines[4]).toBe('4 sessions (6 runs), $7.50 in total')
    expect(lines).toHaveLength(5)
  })
  it('the unknown-cost note names every group holding a session without token counts', () => {
    const blind = [
      summary(1, { agent: 'cursor', cost: undefined, createdAt: new Date(2025, 5, 3, 10), model: 'gpt-5', tags: ['ci'] }),
      summary(2, { agent: 'cursor', cost: undefined, createdAt: new Date(2025, 5, 1, 23, 59), model: undefined, tags: [] }),
      summary(3, { agent: 'codex', cost: { totalUsd: 0, inputTokens: 0, outputTokens: 0 }, createdAt: new Date(2025, 5, 3, 1) }),
    ]
    expect(blind.every(recordedNoTokens)).toBe(true)
    expect(recordedNoTokens(summary(4))).toBe(false)
    const note = (groupBy) => render.costNotes({ ...report, unpricedModels: [] }, groupBy, blind)
    const head = 'note: no token counts were recorded for 3 sessions (cursor, codex)'
    const tail = ', so $0.00 there means unknown, not free'
    // local calendar days of createdAt, in order, each once
    expect(note('day')).toEqual([`${head} on 2025-06-01, 2025-06-03${tail}`])
    expect(note('model')).toEqual([`${head} with models gpt-5, (no model), claude-sonnet-4-5${tail}`])
    expect(note('tag')).toEqual([`${head} with tags ci, (untagged)${tail}`])
    expect(note('agent')).toEqual([`${head}${tail}`])
    expect(note(undefined)).toEqual([`${head}${tail}`])
    expect(render.costNotes({ ...report, unpricedModels: [] }, 'day', [])).toEqual([])
    // on a terminal each note wraps at word boundaries under its first line
    const wrapped = render.wrappedNotes(note('day'), 60).trimEnd().split('\n')
    expect(wrapped.length).toBeGreaterThan(1)
    for (const line of wrapped) expect(width(line)).toBeLessThanOrEqual(60)
    expect(wrapped.map((l) => l.trim()).join(' ')).toBe(note('day')[0])
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
    // a modification is A's text over B's, each under its own index column, changed words marked
    expect(lines[7]).toMatch(/^~\s+6\s+assistant\s+\[-old-\] answer$/)
    expect(lines[8]).toMatch(/^\s{6}6\s+assistant\s+\{\+new\+\} answer$/)
    expect(lines[9]).toMatch(/^-\s+7\s+assistant\s+\[calls Bash\]$/)
    expect(lines[10]).toMatch(/^\+\s+7\s+tool\s+line one line two$/)
    expect(lines).toHaveLength(11)
  })
  it('a change past the cut is still in sight: both lines start just before the first changed word', () => {
    const long = 'word '.repeat(60)
    const changed = {
      ...diff,
      operations: [{ type: 'modification', indexA: 0, indexB: 0, messageA: msg('user', `${long}alpha beta gamma`), messageB: msg('user', `${long}alpha BETA gamma`) }],
      stats: { removals: 0, additions: 0, modifications: 1, unchanged: 0 },
    }
    for (const paint of [plain, colour]) {
      const lines = render.sessionDiff(changed, { width: 80, paint }).trimEnd().split('\n')
      for (const line of lines) expect(width(line)).toBeLessThanOrEqual(80)
      expect(lines[4]).toContain('…word word alpha ')
      expect(lines[5]).toContain('…word word alpha ')
      if (paint === plain) {
        expect(lines[4]).toMatch(/…word word alpha \[-beta-\] gamma$/)
        expect(lines[5]).toMatch(/…word word alpha \{\+BETA\+\} gamma$/)
      } else {
        expect(lines[4]).toContain('\x1b[1m\x1b[31mbeta\x1b[0m\x1b[0m')
        expect(lines[5]).toContain('\x1b[1m\x1b[32mBETA\x1b[0m\x1b[0m')
      }
    }
  })
})

describe('word diff', () => {
  const render = (text, side) => sideLine(wordDiff(...text)[side], wordDiff(...text).head, (w) => `<${w}>`)
  it('marks only the words that changed; replaced, inserted and deleted words', () => {
    expect(render(['the quick brown fox', 'the slow brown fox'], 'a')).toBe('the <quick> brown fox')
    expect(render(['the quick brown fox', 'the slow brown fox'], 'b')).toBe('the <slow> brown fox')
    expect(render(['a b c', 'a b x c'], 'a')).toBe('a b c')
    expect(render(['a b c', 'a b x c'], 'b')).toBe('a b <x> c')
    expect(render(['one two three four', 'one four'], 'a')).toBe('one <two three> four')
    expect(render(['same', 'same'], 'a')).toBe('same')
  })
  it('starts three words before the first change, with … for what was left out', () => {
    const a = 'w1 w2 w3 w4 w5 w6 old w8'
    const b = 'w1 w2 w3 w4 w5 w6 new w8'
    expect(render([a, b], 'a')).toBe('…w4 w5 w6 <old> w8')
    expect(render([a, b], 'b')).toBe('…w4 w5 w6 <new> w8')
  })
  it('very long unlike texts are taken as replaced whole rather than aligned word by word', () => {
    const a = Array.from({ length: 700 }, (_, i) => `a${i}`).join(' ')
    const b = Array.from({ length: 700 }, (_, i) => `b${i}`).join(' ')
    const d = wordDiff(a, b)
    expect(d.a.every((p) => p.changed)).toBe(true)
    expect(d.b.every((p) => p.changed)).toBe(true)
  })
})

describe('piped output (tsv)', () => {
  const rows = (text) => text.replace(/\n$/, '').split('\n').map((l) => l.split('\t'))
  it('search: agent:id, date, score, cost, title, snippet with its markers', () => {
    const hit = summary(1, { relevanceScore: 0.4567891234, snippet: 'the >>>kubernetes<<<\npod' })
    expect(rows(tsv.searchResults([hit]))).toEqual([
      [hit.unifiedId, hit.updatedAt.toISOString(), '0.456789', '1.504', hit.title, 'the >>>kubernetes<<< pod'],
    ])
  })
  it('cost report: the API keys (untagged is empty), raw counts, then TOTAL', () => {
    const summaryRow = { totalUsd: 7.5, inputTokens: 3000, outputTokens: 700, thinkingTokens: 50, cachedTokens: 12000, sessionCount: 4 }
    const groups = [{ key: '', totalUsd: 0.1 + 0.2, inputTokens: 1234567, outputTokens: 0, thinkingTokens: 0, cachedTokens: 0, sessionCount: 2 }]
    expect(rows(tsv.costReport(summaryRow, groups))).toEqual([
      ['', '2', '1234567', '0', '0', '0', '0.3'],
      ['TOTAL', '4', '3000', '700', '50', '12000', '7.5'],
    ])
  })
  it('diff: one line per operation with both texts', () => {
    const d = {
      operations: [
        { type: 'unchanged', indexA: 0, indexB: 0, messageA: { role: 'user', content: 'hi' }, messageB: { role: 'user', content: 'hi' } },
        { type: 'addition', indexB: 1, messageB: { role: 'assistant', content: 'new\nline' } },
        { type: 'removal', indexA: 1, messageA: { role: 'tool', content: 'gone' } },
      ],
    }
    expect(rows(tsv.sessionDiff(d, render.gist))).toEqual([
      ['unchanged', '0', '0', 'user', 'hi', 'hi'],
      ['addition', '', '1', 'assistant', '', 'new line'],
      ['removal', '1', '', 'tool', 'gone', ''],
    ])
  })
})

describe('session references', () => {
  it('agent:id, agent id, and bare ids or prefixes', () => {
    expect(ids.parseRefs(['claude:abc'], 1)).toEqual([{ agent: 'claude', id: 'abc' }])
    expect(ids.parseRefs(['claude', 'abc'], 1)).toEqual([{ agent: 'claude', id: 'abc' }])
    expect(ids.parseRefs(['abc'], 1)).toEqual([{ id: 'abc' }])
    // native ids may hold colons: split on the first, and only an agent's name before it counts
    expect(ids.parseRefs(['pi:proj/x:y'], 1)).toEqual([{ agent: 'pi', id: 'proj/x:y' }])
    expect(ids.parseRefs(['2026-01-01T10:00'], 1)).toEqual([{ id: '2026-01-01T10:00' }])
    expect(ids.parseRefs(['claude:a', 'codex', 'b'], 2)).toEqual([{ agent: 'claude', id: 'a' }, { agent: 'codex', id: 'b' }])
    expect(ids.parseRefs(['claude', 'a', 'b'], 2)).toEqual([{ agent: 'claude', id: 'a' }, { id: 'b' }])
    expect(ids.parseRefs(['a1', 'codex', 'b'], 2)).toEqual([{ id: 'a1' }, { agent: 'codex', id: 'b' }])
  })
  it('an unknown agent is AGENT_NOT_FOUND; a wrong number of words is VALIDATION_ERROR', () => {
    const code = (words, n) => {
      try {
        ids.parseRefs(words, n)
      } catch (e) {
        return [e.code, e.message]
      }
      return null
    }
    expect(code(['nope', 'x'], 1)).toEqual(['AGENT_NOT_FOUND', "unknown agent 'nope'"])
    expect(code(['nope:x'], 1)).toEqual(['AGENT_NOT_FOUND', "unknown agent 'nope'"])
    expect(code(['nope:a', 'claude:b'], 2)?.[0]).toBe('AGENT_NOT_FOUND')
    expect(code(['claude'], 1)).toEqual(['VALIDATION_ERROR', "missing the session-id after 'claude'"])
    expect(code(['claude:'], 1)?.[0]).toBe('VALIDATION_ERROR')
    expect(code(['claude', 'x'], 2)?.[1]).toMatch(/^expected 2 sessions, each as <agent>:<id>, <agent> <id>, or a unique prefix/)
    expect(code(['a', 'b'], 1)?.[0]).toBe('AGENT_NOT_FOUND')
  })
  it('resolution: exact id first, else the one id with the prefix; several → the candidates', async () => {
    const listed = {
      claude: ['abc12345-1', 'abc12345-2', 'abd'],
      codex: ['abd99999', 'zzz'],
    }
    const api = {
      list: async (agent) => (listed[agent] ?? []).map((sessionId) => ({ agent, sessionId, unifiedId: `${agent}:${sessionId}` })),
    }
    const resolve = (ref) => ids.resolveRef(api, ref)
    expect(await resolve({ agent: 'claude', id: 'abc12345-2' })).toEqual({ agent: 'claude', sessionId: 'abc12345-2' })
    expect(await resolve({ agent: 'claude', id: 'abd' })).toEqual({ agent: 'claude', sessionId: 'abd' })
    expect(await resolve({ id: 'zz' })).toEqual({ agent: 'codex', sessionId: 'zzz' })
    // an exact id wins over longer ids it is a prefix of; across agents an exact id is still one
    expect(await resolve({ id: 'abd' })).toEqual({ agent: 'claude', sessionId: 'abd' })
    await expect(resolve({ agent: 'claude', id: 'abc' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: "'claude:abc' is ambiguous: 2 sessions start with it: claude:abc12345-1, claude:abc12345-2",
    })
    await expect(resolve({ id: 'ab' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('4 sessions') })
    // nothing matches: with an agent the id goes on as typed (the API reports it), without, here
    expect(await resolve({ agent: 'codex', id: 'nope' })).toEqual({ agent: 'codex', sessionId: 'nope' })
    await expect(resolve({ id: 'nope' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND', message: expect.stringContaining("'nope'") })
  })
})

describe('show on a terminal', () => {
  const session = {
    agent: 'claude',
    sessionId: 's1',
    unifiedId: 'claude:s1',
    title: 'Fix test_checkout_flow',
    createdAt: new Date(2025, 5, 15, 9, 0, 0),
    updatedAt: new Date(2025, 5, 15, 9, 1, 12),
    turnCount: 1,
    model: 'm1',
    cwd: '/src',
    tags: [],
    cost: { totalUsd: 0.0989, inputTokens: 4349, outputTokens: 1254, thinkingTokens: 0, cachedTokens: 25362 },
    messages: [
      { role: 'user', content: 'Why is test_checkout_flow flaky?', timestamp: new Date(2025, 5, 15, 9, 0, 0) },
      {
        role: 'assistant',
        content: '## Plan\n\nRun **the** `npm test` first:\n\n```sh\nnpm test -- --grep checkout\n# not a heading\n```',
        timestamp: new Date(2025, 5, 15, 9, 0, 3),
        thinking: 'look first',
        model: 'm1',
        cost: { totalUsd: 0.04, inputTokens: 100, outputTokens: 10 },
        toolCalls: [{ toolCallId: 't1', toolName: 'Bash', input: { command: 'npm test' }, durationMs: 72_000 }],
      },
      { role: 'tool', content: '1 failing', timestamp: new Date(2025, 5, 16, 0, 0, 1), toolResult: { toolCallId: 't1', toolName: 'Bash', output: '1 failing' } },
    ],
  }
  it('renders for reading: no Markdown escapes, local times, durations, separators, code kept', () => {
    const text = renderSession(session, { width: 100, paint: plain })
    const lines = text.split('\n')
    expect(lines[0]).toBe('Fix test_checkout_flow')
    expect(lines[1]).toBe('claude:s1 · m1 · /src')
    expect(lines[2]).toBe('2025-06-15 09:00 → 2025-06-15 09:01 (1m 12s) · 3 messages, 1 turn · $0.10')
    expect(text).not.toContain('\\_')
    expect(text).toContain('User  2025-06-15 09:00:00\nWhy is test_checkout_flow flaky?')
    // same day: the time alone; a new day: the date again
    expect(text).toContain('Assistant  09:00:03 · m1 · $0.04')
    expect(text).toContain('Tool  2025-06-16 00:00:01')
    expect(text).toContain('Plan\n\nRun the npm test first:\n\n```sh\nnpm test -- --grep checkout\n# not a heading\n```')
    expect(text).toContain('▸ Bash · 1m 12s\n  {\n    "command": "npm test"\n  }')
    expect(text).toContain('  │ thinking: look first')
    expect(text).toContain('result of Bash:\n  1 failing')
    expect(text).toContain('Cost  $0.10 · 30,965 tokens: 4,349 input, 1,254 output, 25,362 cached')
    expect(text).toContain('  m1: $0.04 over 1 message (100 input, 10 output tokens)')
  })
  it('in colour: roles, headings and strong text are painted; code inside fences is not', () => {
    const text = renderSession(session, { width: 100, paint: colour })
    expect(text).toContain('\x1b[1m\x1b[32mUser\x1b[0m\x1b[0m')
    expect(text).toContain('\x1b[1m\x1b[36mAssistant\x1b[0m\x1b[0m')
    expect(markdownText('## Plan', colour)).toBe('\x1b[1mPlan\x1b[0m')
    expect(markdownText('use `x` **now**', colour)).toBe('use \x1b[33mx\x1b[0m \x1b[1mnow\x1b[0m')
    expect(markdownText('```\n## kept **as is**\n```', colour)).toBe('\x1b[2m```\x1b[0m\n## kept **as is**\n\x1b[2m```\x1b[0m')
  })
  it('counts the rows a text takes on the terminal, long lines wrapping', () => {
    expect(rowsTaken('a\nb\n', 10, width)).toBe(2)
    expect(rowsTaken(`${'x'.repeat(25)}\n\n`, 10, width)).toBe(4)
  })
})

describe('option values', () => {
  it('dates: ISO 8601 (local unless offset) and ages; bare --until dates include the whole day', () => {
    expect(readDate('2025-01-31').getTime()).toBe(new Date(2025, 0, 31).getTime())
    expect(readDate('2025-01-31', { endOfDay: true }).getTime()).toBe(new Date(2025, 1, 1).getTime() - 1)
    expect(readDate('2025-12-31', { endOfDay: true }).getTime()).toBe(new Date(2026, 0, 1).getTime() - 1)
    expect(readDate('2025-01-31T09:30').getTime()).toBe(new Date(2025, 0, 31, 9, 30).getTime())
    expect(readDate('2025-01-31T09:30:00Z', { endOfDay: true }).toISOString()).toBe('2025-01-31T09:30:00.000Z')
    expect(readDate('2025-01-31T09:30+02:00').toISOString()).toBe('2025-01-31T07:30:00.000Z')
    expect(readDate('7d', { now: NOW }).getTime()).toBe(NOW - 7 * 86_400_000)
    expect(readDate('90m', { now: NOW }).getTime()).toBe(NOW - 90 * 60_000)
    const date = kinds.date()
    for (const bad of ['2025-02-30', '2025-1-5', 'tomorrow', '7 days', ' ', '1e3', '2025-01-31T25:00']) {
      expect(readDate(bad)).toBeNull()
      expect(() => date.parse(bad, 'since')).toThrow(/^since must be a date, ISO 8601/)
    }
  })
  it('limits and repeatable tags', () => {
    const limit = kinds.count({ min: 1 })
    expect(limit.parse('25', 'limit')).toBe(25)
    expect(limit.parse(25, 'limit')).toBe(25)
    for (const bad of ['0', '2.5', 2.5, '-3', 'ten']) expect(() => limit.parse(bad, 'limit')).toThrow(`limit must be a whole number from 1 up, not '${bad}'`)
    expect(() => kinds.count({ min: 1, max: 100 }).parse(101, 'limit')).toThrow('limit must be at most 100, not 101')
    const tags = kinds.texts()
    expect(tags.parse('b', 'tag', 'cli', tags.parse('a', 'tag', 'cli'))).toEqual(['a', 'b'])
    expect(tags.parse(['a', 'b'], 'tags', 'mcp')).toEqual(['a', 'b'])
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

describe('keep status', () => {
  const status = {
    on: false,
    origin: 'default',
    dir: '/home/u/.local/share/agent-mux',
    settingFile: '/home/u/.agent-mux/settings.json',
    sessions: 1204,
    archived: 1,
    bytes: 3 * 1024 * 1024,
    retention: [{ agent: 'claude', days: 30, atRisk: 12 }],
    damaged: ['/home/u/.local/share/agent-mux/kept/chunks/25/25ee: not a kept chunk'],
  }
  const view = { paint: plain, tty: false }

  it('says on or off and why, the counts and size, the retention at risk and what keeps it, and the damaged files', () => {
    expect(render.keepStatus(status, view).split('\n')).toEqual([
      'keep       off (the default: /home/u/.agent-mux/settings.json sets nothing)',
      'kept in    /home/u/.local/share/agent-mux',
      'kept       1,204 sessions, 3.0 MB; 1 archived session (the agent deleted the source)',
      'retention  claude deletes sessions older than 30 days: 12 sessions not kept are at risk',
      '           `amux keep on` keeps a copy of every session, which then outlives the agent deleting it',
      'damaged    /home/u/.local/share/agent-mux/kept/chunks/25/25ee: not a kept chunk',
      '           1 fault in the kept store (a file that failed its checksum or is missing, or archived sessions it cannot serve): never served',
      '',
    ])
  })

  it('on by the setting, nothing at risk: no hint; on a terminal paths under HOME from ~', () => {
    const on = { ...status, on: true, origin: 'setting', retention: [{ agent: 'claude', days: 30, atRisk: 0 }], damaged: [], archived: 0 }
    expect(format.homePath('/home/u/x', true, '/home/u')).toBe('~/x')
    expect(format.homePath('/home/u/x', false, '/home/u')).toBe('/home/u/x')
    const text = render.keepStatus(on, { paint: plain, tty: false })
    expect(text).toContain('keep       on, by the setting in /home/u/.agent-mux/settings.json')
    expect(text).toContain('claude deletes sessions older than 30 days: no session that is not kept is at risk')
    expect(text).not.toContain('amux keep on')
    expect(text).not.toContain('archived')
  })

  it('piped: a name and its values per line', () => {
    expect(render.keepStatusRows(status)).toEqual([
      ['on', 'false'],
      ['origin', 'default'],
      ['dir', status.dir],
      ['settingFile', status.settingFile],
      ['sessions', 1204],
      ['archived', 1],
      ['bytes', 3 * 1024 * 1024],
      ['retention', 'claude', 30, 12],
      ['damaged', status.damaged[0]],
    ])
  })
})
