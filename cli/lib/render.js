'use strict'
// Human renderings of the API's results, one function per command. Each returns the text for
// stdout; `view` carries the terminal width, the painter and the clock.

const { table, roomy, layout, bothDates, relativeDate, usd, count, oneLine, highlight, bar, wrap, size, homePath, plural: counted } = require('./format.js')
const { wordDiff, sideLine } = require('../../human/words.js')
const { costGroups, groupLabel, costNotes } = require('../../human/cost.js')
const { retentionSentence, atRisk, KEEP_HINT } = require('../../human/keep.js')

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

// The line under a list of sessions. `more`: the limit left sessions out (the command asked for
// one more than it shows), so the count is not the total.
// The kept sessions among them whose source is gone are counted too, so the mark is explained.
const countLine = (n, what, more, archived = 0) =>
  `${plural(n, what)}${more ? ' shown, more with a higher --limit' : ''}${archived ? `, ${archivedNote(archived)}` : ''}\n`

const archivedNote = (n) => `${n} archived (kept by amux, the agent deleted its source)`

/**
 * A session's title as a table shows it, marked when it is archived: a kept copy answers for it,
 * the agent deleted its source.
 */
function titleCell(s, paint) {
  const title = oneLine(s.title) || '(untitled)'
  return s.archived ? `${paint('yellow', '[archived]')} ${title}` : title
}

const archivedCount = (sessions) => sessions.filter((s) => s.archived).length

// Dates read best as "3h ago · 2025-06-15 09:12", but the title says more about a session than the
// absolute date: when the full dates would squeeze the title below its `want`, show relative dates.
function fitted(build, view) {
  const full = build((d) => bothDates(d, view.now))
  const [columns, rows] = roomy(...full, view.width) ? full : build((d) => relativeDate(d, view.now))
  return table(columns, rows, view)
}

// Titles are where a reader recognises a session: they ask for this much room before the dates give
// up their absolute part.
const TITLE_WANT = 40

// Model names may give up width before the title does, down to this many columns.
const MODEL_MIN = 12

/**
 * `agent`: the agent listed, undefined for every agent's sessions; `ids`: what the SESSION column
 * shows for each session (short on a terminal, full with --wide, `agent:` first for every agent's);
 * `more`: sessions past the limit were left out.
 */
function sessionList(agent, sessions, view, ids = sessions.map((s) => s.sessionId), more = false) {
  const what = agent ? `${agent} session` : 'session'
  if (sessions.length === 0) return more ? countLine(0, what, more) : `No ${what}s found.\n`
  const columns = [
    { head: 'SESSION' },
    { head: 'UPDATED' },
    { head: 'TURNS', align: 'right' },
    { head: 'MODEL', shrink: MODEL_MIN },
    { head: 'COST', align: 'right' },
    { head: 'TITLE', flex: true, min: 16, want: TITLE_WANT },
  ]
  const draw = (date) => [
    columns,
    sessions.map((s, i) => [
      ids[i],
      date(s.updatedAt),
      count(s.turnCount),
      s.model ?? '–',
      usd(s.cost?.totalUsd),
      titleCell(s, view.paint),
    ]),
  ]
  return `${fitted(draw, view)}${countLine(sessions.length, what, more, archivedCount(sessions))}`
}

// A query as typed, quoted unless it brings its own quotes ('"test flaky"' is not shown ""test flaky"").
const quoted = (text) => (text.includes('"') ? text : `"${text}"`)

/** `ids`: what the SESSION column shows for each hit (`agent:` and the short or full id); `more` as above. */
function searchResults(text, sessions, view, ids = sessions.map((s) => s.unifiedId), more = false) {
  if (sessions.length === 0) return more ? countLine(0, 'matching session', more) : `No sessions match ${quoted(text)}.\n`
  const columns = [
    { head: '#', align: 'right' },
    { head: 'SESSION' },
    { head: 'UPDATED' },
    { head: 'SCORE', align: 'right' },
    { head: 'COST', align: 'right' },
    { head: 'TITLE', flex: true, min: 16, want: TITLE_WANT },
  ]
  const draw = (date) => {
    const rows = []
    sessions.forEach((s, i) => {
      rows.push([
        String(i + 1),
        ids[i],
        date(s.updatedAt),
        s.relevanceScore === undefined ? '–' : s.relevanceScore.toFixed(2),
        usd(s.cost?.totalUsd),
        titleCell(s, view.paint),
      ])
      // the snippet sits under its session, spanning the columns after the rank
      if (s.snippet) rows.push({ span: highlight(s.snippet, view.paint) })
    })
    return [columns, rows]
  }
  return `${fitted(draw, view)}${countLine(sessions.length, 'matching session', more, archivedCount(sessions))}`
}

const GROUP_HEAD = { agent: 'AGENT', model: 'MODEL', day: 'DAY', tag: 'TAG', week: 'WEEK', month: 'MONTH', session: 'SESSION', project: 'PROJECT' }

// Bars get at most this many columns, and are left out when fewer than BAR_MIN are free.
const BAR_MAX = 40
const BAR_MIN = 6

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
  const groups = costGroups(summary, groupBy)
  const rows = groups.map((g) => line(groupLabel(g.key, groupBy), g))
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
  // A bar per group beside its cost, scaled to the largest, so a spike is seen at a glance.
  const barWidth = Math.min(BAR_MAX, view.width - layout(columns, rows, Infinity).total - 2)
  const largest = Math.max(0, ...groups.map((g) => g.totalUsd))
  if (groupBy && groups.length && largest > 0 && barWidth >= BAR_MIN) {
    columns.push({ head: '' })
    groups.forEach((g, i) => rows[i].push(view.paint('cyan', bar(g.totalUsd / largest, barWidth))))
    rows[rows.length - 1].push('')
  }
  let out = table(columns, rows, view)
  // runCount only says more than sessionCount when agent-mux's run index recorded several runs.
  const runs = summary.runCount > summary.sessionCount ? ` (${plural(summary.runCount, 'run')})` : ''
  out += `${plural(summary.sessionCount, 'session')}${runs}, ${usd(summary.totalUsd)} in total\n`
  return out
}

/** Notes for a terminal: each wrapped at word boundaries to `width`, continuation lines indented. */
const wrappedNotes = (notes, width) => notes.map((n) => `${wrap(n, width, '      ')}\n`).join('')

// What a diff row says about one message: its text, else its tool calls or tool result.
function gist(message) {
  if (!message) return ''
  const text = oneLine(message.content)
  if (text) return text
  if (message.toolCalls?.length) return `[calls ${message.toolCalls.map((c) => c.toolName).join(', ')}]`
  if (message.toolResult) {
    // Some agents (Gemini) keep the tool's output only in the result, not as message text.
    const output = typeof message.toolResult.output === 'string' ? oneLine(message.toolResult.output) : ''
    return output || `[result of ${message.toolResult.toolName}]`
  }
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
    if (op.type === 'modification') {
      // Two lines, A's text over B's, as a unified diff shows a changed line, with the changed
      // words marked and both lines starting just before the first change: however long the
      // message, the change is in sight.
      const words = wordDiff(gist(op.messageA), gist(op.messageB))
      const removed = paint.enabled ? (w) => paint('bold', paint('red', w)) : (w) => `[-${w}-]`
      const added = paint.enabled ? (w) => paint('bold', paint('green', w)) : (w) => `{+${w}+}`
      rows.push([colour(marks.modification), idx(op.indexA), '', op.messageA.role, sideLine(words.a, words.head, removed)])
      rows.push(['', '', idx(op.indexB), op.messageB.role, sideLine(words.b, words.head, added)])
      continue
    }
    const message = op.messageB ?? op.messageA
    rows.push([colour(marks[op.type]), idx(op.indexA), idx(op.indexB), message.role, colour(gist(message))])
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

function indexStatus(status) {
  if (!status.dir) return 'the index is off (cacheDir: false or AGENT_MUX_NO_CACHE=1): every call reads the stores'
  const mb = (status.bytes / 1e6).toFixed(1)
  const fresh = status.stale === 0 ? 'up to date' : `${plural(status.stale, 'source')} to read at the next search`
  const [first, ...more] = watchLines(status.watch)
  return [
    `index   ${status.dir}`,
    `size    ${mb} MB, ${plural(status.sources, 'source')}, ${plural(status.sessions, 'session')}`,
    `fresh   ${fresh}`,
    `watch   ${first}`,
    ...more.map((l) => `        ${l}`),
  ].join('\n')
}

/**
 * Which stores a client learns the changes of from the OS (`IndexStatus.watch`), and why any
 * other is stat'ed at every call: a first line, then one per store.
 */
function watchLines(watch) {
  if (!watch.on) return ["off: every call stats every source (a command's client; amux mcp and amux ui watch)"]
  if (watch.reason) return [`on, nothing watched: ${watch.reason}`]
  const overflows = watch.overflows > 0 ? `; the queue of events overflowed ${plural(watch.overflows, 'time')}` : ''
  const reused = watch.reused > 0 ? `; ${plural(watch.reused, 'search')} reused the index as the one before left it` : ''
  const restamped = watch.restamped > 0 ? `; ${plural(watch.restamped, 'search')} took in only the sources written since the one before` : ''
  return [
    `on: ${plural(watch.directories, 'directory', 'directories')} watched${overflows}${reused}${restamped}`,
    ...watch.stores.map((s) =>
      `${s.agent.padEnd(9)}${s.watched ? `watched (${plural(s.directories, 'directory', 'directories')})` : `stat'ed at every call: ${s.reason}`}`,
    ),
  ]
}

/** Why keeping is on or off (`KeepStatus.origin`), and where the setting that lasts is. */
function keepOrigin(status, shown) {
  const state = status.on ? 'on' : 'off'
  if (status.origin === 'option') return `${state}, by the client's keep option`
  if (status.origin === 'setting') return `${state}, by the setting in ${shown(status.settingFile)}`
  return `${state} (the default: ${shown(status.settingFile)} sets nothing)`
}

/**
 * `amux keep status` (and what `keep on` and `keep off` say first) for a person: on or off and
 * why, where the copies are, what they hold, and what each agent's own retention will delete
 * that is not kept.
 */
function keepStatus(status, { paint, tty }) {
  const shown = (path) => homePath(path, tty)
  const label = (text) => paint('dim', text.padEnd(11))
  const more = ' '.repeat(11)
  const archived = status.archived > 0 ? `; ${counted(status.archived, 'archived session')} (the agent deleted the source)` : ''
  const out = [
    `${label('keep')}${keepOrigin(status, shown)}`,
    `${label('kept in')}${shown(status.dir)}`,
    `${label('kept')}${counted(status.sessions, 'session')}, ${size(status.bytes)}${archived}`,
  ]
  status.retention.forEach((r, i) => {
    const line = retentionSentence(r)
    out.push(`${i === 0 ? label('retention') : more}${r.atRisk > 0 ? paint('yellow', line) : line}`)
  })
  if (!status.on && atRisk(status).length > 0) out.push(`${more}${KEEP_HINT}`)
  const damaged = status.damaged ?? []
  damaged.forEach((path, i) => out.push(`${i === 0 ? label('damaged') : more}${paint('red', shown(path))}`))
  if (damaged.length > 0) out.push(`${more}${paint('red', `${counted(damaged.length, 'fault')} in the kept store (a file that failed its checksum or is missing, or archived sessions it cannot serve): never served`)}`)
  return `${out.join('\n')}\n`
}

/** The same facts for a script: a name and its value (or values) per line, separated by tabs. */
function keepStatusRows(status) {
  return [
    ['on', String(status.on)],
    ['origin', status.origin],
    ['dir', status.dir],
    ['settingFile', status.settingFile],
    ['sessions', status.sessions],
    ['archived', status.archived],
    ['bytes', status.bytes],
    ...status.retention.map((r) => ['retention', r.agent, r.days ?? '', r.atRisk]),
    ...(status.damaged ?? []).map((path) => ['damaged', path]),
  ]
}

/**
 * `amux sessions touched`: each session (its id, when it last touched the file, its title), then
 * each of its touches on a line (action, path, lines changed, when), with the first line of the
 * request that led to it under the touches it led to.
 */
function touched(file, sessions, view, ids = sessions.map((s) => s.unifiedId)) {
  if (sessions.length === 0) return `No session touched ${file}.\n`
  const { paint } = view
  const out = []
  sessions.forEach((s, i) => {
    if (i > 0) out.push('')
    out.push(`${paint('bold', ids[i])}  ${relativeDate(s.updatedAt, view.now)}  ${oneLine(s.title) || '(untitled)'}`)
    let request
    for (const t of s.touches) {
      if (t.request !== undefined && t.request !== request) {
        request = t.request
        out.push(`  ${paint('dim', '»')} ${oneLine(t.request).slice(0, Math.max(20, view.width - 4))}`)
      }
      const lines = t.added !== undefined || t.removed !== undefined ? ` ${paint('green', `+${t.added ?? 0}`)} ${paint('red', `-${t.removed ?? 0}`)}` : ''
      const when = t.at ? `  ${relativeDate(t.at, view.now)}` : ''
      out.push(`    ${t.action.padEnd(7)} ${homePath(t.path, view.tty)}${lines}  msg ${t.messageIndex}${when}`)
    }
  })
  const n = sessions.length
  out.push('', `${plural(n, 'session')} touched ${file}`)
  return `${out.join('\n')}\n`
}

module.exports = {
  touched,
  keepStatus,
  keepStatusRows,
  sessionList,
  searchResults,
  costReport,
  costGroups,
  costNotes,
  wrappedNotes,
  sessionDiff,
  gist,
  quoted,
  indexStatus,
  watchLines,
}
