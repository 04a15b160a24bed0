'use strict'
// amux sync <url>: this machine's sessions pushed into a team database (PostgreSQL), for the
// team's dashboards and for `amux --db <url>`. Incremental: run it from cron as often as wanted.
// The URL's password (or PGPASSWORD's, or .pgpass's) is never printed, not even in errors.

const { Option } = require('../lib/cli.js')
const { calls, optionsOf, valuesOf, jsonOption } = require('../lib/options.js')
const { client } = require('../lib/api.js')
const { print, printJson } = require('../lib/output.js')
const { withProgress } = require('../lib/progress.js')

module.exports = (command) =>
  command
    .description("push this machine's sessions into a team database (PostgreSQL): summaries, messages (redacted), usage and cost")
    .argument('<url>', 'the database: postgres://user@host:port/db?sslmode=verify-full (what it leaves out: PG* variables, ~/.pgpass)')
    .addOptions(optionsOf(calls.sync))
    .addOption(new Option('--no-redact', 'push the text as it is, secrets included (default: redacted)'))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nOnly what changed since the last sync is written; each session in one transaction, so an\n' +
        'interrupted sync leaves nothing half-written and the next one finishes it. The schema is\n' +
        'created or upgraded on the way. Tables and roles: docs/team.md.\n',
    )
    .action(sync)

async function sync(url, o) {
  const options = valuesOf(calls.sync, o)
  if (o.noRedact) options.redact = false
  const result = await withProgress('syncing', client().sync(url, options))
  if (o.json) return printJson(result)
  const parts = [
    `${result.sessions} sessions written (${result.appended} appended to)`,
    `${result.unchanged} unchanged`,
    `${result.messages} messages`,
    `${result.usage} usage rows`,
  ]
  if (result.skipped) parts.push(`${result.skipped} unreadable here`)
  if (result.gone) parts.push(`${result.gone} gone from here${options.prune ? ' (removed)' : ''}`)
  const schema = result.schemaFrom === result.schemaTo ? '' : `, schema v${result.schemaFrom} → v${result.schemaTo}`
  print(`${parts.join(', ')} in ${(result.ms / 1000).toFixed(1)}s${schema}`)
}
