'use strict'
// amux recap: what the agents did since yesterday (or --since), per project: the sessions, the
// files edited with the lines changed, the cost. A stand-up on a terminal; --json the same data.

const { calls, optionsOf, valuesOf, jsonOption } = require('../lib/options.js')
const { client } = require('../lib/api.js')
const { view, print, printJson } = require('../lib/output.js')
const { withProgress } = require('../lib/progress.js')
const { standUp, rows } = require('../lib/recap.js')
const { readDate } = require('../../human/dates.js')

module.exports = (command) =>
  command
    .description('what the agents did since yesterday, per project: sessions, files edited, cost')
    .addOptions(optionsOf(calls.recap))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, one line per session (project, session, id, agent, updated, cost, title) and per file\n' +
        'edited (project, file, path, edits, lines added, lines removed), separated by tabs.\n',
    )
    .action(recap)

async function recap(o) {
  // A stand-up looks back to the start of yesterday unless told.
  const options = { since: readDate('yesterday'), ...valuesOf(calls.recap, o) }
  const api = client()
  const result = await withProgress('reading sessions', api.sessions.recap(options))
  if (o.json) return printJson(result)
  const v = view()
  if (!v.tty) return process.stdout.write(api.tsv.rows(rows(result)))
  print(standUp(result, v))
}
