'use strict'
// amux cost weekly: usage and cost per local week, as `ccusage weekly` reports them (same --json keys).

const { Option } = require('../../lib/cli.js')
const { usageOptions, agentOption, jsonOption, startOfWeekOption } = require('../../lib/options.js')
const args = require('../../lib/args.js')
const { runReport } = require('../../lib/usage.js')

module.exports = (command) =>
  command
    .description('usage and cost per week (each request on the week of its own time)')
    .addOption(agentOption('only this agent (default: every agent)'))
    .addOptions(usageOptions())
    .addOption(startOfWeekOption())
    .addOption(new Option('--model <id>', 'only this model\'s usage'))
    .addOption(new Option('--last <n>', 'only the last n weeks (1: this week)').argParser(args.positive))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each week is one line: its first day, input, output, cache write, cache read and total tokens,\n' +
        'cost (USD), models; then TOTAL (--breakdown: a line per model).\n',
    )
    .action((o) => runReport('weekly', o))
