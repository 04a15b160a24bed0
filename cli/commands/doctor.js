'use strict'
// amux doctor: why an agent's sessions do or do not show up. For each agent: where it looked and
// which variable chose the place, what it found, what it passed over and why; then the index,
// retention settings (and what they will delete that amux has not kept), amux's kept copies and
// versions. Exit 0 when every store found was read, 1 when something was skipped or a kept file
// is damaged (the report is printed either way).

const { jsonOption } = require('../lib/options.js')
const { client } = require('../lib/api.js')
const { print, printJson, view } = require('../lib/output.js')
const { withProgress } = require('../lib/progress.js')
const { retentionSentence, atRisk, KEEP_HINT } = require('../../human/keep.js')
const { watchLines } = require('../lib/render.js')
const { count, duration, relativeDate, absoluteDate, size, homePath, plural } = require('../lib/format.js')

const EXIT_SKIPPED = 1

module.exports = (command) =>
  command
    .description('why sessions do or do not show up: where each agent looked, what it found and skipped')
    .addOption(jsonOption())
    .action(doctor)

async function doctor(o) {
  const api = client()
  const [report, keep] = await withProgress('examining the stores', Promise.all([api.doctor(), api.keep.status()]))
  if (o.json) printJson(report)
  else print(render(report, keep, view()))
  // A kept file that fails its checksum is passed over too: never served.
  if (report.skipped > 0 || keep.damaged?.length > 0) process.exitCode = EXIT_SKIPPED
}

/**
 * The report as sections for a person; without colour on a pipe (and under NO_COLOR). On a
 * terminal a path under HOME is written from `~`, so that most lines fit; piped, paths are whole.
 */
function render(report, keep, { paint, now, tty }) {
  const shown = (path) => homePath(path, tty)
  const out = []
  const label = (text) => paint('dim', text.padEnd(11))
  const more = ' '.repeat(11)
  for (const a of report.agents) {
    const found = a.stores > 0 ? `${plural(a.sessions, 'session')} in ${plural(a.stores, 'store')}, ${size(a.bytes)}` : 'nothing found'
    const mark = a.skipped.length > 0 ? paint('red', '✗') : a.stores > 0 ? paint('green', '✓') : paint('dim', '·')
    out.push(`${mark} ${paint('bold', a.agent)}  ${found}`)
    a.places.forEach((p, i) => {
      const by = p.chosenBy ? paint('cyan', p.chosenBy) : 'default under HOME'
      const state = p.exists ? '' : paint('dim', ' (does not exist)')
      out.push(`  ${i === 0 ? label('looked in') : more}${shown(p.path)}  ← ${by}${state}`)
    })
    if (a.versions.length > 0) {
      const seen = a.versions.map((v) => {
        const text = `${v.field} ${v.version} (${v.sources})`
        return v.newerThanKnown ? paint('red', `${text}, newer than known`) : text
      })
      out.push(`  ${label('versions')}${seen.join(', ')}  ${paint('dim', 'of the newest stores')}`)
    }
    if (a.retention) out.push(`  ${label('retention')}${retention(a.retention, paint, shown)}`)
    // What the agent's own retention will delete that amux has not kept.
    for (const r of keep.retention.filter((r) => r.agent === a.agent)) {
      const line = retentionSentence(r)
      out.push(`  ${more}${r.atRisk > 0 ? paint('yellow', line) : line}`)
    }
    for (const g of a.skipped) {
      out.push(`  ${label('skipped')}${paint('red', `${g.kind}: ${g.count}`)}`)
      for (const s of g.first) out.push(`  ${more}  ${shown(s.path)}  ${paint('dim', `— ${s.detail}`)}`)
      if (g.count > g.first.length) out.push(`  ${more}  ${paint('dim', `… and ${g.count - g.first.length} more`)}`)
    }
  }
  out.push('', ...index(report.index, { paint, now, label, more, shown }))
  out.push('', ...kept(keep, { paint, label, more, shown }))
  out.push('', `${label('versions')}node ${report.versions.node}, addon ${report.versions.addon}`)
  out.push(
    report.skipped > 0
      ? paint('red', `${plural(report.skipped, 'source')} skipped: see above`)
      : keep.damaged?.length > 0
        ? paint('red', `every store found was read, but the kept store has ${plural(keep.damaged.length, 'fault')}: see above`)
        : paint('green', 'every store found was read'),
  )
  return out.join('\n')
}

function retention(r, paint, shown) {
  const where = `${r.setting} ${r.days === null ? 'off' : `${r.days} days`}${r.default ? ' (default)' : ''}, ${shown(r.file)}`
  if (r.days === null || r.days <= 0) return `${where}: ${r.effect}`
  const older = r.olderThanLimit > 0 ? paint('yellow', `${plural(r.olderThanLimit, 'session')} here ${r.olderThanLimit === 1 ? 'is' : 'are'} older than ${r.days} days`) : `no session here is older than ${r.days} days`
  const close = r.closeAfterDays !== null ? `, ${count(r.closeToLimit)} more ${r.closeToLimit === 1 ? 'is' : 'are'} older than ${r.closeAfterDays} days` : ''
  const indent = `\n${' '.repeat(13)}`
  return `${where}${indent}${r.effect}${indent}${older}${close}`
}

function kept(keep, { paint, label, more, shown }) {
  const state = keep.on ? 'on' : 'off'
  const lines = [
    `${label('keep')}${state}${keep.origin === 'default' ? ' (the default)' : ` (the ${keep.origin})`}, ${plural(keep.sessions, 'session')} kept, ${size(keep.bytes)}, in ${shown(keep.dir)}`,
  ]
  if (keep.archived > 0) lines.push(`${more}${plural(keep.archived, 'archived session')}: the agent deleted the source, amux's copy answers`)
  if (!keep.on && atRisk(keep).length > 0) lines.push(`${more}${KEEP_HINT}`)
  const damaged = keep.damaged ?? []
  if (damaged.length > 0) lines.push(`${more}${paint('red', `${plural(damaged.length, 'fault')} in the kept store (a damaged or missing file, or archived sessions it cannot serve), never served: ${damaged.slice(0, 3).map(shown).join(', ')}${damaged.length > 3 ? ', …' : ''}`)}`)
  return lines
}

function index(ix, { paint, now, label, more, shown }) {
  if (!ix.dir) return [`${label('index')}off (cacheDir: false or AGENT_MUX_NO_CACHE=1): every call reads the stores`]
  const fresh = ix.stale === 0 ? 'up to date' : paint('yellow', `${plural(ix.stale, 'source')} to read at the next search`)
  const last =
    ix.lastUpdateMs === null
      ? 'no update recorded'
      : `${relativeDate(new Date(ix.lastUpdateMs), now)} · ${absoluteDate(new Date(ix.lastUpdateMs))}, took ${duration(ix.lastUpdateTookMs)}`
  return [
    `${label('index')}${shown(ix.dir)}`,
    `${more}${size(ix.bytes)}, ${plural(ix.sources, 'source')}, ${plural(ix.sessions, 'session')}; ${fresh}`,
    `${more}last update: ${last}`,
    ...watchLines(ix.watch).map((l, i) => `${i === 0 ? 'watch: ' : '  '}${l}`).map((l) => `${more}${l}`),
  ]
}
