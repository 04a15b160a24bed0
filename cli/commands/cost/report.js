'use strict'
// amux cost report: total cost and tokens of the matching sessions, optionally grouped.

const { calls, optionsOf, valuesOf, filtersOf, jsonOption } = require('../../lib/options.js')
const { client, ALL } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')
const { recordedNoTokens } = require('../../../human/cost.js')
const tsv = require('../../lib/tsv.js')
const { BUILT_IN_AGENTS } = require('../../../index.js')

module.exports = (command) =>
  command
    .description('total cost and tokens, optionally grouped')
    .addOptions(optionsOf(calls.totalCost))
    .addOption(jsonOption())
    .addHelpText('after', "\nPiped, each group is one line, then TOTAL: group, sessions, input, output, thinking and cached\ntokens, cost (USD), separated by tabs; notes go to stderr.\n")
    .action(report)

async function report(o) {
  const filters = filtersOf(o)
  const options = valuesOf(calls.totalCost, o)
  const api = client().sessions
  const [result, blind] = await withProgress(
    'adding up costs',
    Promise.all([api.totalCost(options), o.json ? [] : sessionsWithoutTokens(api, o.agent, { ...filters, archived: options.archived })]),
  )
  if (o.json) return printJson(result)
  const v = view()
  const notes = render.costNotes(result, o.groupBy, blind)
  if (!v.tty) {
    process.stdout.write(tsv.costReport(result, render.costGroups(result, o.groupBy)))
    for (const note of notes) process.stderr.write(`${note}\n`)
    return
  }
  print(render.costReport(result, o.groupBy, v) + render.wrappedNotes(notes, v.width))
}

// The matching sessions that recorded no token counts, for the report's note (archived ones as the
// report takes them).
async function sessionsWithoutTokens(api, agent, filters) {
  const lists = await Promise.all((agent ? [agent] : BUILT_IN_AGENTS).map((a) => api.list(a, { ...filters, limit: ALL })))
  return lists.flat().filter(recordedNoTokens)
}
