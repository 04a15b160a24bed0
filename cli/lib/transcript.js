'use strict'
// `sessions show` on a terminal: a session rendered for reading, from the API's Session (not by
// re-parsing the Markdown export, whose escapes are for Markdown viewers). The same parts as the
// export, in the same order: header, messages with their thinking, tool calls and results, cost.

const { absoluteDate, clockTime, duration, usd, count } = require('./format.js')

const ROLE_COLOUR = { user: 'green', assistant: 'cyan', system: 'yellow', tool: 'magenta' }
const ROLE_NAME = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' }

// A tool's input or output: a string as it is, anything else as indented JSON.
const valueText = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2) ?? '')

const indent = (text, by = '  ') =>
  text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n')

const tokenTotal = (c) => c.inputTokens + c.outputTokens + (c.thinkingTokens ?? 0) + (c.cachedTokens ?? 0)

/**
 * Message text that was written as Markdown: headings bold, **strong** bold, `code` coloured,
 * fenced code blocks kept line for line (fences dimmed); prose lines otherwise as written.
 */
function markdownText(text, paint) {
  const out = []
  let fence = null
  for (const line of text.split('\n')) {
    const opener = /^\s*(```+|~~~+)/.exec(line)
    if (fence) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) {
        out.push(paint('dim', line))
        fence = null
      } else out.push(line)
      continue
    }
    if (opener) {
      fence = opener[1]
      out.push(paint('dim', line))
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    if (heading) {
      out.push(paint('bold', heading[2]))
      continue
    }
    out.push(
      line
        .replace(/\*\*([^*\n]+)\*\*/g, (_, s) => paint('bold', s))
        .replace(/`([^`\n]+)`/g, (_, s) => paint('yellow', s)),
    )
  }
  return out.join('\n')
}

function header(s, view) {
  const { paint } = view
  const lines = [paint('bold', s.title.trim() || `${s.agent} session ${s.sessionId}`)]
  lines.push([s.unifiedId, s.model, s.cwd].filter(Boolean).join(' · '))
  const span = s.updatedAt - s.createdAt
  const when = `${absoluteDate(s.createdAt)}${span > 0 ? ` → ${absoluteDate(s.updatedAt)} (${duration(span)})` : ''}`
  const messages = `${count(s.messages.length)} messages, ${count(s.turnCount)} turn${s.turnCount === 1 ? '' : 's'}`
  lines.push(`${when} · ${messages} · ${s.cost ? usd(s.cost.totalUsd) : 'cost not recorded'}`)
  if (s.tags?.length) lines.push(`tags: ${s.tags.join(', ')}`)
  if (s.forkedFrom) lines.push(`forked from ${s.forkedFrom}`)
  return lines.join('\n')
}

function message(m, answered, view, previousDay) {
  const { paint } = view
  const meta = []
  if (m.timestamp) {
    const day = absoluteDate(m.timestamp).slice(0, 10)
    meta.push(day === previousDay ? clockTime(m.timestamp) : `${day} ${clockTime(m.timestamp)}`)
  }
  if (m.model) meta.push(m.model)
  if (m.subagent) meta.push(`subagent ${m.subagent}`)
  if (m.cost) meta.push(usd(m.cost.totalUsd))
  const role = paint('bold', paint(ROLE_COLOUR[m.role] ?? 'bold', ROLE_NAME[m.role] ?? m.role))
  const parts = [`${role}${meta.length ? paint('dim', `  ${meta.join(' · ')}`) : ''}`]
  if (m.thinking && m.thinking.trim()) parts.push(paint('dim', indent(`thinking: ${m.thinking.trim()}`, '  │ ')))
  if (m.toolResult) {
    parts.push(paint('dim', `result of ${m.toolResult.toolName}:`))
    parts.push(indent(m.content || valueText(m.toolResult.output)))
  } else if (m.content) {
    parts.push(m.role === 'tool' ? indent(m.content) : markdownText(m.content.replace(/\n+$/, ''), paint))
  }
  for (const call of m.toolCalls ?? []) {
    const took = Number.isFinite(call.durationMs) ? paint('dim', ` · ${duration(call.durationMs)}`) : ''
    parts.push(`${paint('yellow', `▸ ${call.toolName}`)}${took}`)
    parts.push(indent(valueText(call.input)))
    if (call.output !== undefined && !answered.has(call.toolCallId)) {
      parts.push(paint('dim', 'output:'))
      parts.push(indent(valueText(call.output)))
    }
  }
  return parts.join('\n')
}

function costSummary(s, view) {
  const { paint } = view
  const c = s.cost
  if (!c) return `${paint('bold', 'Cost')}  not recorded (the agent keeps no token counts)`
  const tokens = [
    `${count(c.inputTokens)} input`,
    `${count(c.outputTokens)} output`,
    c.thinkingTokens ? `${count(c.thinkingTokens)} thinking` : '',
    c.cachedTokens ? `${count(c.cachedTokens)} cached` : '',
    c.cacheWriteTokens ? `${count(c.cacheWriteTokens)} cache-write` : '',
  ].filter(Boolean)
  const lines = [`${paint('bold', 'Cost')}  ${usd(c.totalUsd)} · ${count(tokenTotal(c))} tokens: ${tokens.join(', ')}`]
  // Per model, from the messages' own costs, in order of first use (as the export's summary).
  const byModel = new Map()
  for (const m of s.messages) {
    if (!m.cost) continue
    const model = m.model ?? s.model ?? 'unknown model'
    const entry = byModel.get(model) ?? { usd: 0, n: 0, input: 0, output: 0 }
    entry.usd += m.cost.totalUsd
    entry.n += 1
    entry.input += m.cost.inputTokens
    entry.output += m.cost.outputTokens
    byModel.set(model, entry)
  }
  for (const [model, e] of byModel) {
    lines.push(`  ${model}: ${usd(e.usd)} over ${e.n} message${e.n === 1 ? '' : 's'} (${count(e.input)} input, ${count(e.output)} output tokens)`)
  }
  return lines.join('\n')
}

/** The whole transcript as text for a terminal of `view.width` columns. */
function renderSession(s, view) {
  const { paint } = view
  // Calls whose result is a message of its own print their output there, not a second time.
  const answered = new Set(s.messages.map((m) => m.toolResult?.toolCallId).filter(Boolean))
  const rule = paint('dim', '─'.repeat(Math.min(view.width, 80)))
  const blocks = [header(s, view), rule]
  let day
  for (const m of s.messages) {
    blocks.push(message(m, answered, view, day))
    if (m.timestamp) day = absoluteDate(m.timestamp).slice(0, 10)
  }
  blocks.push(rule, costSummary(s, view))
  return `${blocks.join('\n\n')}\n`
}

/** How many terminal rows `text` takes at `width` columns (long lines wrap). */
function rowsTaken(text, width, measure) {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .reduce((n, line) => n + Math.max(1, Math.ceil(measure(line) / width)), 0)
}

module.exports = { renderSession, markdownText, rowsTaken }
