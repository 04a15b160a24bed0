'use strict'
// Session ids as a person types and reads them, in the CLI, the MCP server and the UI alike:
// reading what was typed (`agent:id`, `agent id`, or a prefix of the id), finding the one session
// it means, and the short ids tables show, so that any id one command printed can be pasted into
// the next.

const { AgentMuxError, BUILT_IN_AGENTS } = require('../index.js')

// The core clamps larger limits to this: "every session".
const ALL = 1_000_000
// Short ids are never shorter than this, as `git log --oneline` keeps at least 7 hex digits.
const MIN_SHORT = 8

const usage = (message) => new AgentMuxError('VALIDATION_ERROR', message)
const unknownAgent = (name) => new AgentMuxError('AGENT_NOT_FOUND', `unknown agent '${name}'`)

const SPELLINGS = '<agent>:<id>, <agent> <id>, or a unique prefix of the id'

// One token: `agent:id` when the part before the first colon names an agent, else a bare id or
// prefix. A word before the colon that is no agent is taken for a misspelt agent: native ids do
// not look like `word:…`, and "unknown agent" says more than "no such session".
function oneRef(token) {
  const colon = token.indexOf(':')
  if (colon > 0) {
    const agent = token.slice(0, colon)
    const id = token.slice(colon + 1)
    if (BUILT_IN_AGENTS.includes(agent)) {
      if (!id) throw usage(`'${token}' names no session id: expected ${SPELLINGS}`)
      return { agent, id }
    }
    if (/^[a-z][a-z0-9_-]*$/i.test(agent)) throw unknownAgent(agent)
  }
  return { id: token }
}

/**
 * The `count` sessions named by command-line words, each spelt `agent:id`, `agent id` or a bare id
 * (prefix). A word that is exactly an agent's name takes the next word as its id; when there are
 * more words than sessions still wanted and no agent's name follows, the word must be an agent's
 * name, misspelt.
 */
function parseRefs(words, count) {
  const refs = []
  let i = 0
  while (i < words.length && refs.length < count) {
    const word = words[i]
    if (BUILT_IN_AGENTS.includes(word)) {
      if (i + 1 >= words.length) throw usage(`missing the session-id after '${word}'`)
      refs.push({ agent: word, id: words[i + 1] })
      i += 2
      continue
    }
    const pairAhead = BUILT_IN_AGENTS.includes(words[i + 1])
    if (words.length - i > count - refs.length && !word.includes(':') && !pairAhead) throw unknownAgent(word)
    refs.push(oneRef(word))
    i += 1
  }
  if (refs.length !== count || i < words.length) {
    const what = count === 1 ? 'one session' : `${count} sessions`
    throw usage(`expected ${what}, each as ${SPELLINGS}; got ${words.length ? words.map((w) => `'${w}'`).join(' ') : 'nothing'}`)
  }
  return refs
}

const listAll = (sessions, agent) => sessions.list(agent, { limit: ALL })

/**
 * The session a reference means: an exact id first, else the only id starting with it. Several →
 * a usage error listing them (exit 2); none with an agent given → the reference as typed, so the
 * API reports SESSION_NOT_FOUND in its own words.
 */
async function resolveRef(sessions, ref) {
  const agents = ref.agent ? [ref.agent] : BUILT_IN_AGENTS
  const all = (await Promise.all(agents.map((agent) => listAll(sessions, agent)))).flat()
  const exact = all.filter((s) => s.sessionId === ref.id)
  const matches = exact.length ? exact : all.filter((s) => s.sessionId.startsWith(ref.id))
  if (matches.length === 1) return { agent: matches[0].agent, sessionId: matches[0].sessionId }
  const typed = ref.agent ? `${ref.agent}:${ref.id}` : ref.id
  if (matches.length > 1) {
    const shown = matches.slice(0, 10).map((s) => s.unifiedId)
    const more = matches.length > shown.length ? `, and ${matches.length - shown.length} more` : ''
    throw usage(`'${typed}' is ambiguous: ${matches.length} sessions start with it: ${shown.join(', ')}${more}`)
  }
  if (ref.agent) return { agent: ref.agent, sessionId: ref.id }
  throw new AgentMuxError('SESSION_NOT_FOUND', `no session of any agent has an id starting with '${ref.id}'`)
}

/**
 * For each of `ids`, its shortest prefix of at least MIN_SHORT characters that no other id of
 * `universe` starts with (the whole id when another id extends it). `universe` must hold `ids`.
 */
function shortIds(ids, universe) {
  const sorted = [...new Set(universe)].sort()
  const common = (a, b) => {
    let n = 0
    while (n < a.length && n < b.length && a[n] === b[n]) n++
    return n
  }
  const need = new Map()
  sorted.forEach((id, i) => {
    // In sorted order an id shares its longest prefix with one of its neighbours.
    const shared = Math.max(i > 0 ? common(id, sorted[i - 1]) : 0, i + 1 < sorted.length ? common(id, sorted[i + 1]) : 0)
    need.set(id, Math.min(id.length, Math.max(MIN_SHORT, shared + 1)))
  })
  return ids.map((id) => id.slice(0, need.get(id) ?? id.length))
}

/** agent → every session id it has, for the agents named (the universe short ids are unique in). */
async function idsByAgent(sessions, agents) {
  const unique = [...new Set(agents)]
  const lists = await Promise.all(unique.map((agent) => listAll(sessions, agent)))
  return new Map(unique.map((agent, i) => [agent, lists[i].map((s) => s.sessionId)]))
}

module.exports = { parseRefs, resolveRef, shortIds, idsByAgent, SPELLINGS, ALL }
