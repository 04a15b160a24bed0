// The share file: one session as a self-contained HTML document, its markdown and code drawn by
// the page's own renderer (markdown.js, code.js), whole and with no script: thinking, tool calls
// and tool results folded in <details>. It loads nothing and points nowhere else: a
// Content-Security-Policy in a <meta> allows only its one <style> (by hash), web addresses are
// written out as text, and the only links are anchors within the file and the share files of
// related sessions beside it. Its markup is terse (short class names, uncoloured tokens left
// unwrapped) so that a file stays within twice the size of the session's markdown export.

import { createHash } from 'node:crypto'
import { markdownTree, el } from './markdown.js'
import { codeTree } from './highlight.js'
import { writeNodes, escapeText, escapeAttribute } from './html.js'
import { bytes, costUnknown, plural, sessionCost, tokenLine, usd } from './format.js'
import css from './share.css'

// The agents' colours of the page's badges (ui/page/style.css).
const AGENT_COLOURS = {
  claude: '#d97757',
  codex: '#10a37f',
  gemini: '#4285f4',
  copilot: '#8957e5',
  cursor: '#6b7280',
  opencode: '#e3a008',
  pi: '#0ea5b7',
  omp: '#db2777',
  openclaw: '#dc2626',
  hermes: '#65a30d',
}

// highlight.js's classes that the page colours, and the short class of each colour in share.css.
const TOKEN_CLASSES = {
  keyword: 'k', 'selector-tag': 'k', built_in: 'k', name: 'k',
  string: 's', 'attr-value': 's', regexp: 's', addition: 's',
  number: 'n', literal: 'n', symbol: 'n',
  comment: 'c', quote: 'c',
  title: 't', section: 't',
  attr: 'v', attribute: 'v', property: 'v', variable: 'v', 'template-variable': 'v',
  type: 'y', meta: 'y',
  deletion: 'r',
}

/** The style of a session's file (the agent's colour set) and the CSP that allows it alone. */
function styleOf(agent) {
  const style = `${css}:root{--g:${AGENT_COLOURS[agent] ?? '#6b7280'}}`
  return { style, csp: `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; base-uri 'none'; form-action 'none'` }
}

/** The file a session's share file is written to by default: `<agent>-<id>.html`, safe as a name. */
export const shareFileName = (agent, sessionId) => `${agent}-${sessionId}.html`.replace(/[^A-Za-z0-9._-]/g, '_')

// The page's nodes in the share file's terms: a highlighted token as <i> with its colour's short
// class, or its bare text when the page gives it no colour; code without highlight.js's classes.
function terse(nodes) {
  return nodes.flatMap((node) => {
    if (typeof node === 'string') return [node]
    const cls = node.props.class ?? ''
    if (node.tag === 'span' && cls.startsWith('hljs-')) {
      const colour = TOKEN_CLASSES[cls.slice(5).split(' ')[0]]
      return colour ? [el('i', { class: colour }, terse(node.children))] : terse(node.children)
    }
    if (node.tag === 'code' && cls.startsWith('hljs')) return [el('code', null, terse(node.children))]
    if (node.tag === 'pre' && cls.startsWith('code')) return [el('pre', null, terse(node.children))]
    return [{ ...node, children: terse(node.children) }]
  })
}

const asText = (value) => {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

// A call's gist for its folded line: its input's first text value (a command, a path, a query).
function preview(input) {
  let value = input
  if (value && typeof value === 'object') value = Object.values(value).find((v) => typeof v === 'string') ?? ''
  const line = asText(value).replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}

// Times in UTC, said so: the file is read wherever it is sent.
const iso = (date) => new Date(date).toISOString()
const dateTime = (date) => `${iso(date).slice(0, 16).replace('T', ' ')} UTC`

const fact = (name, children) => [el('dt', null, [name]), el('dd', null, children)]

function related(agent, { sessionId, unifiedId, title }) {
  return el('a', { href: shareFileName(agent, sessionId), title: unifiedId }, [title || unifiedId])
}

function header(session, lineage) {
  const cost = session.cost
  const facts = [...fact('session', [el('span', { class: 'g' }, [session.agent]), ' ', el('code', null, [session.unifiedId])])]
  if (session.cwd) facts.push(...fact('cwd', [el('code', null, [session.cwd])]))
  facts.push(...fact('time', [`${dateTime(session.createdAt)} → ${dateTime(session.updatedAt)}`]))
  if (session.model) facts.push(...fact('model', [session.model]))
  if (session.gitBranch) facts.push(...fact('branch', [el('code', null, [session.gitBranch])]))
  const messageCount = session.messageCount ?? session.messages.length
  facts.push(...fact('size', [`${plural(session.turnCount, 'turn')}, ${plural(messageCount, 'message')}`]))
  facts.push(...fact('cost', [sessionCost(cost), costUnknown(cost) ? ' · this agent recorded no token counts' : ` · ${tokenLine(cost)}`]))
  if (session.tags?.length) facts.push(...fact('tags', [session.tags.join(', ')]))
  if (session.forkedFrom) {
    const parent = lineage?.forkedFrom ?? { sessionId: session.forkedFrom, unifiedId: `${session.agent}:${session.forkedFrom}` }
    facts.push(...fact('forked from', [related(session.agent, parent)]))
  }
  if (lineage?.continuedIn?.length) {
    const links = lineage.continuedIn.flatMap((s, i) => (i ? [', ', related(session.agent, s)] : [related(session.agent, s)]))
    facts.push(...fact('continued in', links))
  }
  return [el('h1', null, [session.title || '(untitled)']), el('dl', null, facts)]
}

const markdown = (text) => terse(markdownTree(text, { links: false }))
const output = (text) => el('pre', { class: 'o' }, [text])
const fold = (kind, summary, children) => el('details', { class: kind }, [el('summary', null, summary), ...children])

function toolCall(call, resultAt) {
  const input = asText(call.input)
  const summary = [el('b', null, [call.toolName])]
  const gist = preview(call.input)
  if (gist) summary.push(` ${gist}`)
  if (call.durationMs !== undefined) summary.push(` · ${(call.durationMs / 1000).toFixed(1)} s`)
  const body = terse([codeTree(input, /^[[{]/.test(input) ? 'json' : undefined)])
  if (resultAt !== undefined) body.push(el('a', { href: `#m${resultAt}` }, [`result: message ${resultAt}`]))
  else if (call.output !== undefined) body.push(output(asText(call.output)))
  return fold('call', summary, body)
}

// A message's time of day, with its date when the day is not the previous message's.
function stamp(date, previous) {
  const at = iso(date)
  return at.slice(0, 10) === previous.day ? at.slice(11, 19) : `${(previous.day = at.slice(0, 10))} ${at.slice(11, 19)}`
}

function message(m, index, resultAt, previous) {
  const head = [el('b', null, [m.subagent !== undefined ? `${m.role} · subagent ${m.subagent}` : m.role])]
  if (m.timestamp) head.push(el('span', null, [stamp(m.timestamp, previous)]))
  if (m.model) head.push(el('span', null, [m.model]))
  if (m.tokenUsage) head.push(el('span', null, [tokenLine(m.tokenUsage)]))
  if (m.cost && !costUnknown(m.cost)) head.push(el('span', null, [usd(m.cost.totalUsd)]))
  const children = [el('div', { class: 'h' }, head)]
  if (m.thinking) children.push(fold('thinking', ['thinking'], markdown(m.thinking)))
  const text = m.content ?? ''
  if (m.role === 'tool') {
    const out = m.toolResult ? asText(m.toolResult.output) || text : text
    children.push(fold('result', [el('b', null, [m.toolResult?.toolName ?? 'tool']), ` result · ${bytes(out.length)}`], [output(out)]))
  } else if (m.role === 'system') {
    if (text) children.push(fold('system', [`system · ${bytes(text.length)}`], [output(text)]))
  } else if (text) {
    children.push(...markdown(text))
  }
  for (const call of m.toolCalls ?? []) {
    const at = resultAt.get(call.toolCallId)
    children.push(toolCall(call, at !== undefined && at !== index ? at : undefined))
  }
  return el('li', { class: m.role, id: `m${index}` }, children)
}

/**
 * The share file of `session` (as `sessions.get` returns it, already redacted or not), with its
 * `lineage` ({ forkedFrom, continuedIn }, each `{ sessionId, unifiedId, title }`, or null) and
 * whether it was `redacted` (said at its foot).
 */
export function shareHtml(session, { lineage = null, redacted = false } = {}) {
  const resultAt = new Map()
  session.messages.forEach((m, index) => {
    const id = m.toolResult?.toolCallId
    if (id && !resultAt.has(id)) resultAt.set(id, index)
  })
  const { style, csp } = styleOf(session.agent)
  const out = [
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">`,
    '<meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width">',
    `<title>${escapeText(session.title || session.unifiedId)}</title><style>${style}</style></head><body>`,
  ]
  writeNodes(out, header(session, lineage))
  out.push('\n<ol>')
  const previous = { day: null }
  session.messages.forEach((m, index) => {
    writeNodes(out, [message(m, index, resultAt, previous)])
    out.push('\n')
  })
  out.push('</ol>')
  writeNodes(out, [el('p', { class: 'dim' }, [`Shared with amux · ${redacted ? 'secrets redacted' : 'not redacted'}`])])
  out.push('</body></html>\n')
  return out.join('')
}
