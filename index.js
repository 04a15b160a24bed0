'use strict'
// Public entry of @a5c-ai/agent-mux: the spec's SessionManager over the native core.
// This layer only moves values across (Dates <-> epoch ms, JSON text <-> objects) and turns native
// errors into AgentMuxError; every rule about sessions lives in the Rust core.

const { NativeClient, isKnownAgent } = require('./binding.js')

class AgentMuxError extends Error {
  constructor(code, message, recoverable = false) {
    super(message)
    this.name = 'AgentMuxError'
    this.code = code
    this.recoverable = recoverable
  }
}

function fromNative(err) {
  if (err instanceof AgentMuxError) return err
  const text = err && typeof err.message === 'string' ? err.message : String(err)
  if (text.startsWith('{"code"')) {
    try {
      const { code, message } = JSON.parse(text)
      return new AgentMuxError(code, message)
    } catch {
      // fall through: not one of ours
    }
  }
  const wrapped = new AgentMuxError('INTERNAL', text)
  wrapped.cause = err
  return wrapped
}

// Dates cross as epoch milliseconds; an invalid Date as a marker the core rejects by name.
function toWire(value) {
  return JSON.stringify(value, function (key, v) {
    const original = this[key]
    if (original instanceof Date) return Number.isNaN(original.getTime()) ? 'Invalid Date' : original.getTime()
    if (typeof v === 'bigint') return Number(v)
    // JSON would turn NaN and Infinity into null (= "not given"); keep them visible so they are rejected
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
    return v
  })
}

function reviveSummary(s) {
  s.createdAt = new Date(s.createdAt)
  s.updatedAt = new Date(s.updatedAt)
  return s
}

function reviveMessage(m) {
  if (m && m.timestamp !== undefined) m.timestamp = new Date(m.timestamp)
  return m
}

function reviveSession(s) {
  reviveSummary(s)
  for (const m of s.messages) reviveMessage(m)
  return s
}

function reviveDiff(d) {
  for (const op of d.operations) {
    reviveMessage(op.messageA)
    reviveMessage(op.messageB)
  }
  return d
}

// Report the index's progress to `onProgress` while `promise` is pending (issue #16). The native
// side records the latest report; it is read here, on the JS thread, every 100 ms and once more
// when the call settles, and each new report is passed on once.
function watchProgress(native, onProgress, promise) {
  if (typeof onProgress !== 'function') return promise
  const read = () => JSON.parse(native.progress())
  let seen = read()?.seq ?? 0
  const poll = () => {
    const p = read()
    if (p && p.seq !== seen) {
      seen = p.seq
      onProgress({ agent: p.agent, done: p.done, total: p.total })
    }
  }
  const timer = setInterval(poll, 100)
  timer.unref?.()
  return promise.finally(() => {
    clearInterval(timer)
    poll()
  })
}

// Run a native call; a synchronous throw (bad arguments) becomes a rejection like any other error.
function call(native, method, args, revive, onProgress) {
  let promise
  try {
    promise = watchProgress(native, onProgress, native[method](toWire(args)))
  } catch (err) {
    return Promise.reject(fromNative(err))
  }
  return promise.then(
    (text) => (revive ? revive(JSON.parse(text)) : text),
    (err) => {
      throw fromNative(err)
    },
  )
}

class SessionManager {
  #native
  #onProgress

  constructor(native, onProgress) {
    this.#native = native
    this.#onProgress = onProgress
  }

  list(agent, options) {
    return call(this.#native, 'list', { agent, options }, (v) => v.map(reviveSummary), this.#onProgress)
  }

  get(agent, sessionId) {
    return call(this.#native, 'get', { agent, sessionId }, reviveSession)
  }

  search(query) {
    return call(this.#native, 'search', { query }, (v) => v.map(reviveSummary), this.#onProgress)
  }

  totalCost(options) {
    return call(this.#native, 'totalCost', { options }, (v) => v, this.#onProgress)
  }

  export(agent, sessionId, format) {
    return call(this.#native, 'export', { agent, sessionId, format }, null)
  }

  diff(a, b) {
    return call(this.#native, 'diff', { a, b }, reviveDiff)
  }

  resolveUnifiedId(agent, nativeSessionId) {
    if (typeof agent !== 'string' || typeof nativeSessionId !== 'string') {
      throw new AgentMuxError('VALIDATION_ERROR', 'resolveUnifiedId takes two strings')
    }
    return `${agent}:${nativeSessionId}`
  }

  resolveNativeId(unifiedId) {
    if (typeof unifiedId !== 'string') return null
    const colon = unifiedId.indexOf(':')
    if (colon <= 0 || colon === unifiedId.length - 1) return null
    const agent = unifiedId.slice(0, colon)
    if (!isKnownAgent(agent)) return null
    return { agent, nativeSessionId: unifiedId.slice(colon + 1) }
  }
}

function createClient(options) {
  let native
  try {
    native = new NativeClient(toWire(options ?? {}))
  } catch (err) {
    throw fromNative(err)
  }
  const onProgress = options?.onProgress
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new AgentMuxError('VALIDATION_ERROR', 'onProgress must be a function')
  }
  const sessions = new SessionManager(native, onProgress)
  // The persistent index (issue #16): its size and freshness, a rebuild, its removal.
  const index = Object.freeze({
    status: () => call(native, 'indexStatus', {}, (v) => v),
    rebuild: () => call(native, 'indexRebuild', {}, (v) => v, onProgress),
    clear: () => call(native, 'indexClear', {}, (v) => v),
  })
  return Object.freeze({ sessions, index })
}

module.exports.createClient = createClient
module.exports.AgentMuxError = AgentMuxError
module.exports.BUILT_IN_AGENTS = Object.freeze([
  'claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode', 'pi', 'omp', 'openclaw', 'hermes',
])
