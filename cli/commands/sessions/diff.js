'use strict'
// amux sessions diff <a> <b>: two sessions, of the same agent or not, compared message by message.

const { jsonOption } = require('../../lib/options.js')
const { SPELLINGS } = require('../../../human/ids.js')
const { client, sessionsNamed } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')
const tsv = require('../../lib/tsv.js')

module.exports = (command) =>
  command
    .description('compare two sessions message by message (same or different agents)')
    .usage('[options] <session-a> <session-b>')
    .argument('<sessions...>', `the two sessions, each as ${SPELLINGS}`)
    .addOption(jsonOption())
    .addHelpText('after', "\nPiped, each message is one line: type (addition, removal, modification, unchanged), index in A,\nindex in B, role, A's text, B's text, separated by tabs.\n")
    .action(diff)

async function diff(words, o) {
  const [a, b] = await sessionsNamed(words, 2)
  const result = await withProgress('comparing sessions', client().sessions.diff(a, b))
  if (o.json) return printJson(result)
  const v = view()
  if (!v.tty) return process.stdout.write(tsv.sessionDiff(result, render.gist))
  print(render.sessionDiff(result, v))
}
