'use strict'
// What the commands' actions share to reach the API (and nothing but the public API): one client,
// agent names checked as a prompt deserves, the sessions that command-line words name, and the
// short ids a terminal shows. (search() and totalCost() answer an unknown agent with "nothing";
// the parameters' table reports it as AGENT_NOT_FOUND before any call.)

const { createClient, textOutput } = require('../../index.js')
const { report } = require('./progress.js')
const ids = require('../../human/ids.js')

let made
// The team database every command reads instead of this machine (`amux --db`, `AGENT_MUX_DB`).
let source

/** Read the team database at `url` (a PostgreSQL URL) from now on; empty or undefined: this machine. */
function useSource(url) {
  source = url === '' ? undefined : url
}

/** The team database's URL the commands read, or undefined (for `amux mcp` and `amux ui` to pass on). */
const sourceInUse = () => source
/**
 * The process's one client; the index reports its progress for the bar under a long call. A
 * search does not wait for the index to take in new or changed sessions: it reads them itself,
 * and the library hands their writing to a process of its own when this one exits (as it does
 * for any client), so the command exits at once and the next finds them indexed.
 */
function client() {
  if (!made) {
    const api = createClient({ onProgress: report, indexUpdates: 'deferred', ...(source ? { source } : {}) })
    // amux's lines and JSON text (`tsv`, `json`), written natively beside the API's objects.
    made = Object.freeze({ ...api, ...textOutput(api) })
  }
  return made
}

/**
 * At most `limit` sessions, and whether the limit left any out: `call(n)` is asked for one more
 * than is shown, which costs one session where the API would otherwise need to count them all.
 */
async function upTo(limit, call) {
  const sessions = await call(limit + 1)
  return { sessions: sessions.slice(0, limit), more: sessions.length > limit }
}

/**
 * What the SESSION column shows on a terminal: each id's shortest unique prefix among all of its
 * agent's sessions (not only those shown), so it can be pasted into show, export or diff.
 * `universe` (agent → every id) when the caller already has it, else it is listed.
 */
async function shortIds(sessions, universe) {
  universe ??= await ids.idsByAgent(client().sessions, sessions.map((s) => s.agent))
  const short = new Map()
  for (const [agent, all] of universe) {
    const own = sessions.filter((s) => s.agent === agent).map((s) => s.sessionId)
    ids.shortIds(own, [...all, ...own]).forEach((id, i) => short.set(`${agent}:${own[i]}`, id))
  }
  return sessions.map((s) => short.get(s.unifiedId))
}

/** The `count` sessions that the command-line words name (see ids.parseRefs), as `{ agent, sessionId }`. */
async function sessionsNamed(words, count) {
  return Promise.all(ids.parseRefs(words, count).map((ref) => ids.resolveRef(client().sessions, ref)))
}

module.exports = { client, upTo, shortIds, sessionsNamed, useSource, sourceInUse, ALL: ids.ALL }
