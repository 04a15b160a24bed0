'use strict'
// The UI's JSON API: one handler per path, each a thin layer over the library's public API on the
// server's one long-lived client. Every parameter is checked first (params.js, from the
// parameters' table); library errors
// keep their code, and nothing else a handler throws reaches the page but "internal error".

const { AgentMuxError, BUILT_IN_AGENTS } = require('../../index.js')
const { recordedNoTokens } = require('../../human/cost.js')
const ids = require('../../human/ids.js')
const { version } = require('../../package.json')
const { readParams, uiOnly, sessionRef, calls, kinds, takenBy } = require('./params.js')
const { defined, filtersOf } = require('../../params/index.js')
const { Transcripts, WINDOW_MESSAGES } = require('./transcripts.js')
const { resumeCommand } = require('./resume.js')
const { readdirSync, statSync } = require('node:fs')
const { join } = require('node:path')

// Longest text of a message shown in the diff's cells.
const DIFF_CUT = 4_000

// What only the page asks for: where a page of sessions starts, a window of a transcript, one message.
const offset = uiOnly('offset', kinds.count({ min: 0, max: 1_000_000 }))
const from = uiOnly('from', kinds.count({ min: 0, max: 100_000_000 }))
const count = uiOnly('count', kinds.count({ min: 1, max: 1000 }))
const index = uiOnly('index', kinds.count({ min: 0, max: 100_000_000 }), { required: true })
const ref = uiOnly('ref', kinds.text({ max: 1024 }), { required: true })
// The session page's switch: `redact=false` shows the secrets the server's client redacts (for
// the person at the screen, so only to a request from this machine).
const redact = uiOnly('redact', kinds.flag())

/**
 * Every agent's sessions (`listAll`), or one agent's, with `list`'s filters and sort: from
 * `offset`, at most `limit`, and whether more follow.
 */
async function listSessions(sessions, { agent: only, offset = 0, limit = 50, ...rest }) {
  const options = defined({ ...rest, limit: offset + limit + 1 })
  const found = only ? await sessions.list(only, options) : await sessions.listAll(options)
  return { sessions: found.slice(offset, offset + limit), offset, more: found.length > offset + limit }
}

// What a diff cell shows of a message: its text, else the calls it made, else its tool's output.
function diffSide(message) {
  if (!message) return undefined
  let body = message.content ?? ''
  if (!body && message.toolCalls?.length) body = message.toolCalls.map((c) => `[calls ${c.toolName}]`).join(' ')
  if (!body && message.toolResult) {
    const out = message.toolResult.output
    body = typeof out === 'string' ? out : JSON.stringify(out ?? null)
  }
  const side = { role: message.role, text: body.slice(0, DIFF_CUT), length: body.length }
  if (message.timestamp) side.timestamp = message.timestamp
  return side
}

/**
 * Spend per day, stacked by agent or by model, with the totals `totalCost` gives for the period.
 * Each series comes from `totalCost` itself (one call per agent or model, grouped by day), so every
 * figure drawn is one the API returns. A model-less remainder (sessions that named no model) is
 * the day's total less the models' parts.
 */
async function costReport(sessions, { groupBy: by = 'agent', ...filters }) {
  const period = filtersOf(filters)
  const [totals, days, listed] = await Promise.all([
    sessions.totalCost({ ...period, groupBy: by }),
    sessions.totalCost({ ...period, groupBy: 'day' }),
    sessions.listAll({ ...period, limit: ids.ALL }),
  ])
  const keys = Object.keys(totals.breakdowns ?? {}).filter((k) => k !== '' && totals.breakdowns[k].sessionCount > 0)
  const perKey = await Promise.all(keys.map((k) => sessions.totalCost({ ...period, [by]: k, groupBy: 'day' })))
  const series = keys.map((key, i) => ({ key, days: dayCosts(perKey[i]) }))
  if (by === 'model' && totals.breakdowns?.['']?.sessionCount > 0) {
    const rest = {}
    for (const [day, b] of Object.entries(days.breakdowns ?? {})) {
      const known = series.reduce((n, s) => n + (s.days[day] ?? 0), 0)
      if (b.totalUsd - known > 1e-9) rest[day] = b.totalUsd - known
    }
    series.push({ key: '', days: rest })
  }
  // Sessions whose agent recorded no token counts: $0 there means "unknown", never "free".
  const unknown = {}
  for (const s of listed.filter(recordedNoTokens)) unknown[s.agent] = (unknown[s.agent] ?? 0) + 1
  return { by, days: Object.keys(days.breakdowns ?? {}).sort(), series, totals, unknown }
}

/** When the index was last written: the newest modification time of its files (null: none). */
function indexWritten(dir) {
  let newest = null
  try {
    for (const name of readdirSync(dir)) {
      const t = statSync(join(dir, name)).mtime
      if (!newest || t > newest) newest = t
    }
  } catch {
    return null
  }
  return newest
}

const dayCosts = (summary) => Object.fromEntries(Object.entries(summary.breakdowns ?? {}).map(([day, b]) => [day, b.totalUsd]))

const EXPORT_TYPES = {
  json: ['application/json; charset=utf-8', 'json'],
  jsonl: ['application/x-ndjson; charset=utf-8', 'jsonl'],
  markdown: ['text/markdown; charset=utf-8', 'md'],
}

// A file name for a download: the agent and id, with anything a file system could mind replaced.
const fileName = (ref, ext) => `${ref.agent}-${ref.sessionId.replace(/[^\w.-]+/g, '_')}.${ext}`

/**
 * The API over `client`. `progress()` is the index's latest progress report (createClient's
 * `onProgress`), or null: the page shows it while a first call builds the index.
 */
function createApi(client, progress = () => null) {
  const { sessions } = client
  const transcripts = new Transcripts(client.messages)
  const id = (name = 'id') => uiOnly(name, sessionRef(sessions), { required: true })

  const routes = {
    '/api/meta': {
      params: [],
      run: async () => ({ version, agents: BUILT_IN_AGENTS }),
    },
    '/api/search': {
      params: takenBy(calls.search, 'ui'),
      // `signal`: the page gave the request up (a newer keystroke): the search is not started, or
      // stops at its next stage.
      run: async ({ text = '', ...rest }, { signal } = {}) => {
        if (!text.trim()) return { results: [] }
        return { results: await sessions.search({ text, ...rest }, { signal }) }
      },
    },
    '/api/sessions': {
      params: [...takenBy(calls.list, 'ui'), offset],
      run: (p) => listSessions(sessions, p),
    },
    '/api/session': {
      params: [id(), from, count, redact],
      run: async ({ id: ref, from = 0, count = WINDOW_MESSAGES, redact }) => {
        const window = await transcripts.window(ref, from, count, defined({ redact }))
        // An archived session's file is gone from the agent's store: the agent cannot resume it.
        if (window.session && !window.session.archived) window.resume = resumeCommand(window.session)
        return window
      },
    },
    '/api/session/message': {
      params: [id(), index, redact],
      run: async ({ id: ref, index, redact }) => {
        const message = await transcripts.message(ref, index, defined({ redact }))
        if (!message) throw new AgentMuxError('SESSION_NOT_FOUND', `${ref.unifiedId} has no message ${index}`)
        return { message }
      },
    },
    '/api/session/files': {
      // The files the session's tool calls touched; the page links each to the sessions that
      // touched it (`/api/touched`).
      params: [id(), redact],
      run: async ({ id: ref, redact }) => ({ files: await sessions.touches(ref.agent, ref.sessionId, defined({ redact })) }),
    },
    '/api/touched': {
      params: takenBy(calls.touched, 'ui'),
      run: async ({ path, ...rest }) => ({ path, sessions: await sessions.touched(path, rest) }),
    },
    '/api/session/lineage': {
      params: [id(), redact],
      // Forked from: the session's own field; continued in: the agent's sessions forked from it;
      // archived: kept by amux, its source deleted (the same list knows it).
      run: async ({ id: ref, redact }) => {
        const all = await sessions.list(ref.agent, defined({ limit: ids.ALL, redact }))
        const self = all.find((s) => s.sessionId === ref.sessionId)
        if (!self) throw new AgentMuxError('SESSION_NOT_FOUND', `no ${ref.agent} session with id '${ref.sessionId}'`)
        const parent = self.forkedFrom ? all.find((s) => s.sessionId === self.forkedFrom) : undefined
        return {
          forkedFrom: self.forkedFrom ? { unifiedId: sessions.resolveUnifiedId(ref.agent, self.forkedFrom), title: parent?.title } : null,
          continuedIn: all.filter((s) => s.forkedFrom === ref.sessionId).map((s) => ({ unifiedId: s.unifiedId, title: s.title })),
          archived: self.archived === true,
        }
      },
    },
    '/api/export': {
      params: [id(), ...takenBy(calls.export, 'ui'), redact],
      run: async ({ id: ref, format, redact }) => {
        const [type, ext] = EXPORT_TYPES[format]
        return {
          body: await sessions.export(ref.agent, ref.sessionId, format, defined({ redact })),
          headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename="${fileName(ref, ext)}"` },
        }
      },
    },
    '/api/resolve': {
      // What a person typed for a session (agent:id, or a unique id prefix) → its unified id.
      params: [ref],
      run: async ({ ref }) => {
        const [one] = ids.parseRefs(ref.trim().split(/\s+/), 1)
        const found = await ids.resolveRef(sessions, one)
        return { unifiedId: sessions.resolveUnifiedId(found.agent, found.sessionId) }
      },
    },
    '/api/diff': {
      params: [id('a'), id('b')],
      run: async ({ a, b }) => {
        const d = await sessions.diff(a, b)
        const operations = d.operations.map((op) => defined({ type: op.type, indexA: op.indexA, indexB: op.indexB, a: diffSide(op.messageA), b: diffSide(op.messageB) }))
        return { a: d.a, b: d.b, stats: d.stats, operations }
      },
    },
    '/api/cost': {
      params: takenBy(calls.totalCost, 'ui'),
      run: (p) => costReport(sessions, p),
    },
    '/api/progress': {
      params: [],
      run: async () => ({ progress: progress() }),
    },
    '/api/keep': {
      // Whether amux keeps its copy of every session, and what the agents' retention will delete that is not kept.
      params: [],
      run: () => client.keep.status(),
    },
    '/api/index': {
      params: [],
      run: async () => {
        const status = await client.index.status()
        return { ...status, written: status.dir ? indexWritten(status.dir) : null }
      },
    },
  }

  /**
   * The answer to a GET of `url` under /api/: `{ status, json }` or `{ status, body, headers }`.
   * `local`: the request came from this machine (a loopback address), where secrets may be shown;
   * `signal`: aborts when the request is given up before it is answered.
   */
  return async function answer(url, { local = true, signal } = {}) {
    const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : null
    if (!route) return failure(404, 'NOT_FOUND', `no API at ${url.pathname}`)
    try {
      const params = readParams(url, route.params)
      if (params.redact === false && !local) {
        return failure(403, 'FORBIDDEN', 'secrets are shown only to a page opened on this machine (redact=false from another one is refused)')
      }
      const out = await route.run(params, { signal })
      return out.body !== undefined ? { status: 200, ...out } : { status: 200, json: out }
    } catch (error) {
      return errorAnswer(error)
    }
  }
}

const failure = (status, code, message) => ({ status, json: { error: { code, message } } })

// What the page may learn of an error: its code and message, never a stack.
// ABORTED: the page gave the request up and reads no answer (499: the client closed the request).
const STATUS_OF = { VALIDATION_ERROR: 400, AGENT_NOT_FOUND: 400, SESSION_NOT_FOUND: 404, ABORTED: 499 }

function errorAnswer(error) {
  // By name, not instanceof: the client may come from another copy of the package (a test's).
  if (error?.name === 'AgentMuxError' && typeof error.code === 'string' && error.code !== 'INTERNAL') {
    return failure(STATUS_OF[error.code] ?? 500, error.code, error.message)
  }
  process.stderr.write(`amux ui: internal error: ${error?.stack ?? error}\n`)
  return failure(500, 'INTERNAL', 'internal error (details are on the server\'s stderr)')
}

module.exports = { createApi, listSessions, costReport, failure }
