'use strict'
// amux index update: what is new or changed in the agents' stores written into the index now
// (a search reads it itself meanwhile; the other commands start this in the background).

const { Option } = require('../../lib/cli.js')
const { jsonOption } = require('../../lib/options.js')
const { client } = require('../../lib/api.js')
const { print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')

module.exports = (command) =>
  command
    .description("write what is new or changed in the agents' sessions into the index")
    .addOption(jsonOption())
    .addOption(new Option('--if-idle', 'only if no other process is writing the index (else leave it to that one)'))
    .addOption(new Option('--quiet', 'print nothing'))
    .action(update)

async function update(o) {
  const result = await withProgress('updating the index', client().index.update({ ifIdle: o.ifIdle === true }))
  if (o.quiet) return
  if (o.json) printJson(result)
  else print(render.indexStatus(result))
}
