'use strict'
// `amux recap` drawn for a person: a stand-up, project by project, the most recently active first.
// A pure function of the recap and the view (the clock, the width and the colours are in it).

const { relativeDate, usd, oneLine, homePath } = require('./format.js')

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const INDENT = '    '
/** At most this many sessions and files a project; the rest are counted. */
const SHOWN = 8

/** `s` cut to `width` characters, an ellipsis marking the cut. */
const cut = (s, width) => (s.length > width ? `${s.slice(0, Math.max(width - 1, 1))}…` : s)

/** A file's path from its project's directory where it is inside it. */
function fromProject(path, project) {
  return project && path.startsWith(`${project}/`) ? path.slice(project.length + 1) : path
}

function lines(n, paint) {
  const parts = []
  if (n.added) parts.push(paint('green', `+${n.added}`))
  if (n.removed) parts.push(paint('red', `-${n.removed}`))
  return parts.join(' ')
}

/** The stand-up text of `recap` (the API's `sessions.recap`), for a terminal `view`. */
function standUp(recap, view) {
  const { paint, width, now, tty } = view
  const out = []
  const since = `since ${recap.since.toLocaleString()} (${relativeDate(recap.since, now)})`
  if (recap.projects.length === 0) return `No session was active ${since}.\n`
  out.push(
    paint('bold', `${plural(recap.sessionCount, 'session')} in ${plural(recap.projects.length, 'project')} ${since}`) +
      (recap.totalUsd > 0 ? `, ${usd(recap.totalUsd)}` : ''),
  )
  for (const p of recap.projects) {
    out.push('')
    const where = p.project ? homePath(p.project, tty) : '(no directory recorded)'
    const head = [paint('bold', p.name || where), p.name ? paint('dim', where) : '', p.agents.join(', ')]
    if (p.totalUsd > 0) head.push(usd(p.totalUsd))
    out.push(head.filter(Boolean).join('  '))
    for (const s of p.sessions.slice(0, SHOWN)) {
      const extra = [s.agent, relativeDate(s.updatedAt, now)]
      if (s.children) extra.push(plural(s.children, 'sub-agent'))
      if (s.costUsd) extra.push(usd(s.costUsd))
      const tail = `  ${paint('dim', extra.join(', '))}`
      const title = oneLine(s.title) || paint('dim', '(untitled)')
      out.push(`  • ${cut(title, Math.max(width - 4 - tail.length, 20))}${tail}`)
    }
    if (p.sessions.length > SHOWN) out.push(paint('dim', `  … and ${plural(p.sessions.length - SHOWN, 'more session')}`))
    if (p.files.length > 0) {
      const changed = lines({ added: p.linesAdded, removed: p.linesRemoved }, paint)
      out.push(`  ${plural(p.files.length, 'file')} edited${changed ? ` (${changed})` : ''}`)
      for (const f of p.files.slice(0, SHOWN)) {
        const delta = lines(f, paint)
        const facts = [f.edits > 1 && `${f.edits} edits`, f.sessionCount > 1 && `${f.sessionCount} sessions`].filter(Boolean).join(', ')
        out.push(`${INDENT}${fromProject(f.path, p.project)}${delta ? `  ${delta}` : ''}${facts ? paint('dim', `  ${facts}`) : ''}`)
      }
      if (p.files.length > SHOWN) out.push(paint('dim', `${INDENT}… and ${plural(p.files.length - SHOWN, 'more file')}`))
    }
  }
  return `${out.join('\n')}\n`
}

/** The tab-separated rows of a recap: project, 'session', id, agent, updated, cost, title; project, 'file', path, edits, added, removed. */
function rows(recap) {
  const out = []
  for (const p of recap.projects) {
    for (const s of p.sessions) out.push([p.project, 'session', s.unifiedId, s.agent, s.updatedAt, s.costUsd, s.title])
    for (const f of p.files) out.push([p.project, 'file', f.path, f.edits, f.added, f.removed])
  }
  return out
}

module.exports = { standUp, rows }
