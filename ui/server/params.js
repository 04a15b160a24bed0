'use strict'
// Query parameters of the UI's API, checked before any session is read. The calls' parameters come
// from the parameters' table (params/), as the UI takes them; what only the page asks for (a
// session's id, a window's first message, a page's offset) is made here the same way. A bad value
// is the AgentMuxError, with the message, the command line and the MCP tools give for it (a 400
// with a JSON error), and this API's own rules hold for every parameter: an unknown or repeated
// one, or a control character, is refused too.

const { BUILT_IN_AGENTS } = require('../../index.js')
const { calls, param, kinds, forFrontEnd, takenBy, readValues } = require('../../params/index.js')

const { invalid, CONTROL } = kinds

/** A parameter only the UI takes, as `takenBy` gives the table's. */
const uiOnly = (name, kind, ui = {}) => forFrontEnd(param(name, kind, '', { cli: false, mcp: false, ui }), 'ui')

/** A unified id (`agent:native id`) as `{ agent, sessionId, unifiedId }`, the agent a known one. */
function sessionRef(sessions) {
  const asText = kinds.text({ max: 1024 })
  return {
    type: 'text',
    parse(value, name) {
      asText.parse(value, name)
      const ref = sessions.resolveNativeId(value)
      if (!ref || !BUILT_IN_AGENTS.includes(ref.agent) || ref.nativeSessionId === '') {
        throw invalid(`${name} must be a session id as agent:id, with one of the agents ${BUILT_IN_AGENTS.join(', ')}`)
      }
      return { agent: ref.agent, sessionId: ref.nativeSessionId, unifiedId: value }
    },
  }
}

/**
 * The parameters of `url` as `params` (from `takenBy` or `uiOnly`) read them, under the library's
 * names. An empty value counts as absent. `token` (the access token) is not a parameter of any call.
 */
function readParams(url, params) {
  const given = new Map()
  for (const key of new Set(url.searchParams.keys())) {
    if (key === 'token') continue
    const values = url.searchParams.getAll(key)
    if (values.length > 1) throw invalid(`${key} is given more than once`)
    if (CONTROL.test(values[0])) throw invalid(`${key} holds a control character`)
    given.set(key, values[0])
  }
  return readValues(params, given)
}

module.exports = { readParams, uiOnly, sessionRef, calls, kinds, takenBy }
