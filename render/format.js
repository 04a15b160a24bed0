// How money, token counts and sizes are written, by the page and by the share file alike.

const numbers = new Intl.NumberFormat()

/** Dollars: cents for a cent or more, four decimals below it. */
export function usd(value) {
  if (value === undefined || value === null) return '—'
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 4 : 2
  return `$${value.toFixed(digits)}`
}

export const count = (n) => numbers.format(n ?? 0)

/** Bytes as kB, MB or GB (powers of 1000, as file managers show them). */
export function bytes(n) {
  if (n < 1000) return `${n} B`
  const units = ['kB', 'MB', 'GB', 'TB']
  let value = n
  let unit = -1
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

/** The tokens a cost record or token usage counts, as one short line. */
export function tokenLine(t) {
  if (!t) return ''
  const parts = [`${count(t.inputTokens)} in`, `${count(t.outputTokens)} out`]
  if (t.thinkingTokens) parts.push(`${count(t.thinkingTokens)} thinking`)
  if (t.cachedTokens) parts.push(`${count(t.cachedTokens)} cached`)
  return parts.join(' · ')
}

/** A session that recorded no token counts: its cost is unknown, not zero. */
export const costUnknown = (cost) => !cost || (cost.totalUsd === 0 && !cost.inputTokens && !cost.outputTokens && !cost.cachedTokens && !cost.thinkingTokens)

/** A session's cost for a list: dollars, or "unknown" where no tokens were recorded. */
export const sessionCost = (cost) => (costUnknown(cost) ? 'unknown' : usd(cost.totalUsd))

export const plural = (n, one, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`
