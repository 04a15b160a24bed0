'use strict'
// amux cost monthly: usage and cost per local month, as `ccusage monthly` reports them (same --json keys).

const { costOptions, jsonOption } = require('../../lib/options.js')
const { runReport } = require('../../lib/usage.js')

module.exports = (command) =>
  command
    .description('usage and cost per month (each request on the month of its own time)')
    .addOptions(costOptions({ last: 'only the last n months (1: this month)' }))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each month is one line: month, input, output, cache write, cache read and total tokens,\n' +
        'cost (USD), models; then TOTAL (--breakdown: a line per model).\n',
    )
    .action((o) => runReport('monthly', o))
