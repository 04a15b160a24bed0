'use strict'
// amux sessions export <session>: one session written to stdout in an export format.

const { calls, optionsOf } = require('../../lib/options.js')
const { SPELLINGS } = require('../../../human/ids.js')
const { client, sessionsNamed } = require('../../lib/api.js')
const { print } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')

module.exports = (command) =>
  command
    .description('write one session to stdout (JSON by default)')
    .usage('[options] <agent>:<id> | <agent> <id> | <id-prefix>')
    .argument('<session...>', `the session: ${SPELLINGS}`)
    .addOptions(optionsOf(calls.export))
    .action(exportSession)

async function exportSession(words, o) {
  const [{ agent, sessionId }] = await sessionsNamed(words, 1)
  print(await withProgress(`exporting ${agent}:${sessionId}`, client().sessions.export(agent, sessionId, o.format, { redact: o.redact === true })))
}
