'use strict'
// amux cost daily: usage and cost per local day, as `ccusage daily` reports them (same --json keys).

const { costOptions, jsonOption } = require('../../lib/options.js')
const { runReport } = require('../../lib/usage.js')

module.exports = (command) =>
  command
    .description('usage and cost per day (each request on the day of its own time)')
    .addOptions(costOptions({ last: 'only the last n days (1: this day)' }))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each day is one line: day, input, output, cache write, cache read and total tokens,\n' +
        'cost (USD), models; then TOTAL (--breakdown: a line per model).\n',
    )
    .action((o) => runReport('daily', o))
