'use strict'
// amux cost weekly: usage and cost per local week, as `ccusage weekly` reports them (same --json keys).

const { costOptions, jsonOption } = require('../../lib/options.js')
const { runReport } = require('../../lib/usage.js')

module.exports = (command) =>
  command
    .description('usage and cost per week (each request on the week of its own time)')
    .addOptions(costOptions({ last: 'only the last n weeks (1: this week)' }, ['startOfWeek']))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each week is one line: its first day, input, output, cache write, cache read and total tokens,\n' +
        'cost (USD), models; then TOTAL (--breakdown: a line per model).\n',
    )
    .action((o) => runReport('weekly', o))
