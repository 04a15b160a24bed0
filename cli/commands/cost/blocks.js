'use strict'
// amux cost blocks: the 5-hour billing blocks (Claude Code's), as `ccusage blocks` finds them
// (same --json keys), with the active block's burn rate, projection and time left.

const { calls, optionsOf, valuesOf, jsonOption } = require('../../lib/options.js')
const { client } = require('../../lib/api.js')
const { view, print } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')

module.exports = (command) =>
  command
    .description("Claude Code's 5-hour billing blocks, the active one with its burn rate and projection")
    .addOptions(optionsOf(calls.blocks))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each block is one line: id, start, end, last request (ISO 8601), active or gap, requests,\n' +
        'tokens, cost (USD), models.\n',
    )
    .action(blocks)

async function blocks(o) {
  const { breakdown, ...options } = valuesOf(calls.blocks, o)
  const label = 'finding billing blocks'
  // The clock the API judged the active block by (AGENT_MUX_NOW pins it, as for search).
  const pinned = Date.parse(process.env.AGENT_MUX_NOW ?? '')
  const v = { ...view(), ...(Number.isNaN(pinned) ? {} : { now: pinned }) }
  if (o.json) return print(await withProgress(label, client().json.blocksBuffer(options)))
  if (!v.tty) return process.stdout.write(await withProgress(label, client().tsv.blocks(options)))
  const result = await withProgress(label, client().cost.blocks(options))
  print(require('../../lib/render-usage.js').blocksReport(result, v, { timeZone: o.timezone, breakdown }))
}
