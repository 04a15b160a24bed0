'use strict'
// amux index rebuild: the index deleted and built again from every agent's sessions.

const { jsonOption } = require('../../lib/options.js')
const { client } = require('../../lib/api.js')
const { print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')

module.exports = (command) =>
  command
    .description("delete the index and build it again from every agent's sessions")
    .addOption(jsonOption())
    .action(rebuild)

async function rebuild(o) {
  // A rebuild always takes a while: the bar shows from the start.
  const result = await withProgress('building the index', client().index.rebuild(), { delayMs: 0 })
  if (o.json) printJson(result)
  else print(render.indexStatus(result))
}
