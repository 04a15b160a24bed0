'use strict'
// amux cost session: usage and cost per session, costliest first, as `ccusage session` reports
// them (same --json keys).

const { costOptions, jsonOption } = require('../../lib/options.js')
const { runReport } = require('../../lib/usage.js')

module.exports = (command) =>
  command
    .description('usage and cost per session, costliest first (sessions last active in the period, whole)')
    .addOptions(
      costOptions(
        {
          last: 'only the n sessions active last',
          limit: 'at most this many sessions, the first in --order (default: 50 on a terminal, every one piped or with --json)',
        },
        ['limit'],
      ),
    )
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPiped, each session is one line: agent:id, last activity (ISO 8601), input, output, cache\n' +
        'write, cache read and total tokens, cost (USD), models; then TOTAL (--breakdown: a line per\n' +
        'model).\n',
    )
    .action((o) => runReport('sessions', o))
