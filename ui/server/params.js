'use strict'
// Query parameters of the UI's API, checked before any session is read: an unknown or repeated
// parameter, or a value out of its range, is a 400 with a JSON error naming it.

const { BUILT_IN_AGENTS } = require('../../index.js')
const { readDate, DATE_SPELLINGS } = require('../../human/dates.js')

class BadRequest extends Error {
  constructor(message) {
    super(message)
    this.name = 'BadRequest'
  }
}

// Control characters never belong in a query, an id or a path: refusing them keeps log lines and
// error messages one line each.
const CONTROL = /[\u0000-\u001f\u007f]/

function text(max = 1000) {
  return (value, key) => {
    if (value.length > max) throw new BadRequest(`${key} is longer than ${max} characters`)
    if (CONTROL.test(value)) throw new BadRequest(`${key} holds a control character`)
    return value
  }
}

function choice(values) {
  return (value, key) => {
    if (!values.includes(value)) throw new BadRequest(`${key} must be one of ${values.join(', ')}`)
    return value
  }
}

const agent = choice(BUILT_IN_AGENTS)

function int(min, max) {
  return (value, key) => {
    const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN
    if (!(n >= min && n <= max)) throw new BadRequest(`${key} must be a whole number from ${min} to ${max}`)
    return n
  }
}

function date({ endOfDay = false } = {}) {
  return (value, key) => {
    const date = readDate(text(40)(value, key), { endOfDay })
    if (!date) throw new BadRequest(`${key} is not a date: expected ${DATE_SPELLINGS}`)
    return date
  }
}

/** A unified id (`agent:native id`) as `{ agent, sessionId, unifiedId }`, the agent a known one. */
function sessionRef(sessions) {
  return (value, key) => {
    text(1024)(value, key)
    const ref = sessions.resolveNativeId(value)
    if (!ref || !BUILT_IN_AGENTS.includes(ref.agent) || ref.nativeSessionId === '') {
      throw new BadRequest(`${key} must be a session id as agent:id, with one of the agents ${BUILT_IN_AGENTS.join(', ')}`)
    }
    return { agent: ref.agent, sessionId: ref.nativeSessionId, unifiedId: value }
  }
}

/**
 * The parameters of `url` as `spec` (name → check) reads them; `required` lists those that must be
 * given. An empty value counts as absent. `token` (the access token) is not a parameter of any call.
 */
function readParams(url, spec, required = []) {
  const out = {}
  for (const key of new Set(url.searchParams.keys())) {
    if (key === 'token') continue
    if (!Object.hasOwn(spec, key)) throw new BadRequest(`unknown parameter '${key}'`)
    if (url.searchParams.getAll(key).length > 1) throw new BadRequest(`${key} is given more than once`)
  }
  for (const [key, check] of Object.entries(spec)) {
    const value = url.searchParams.get(key)
    if (value === null || value === '') {
      if (required.includes(key)) throw new BadRequest(`${key} is required`)
      continue
    }
    out[key] = check(value, key)
  }
  return out
}

module.exports = { BadRequest, readParams, text, choice, agent, int, date, sessionRef }
