'use strict'
// amux keep off: amux stops keeping copies (a setting that lasts). What it kept is not deleted:
// this says how to delete it.

const { jsonOption } = require('../../lib/options.js')
const { client } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { size, homePath, plural } = require('../../lib/format.js')

module.exports = (command) =>
  command
    .description('stop keeping copies of sessions (what was kept stays until you forget it)')
    .addOption(jsonOption())
    .action(off)

async function off(o) {
  const status = await client().keep.set(false)
  if (o.json) return printJson(status)
  const v = view()
  const dir = homePath(status.dir, v.tty)
  const lines = [require('../../lib/render.js').keepStatus(status, v)]
  lines.push(
    status.sessions > 0
      ? `amux keeps no new copies. ${plural(status.sessions, 'session')} kept (${size(status.bytes)}) stay in ${dir}.\n` +
          'To delete them: `amux keep forget --before <date>` (or `amux keep forget <session>…`),\n' +
          `or remove ${dir}.`
      : `amux keeps no new copies; nothing is kept in ${dir}.`,
  )
  print(lines.join('\n'))
}
