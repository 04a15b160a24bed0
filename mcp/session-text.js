'use strict'
// A session as text for a model to read: a header line, then each message with its index, role
// and time. What the person and the agent wrote is kept whole; thinking, system text, tool inputs
// and tool outputs are cut to their first characters with a marker saying how much was left out,
// and a message holding a hit that was cut shows its best matching passage instead.

const THINKING_CHARS = 1000
const TOOL_INPUT_CHARS = 500
const TOOL_OUTPUT_CHARS = 1500

const count = (n) => n.toLocaleString('en-US')
const plural = (n, word) => `${count(n)} ${word}${n === 1 ? '' : 's'}`
const iso = (date) => date.toISOString().replace('.000Z', 'Z')

// A tool's input or output: a string as it is, anything else as compact JSON.
const valueText = (v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))

/** `text` cut to `max` characters, and whether it was: the marker says how much was left out. */
function cut(text, max) {
  if (text.length <= max) return { text, cut: false }
  let end = max
  // Never split a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1
  return { text: `${text.slice(0, end)}\n[… ${plural(text.length - end, 'more character')} left out]`, cut: true }
}

/** What a session's facts say when it is archived (`archived: true`). */
const ARCHIVED = 'archived: the agent deleted it, amux kept a copy'

/** The header line of a session (`summary` from a MessageWindow), with what `around` found. */
function header(summary, hits, around) {
  const span = `${iso(summary.createdAt)} → ${iso(summary.updatedAt)}`
  const facts = [summary.unifiedId, JSON.stringify(summary.title || '(untitled)'), summary.cwd, summary.model, span, plural(summary.messageCount, 'message'), summary.archived && ARCHIVED]
  let line = facts.filter(Boolean).join(' · ')
  if (hits) line += ` · ${plural(hits.length, 'message')} with hits of ${JSON.stringify(around)}`
  return line
}

/** "… 14 messages …": the messages a window left out between two it kept. */
const elision = (n) => `… ${plural(n, 'message')} …`

/**
 * One message as text. `shownResults`: ids of the calls whose result message is shown too (their
 * output is read there, not twice). `hit`: the message's best passage when it holds a hit.
 */
function message(index, m, shownResults, hit) {
  const head = [`[#${index}] ${m.role}`]
  if (m.timestamp) head.push(iso(m.timestamp))
  if (m.model) head.push(m.model)
  if (m.subagent) head.push(`subagent ${m.subagent}`)
  if (m.toolResult) head.push(`result of ${m.toolResult.toolName}`)
  if (hit !== undefined) head.push('hit')
  const parts = [head.join(' · ')]
  let anyCut = false
  const add = (text, max) => {
    const c = cut(text, max)
    anyCut ||= c.cut
    parts.push(c.text)
  }
  if (m.thinking && m.thinking.trim()) add(`(thinking) ${m.thinking.trim()}`, THINKING_CHARS)
  if (m.toolResult) add(m.content || valueText(m.toolResult.output), TOOL_OUTPUT_CHARS)
  else if (m.role === 'system') add(m.content, THINKING_CHARS)
  else if (m.role === 'tool') add(m.content, TOOL_OUTPUT_CHARS)
  else if (m.content) parts.push(m.content.replace(/\n+$/, ''))
  for (const call of m.toolCalls ?? []) {
    add(`→ ${call.toolName} ${valueText(call.input)}`, TOOL_INPUT_CHARS)
    if (call.output !== undefined && !shownResults.has(call.toolCallId)) add(`output: ${valueText(call.output)}`, TOOL_OUTPUT_CHARS)
  }
  if (anyCut && hit) parts.push(`match: ${hit}`)
  return parts.join('\n')
}

module.exports = { header, elision, message, cut, plural, ARCHIVED }
