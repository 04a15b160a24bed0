'use strict'
// Dates as a person writes them for --since/--until and the UI's date fields. Reading one returns
// null for text that is no date: each caller reports that in its own form (a usage error on the
// command line, a 400 from the UI's API), naming the spellings below.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/
const AGE = /^(\d+)(m|h|d|w)$/
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }

/** What `readDate` understands, for an error message. */
const DATE_SPELLINGS = 'ISO 8601 (2025-01-31, 2025-01-31T09:30Z) or an age (30m, 12h, 7d, 2w)'

/**
 * ISO 8601 (`2025-01-31`, `2025-01-31T09:30`, `2025-01-31T09:30:00Z`), an age (`30m`, `12h`,
 * `7d`, `2w` = that long before now), `today` or `yesterday` (a day's start) as a Date, or null. Without an offset a date or time is
 * local, like the calendar days of `cost report --group-by day`; with `endOfDay` (for --until) a
 * bare date means the end of that day, so `--until 2025-01-31` includes the 31st.
 */
function readDate(value, { endOfDay = false, now = Date.now() } = {}) {
  const text = String(value).trim()
  // A day by its name: the start of it (with `endOfDay`, its end), local.
  const back = { today: 0, yesterday: 1 }[text.toLowerCase()]
  if (back !== undefined) {
    const t = new Date(now)
    const day = endOfDay ? 1 - back : -back
    return new Date(t.getFullYear(), t.getMonth(), t.getDate() + day, 0, 0, 0, endOfDay ? -1 : 0)
  }
  const age = AGE.exec(text)
  if (age) return new Date(now - Number(age[1]) * UNIT_MS[age[2]])
  const iso = ISO.exec(text)
  if (!iso) return null
  const [, y, mo, d, h] = iso
  const bare = h === undefined
  const date = bare ? new Date(Number(y), Number(mo) - 1, Number(d)) : new Date(text.replace(' ', 'T'))
  // Date rolls 2025-02-31 over into March; a person who typed it made a mistake.
  const rolled = bare && (date.getMonth() + 1 !== Number(mo) || date.getDate() !== Number(d))
  if (Number.isNaN(date.getTime()) || rolled) return null
  return bare && endOfDay ? new Date(Number(y), Number(mo) - 1, Number(d) + 1, 0, 0, 0, -1) : date
}

const ELAPSED_UNITS = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
]

/**
 * How long ago (or ahead) `date` is, as the largest whole unit that fits, rounded down (25 days
 * are 3 weeks): `{ count, unit, future }`, `unit` one of year, month, week, day, hour, minute;
 * null within 45 seconds ("just now"). The command line and the page both word it from this, so
 * one session is never "3w ago" in one and "4 wk. ago" in the other.
 */
function elapsed(date, now = Date.now()) {
  const ms = now - new Date(date).getTime()
  const abs = Math.abs(ms)
  if (abs < 45_000) return null
  const future = ms < 0
  for (const [unit, size] of ELAPSED_UNITS) {
    if (abs >= size) return { count: Math.floor(abs / size), unit, future }
  }
  return { count: 1, unit: 'minute', future }
}

module.exports = { readDate, DATE_SPELLINGS, elapsed }
