'use strict'
// amux cost daily: usage and cost per local day, as `ccusage daily` reports them (same --json keys).

const { Option } = require('../../lib/cli.js')
const { usageOptions, agentOption, jsonOption } = require('../../lib/options.js')
const args = require('../../lib/args.js')
const { runReport } = require('../../lib/usage.js')


module.exports = (command) =>
  command
    .description('usage and cost per day (each request on the day of its own time)')
    .addOption(agentOption('only this agent (default: every agent)'))
    .addOptions(usageOptions())
    .addOption(new Option('--model <id>', 'only this model\'s usage'))
    .addOption(new Option('--last <n>', 'only the last n days (1: this day)').argParser(args.positive))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each day is one line: day, input, output, cache write, cache read and total tokens,\n' +
        'cost (USD), models; then TOTAL (--breakdown: a line per model).\n',
    )
    .action((o) => runReport('daily', o))
