'use strict'
// search_sessions: the library's full-text search over every agent's sessions, its hits as the
// model reads them (id to pass to read_session, where, when, how well, the best passage).

const { z, toolInput, defined, sessionFields, OWN_SESSION_NOTE } = require('../schemas.js')
const { withoutOwn } = require('../own-session.js')
const { ARCHIVED } = require('../session-text.js')
const { calls } = require('../../params/index.js')

const description = `Full-text search of past coding-agent sessions on this machine (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, OpenCode, Pi, omp, OpenClaw, Hermes): find how something was done or fixed before.
Query language (case is ignored; OR and NOT only in capitals):
  flaky test        every word must occur, anywhere in the session
  "flaky test"      these words, in this order
  docker OR podman  either side
  test NOT flaky    the left side, not the right one
  kube*             words starting with it
  file:src/*.rs     sessions whose tool calls touched a matching file (a path or glob), combinable with words
Chinese, Japanese or Korean text is found anywhere, without spaces.
Hits come best first (\`sort\`: newest or costliest first instead), each with its id for read_session (pass the same query as \`around\` to read only the matching parts), the number of matches and the best passage with hits marked >>>like this<<<.
${OWN_SESSION_NOTE}`

const { params, input } = toolInput(calls.search)

const hit = z.object({
  ...sessionFields,
  score: z.number().describe('relevance, higher is better'),
  matchCount: z.number().describe('occurrences of the query in the session'),
  snippet: z.string().describe('the best matching passage, hits marked >>>hit<<<'),
})

const output = z.object({
  query: z.string(),
  hits: z.array(hit),
})

const iso = (date) => date.toISOString()

async function run(args, { client, own }) {
  const { includeOwnSession, limit, ...query } = args
  const find = (n) => client.sessions.search({ ...query, limit: n })
  const found = includeOwnSession ? await find(limit) : await withoutOwn(own, find, limit)
  const hits = found.map((s) =>
    defined({
      id: s.unifiedId,
      agent: s.agent,
      title: s.title,
      cwd: s.cwd,
      createdAt: iso(s.createdAt),
      updatedAt: iso(s.updatedAt),
      archived: s.archived,
      score: Number((s.relevanceScore ?? 0).toFixed(4)),
      matchCount: s.matchCount ?? 0,
      snippet: s.snippet ?? '',
    }),
  )
  return { text: render(args.text, hits, args.sort), structured: { query: args.text, hits } }
}

function render(query, hits, sort = 'relevance') {
  if (!hits.length) return `No session matches ${JSON.stringify(query)}.`
  const order = { relevance: 'best first', date: 'newest first', cost: 'costliest first' }[sort]
  const lines = [`${hits.length} session${hits.length === 1 ? '' : 's'} match ${JSON.stringify(query)}, ${order}:`]
  hits.forEach((h, i) => {
    lines.push('')
    lines.push(`${i + 1}. ${h.id}`)
    lines.push(`   ${h.title || '(untitled)'}`)
    const where = [`updated ${h.updatedAt}`, h.cwd && `in ${h.cwd}`, `${h.matchCount} match${h.matchCount === 1 ? '' : 'es'}`, `score ${h.score}`, h.archived && ARCHIVED]
    lines.push(`   ${where.filter(Boolean).join(' · ')}`)
    if (h.snippet) lines.push(`   ${h.snippet}`)
  })
  return lines.join('\n')
}

module.exports = { name: 'search_sessions', title: 'Search past sessions', description, params, input, output, run }
