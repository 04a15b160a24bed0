'use strict'
// amux sessions show <session>: one session, rendered for reading on a terminal (through a pager
// when long), else its Markdown export.

const { calls, optionsOf } = require('../../lib/options.js')
const { SPELLINGS } = require('../../../human/ids.js')
const { client, sessionsNamed } = require('../../lib/api.js')
const { view, print } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')

module.exports = (command) =>
  command
    .description('print one session: on a terminal rendered for reading (through a pager when long), else the Markdown export')
    .usage('[options] <agent>:<id> | <agent> <id> | <id-prefix>')
    .argument('<session...>', `the session: ${SPELLINGS}`)
    // No default: without --format a terminal gets the session rendered for reading.
    .addOptions(optionsOf(calls.export, { help: { format: 'print this export format exactly, even on a terminal' } }).map((o) => o.default(undefined, undefined)))
    .action(show)

async function show(words, o) {
  const api = client().sessions
  const [{ agent, sessionId }] = await sessionsNamed(words, 1)
  const label = `reading ${agent}:${sessionId}`
  const v = view()
  if (o.format || !v.tty) return print(await withProgress(label, api.export(agent, sessionId, o.format ?? 'markdown')))
  // Only a terminal needs the transcript's renderer and the pager.
  const { renderSession, rowsTaken } = require('../../lib/transcript.js')
  const { visibleWidth } = require('../../lib/format.js')
  const text = renderSession(await withProgress(label, api.get(agent, sessionId)), v)
  await require('../../lib/pager.js').page(text, { rows: v.height, rowsTaken: rowsTaken(text, v.width, visibleWidth) })
}
