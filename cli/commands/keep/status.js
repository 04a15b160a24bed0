'use strict'
// amux keep status: whether amux keeps its own copy of every session and why (the client's option,
// the setting, the default), where the copies are, how many and how large, and per agent what its
// own retention will delete that is not kept.

const { calls, optionsOf, valuesOf, jsonOption } = require('../../lib/options.js')
const { client } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')

module.exports = (command) =>
  command
    .description('whether amux keeps a copy of every session, where, how much, and what the agents will delete that is not kept')
    .addOptions(optionsOf(calls.keepStatus))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each fact is one line, its name then its value, separated by tabs: on, origin, dir,\n' +
        'settingFile, sessions, archived, bytes, and a line per agent whose retention deletes sessions:\n' +
        'retention, the agent, its days, the sessions not kept that it will delete; and a line per\n' +
        'fault found in the kept store (never served): damaged, then the file and why, or the\n' +
        'archived sessions it cannot serve.\n' +
        'Without --verify, the chunks of what is not archived are checked only to be there.\n',
    )
    .action(status)

async function status(o) {
  const api = client()
  const result = await withProgress('checking the kept sessions', api.keep.status(valuesOf(calls.keepStatus, o)))
  if (o.json) return printJson(result)
  const v = view()
  const render = require('../../lib/render.js')
  if (!v.tty) return process.stdout.write(api.tsv.rows(render.keepStatusRows(result)))
  print(render.keepStatus(result, v))
}
