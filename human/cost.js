'use strict'
// A cost as a person reads it, on the command line and from the MCP server alike: dollars and
// counts, the groups of a cost report in reading order, and where the agent recorded no token
// counts (Cursor's stores keep none), its $0.00 means unknown, not free, and every report says so.

const tokens = (c) => c.inputTokens + c.outputTokens + (c.thinkingTokens ?? 0) + (c.cachedTokens ?? 0)

/** A session that recorded no token counts: its cost is unknown rather than zero. */
const recordedNoTokens = (s) => !s.cost || (s.cost.totalUsd === 0 && tokens(s.cost) === 0)

// Dollars: cents when the amount is a cent or more, four places below that so small runs are not "$0.00".
function usd(amount) {
  if (amount === undefined || amount === null || !Number.isFinite(amount)) return '–'
  if (amount === 0) return '$0.00'
  if (Math.abs(amount) < 0.01) return `$${amount.toFixed(4)}`
  return `$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
}

function count(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–'
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

// Groupings whose keys are periods, read in calendar order rather than by spend.
const CALENDAR = new Set(['day', 'week', 'month'])

/** The breakdown's groups in reading order: periods by the calendar, every other grouping by spend. */
function costGroups(summary, groupBy) {
  const groups = Object.values(summary.breakdowns ?? {})
  return groups.sort((a, b) =>
    CALENDAR.has(groupBy) ? a.key.localeCompare(b.key) : b.totalUsd - a.totalUsd || a.key.localeCompare(b.key),
  )
}

// Untagged sessions, and usage without a recorded model, are grouped under the empty key.
const groupLabel = (key, groupBy) =>
  key !== '' ? key : groupBy === 'tag' ? '(untagged)' : groupBy === 'model' ? '(no model)' : '(none)'

const unique = (values) => [...new Set(values)]
const WHERE = { day: 'on', model: 'with models', tag: 'with tags' }
const pad2 = (n) => String(n).padStart(2, '0')
// The local calendar day of a date, as `totalCost` groups by day.
const localDay = (d) => `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`

/**
 * Notes under a cost report, one string each (unwrapped). `blind`: the matching sessions that
 * recorded no token counts, whose $0.00 means unknown, not free; the note names the groups
 * holding them (every day, with groupBy day).
 */
function costNotes(summary, groupBy, blind) {
  const notes = []
  if (blind.length) {
    const agents = unique(blind.map((s) => s.agent)).join(', ')
    const keys =
      groupBy === 'day'
        ? unique(blind.map((s) => localDay(s.createdAt))).sort()
        : groupBy === 'model'
          ? unique(blind.map((s) => groupLabel(s.model ?? '', 'model')))
          : groupBy === 'tag'
            ? unique(blind.flatMap((s) => (s.tags.length ? s.tags : [''])).map((t) => groupLabel(t, 'tag')))
            : []
    const where = keys.length ? ` ${WHERE[groupBy]} ${keys.join(', ')}` : ''
    notes.push(
      `note: no token counts were recorded for ${plural(blind.length, 'session')} (${agents})${where}, so $0.00 there means unknown, not free`,
    )
  }
  if (summary.unpricedModels?.length) {
    notes.push(`note: no price known for ${summary.unpricedModels.join(', ')}; their tokens count as $0`)
  }
  return notes
}

module.exports = { recordedNoTokens, usd, count, costGroups, groupLabel, costNotes }
