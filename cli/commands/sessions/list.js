'use strict'
// amux sessions list [agent]: an agent's sessions, or every agent's, newest first.

const { calls, defaultOf, optionsOf, argumentOf, valuesOf, filtersOf, wideOption, jsonOption } = require('../../lib/options.js')
const { client, upTo, shortIds } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const { BUILT_IN_AGENTS } = require('../../../index.js')

// The API's default limit (session-manager spec), which the terminal's count line needs to know.
const LIMIT = defaultOf(calls.list, 'limit')

module.exports = (command) =>
  command
    .description("list an agent's sessions, or every agent's, newest first")
    .argument('[agent]', `one of: ${BUILT_IN_AGENTS.join(', ')} (every agent when none is given)`)
    .addOptions(optionsOf(calls.list))
    .addOption(wideOption())
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each session is one line: id, updated (ISO 8601), turns, model, cost (USD), title,\n' +
        'separated by tabs; without an agent the id is agent:id. A session amux kept whose source\n' +
        'the agent deleted is marked [archived] on a terminal and archived: true with --json; piped,\n' +
        'the columns stay as they are: --archived only (or exclude) selects them.\n',
    )
    .action(list)

async function list(agent, o) {
  argumentOf(calls.list, 'agent')(agent)
  const filters = filtersOf(o)
  const options = valuesOf(calls.list, o)
  // One agent's list or every agent's: the same options, the same order.
  const { sessions, tsv } = client()
  const listed = agent ? (opts) => sessions.list(agent, opts) : (opts) => sessions.listAll(opts)
  const label = agent ? `reading ${agent} sessions` : 'reading sessions'
  const v = view(o)
  // Piped, the lines come written from the native side: no objects for thousands of sessions.
  if (!v.tty && !o.json) return process.stdout.write(await withProgress(label, agent ? tsv.list(agent, options) : tsv.listAll(options)))
  if (o.json) return printJson(await withProgress(label, listed(options)))
  const { sessions: result, more } = await upTo(o.limit ?? LIMIT, (limit) => withProgress(label, listed({ ...options, limit })))
  // Unfiltered and nothing left out, the list holds every id there is: no second listing.
  const everyKind = (options.archived ?? 'include') === 'include'
  const complete = Object.keys(filters).length === 0 && everyKind && !more
  const universe = complete ? idsByAgent(agent ? [agent] : BUILT_IN_AGENTS, result) : undefined
  const short = v.wide ? result.map((s) => s.sessionId) : await shortIds(result, universe)
  // Every agent's sessions show their agent, so that an id pastes into show as it is.
  const shown = agent ? short : short.map((id, i) => `${result[i].agent}:${id}`)
  // Only a terminal draws a table.
  print(require('../../lib/render.js').sessionList(agent, result, v, shown, more))
}

/** agent → the ids of its sessions in `sessions`, for each of `agents`. */
function idsByAgent(agents, sessions) {
  return new Map(agents.map((agent) => [agent, sessions.filter((s) => s.agent === agent).map((s) => s.sessionId)]))
}
