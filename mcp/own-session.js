'use strict'
// The calling agent's own live session, which `amux mcp` leaves out of its results unless a call
// asks for it (`includeOwnSession`): an agent searching its past finds the words it has just
// written in the session it is in, and reading that session back only repeats its own context.
//
// Recognised by what the agent passes when it passes it: Claude Code gives the MCP servers it
// starts CLAUDE_CODE_SESSION_ID, Codex gives the commands it runs CODEX_THREAD_ID (its rollout's
// id). Otherwise by where and when: a session whose working directory is where the agent started
// this server (its cwd, or a root the client lists) and which was written in the last minutes.

const { realpathSync } = require('node:fs')
const { fileURLToPath } = require('node:url')

// The variable an agent sets to its own session's id, and the agent whose id it is.
const SESSION_VARIABLES = [
  ['CLAUDE_CODE_SESSION_ID', 'claude'],
  ['CODEX_THREAD_ID', 'codex'],
]

// A session written this recently is taken for live: a turn of an agent writes a line at least
// every few minutes (a long build or test run in between aside).
const LIVE_MS = 10 * 60_000

/** `dir` without a trailing separator, and its real path when it differs (a symlinked checkout). */
function spellings(dir) {
  const out = new Set()
  const trimmed = dir.length > 1 ? dir.replace(/[\\/]+$/, '') : dir
  if (!trimmed) return out
  out.add(trimmed)
  try {
    out.add(realpathSync(trimmed))
  } catch {
    // A directory that no longer exists is still what the sessions recorded.
  }
  return out
}

/** The directories of `roots` (MCP roots: `{ uri }`, file:// URIs); anything else is skipped. */
function rootDirs(roots) {
  const dirs = []
  for (const root of roots ?? []) {
    try {
      if (typeof root?.uri === 'string' && root.uri.startsWith('file:')) dirs.push(fileURLToPath(root.uri))
    } catch {
      // A malformed URI names no directory of ours.
    }
  }
  return dirs
}

class OwnSession {
  #named
  #cwd
  #dirs
  #now

  /**
   * `env` and `cwd`: the server's process's (the agent starts it in its working directory);
   * `now()`: the time in milliseconds.
   */
  constructor({ env = process.env, cwd = process.cwd(), now = Date.now } = {}) {
    this.#named = null
    for (const [variable, agent] of SESSION_VARIABLES) {
      const id = env[variable]?.trim()
      if (id) {
        this.#named = { agent, sessionId: id }
        break
      }
    }
    this.#cwd = cwd
    this.#now = now
    this.setRoots([])
  }

  /** The client's roots (`roots/list`), taken as working directories of the caller besides the server's own. */
  setRoots(roots) {
    this.#dirs = new Set([this.#cwd, ...rootDirs(roots)].flatMap((d) => [...spellings(d)]))
  }

  /** The session the agent named in the environment (`{ agent, sessionId }`), or null. */
  get named() {
    return this.#named
  }

  /** Whether `s` (a summary: agent, sessionId, cwd, updatedAt) is the caller's own live session. */
  is(s) {
    if (this.#named) return s.agent === this.#named.agent && s.sessionId === this.#named.sessionId
    if (!s.cwd || !this.#dirs.has(s.cwd.length > 1 ? s.cwd.replace(/[\\/]+$/, '') : s.cwd)) return false
    return this.#now() - new Date(s.updatedAt).getTime() <= LIVE_MS
  }
}

/**
 * At most `limit` results of `find(n)` (which returns at most `n`, best first) that are not the
 * caller's own session: asks for a few more than `limit`, and again for more while the ones left
 * out leave the answer short of a full one.
 */
async function withoutOwn(own, find, limit) {
  let asked = limit + 2
  for (;;) {
    const found = await find(asked)
    const kept = found.filter((s) => !own.is(s))
    if (kept.length >= limit || found.length < asked) return kept.slice(0, limit)
    asked *= 2
  }
}

module.exports = { OwnSession, withoutOwn, SESSION_VARIABLES, LIVE_MS }
