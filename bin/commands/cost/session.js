'use strict'
// amux cost session: usage and cost per session, costliest first, as `ccusage session` reports
// them (same --json keys).

const { Option } = require('../../lib/cli.js')
const { usageOptions, agentOption, jsonOption } = require('../../lib/options.js')
const args = require('../../lib/args.js')
const { runReport } = require('../../lib/usage.js')

module.exports = (command) =>
  command
    .description('usage and cost per session, costliest first (sessions last active in the period, whole)')
    .addOption(agentOption('only this agent (default: every agent)'))
    .addOptions(usageOptions())
    .addOption(new Option('--model <id>', "only this model's usage"))
    .addOption(new Option('--last <n>', 'only the n sessions active last').argParser(args.positive))
    .addOption(new Option('--limit <n>', 'at most this many sessions, the first in --order (default: 50 on a terminal, every one piped or with --json)').argParser(args.positive))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each session is one line: agent:id, last activity (ISO 8601), input, output, cache\n' +
        'write, cache read and total tokens, cost (USD), models; then TOTAL (--breakdown: a line per\n' +
        'model).\n',
    )
    .action((o) => runReport('sessions', o))
