'use strict'
// amux keep on: amux keeps its own copy of every session it reads, in its data directory, so a
// session the agent deletes (Claude Code's cleanupPeriodDays, a pruned store) still answers. The
// setting lasts (amux's config directory); this first copy is taken at once.

const { jsonOption } = require('../../lib/options.js')
const { client, ALL } = require('../../lib/api.js')
const { view, print, printJson } = require('../../lib/output.js')
const { withProgress } = require('../../lib/progress.js')
const { size, homePath, plural } = require('../../lib/format.js')

module.exports = (command) =>
  command
    .description('keep a copy of every session amux reads, so that it outlives the agent deleting it (a setting that lasts)')
    .addOption(jsonOption())
    .action(on)

async function on(o) {
  const api = client()
  await api.keep.set(true)
  // Every call that reads the stores keeps what changed; a first listing of every session takes
  // the copies now, before an agent's next clean-up (as text: no objects are needed).
  await withProgress('keeping every session', api.tsv.listAll({ limit: ALL }), { delayMs: 0 })
  const status = await api.keep.status()
  if (o.json) return printJson(status)
  const v = view()
  const dir = homePath(status.dir, v.tty)
  print(
    `${require('../../lib/render.js').keepStatus(status, v)}\n` +
      `From now on every call that reads the agents' sessions keeps what changed, in ${dir}.\n` +
      'zstd-compressed: a session that grows costs only what it added, identical content is stored once\n' +
      `(now ${size(status.bytes)} for ${plural(status.sessions, 'session')}).\n` +
      'A session whose source an agent deletes still answers everywhere, marked archived.\n' +
      '`amux keep off` stops keeping.',
  )
}
