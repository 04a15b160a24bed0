'use strict'
// amux sessions list <agent>: an agent's sessions, newest first.

const { Option } = require('../../lib/cli.js')
const { filterOptions, filtersOf, defined, limitOption, wideOption, jsonOption } = require('../../lib/options.js')
const { client, knownAgent, upTo, shortIds } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const { BUILT_IN_AGENTS } = require('../../../index.js')

// The API's default limit (session-manager spec), which the terminal's count line needs to know.
const LIMIT = 100

module.exports = (command) =>
  command
    .description("list an agent's sessions, newest first")
    .argument('<agent>', `one of: ${BUILT_IN_AGENTS.join(', ')}`)
    .addOptions(filterOptions())
    .addOption(limitOption(LIMIT))
    .addOption(new Option('--sort <field>', 'order by').choices(['date', 'cost', 'turns']).default(undefined, 'date'))
    .addOption(wideOption())
    .addOption(jsonOption())
    .addHelpText('after', '\nPiped, each session is one line: id, updated (ISO 8601), turns, model, cost (USD), title,\nseparated by tabs.\n')
    .action(list)

async function list(agent, o) {
  knownAgent(agent)
  const filters = filtersOf(o)
  const options = defined({ ...filters, limit: o.limit, sort: o.sort })
  const label = `reading ${agent} sessions`
  const v = view(o)
  // Piped, the lines come written from the native side: no objects for thousands of sessions.
  if (!v.tty && !o.json) return process.stdout.write(await withProgress(label, client().tsv.list(agent, options)))
  const api = client().sessions
  if (o.json) return printJson(await withProgress(label, api.list(agent, options)))
  const listed = (limit) => withProgress(label, api.list(agent, { ...options, limit }))
  const { sessions: result, more } = await upTo(o.limit ?? LIMIT, listed)
  // Unfiltered and nothing left out, the list holds every id there is: no second listing.
  const complete = Object.keys(filters).length === 0 && !more
  const universe = complete ? new Map([[agent, result.map((s) => s.sessionId)]]) : undefined
  const shown = v.wide ? undefined : await shortIds(result, universe)
  // Only a terminal draws a table.
  print(require('../../lib/render.js').sessionList(agent, result, v, shown, more))
}
