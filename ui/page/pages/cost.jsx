// Cost: spend per day as bars stacked by agent or by model, for a period (7, 30 or 90 days, all,
// or custom dates), then the totals table. Every figure is `totalCost`'s for the same period.
// Sessions whose agent recorded no token counts (Cursor's) have an unknown cost, said in words,
// never drawn or counted as $0.

import { Link, navigate } from '../lib/router.js'
import { ErrorBox, Loading, useApi } from '../lib/parts.jsx'
import { StackedBarsFit } from '../lib/chart.jsx'
import { count, localDay, plural, usd } from '../lib/format.js'

const PERIODS = [
  ['7d', '7 d'],
  ['30d', '30 d'],
  ['90d', '90 d'],
  ['all', 'all'],
  ['custom', 'custom'],
]
const PALETTE = 12

export function CostPage({ location }) {
  const p = location.params
  const period = PERIODS.some(([k]) => k === p.get('period')) ? p.get('period') : '30d'
  const by = p.get('by') === 'model' ? 'model' : 'agent'
  const since = period === 'custom' ? (p.get('since') ?? '') : period === 'all' ? '' : period
  const until = period === 'custom' ? (p.get('until') ?? '') : ''
  const params = { since, until, by }
  const { data, error, loading } = useApi('cost', params, JSON.stringify(params))

  const href = (changes) => {
    const next = new URLSearchParams(p)
    for (const [k, v] of Object.entries(changes)) v ? next.set(k, v) : next.delete(k)
    return `/cost?${next}`
  }
  return (
    <section class="page cost-page">
      <h1>Cost</h1>
      <div class="toolbar">
        <div class="segmented" role="group" aria-label="period">
          {PERIODS.map(([key, label]) => (
            <Link key={key} href={href({ period: key })} aria-current={period === key ? 'true' : undefined}>
              {label}
            </Link>
          ))}
        </div>
        <div class="segmented" role="group" aria-label="stack by">
          {['agent', 'model'].map((key) => (
            <Link key={key} href={href({ by: key })} aria-current={by === key ? 'true' : undefined}>
              by {key}
            </Link>
          ))}
        </div>
        {period === 'custom' && <CustomDates since={since} until={until} set={(changes) => navigate(href(changes), { replace: true })} />}
      </div>
      {error && <ErrorBox error={error} />}
      {loading && !data && <Loading what="Adding up costs" />}
      {data && <Report data={data} period={period} since={since} />}
    </section>
  )
}

function CustomDates({ since, until, set }) {
  return (
    <form class="dates" onSubmit={(e) => e.preventDefault()}>
      <label>
        since <input type="date" name="since" value={since} onChange={(e) => set({ since: e.currentTarget.value })} />
      </label>
      <label>
        until <input type="date" name="until" value={until} onChange={(e) => set({ until: e.currentTarget.value })} />
      </label>
    </form>
  )
}

// Every day of the period: from its start (or the first day with spend) to today (or the last).
function dayAxis(days, period) {
  if (!days.length) return []
  const ages = { '7d': 7, '30d': 30, '90d': 90 }
  const first = ages[period] ? localDay(new Date(Date.now() - (ages[period] - 1) * 86_400_000)) : days[0]
  const last = ages[period] ? localDay(new Date()) : days[days.length - 1]
  const out = []
  const d = new Date(`${first < days[0] ? first : days[0]}T12:00:00`)
  const end = last > days[days.length - 1] ? last : days[days.length - 1]
  while (localDay(d) <= end && out.length < 5000) {
    out.push(localDay(d))
    d.setDate(d.getDate() + 1)
  }
  return out
}

function Report({ data, period }) {
  const { totals, unknown } = data
  const colorOf = colors(data)
  const series = data.series.map((s) => ({ ...s, label: s.key || '(no model)', color: colorOf(s.key) }))
  const drawn = series.filter((s) => Object.values(s.days).some((v) => v > 0))
  const rows = Object.values(totals.breakdowns ?? {})
    .filter((b) => b.sessionCount > 0)
    .sort((x, y) => y.totalUsd - x.totalUsd || x.key.localeCompare(y.key))
  const unknownAgents = Object.entries(unknown)
  const allUnknown = (b) => data.by === 'agent' && unknown[b.key] === b.sessionCount && b.totalUsd === 0
  return (
    <>
      <p class="total" role="status">
        <strong>{usd(totals.totalUsd)}</strong> over {plural(totals.sessionCount, 'session')}
      </p>
      {drawn.length ? (
        <>
          <StackedBarsFit days={dayAxis(data.days, period)} series={drawn} />
          <ul class="legend">
            {drawn.map((s) => (
              <li key={s.key}>
                <span class={`swatch ${s.color}`} /> {s.label}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p class="state">No spend recorded in this period.</p>
      )}
      {unknownAgents.length > 0 && (
        <p class="note" role="note">
          Unknown cost:{' '}
          {unknownAgents.map(([agent, n], i) => (
            <span key={agent}>
              {i > 0 && ', '}
              {plural(n, `${agent} session`)}
            </span>
          ))}{' '}
          recorded no token counts, so their cost is not known (not drawn, and not $0).
        </p>
      )}
      {totals.unpricedModels?.length > 0 && (
        <p class="note" role="note">
          No price known for {totals.unpricedModels.join(', ')}: their tokens count as $0.
        </p>
      )}
      <div class="table-wrap">
        <table class="totals">
          <thead>
            <tr>
              <th>{data.by}</th>
              <th class="num">sessions</th>
              <th class="num">input</th>
              <th class="num">output</th>
              <th class="num">thinking</th>
              <th class="num">cached</th>
              <th class="num">cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((b) => (
              <tr key={b.key} data-key={b.key} data-usd={allUnknown(b) ? undefined : b.totalUsd}>
                <th scope="row">
                  <span class={`swatch ${colorOf(b.key)}`} /> {b.key || '(no model)'}
                </th>
                <td class="num">{count(b.sessionCount)}</td>
                <td class="num">{count(b.inputTokens)}</td>
                <td class="num">{count(b.outputTokens)}</td>
                <td class="num">{count(b.thinkingTokens)}</td>
                <td class="num">{count(b.cachedTokens)}</td>
                <td class="num">{allUnknown(b) ? 'unknown' : usd(b.totalUsd)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-usd={totals.totalUsd}>
              <th scope="row">total</th>
              <td class="num">{count(totals.sessionCount)}</td>
              <td class="num">{count(totals.inputTokens)}</td>
              <td class="num">{count(totals.outputTokens)}</td>
              <td class="num">{count(totals.thinkingTokens)}</td>
              <td class="num">{count(totals.cachedTokens)}</td>
              <td class="num">{usd(totals.totalUsd)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  )
}

// A colour class for each key: agents keep their own; models take the palette in order of spend.
function colors(data) {
  if (data.by === 'agent') return (key) => `agent-${key}`
  const order = Object.values(data.totals.breakdowns ?? {})
    .sort((x, y) => y.totalUsd - x.totalUsd)
    .map((b) => b.key)
  return (key) => (key === '' ? 'c-none' : `c${order.indexOf(key) % PALETTE}`)
}
