'use strict'
// Human renderings of the cost reports (`amux cost daily|weekly|monthly|session|blocks`): a table
// whose last column is a bar per row, scaled to the costliest row, a line that sums the report up
// (daily: a sparkline of every day of the period; blocks: the active block's burn rate,
// projection and time left), then notes. `view` carries the width, the painter and the clock.

const { table, layout, relativeDate, usd, count, oneLine, bar, wrap, sparkline, duration } = require('./format.js')

const plural = (n, one, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`

// Bars get at most this many columns, and are left out when fewer than BAR_MIN are free.
const BAR_MAX = 40
const BAR_MIN = 6
// Model names give up width before the numbers do, down to this many columns.
const MODEL_MIN = 12

/**
 * Add a last column with a bar for each row whose `costs[i]` is a number: the other columns first
 * give up what they can (model names shrink) to leave it BAR_MIN columns at least.
 */
function withBars(columns, rows, costs, view) {
  const width = Math.min(BAR_MAX, view.width - layout(columns, rows, view.width - BAR_MIN - 2).total - 2)
  const largest = Math.max(0, ...costs.filter((c) => c !== undefined))
  if (largest <= 0 || width < BAR_MIN) return
  columns.push({ head: '' })
  rows.forEach((row, i) => row.push(costs[i] === undefined ? '' : view.paint('cyan', bar(costs[i] / largest, width))))
}

const tokenCells = (r) => [
  count(r.inputTokens),
  count(r.outputTokens),
  count(r.cacheCreationTokens),
  count(r.cacheReadTokens),
  count(r.totalTokens ?? r.inputTokens + r.outputTokens + r.cacheCreationTokens + r.cacheReadTokens),
  usd(r.totalCost ?? r.cost),
]
const TOKEN_COLUMNS = ['INPUT', 'OUTPUT', 'CACHE WRITE', 'CACHE READ', 'TOTAL', 'COST'].map((head) => ({ head, align: 'right' }))

// The rows of a report and, with --breakdown, a line per model under each.
function rowsWithModels(report, label, breakdown, view, before = () => []) {
  const rows = []
  const costs = []
  for (const r of report) {
    rows.push([label(r), ...before(r), r.modelsUsed.join(', '), ...tokenCells(r)])
    costs.push(r.totalCost)
    if (!breakdown) continue
    for (const m of r.modelBreakdowns) {
      const agent = before(r).map(() => (r.agents.length > 1 ? view.paint('dim', m.agent) : ''))
      rows.push(['', ...agent, view.paint('dim', `└ ${m.modelName}`), ...tokenCells(m).map((c) => view.paint('dim', c))])
      costs.push(undefined)
    }
  }
  return { rows, costs }
}

const HEAD = { daily: 'DATE', weekly: 'WEEK', monthly: 'MONTH' }
const KEY = { daily: 'date', weekly: 'week', monthly: 'month' }
const UNIT = { daily: 'day', weekly: 'week', monthly: 'month' }

/** `kind`: 'daily', 'weekly' or 'monthly'; `report`: what `cost.<kind>` returned. */
function periodReport(kind, report, view, { breakdown = false } = {}) {
  const found = report[kind]
  if (found.length === 0) return `No usage in this period.\n${usageNotes(report, view)}`
  const agents = new Set(found.flatMap((r) => r.agents))
  const byAgent = agents.size > 1
  const columns = [
    { head: HEAD[kind] },
    ...(byAgent ? [{ head: 'AGENTS', shrink: 8 }] : []),
    { head: 'MODELS', shrink: MODEL_MIN },
    ...TOKEN_COLUMNS,
  ]
  const { rows, costs } = rowsWithModels(found, (r) => r[KEY[kind]], breakdown, view, (r) => (byAgent ? [r.agents.join(', ')] : []))
  rows.push([view.paint('bold', 'TOTAL'), ...(byAgent ? [''] : []), '', ...tokenCells(report.totals)])
  costs.push(undefined)
  withBars(columns, rows, costs, view)
  const total = usd(report.totals.totalCost)
  const summary =
    kind === 'daily'
      ? dailySpark(found, view)
      : `${plural(found.length, UNIT[kind])}, ${total} in total`
  return `${table(columns, rows, view)}${summary}\n${usageNotes(report, view)}`
}

// Whole days between two 'YYYY-MM-DD' dates.
const dayNumber = (date) => Date.parse(`${date}T00:00:00Z`) / 86_400_000
const dayName = (n) => new Date(n * 86_400_000).toISOString().slice(0, 10)

/**
 * One line: a sparkline of every day from the first to the last (a space for a day without
 * usage; several days to a character when they do not fit), the period, its total and its peak.
 */
function dailySpark(days, view) {
  const sorted = [...days].sort((a, b) => a.date.localeCompare(b.date))
  const first = dayNumber(sorted[0].date)
  const last = dayNumber(sorted[sorted.length - 1].date)
  const costs = new Array(last - first + 1).fill(0)
  for (const d of sorted) costs[dayNumber(d.date) - first] += d.totalCost
  const peak = sorted.reduce((a, b) => (b.totalCost > a.totalCost ? b : a))
  const total = sorted.reduce((s, d) => s + d.totalCost, 0)
  const text = ` ${dayName(first)} → ${dayName(last)}, ${usd(total)} in total, peak ${usd(peak.totalCost)} on ${peak.date}`
  const room = Math.max(10, view.width - text.length)
  const per = Math.ceil(costs.length / room)
  const chars = []
  for (let i = 0; i < costs.length; i += per) chars.push(costs.slice(i, i + per).reduce((a, b) => a + b, 0))
  return `${view.paint('cyan', sparkline(chars))}${text}`
}

/**
 * `ids`: what the SESSION column shows for each session (agent:short id); `more`: a limit left
 * sessions out (then the totals are those of the sessions shown).
 */
function sessionReport(report, view, ids, { breakdown = false, more = false } = {}) {
  const found = report.sessions
  if (found.length === 0) return `No sessions with usage in this period.\n${usageNotes(report, view)}`
  const columns = [
    { head: 'SESSION' },
    { head: 'LAST ACTIVE' },
    { head: 'TITLE', flex: true, min: 12, want: 30 },
    { head: 'MODELS', shrink: MODEL_MIN },
    { head: 'TOKENS', align: 'right' },
    { head: 'COST', align: 'right' },
  ]
  const rows = []
  const costs = []
  found.forEach((s, i) => {
    rows.push([ids[i], relativeDate(s.lastActivity, view.now), oneLine(s.title) || '(untitled)', s.modelsUsed.join(', '), count(s.totalTokens), usd(s.totalCost)])
    costs.push(s.totalCost)
    if (!breakdown) return
    for (const m of s.modelBreakdowns) {
      const t = m.inputTokens + m.outputTokens + m.cacheCreationTokens + m.cacheReadTokens
      rows.push(['', '', '', view.paint('dim', `└ ${m.modelName}`), view.paint('dim', count(t)), view.paint('dim', usd(m.cost))])
      costs.push(undefined)
    }
  })
  withBars(columns, rows, costs, view)
  const cost = usd(found.reduce((sum, s) => sum + s.totalCost, 0))
  const line = more
    ? `${plural(found.length, 'session')} shown, ${cost} among them; more with a higher --limit`
    : `${plural(found.length, 'session')}, ${cost} in total`
  return `${table(columns, rows, view)}${line}\n${usageNotes(report, view)}`
}

/** 'YYYY-MM-DD HH:MM' of `date` in `timeZone` (undefined: the local zone). */
function wallClock(date, timeZone) {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date)
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]))
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`
}

const MINUTE = 60_000
// 2h 5m, 45m: time left or spent, to the minute.
function span(ms) {
  const minutes = Math.max(0, Math.round(ms / MINUTE))
  return minutes === 0 ? '0m' : duration(minutes * MINUTE)
}

/** `result`: what `cost.blocks` returned; `timeZone` as given on the command line. */
function blocksReport(result, view, { timeZone, breakdown = false } = {}) {
  const { blocks } = result
  if (blocks.length === 0) return 'No Claude Code usage in this period.\n'
  const columns = [
    { head: 'BLOCK START' },
    { head: 'DURATION' },
    { head: 'MODELS', shrink: MODEL_MIN },
    { head: 'TOKENS', align: 'right' },
    { head: 'COST', align: 'right' },
  ]
  const rows = []
  const costs = []
  for (const b of blocks) {
    const start = wallClock(b.startTime, timeZone)
    if (b.isGap) {
      rows.push([view.paint('dim', start), view.paint('dim', `(${span(b.endTime - b.startTime)} gap)`), '', '', ''])
      costs.push(undefined)
      continue
    }
    const status = b.isActive ? view.paint('green', `ACTIVE, ${span(b.endTime - view.now)} left`) : span(b.actualEndTime - b.startTime)
    rows.push([start, status, b.models.join(', '), count(b.totalTokens), usd(b.costUSD)])
    costs.push(b.costUSD)
    if (!breakdown) continue
    for (const m of b.modelBreakdowns) {
      const t = m.inputTokens + m.outputTokens + m.cacheCreationTokens + m.cacheReadTokens
      rows.push(['', '', view.paint('dim', `└ ${m.modelName}`), view.paint('dim', count(t)), view.paint('dim', usd(m.cost))])
      costs.push(undefined)
    }
  }
  withBars(columns, rows, costs, view)
  const used = blocks.filter((b) => !b.isGap)
  const total = used.reduce((s, b) => s + b.costUSD, 0)
  let out = `${table(columns, rows, view)}${plural(used.length, 'block')}, ${usd(total)} in total\n`
  const active = blocks.find((b) => b.isActive)
  if (active) out += `${wrap(activeLine(active, view, timeZone), view.width, '  ')}\n`
  return out
}

/** The active block: since when, time left, burn rate and where it leads by the block's end. */
function activeLine(b, view, timeZone) {
  const clock = (d) => wallClock(d, timeZone).slice(11)
  let line = `${view.paint('green', 'active block')} since ${clock(b.startTime)}: ${span(b.endTime - view.now)} left (until ${clock(b.endTime)})`
  if (b.burnRate) {
    line += `; burn rate ${count(b.burnRate.tokensPerMinute)} tokens/min, ${usd(b.burnRate.costPerHour)}/h`
  }
  if (b.projection) {
    line += `; projected ${count(b.projection.totalTokens)} tokens, ${usd(b.projection.totalCost)} by ${clock(b.endTime)}`
  }
  if (b.tokenLimitStatus) {
    const s = b.tokenLimitStatus
    line += ` (${s.percentUsed.toFixed(1)}% of ${count(s.limit)}: ${s.status})`
  }
  return line
}

/** Notes under a report: models without a price, and sessions whose agent recorded no usage. */
function usageNotes(report, view) {
  const notes = []
  const without = Object.entries(report.sessionsWithoutUsage ?? {})
  if (without.length) {
    const n = without.reduce((s, [, k]) => s + k, 0)
    const agents = without.map(([a, k]) => `${a} ${count(k)}`).join(', ')
    notes.push(`note: no token counts were recorded for ${plural(n, 'session')} (${agents}), so their cost is unknown, not $0.00`)
  }
  if (report.unpricedModels?.length) {
    const models = report.unpricedModels.map((m) => `${m.model} (${m.agent})`).join(', ')
    notes.push(`note: no price known for ${models}; their tokens count as $0`)
  }
  return notes.map((n) => `${wrap(n, view.width, '      ')}\n`).join('')
}

module.exports = { periodReport, sessionReport, blocksReport, usageNotes, wallClock }
