'use strict'
// Human renderings of the API's results, one function per command. Each returns the text for
// stdout; `view` carries the terminal width, the painter and the clock.

const { table, fits, bothDates, relativeDate, usd, count, oneLine, highlight } = require('./format.js')

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

// Dates read best as "3h ago · 2025-06-15 09:12"; on a narrow terminal the relative part alone
// keeps the table on one line per session.
function fitted(draw, view) {
  const full = draw((d) => bothDates(d, view.now))
  return fits(full, view.width) ? full : draw((d) => relativeDate(d, view.now))
}

function sessionList(agent, sessions, view) {
  if (sessions.length === 0) return `No ${agent} sessions found.\n`
  const columns = [
    { head: 'SESSION' },
    { head: 'UPDATED' },
    { head: 'TURNS', align: 'right' },
    { head: 'MODEL', shrink: 8 },
    { head: 'COST', align: 'right' },
    { head: 'TITLE', flex: true, min: 16 },
  ]
  const draw = (date) =>
    table(
      columns,
      sessions.map((s) => [
        s.sessionId,
        date(s.updatedAt),
        count(s.turnCount),
        s.model ?? '–',
        usd(s.cost?.totalUsd),
        oneLine(s.title) || '(untitled)',
      ]),
      view,
    )
  return `${fitted(draw, view)}${plural(sessions.length, `${agent} session`)}\n`
}

function searchResults(text, sessions, view) {
  if (sessions.length === 0) return `No sessions match "${text}".\n`
  const columns = [
    { head: '#', align: 'right' },
    { head: 'SESSION' },
    { head: 'UPDATED' },
    { head: 'SCORE', align: 'right' },
    { head: 'COST', align: 'right' },
    { head: 'TITLE', flex: true, min: 16 },
  ]
  const draw = (date) => {
    const rows = []
    sessions.forEach((s, i) => {
      rows.push([
        String(i + 1),
        s.unifiedId,
        date(s.updatedAt),
        s.relevanceScore === undefined ? '–' : s.relevanceScore.toFixed(2),
        usd(s.cost?.totalUsd),
        oneLine(s.title) || '(untitled)',
      ])
      // the snippet sits under its session, spanning the columns after the rank
      if (s.snippet) rows.push({ span: highlight(s.snippet, view.paint) })
    })
    return table(columns, rows, view)
  }
  return `${fitted(draw, view)}${plural(sessions.length, 'matching session')}\n`
}

const GROUP_HEAD = { agent: 'AGENT', model: 'MODEL', day: 'DAY', tag: 'TAG' }

function costReport(summary, groupBy, view) {
  const line = (key, c) => [
    key,
    count(c.sessionCount),
    count(c.inputTokens),
    count(c.outputTokens),
    count(c.thinkingTokens),
    count(c.cachedTokens),
    usd(c.totalUsd),
  ]
  const groups = Object.values(summary.breakdowns ?? {})
  // Days read best in calendar order; every other grouping by spend, largest first.
  groups.sort((a, b) =>
    groupBy === 'day' ? a.key.localeCompare(b.key) : b.totalUsd - a.totalUsd || a.key.localeCompare(b.key),
  )
  const rows = groups.map((g) => line(g.key, g))
  rows.push(line(view.paint('bold', 'TOTAL'), summary))
  const columns = [
    { head: groupBy ? GROUP_HEAD[groupBy] : '', flex: true, min: 5 },
    { head: 'SESSIONS', align: 'right' },
    { head: 'INPUT', align: 'right' },
    { head: 'OUTPUT', align: 'right' },
    { head: 'THINKING', align: 'right' },
    { head: 'CACHED', align: 'right' },
    { head: 'COST', align: 'right' },
  ]
  let out = table(columns, rows, view)
  out += `${plural(summary.sessionCount, 'session')}, ${plural(summary.runCount, 'run')}, ${usd(summary.totalUsd)} in total\n`
  if (summary.unpricedModels?.length) {
    out += `note: no price known for ${summary.unpricedModels.join(', ')}; their tokens count as $0\n`
  }
  return out
}

// What a diff row says about one message: its text, else its tool calls or tool result.
function gist(message) {
  if (!message) return ''
  const text = oneLine(message.content)
  if (text) return text
  if (message.toolCalls?.length) return `[calls ${message.toolCalls.map((c) => c.toolName).join(', ')}]`
  if (message.toolResult) return `[result of ${message.toolResult.toolName}]`
  return '(empty)'
}

// Runs of unchanged messages longer than this are folded to their first and last message.
const FOLD_AFTER = 4

function sessionDiff(diff, view) {
  const { paint } = view
  const marks = { addition: '+', removal: '-', modification: '~', unchanged: ' ' }
  const colours = { addition: 'green', removal: 'red', modification: 'yellow' }
  const rows = []
  const ops = diff.operations
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]
    if (op.type === 'unchanged') {
      let end = i
      while (end + 1 < ops.length && ops[end + 1].type === 'unchanged') end++
      if (end - i + 1 > FOLD_AFTER) {
        rows.push(unchangedRow(ops[i]))
        rows.push(['', '', '', '', paint('dim', `… ${end - i - 1} unchanged messages …`)])
        rows.push(unchangedRow(ops[end]))
        i = end
        continue
      }
      rows.push(unchangedRow(op))
      continue
    }
    const colour = (text) => paint(colours[op.type], text)
    const role = (op.messageB ?? op.messageA).role
    const text =
      op.type === 'modification'
        ? `${gist(op.messageA)} ⟶ ${gist(op.messageB)}`
        : gist(op.messageB ?? op.messageA)
    rows.push([colour(marks[op.type]), idx(op.indexA), idx(op.indexB), role, colour(text)])
  }
  const { stats } = diff
  const head =
    `${paint('red', `--- ${diff.a.unifiedId}`)}\n${paint('green', `+++ ${diff.b.unifiedId}`)}\n` +
    `${stats.unchanged} unchanged, ${stats.modifications} modified, ${stats.additions} added, ${stats.removals} removed\n`
  if (rows.length === 0) return `${head}(both sessions are empty)\n`
  const columns = [
    { head: '' },
    { head: 'A', align: 'right' },
    { head: 'B', align: 'right' },
    { head: 'ROLE' },
    { head: 'MESSAGE', flex: true },
  ]
  return head + table(columns, rows, view)
}

const idx = (n) => (n === undefined || n === null ? '' : String(n))
const unchangedRow = (op) => [' ', idx(op.indexA), idx(op.indexB), op.messageA?.role ?? '', gist(op.messageA)]

module.exports = { sessionList, searchResults, costReport, sessionDiff }
