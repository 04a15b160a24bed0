'use strict'
// amux index status: where the persistent index is, its size, and what it has yet to read.

const { jsonOption } = require('../../lib/options.js')
const { client } = require('../../lib/api.js')
const { print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const render = require('../../lib/render.js')

module.exports = (command) =>
  command
    .description('where the index is, its size, and how many sources it has yet to read')
    .addOption(jsonOption())
    .action(status)

async function status(o) {
  const result = await withProgress('checking the index', client().index.status())
  if (o.json) printJson(result)
  else print(render.indexStatus(result))
}
