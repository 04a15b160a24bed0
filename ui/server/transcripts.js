'use strict'
// A session's transcript for the page, in windows of messages (`messages.window`, the API
// `amux mcp` reads sessions with): a 200 MB session never crosses whole, and the server keeps
// nothing between windows. Long texts are cut (the page asks for one message whole when "show
// all" is clicked). Each message is turned into the few fields the page draws, every unknown
// value (tool inputs and outputs) into text.

// What one window may carry: this many messages, or about this many characters, whichever is
// reached first (at least one message).
const WINDOW_MESSAGES = 50
const WINDOW_CHARS = 120_000
// Longest text sent before "show all": conversation and thinking, and tool inputs and outputs.
const TEXT_CUT = 20_000
const TOOL_CUT = 2_000

const asText = (value) => {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

// A text as `{ text, length }`: the first `cut` characters when `cut` is given, and its whole length.
function clip(value, cut) {
  const text = asText(value)
  return { text: cut !== undefined && text.length > cut ? text.slice(0, cut) : text, length: text.length }
}

// A call's gist for its folded line: its input's first text value (a command, a path, a query).
function preview(input) {
  let value = input
  if (value && typeof value === 'object') value = Object.values(value).find((v) => typeof v === 'string') ?? ''
  if (typeof value !== 'string') value = asText(value)
  const line = value.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 119)}…` : line
}

/** Where each tool call's result message is, among the window's `{ index, message }`: call id → index. */
function resultsByCall(messages) {
  const at = new Map()
  for (const { index, message } of messages) {
    const id = message.toolResult?.toolCallId
    if (id && !at.has(id)) at.set(id, index)
  }
  return at
}

/**
 * One message as the page draws it. `whole` sends every text uncut. A call whose result is a
 * message of the same window shows its input only, and points at that message (`resultAt`).
 */
function messageView(m, index, results, whole = false) {
  const cut = (value, n) => clip(value, whole ? undefined : n)
  const tool = m.role === 'tool'
  const view = {
    index,
    role: m.role,
    text: cut(m.content, tool ? TOOL_CUT : TEXT_CUT),
  }
  if (m.timestamp) view.timestamp = m.timestamp
  if (m.model) view.model = m.model
  if (m.subagent !== undefined) view.subagent = m.subagent
  if (m.tokenUsage) view.tokenUsage = m.tokenUsage
  if (m.cost) view.cost = m.cost
  if (m.thinking) view.thinking = cut(m.thinking, TEXT_CUT)
  if (m.toolCalls?.length) {
    view.toolCalls = m.toolCalls.map((c) => {
      const call = { id: c.toolCallId, name: c.toolName, preview: preview(c.input), input: cut(c.input, TOOL_CUT) }
      const resultAt = results.get(c.toolCallId)
      if (resultAt !== undefined && resultAt !== index) call.resultAt = resultAt
      else if (c.output !== undefined) call.output = cut(c.output, TOOL_CUT)
      if (c.durationMs !== undefined) call.durationMs = c.durationMs
      return call
    })
  }
  if (m.toolResult) {
    view.toolResult = { callId: m.toolResult.toolCallId, name: m.toolResult.toolName, output: cut(m.toolResult.output, TOOL_CUT) }
  }
  return view
}

class Transcripts {
  #messages

  /** `messages`: a client's `messages` (MessageReader). */
  constructor(messages) {
    this.#messages = messages
  }

  /**
   * Messages from `from` on, as many as fit one window; with the session's header on the first.
   * `options`: the window's other options (`redact`).
   */
  async window(ref, from = 0, count = WINDOW_MESSAGES, options = {}) {
    const w = await this.#messages.window(ref.agent, ref.sessionId, { ...options, from, limit: count })
    const results = resultsByCall(w.messages)
    const messages = []
    let chars = 0
    for (const { index, message } of w.messages) {
      const view = messageView(message, index, results)
      messages.push(view)
      chars += view.text.text.length + (view.thinking?.text.length ?? 0)
      for (const c of view.toolCalls ?? []) chars += c.input.text.length + (c.output?.text.length ?? 0)
      chars += view.toolResult?.output.text.length ?? 0
      if (chars >= WINDOW_CHARS) break
    }
    const total = w.session.messageCount
    const next = from + messages.length
    return {
      ...(from === 0 ? { session: w.session } : {}),
      total,
      from,
      next: next < total && messages.length > 0 ? next : null,
      messages,
    }
  }

  /** One message with every text whole ("show all"), or null past the session's end. */
  async message(ref, index, options = {}) {
    const w = await this.#messages.window(ref.agent, ref.sessionId, { ...options, from: index, limit: 1 })
    const [first] = w.messages
    return first && first.index === index ? messageView(first.message, index, new Map(), true) : null
  }
}

module.exports = { Transcripts, messageView, resultsByCall, WINDOW_MESSAGES, TEXT_CUT, TOOL_CUT }
