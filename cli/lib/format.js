'use strict'
// Human output of the amux CLI: dates, money, token counts, colour and terminal-sized tables.
// Pure functions of their inputs (the clock and the terminal width are parameters) so they can be
// tested without a terminal; the command files (cli/commands) decide what goes to stdout.

// cli-table3 and string-width are loaded when first used: a piped command draws no table, and
// every command pays for what it loads at start.
const stringWidth = (text) => require('string-width')(text)
// Dollars and counts read the same from the MCP server: they are human/'s.
const { usd, count } = require('../../human/cost.js')
const { elapsed } = require('../../human/dates.js')

// NO_COLOR (https://no-color.org) wins when set to anything non-empty; FORCE_COLOR lets a pipe or a
// test ask for colour; otherwise colour only when the stream is a terminal.
function colorEnabled(stream, env = process.env) {
  if (env.NO_COLOR) return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0'
  return Boolean(stream && stream.isTTY)
}

const SGR = { bold: 1, dim: 2, italic: 3, underline: 4, inverse: 7, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 }

function painter(enabled) {
  const paint = (style, text) => (enabled && text !== '' ? `\x1b[${SGR[style]}m${text}\x1b[0m` : String(text))
  paint.enabled = enabled
  return paint
}

// Columns for tables: the terminal's, else $COLUMNS (a pipe or a test), else a roomy default.
function terminalWidth(stream, env = process.env) {
  if (stream && stream.isTTY && stream.columns > 0) return stream.columns
  const fromEnv = Number.parseInt(env.COLUMNS ?? '', 10)
  return Number.isFinite(fromEnv) && fromEnv > 20 ? fromEnv : 120
}

const pad2 = (n) => String(n).padStart(2, '0')

// Local wall-clock time to the minute: what a person compares with their own clock.
function absoluteDate(date) {
  return (
    `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ` +
    `${pad2(date.getHours())}:${pad2(date.getMinutes())}`
  )
}

const SHORT_UNIT = { year: 'y', month: 'mo', week: 'w', day: 'd', hour: 'h', minute: 'm' }

/** "3h ago", "in 2d", "just now": the age a table has room for. */
function relativeDate(date, now = Date.now()) {
  const e = elapsed(date, now)
  if (!e) return 'just now'
  const n = `${e.count}${SHORT_UNIT[e.unit]}`
  return e.future ? `in ${n}` : `${n} ago`
}

function bothDates(date, now) {
  return `${relativeDate(date, now)} · ${absoluteDate(date)}`
}

// Local wall-clock time to the second, for a message in a transcript.
function clockTime(date) {
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`
}

// A span as a person says it: 850ms, 12s, 1m 12s, 2h 5m (the two largest units).
function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '–'
  if (ms < 1000) return `${Math.round(ms)}ms`
  const s = Math.round(ms / 1000)
  const parts = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'm'],
    [s % 60, 's'],
  ]
  const first = parts.findIndex(([n]) => n > 0)
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join(' ')
}

/** `n` things, in the singular or plural: "1 session", "1,204 sessions". */
const plural = (n, one, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`

/** Bytes as a person reads them: 512 B, 1.5 KB, 12.3 MB. */
function size(bytes) {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = bytes / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v.toFixed(1)} ${units[i]}`
}

/** `path` for a terminal: under HOME it is written from `~`, so that lines fit; elsewhere (a pipe) whole. */
function homePath(path, tty, home = process.env.HOME) {
  return tty && home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path
}

// One line of text from a message or title: whitespace collapsed, so a table row stays one row.
function oneLine(text) {
  return String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
}

// Search snippets mark hits as >>>hit<<<. With colour the markers become highlighting; without it
// they stay, so the hit is still visible in a pipe or a log.
function highlight(snippet, paint) {
  const text = oneLine(snippet)
  if (!paint.enabled) return text
  return text.replace(/>>>(.*?)<<</g, (_, hit) => `\x1b[1;33m${hit}\x1b[0m`)
}

// Columns a string takes on a terminal: colour codes take none, CJK and other wide characters two,
// combining marks none (string-width, the same measure cli-table3 truncates with).
function visibleWidth(text) {
  return stringWidth(String(text))
}

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: '  ',
}

/**
 * `text` broken into lines of at most `width` columns at spaces (a word longer than a line stands
 * alone on its own); lines after the first start with `indent`.
 */
function wrap(text, width, indent = '') {
  const lines = []
  let line = ''
  for (const word of String(text).split(/ +/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : `${lines.length ? indent : ''}${word}`
    if (line && visibleWidth(candidate) > width) {
      lines.push(line)
      line = `${indent}${word}`
    } else {
      line = candidate
    }
  }
  if (line) lines.push(line)
  return lines.join('\n')
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

/** A horizontal bar `fraction` (0–1) of `width` columns, in eighths of a column; never empty above 0. */
function bar(fraction, width) {
  if (!(fraction > 0)) return ''
  const eighths = Math.max(1, Math.round(Math.min(1, fraction) * width * 8))
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]
}

const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']

/** `values` as a one-line chart, one character each, scaled to the largest; 0 is a space. */
function sparkline(values) {
  const top = Math.max(0, ...values)
  return values
    .map((v) => (v > 0 && top > 0 ? SPARKS[Math.min(7, Math.floor((v / top) * 7.999))] : ' '))
    .join('')
}

/** Did every line of `text` fit in `width` columns? */
function fits(text, width) {
  return text.split('\n').every((line) => visibleWidth(line) <= width)
}

/**
 * Column widths for an aligned, borderless table that fits `width` columns: every column gets its
 * natural width, then, while the row is too wide, columns with `shrink: <min>` (a model name) give
 * up width down to their minimum, and last `flex` (the title) takes what is left, truncated with an
 * ellipsis, down to its `min`. Returns { widths, natural, flexIndex, total }.
 */
function layout(columns, rows, width) {
  const gap = 2
  const natural = columns.map((c, i) =>
    Math.max(
      visibleWidth(c.head),
      ...rows.filter(Array.isArray).map((r) => visibleWidth(r[i] ?? '')),
    ),
  )
  const flexIndex = columns.findIndex((c) => c.flex)
  const widths = natural.slice()
  const sum = () => widths.reduce((a, b) => a + b, 0) + gap * (columns.length - 1)
  columns.forEach((c, i) => {
    if (c.shrink !== undefined && sum() > width) {
      widths[i] = Math.max(Math.min(c.shrink, natural[i]), widths[i] - (sum() - width))
    }
  })
  if (flexIndex >= 0) {
    const min = Math.min(natural[flexIndex], columns[flexIndex].min ?? 10)
    widths[flexIndex] = Math.max(min, natural[flexIndex] - Math.max(0, sum() - width))
  }
  return { widths, natural, flexIndex, total: sum() }
}

/**
 * Does the flex column of this table get the room it wants (`want` columns, or all of its text)?
 * Used to choose between a detailed and a compact rendering of the other columns.
 */
function roomy(columns, rows, width) {
  const { widths, natural, flexIndex, total } = layout(columns, rows, width)
  if (total > width) return false
  if (flexIndex < 0) return true
  return widths[flexIndex] >= Math.min(natural[flexIndex], columns[flexIndex].want ?? 0)
}

/**
 * The table itself (see layout). columns: [{ head, align?: 'left'|'right', flex?: true, min?,
 * want?, shrink? }]; rows: arrays of cell strings, or { span: text } for a full-width line under
 * the previous row.
 */
function table(columns, rows, { width, paint }) {
  const { widths } = layout(columns, rows, width)
  const Table = require('cli-table3')
  const t = new Table({
    head: columns.map((c) => paint('bold', c.head)),
    colWidths: widths,
    colAligns: columns.map((c) => c.align ?? 'left'),
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    truncate: '…',
    wordWrap: false,
  })
  for (const row of rows) {
    if (Array.isArray(row)) t.push(row.map((cell) => String(cell ?? '')))
    // A detail line (a search snippet) under the row above, from the second column to the end.
    else t.push(['', { content: row.span, colSpan: columns.length - 1 }])
  }
  // cli-table3 pads every cell; trailing blanks only make copy-paste and diffs noisy.
  return `${t
    .toString()
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')}\n`
}

module.exports = {
  sparkline,
  colorEnabled,
  painter,
  terminalWidth,
  absoluteDate,
  clockTime,
  duration,
  size,
  plural,
  homePath,
  relativeDate,
  bothDates,
  usd,
  count,
  oneLine,
  highlight,
  visibleWidth,
  layout,
  roomy,
  table,
  fits,
  wrap,
  bar,
}
