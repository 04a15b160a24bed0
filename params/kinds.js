'use strict'
// The kinds of value a parameter takes, each with its parser: what a person or a model wrote
// (text from the command line or a query string, a JSON value from an MCP client) → the value the
// library takes. A bad value throws the AgentMuxError the library would throw for it, with one
// message whatever front end it came through: it names the parameter, says what was expected and
// repeats what was given.

const { isAbsolute, resolve } = require('node:path')
const { AgentMuxError, BUILT_IN_AGENTS } = require('../index.js')
const { readDate, DATE_SPELLINGS } = require('../human/dates.js')

const invalid = (message) => new AgentMuxError('VALIDATION_ERROR', message)

// Control characters never belong in a value: refusing them keeps log lines and error messages
// one line each.
const CONTROL = /[\u0000-\u001f\u007f]/

// The value as a message repeats it: one line, not too long.
function shown(value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
  const line = text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return line.length > 60 ? `${line.slice(0, 60)}…` : line
}

const expected = (name, what, value) => invalid(`${name} must be ${what}, not '${shown(value)}'`)

/** A value given as text (a JSON number or boolean is read as its text), checked for length and control characters. */
function textOf(value, name, max) {
  if (typeof value === 'number' || typeof value === 'boolean') value = String(value)
  if (typeof value !== 'string') throw expected(name, 'text', value)
  if (CONTROL.test(value)) throw invalid(`${name} holds a control character`)
  if (value.length > max) throw invalid(`${name} is longer than ${max} characters`)
  return value
}

/** Free text of at most `max` characters (a model id, a query). */
const text = ({ max = 1000 } = {}) => ({
  type: 'text',
  value: 'text',
  max,
  parse: (value, name) => textOf(value, name, max),
})

/** A date or an age before now (human/dates.js); `endOfDay`: a bare date means the end of that day. */
const date = ({ endOfDay = false } = {}) => ({
  type: 'date',
  value: 'date',
  parse(value, name) {
    const date = readDate(textOf(value, name, 40), { endOfDay })
    if (!date) throw expected(name, `a date, ${DATE_SPELLINGS}`, value)
    return date
  },
})

// A bare day as ccusage writes it (20260105) or as ISO 8601 does (2026-01-05).
const DAY = /^(\d{4})(-?)(\d{2})\2(\d{2})$/

/**
 * A cost report's bound: a bare day stays a day, 'YYYY-MM-DD', which the report places in its own
 * time zone (`until`: up to that day's end); a time or an age is a moment, as `date` reads it.
 */
const day = ({ endOfDay = false } = {}) => ({
  type: 'date',
  value: 'date',
  parse(value, name) {
    const typed = textOf(value, name, 40).trim()
    const m = DAY.exec(typed)
    const what = `a day (20260105, 2026-01-05) or a date, ${DATE_SPELLINGS}`
    if (!m) {
      const date = readDate(typed, { endOfDay })
      if (!date) throw expected(name, what, value)
      return date
    }
    const [, y, , mo, d] = m
    const utc = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
    if (utc.getUTCMonth() + 1 !== Number(mo) || utc.getUTCDate() !== Number(d)) throw expected(name, what, value)
    return `${y}-${mo}-${d}`
  },
})

/**
 * A whole number from `min` up, at most `max` when there is one (a front end may set its own
 * `max`: the table says so where it does). Text of digits or a JSON integer.
 */
const count = ({ min = 1, max = Infinity } = {}) => ({
  type: 'count',
  value: 'n',
  min,
  max,
  parse(value, name) {
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : NaN
    if (!(Number.isInteger(n) && n >= min)) throw expected(name, `a whole number from ${min} up`, value)
    if (n > this.max) throw invalid(`${name} must be at most ${this.max}, not ${n}`)
    return n
  },
})

/** A number above 0 (hours). */
const positive = ({ unit = 'number' } = {}) => ({
  type: 'number',
  value: unit === 'number' ? 'n' : unit,
  parse(value, name) {
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN
    if (!(Number.isFinite(n) && n > 0)) throw expected(name, `a number of ${unit} above 0`, value)
    return n
  },
})

/** One of `choices`. */
const choice = (choices) => ({
  type: 'choice',
  value: 'choice',
  choices,
  parse(value, name) {
    if (!this.choices.includes(value)) throw expected(name, `one of ${this.choices.join(', ')}`, value)
    return value
  },
})

/** An agent's name: an unknown one is AGENT_NOT_FOUND, as the library reports it. */
const agent = () => ({
  type: 'agent',
  value: 'agent',
  get choices() {
    return BUILT_IN_AGENTS
  },
  parse(value, name) {
    if (!BUILT_IN_AGENTS.includes(value)) {
      const typed = shown(value)
      throw new AgentMuxError('AGENT_NOT_FOUND', `unknown agent '${typed}' (agents: ${BUILT_IN_AGENTS.join(', ')})`)
    }
    return value
  },
})

/**
 * A directory as the agents record it, absolute. The front ends differ here, and only here: on
 * the command line a relative one is taken from the current directory (`.` is where amux runs);
 * an MCP client or the UI's page has no current directory of ours, so it must give an absolute one.
 */
const directory = () => ({
  type: 'text',
  value: 'dir',
  max: 4096,
  parse(value, name, frontEnd) {
    const dir = textOf(value, name, 4096)
    if (!dir.trim()) throw expected(name, 'a directory', value)
    if (frontEnd === 'cli') return resolve(dir)
    if (!isAbsolute(dir)) throw expected(name, 'an absolute path', value)
    return dir
  },
})

/**
 * A project: a directory (taken to the main working directory of its git repository by the core)
 * or a project directory's name, a word without a separator. A directory is absolute, as
 * `directory` takes one: on the command line a relative one (`.`, `./web`) is taken from here.
 */
const project = () => ({
  type: 'text',
  value: 'path|name',
  max: 4096,
  parse(value, name, frontEnd) {
    const p = textOf(value, name, 4096)
    if (!p.trim()) throw expected(name, 'a directory or a project name', value)
    const isPath = isAbsolute(p) || /[\\/]/.test(p) || p === '.' || p === '..'
    if (!isPath) return p
    if (frontEnd === 'cli') return resolve(p)
    if (!isAbsolute(p)) throw expected(name, "an absolute path or a project directory's name", value)
    return p
  },
})

/** On or off: a switch on the command line, true or false elsewhere. */
const flag = () => ({
  type: 'flag',
  parse(value, name) {
    if (value === true || value === 'true') return true
    if (value === false || value === 'false') return false
    throw expected(name, 'true or false', value)
  },
})

/**
 * Several texts: on the command line the option is repeated, each time one more; an MCP client
 * gives an array. (The UI's query string takes none: it refuses a repeated parameter.)
 */
const texts = ({ max = 200 } = {}) => ({
  type: 'texts',
  value: 'text',
  max,
  parse(value, name, frontEnd, previous = []) {
    if (Array.isArray(value)) return value.map((v) => textOf(v, name, max))
    if (frontEnd !== 'cli') throw expected(name, 'a list of texts', value)
    return [...previous, textOf(value, name, max)]
  },
})

/** A number of tokens from 1 up, or 'max'. */
const tokenLimit = () => ({
  type: 'tokenLimit',
  value: 'n',
  parse(value, name) {
    if (value === 'max') return 'max'
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : NaN
    if (!(Number.isInteger(n) && n >= 1)) throw expected(name, "a whole number of tokens from 1 up, or 'max'", value)
    return n
  },
})

module.exports = { text, date, day, count, positive, choice, agent, directory, project, flag, texts, tokenLimit, invalid, CONTROL }
