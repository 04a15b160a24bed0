'use strict'
// A session's transcript for the page, in windows of messages: a 200 MB session is read once
// (`sessions.get`), kept while it is being read through, and sent a window at a time, with long
// texts cut (the page asks for one message whole when "show all" is clicked). Each message is
// turned into the few fields the page draws, every unknown value (tool inputs and outputs) into
// text.

// What one window may carry: this many messages, or about this many characters, whichever is
// reached first (at least one message).
const WINDOW_MESSAGES = 50
const WINDOW_CHARS = 120_000
// Longest text sent before "show all": conversation and thinking, and tool inputs and outputs.
const TEXT_CUT = 20_000
const TOOL_CUT = 2_000
// Sessions kept for their next windows: the last few read, up to about this many characters (the
// last one read is always kept, whatever its size).
const KEEP_SESSIONS = 4
const KEEP_CHARS = 256_000_000

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

/** Where each tool call's result message is: call id → message index. */
function resultsByCall(messages) {
  const at = new Map()
  messages.forEach((m, i) => {
    if (m.toolResult?.toolCallId && !at.has(m.toolResult.toolCallId)) at.set(m.toolResult.toolCallId, i)
  })
  return at
}

function sizeOf(messages) {
  let chars = 0
  for (const m of messages) {
    chars += (m.content?.length ?? 0) + (m.thinking?.length ?? 0)
    for (const c of m.toolCalls ?? []) chars += asText(c.input).length + asText(c.output).length
    if (m.toolResult) chars += asText(m.toolResult.output).length
  }
  return chars
}

/**
 * One message as the page draws it. `whole` sends every text uncut. A call whose result is a
 * message of its own shows its input only, and points at that message (`resultAt`).
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

// The session without its messages: what the page's header shows.
function header(session) {
  const { messages, raw, ...rest } = session
  return { ...rest, messageCount: messages.length }
}

class Transcripts {
  #sessions
  #kept = new Map() // unified id → { session, results, chars }
  #reading = new Map() // unified id → the pending read

  constructor(sessions) {
    this.#sessions = sessions
  }

  /** The session, read again when `fresh` (a first window: what is on disk now), else as kept. */
  async #session(ref, fresh) {
    const key = ref.unifiedId
    if (!fresh && this.#kept.has(key)) {
      const entry = this.#kept.get(key)
      this.#kept.delete(key)
      this.#kept.set(key, entry) // most recently used last
      return entry
    }
    if (!this.#reading.has(key)) {
      const read = this.#sessions.get(ref.agent, ref.sessionId).then((session) => {
        const entry = { session, results: resultsByCall(session.messages), chars: sizeOf(session.messages) }
        this.#keep(key, entry)
        return entry
      })
      this.#reading.set(key, read)
      read.then(
        () => this.#reading.delete(key),
        () => this.#reading.delete(key),
      )
    }
    return this.#reading.get(key)
  }

  #keep(key, entry) {
    this.#kept.delete(key)
    this.#kept.set(key, entry)
    let total = [...this.#kept.values()].reduce((n, e) => n + e.chars, 0)
    for (const [k, e] of this.#kept) {
      if (this.#kept.size <= 1 || (this.#kept.size <= KEEP_SESSIONS && total <= KEEP_CHARS)) break
      this.#kept.delete(k)
      total -= e.chars
    }
  }

  /** Messages from `from` on, as many as fit one window; with the session's header on the first. */
  async window(ref, from = 0, count = WINDOW_MESSAGES) {
    const { session, results } = await this.#session(ref, from === 0)
    const messages = []
    let chars = 0
    for (let i = from; i < session.messages.length && messages.length < count; i++) {
      const view = messageView(session.messages[i], i, results)
      messages.push(view)
      chars += view.text.text.length + (view.thinking?.text.length ?? 0)
      for (const c of view.toolCalls ?? []) chars += c.input.text.length + (c.output?.text.length ?? 0)
      chars += view.toolResult?.output.text.length ?? 0
      if (chars >= WINDOW_CHARS) break
    }
    const next = from + messages.length
    return {
      ...(from === 0 ? { session: header(session) } : {}),
      total: session.messages.length,
      from,
      next: next < session.messages.length ? next : null,
      messages,
    }
  }

  /** One message with every text whole ("show all"). */
  async message(ref, index) {
    const { session, results } = await this.#session(ref, false)
    if (index >= session.messages.length) return null
    return messageView(session.messages[index], index, results, true)
  }
}

module.exports = { Transcripts, messageView, resultsByCall, WINDOW_MESSAGES, TEXT_CUT, TOOL_CUT }
