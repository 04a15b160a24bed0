'use strict'
// read_session: one session as text (mcp/session-text.js), whole or only around a query's
// hits, in pages of at most `maxChars` characters. The messages come from the library in windows
// (`client.messages.window`), so a session of hundreds of MB is never built in JS whole: only
// what the page needs is read, and `around` leaves the rest in the core.

const { AgentMuxError } = require('../../index.js')
const ids = require('../../human/ids.js')
const text = require('../session-text.js')
const { z, toolInput, OWN_SESSION_NOTE } = require('../schemas.js')
const { param, kinds, calls } = require('../../params/index.js')

const description = `Read one past coding-agent session as text: a header line, then its messages with index, role and time. Tool calls, tool outputs and thinking are cut to their start, with a marker saying how much was left out.
With \`around\` (a query, in search_sessions' language), only the messages that hold its hits are shown, with \`context\` messages on each side; the rest is elided ("… 14 messages …"), and a hit message that was cut shows its matching passage.
The text never exceeds \`maxChars\`: when it is cut, it says so and gives the \`offset\` to call again with for the rest.
${OWN_SESSION_NOTE}`

// This tool's own parameters (no other front end reads a session in pages of text), made as the
// table's are, so they are checked and reported the same way.
const mcpOnly = (name, kind, help, mcp) => param(name, kind, help, { cli: false, ui: false, mcp })
const { params, input } = toolInput([
  mcpOnly('id', kinds.text({ max: 1024 }), 'the session: its id as search_sessions or list_sessions give it (agent:native-id), or a unique prefix of the native id', { required: true }),
  mcpOnly('around', kinds.text({ max: 1000 }), 'only the messages holding hits of this query, with context'),
  mcpOnly('context', kinds.count({ min: 0, max: 50 }), 'messages shown on each side of a hit (default 2)', { default: 2 }),
  mcpOnly('offset', kinds.count({ min: 0 }), 'start at this character of the text (the offset a cut result gives)', { default: 0 }),
  mcpOnly('maxChars', kinds.count({ min: 500, max: 1_000_000 }), 'at most this many characters of text (default 16000)', { default: 16000 }),
  calls.includeOwnSession,
])

const output = z.object({
  id: z.string(),
  agent: z.string(),
  title: z.string(),
  messageCount: z.number(),
  hitCount: z.number().optional().describe('with around: messages holding a hit'),
  text: z.string(),
  offset: z.number(),
  truncated: z.boolean(),
  nextOffset: z.number().optional().describe('when truncated: the offset to continue from'),
})

// Every window reads the whole session again, so the first one asks for as many messages as the
// page may need, counting at least this many characters for a message shown (cut tool output
// takes 2 kB or so, a short prompt much less); each further window doubles.
const CHARS_PER_MESSAGE = 500
const MIN_WINDOW = 16
// Room kept for the line saying where the text was cut and how to go on.
const FOOTER_ROOM = 120

/**
 * The session `id` names: a complete `agent:id` is tried as it is (no listing of every session);
 * anything else, or an id not found so, is resolved as the CLI resolves it (a unique prefix).
 */
async function firstWindow(client, id, options) {
  const refs = ids.parseRefs(id.trim().split(/\s+/), 1)
  if (refs[0].agent) {
    try {
      return await client.messages.window(refs[0].agent, refs[0].id, options)
    } catch (error) {
      if (error.code !== 'SESSION_NOT_FOUND') throw error
    }
  }
  const { agent, sessionId } = await ids.resolveRef(client.sessions, refs[0])
  return client.messages.window(agent, sessionId, options)
}

/**
 * The text from its start up to at least `need` characters (all of it if shorter), and whether
 * that is all of it. Windows are read until the text is long enough.
 */
async function textUpTo(client, own, args, need) {
  const options = { around: args.around, context: args.context }
  let limit = Math.max(MIN_WINDOW, Math.ceil(need / CHARS_PER_MESSAGE))
  let window = await firstWindow(client, args.id, { ...options, limit })
  const { session, hits } = window
  if (!args.includeOwnSession && own.is(session)) {
    throw new AgentMuxError('SESSION_NOT_FOUND', `${session.unifiedId} is the session this call is made from (your own, live), left out: pass includeOwnSession: true to read it`)
  }
  const hitAt = new Map((hits ?? []).map((h) => [h.index, h.snippet]))
  const chunks = [text.header(session, hits, args.around)]
  let length = chunks[0].length
  const push = (chunk) => {
    chunks.push(chunk)
    length += chunk.length + 2
  }
  let last = -1
  for (;;) {
    const results = new Set(window.messages.map((w) => w.message.toolResult?.toolCallId).filter(Boolean))
    for (const { index, message } of window.messages) {
      if (index > last + 1) push(text.elision(index - last - 1))
      push(text.message(index, message, results, hitAt.get(index)))
      last = index
    }
    const more = window.messages.length === limit
    if (!more) {
      if (last < session.messageCount - 1) push(text.elision(session.messageCount - 1 - last))
      return { session, hits, all: chunks.join('\n\n'), complete: true }
    }
    if (length > need) return { session, hits, all: chunks.join('\n\n'), complete: false }
    limit *= 2
    window = await client.messages.window(session.agent, session.sessionId, { ...options, from: last + 1, limit })
  }
}

/** The part of `all` from `offset` that fits in `max` characters, cut at a line end when one is near. */
function page(all, offset, max, complete) {
  if (all.length - offset <= max && complete) return { body: all.slice(offset), next: undefined }
  const budget = max - FOOTER_ROOM
  let end = Math.min(offset + budget, all.length)
  const newline = all.lastIndexOf('\n', end - 1)
  if (newline >= offset + budget * 0.8) end = newline + 1
  else if (/[\uD800-\uDBFF]/.test(all[end - 1])) end -= 1
  if (end >= all.length && complete) return { body: all.slice(offset), next: undefined }
  const body = `${all.slice(offset, end)}\n[cut here: call read_session again with offset ${end} for the rest]`
  return { body, next: end }
}

async function run(args, { client, own }) {
  const { session, hits, all, complete } = await textUpTo(client, own, args, args.offset + args.maxChars)
  if (args.offset >= all.length) {
    throw new AgentMuxError('VALIDATION_ERROR', `offset ${args.offset} is past the end of the text (${all.length} characters)`)
  }
  const { body, next } = page(all, args.offset, args.maxChars, complete)
  const structured = {
    id: session.unifiedId,
    agent: session.agent,
    title: session.title,
    messageCount: session.messageCount,
    ...(hits ? { hitCount: hits.length } : {}),
    text: body,
    offset: args.offset,
    truncated: next !== undefined,
    ...(next !== undefined ? { nextOffset: next } : {}),
  }
  return { text: body, structured }
}

module.exports = { name: 'read_session', title: 'Read a past session', description, params, input, output, run }
