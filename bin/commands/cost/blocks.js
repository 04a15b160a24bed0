'use strict'
// amux cost blocks: Claude Code's 5-hour billing blocks, as `ccusage blocks` finds them (same
// --json keys), with the active block's burn rate, projection and time left.

const { Option } = require('../../lib/cli.js')
const { usageOptions, usageOf, defined, jsonOption } = require('../../lib/options.js')
const args = require('../../lib/args.js')
const { client } = require('../../lib/api.js')
const { view, print } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')

module.exports = (command) =>
  command
    .description("Claude Code's 5-hour billing blocks, the active one with its burn rate and projection")
    .addOptions(usageOptions())
    .addOption(new Option('--active', 'only the active block'))
    .addOption(new Option('--recent', 'only the blocks of the last three days, and the active one'))
    .addOption(new Option('--session-length <hours>', 'the length of a block in hours').argParser(args.hours).default(undefined, '5'))
    .addOption(new Option('--token-limit <n>', "tokens a block may use, for the active block's status ('max': the most a past block used)").argParser(tokenLimit))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each block is one line: id, start, end, last request (ISO 8601), active or gap, requests,\n' +
        'tokens, cost (USD), models.\n',
    )
    .action(blocks)

function tokenLimit(value) {
  return value === 'max' ? 'max' : args.positive(value)
}

async function blocks(o) {
  const options = defined({
    ...usageOf(o),
    active: o.active,
    recent: o.recent,
    sessionLength: o.sessionLength,
    tokenLimit: o.tokenLimit,
  })
  const label = 'finding billing blocks'
  // The clock the API judged the active block by (AGENT_MUX_NOW pins it, as for search).
  const pinned = Date.parse(process.env.AGENT_MUX_NOW ?? '')
  const v = { ...view(), ...(Number.isNaN(pinned) ? {} : { now: pinned }) }
  if (o.json) return print(await withProgress(label, client().json.blocksBuffer(options)))
  if (!v.tty) return process.stdout.write(await withProgress(label, client().tsv.blocks(options)))
  const result = await withProgress(label, client().cost.blocks(options))
  print(require('../../lib/render-usage.js').blocksReport(result, v, { timeZone: o.timezone, breakdown: o.breakdown }))
}
