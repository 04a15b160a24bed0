'use strict'
// What `amux cost daily|weekly|monthly|session` share: the API's options from the command line,
// one call, and the result as JSON (ccusage's keys), tab-separated lines, or a table.

const { calls, valuesOf } = require('./options.js')
const { client, upTo } = require('./api.js')
const { view, print } = require('./output.js')
const { withProgress } = require('./progress.js')
const ids = require('../../human/ids.js')

/** `kind`: 'daily', 'weekly', 'monthly' or 'sessions', as the API and ccusage name the report. */
async function runReport(kind, o) {
  // --limit and --breakdown shape what is printed: the report's lines and JSON take them, not its figures.
  const { limit, breakdown, ...options } = valuesOf(calls.costReport, o)
  const v = view()
  // Piped, the lines come written from the native side: no objects for thousands of sessions.
  if (!v.tty && !o.json) {
    const lines = client().tsv.cost(kind, { ...options, limit, breakdown })
    return process.stdout.write(await withProgress('adding up costs', lines))
  }
  const report = (opts) => withProgress('adding up costs', client().cost[kind](opts))
  if (o.json) return print(await withProgress('adding up costs', client().json.costBuffer(kind, { ...options, limit })))
  const render = require('./render-usage.js')
  if (kind !== 'sessions') return print(render.periodReport(kind, await report(options), v, o))
  // A terminal shows the first sessions (the costliest unless told), and says when there are more.
  let full
  const { sessions, more } = await upTo(o.limit ?? SESSIONS_SHOWN, async (limit) => {
    full = await report({ ...options, limit })
    return full.sessions
  })
  const shown = { ...full, sessions }
  print(render.sessionReport(shown, v, shortIds(sessions), { ...o, more }))
}

// Sessions a terminal shows unless --limit says otherwise (piped or --json: every one).
const SESSIONS_SHOWN = 50

// agent:id with each id as short as it can be while unique among the report's sessions.
function shortIds(sessions) {
  const byAgent = new Map()
  for (const s of sessions) byAgent.set(s.agent, [...(byAgent.get(s.agent) ?? []), s.sessionId])
  const short = new Map()
  for (const [agent, own] of byAgent) ids.shortIds(own, own).forEach((id, i) => short.set(`${agent}:${own[i]}`, `${agent}:${id}`))
  return sessions.map((s) => short.get(s.unifiedId))
}

module.exports = { runReport }
