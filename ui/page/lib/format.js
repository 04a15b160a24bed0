// How the pages write dates, money and counts: local time, the user's number format. Money, counts
// and sizes are written as the share file writes them (render/format.js).

import { elapsed } from '../../../human/dates.js'

export { usd, count, bytes, tokenLine, costUnknown, sessionCost, plural } from '../../../render/format.js'

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' })

/** "3 hr. ago", "last week": how long ago `date` was, in the command line's whole units. */
export function age(date, now = Date.now()) {
  const e = elapsed(date, now)
  return e ? relative.format(e.future ? e.count : -e.count, e.unit) : 'just now'
}

const pad = (n) => String(n).padStart(2, '0')

/** Local date and time to the minute: 2026-10-07 14:05. */
export function dateTime(date) {
  const d = new Date(date)
  return `${localDay(d)} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** Local calendar day: 2026-10-07. */
export const localDay = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`

/** Time of day with seconds: 14:05:09. */
export function clock(date) {
  const d = new Date(date)
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}
