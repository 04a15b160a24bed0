'use strict'
// cost_report: what the sessions cost, from the library's totalCost, grouped, with the notes the
// CLI prints where a figure means "unknown" rather than "free".

const { ALL } = require('../../human/ids.js')
const { recordedNoTokens, usd, count, costGroups, costNotes } = require('../../human/cost.js')
const { z, toolInput, filtersOf } = require('../schemas.js')
const { calls } = require('../../params/index.js')

const description = `What past coding-agent sessions cost (USD) and how many tokens they used, grouped by agent, model or day (local calendar day of the session's start), or, from a team database, by machine or user. Prices are the agents' own where recorded, else list prices. Notes say where $0 means unknown: agents that record no token counts, models with no known price.`

const { params, input } = toolInput(calls.totalCost)

const figures = {
  totalUsd: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  thinkingTokens: z.number(),
  cachedTokens: z.number(),
  sessionCount: z.number(),
}

const output = z.object({
  groupBy: z.enum(['agent', 'model', 'day', 'machine', 'user']),
  total: z.object(figures),
  groups: z.array(z.object({ key: z.string().describe("'' = no model recorded"), ...figures })),
  notes: z.array(z.string()),
})

// The sessions matching the filters that recorded no token counts: their $0 is unknown. Archived
// ones as the report takes them.
async function withoutTokens(api, { agent, archived, ...rest }) {
  const options = { ...filtersOf(rest), ...(archived ? { archived } : {}), limit: ALL }
  const sessions = await (agent ? api.list(agent, options) : api.listAll(options))
  return sessions.filter(recordedNoTokens)
}

const pick = (c) => ({
  totalUsd: c.totalUsd,
  inputTokens: c.inputTokens,
  outputTokens: c.outputTokens,
  thinkingTokens: c.thinkingTokens,
  cachedTokens: c.cachedTokens,
  sessionCount: c.sessionCount,
})

async function run(args, { client }) {
  const api = client.sessions
  const [summary, blind] = await Promise.all([api.totalCost(args), withoutTokens(api, args)])
  const groups = costGroups(summary, args.groupBy).map((g) => ({ key: g.key, ...pick(g) }))
  const notes = costNotes(summary, args.groupBy, blind)
  const structured = { groupBy: args.groupBy, total: pick(summary), groups, notes }
  return { text: text(structured), structured }
}

function line(label, c) {
  const tokens = `${count(c.inputTokens)} in, ${count(c.outputTokens)} out, ${count(c.thinkingTokens)} thinking, ${count(c.cachedTokens)} cached`
  return `${label}: ${usd(c.totalUsd)} · ${count(c.sessionCount)} session${c.sessionCount === 1 ? '' : 's'} · tokens ${tokens}`
}

function text({ groupBy, total, groups, notes }) {
  const label = (key) => (key === '' ? (groupBy === 'model' ? '(no model)' : '(none)') : key)
  return [line('total', total), ...(groups.length ? [`by ${groupBy}:`] : []), ...groups.map((g) => `- ${line(label(g.key), g)}`), ...notes].join('\n')
}

module.exports = { name: 'cost_report', title: 'Cost of past sessions', description, params, input, output, run }
