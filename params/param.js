'use strict'
// A parameter as the three front ends take it: its name (the library's spelling), its kind (type,
// choices, parser), its default, its one line of help, and where a front end takes it otherwise
// (its own name, default, bound or help), or not at all. The command line's options, the MCP
// tools' input schemas and the UI server's query parameters are all made from these.

const FRONT_ENDS = ['cli', 'mcp', 'ui']

/**
 * `name` the library's spelling (the CLI's flag is its kebab-case: groupBy → --group-by);
 * `options`: `default` (the library's, named in help), `required`, and `cli`, `mcp`, `ui`: false
 * where that front end does not take it, else what it takes differently (`name`, `help`,
 * `default`: a value of its own it passes, `required`, `max` or `choices` for the kind, and for
 * the command line `value`, the word its help shows for the value).
 */
function param(name, kind, help, options = {}) {
  const { cli = {}, mcp = {}, ui = {}, ...rest } = options
  return Object.freeze({ name, kind, help, ...rest, frontEnds: { cli, mcp, ui } })
}

/** `p` with some of its fields replaced: the same parameter as one call words it. */
const withOptions = (p, changes) => Object.freeze({ ...p, ...changes, frontEnds: { ...p.frontEnds, ...changes.frontEnds } })

/**
 * `p` as `frontEnd` takes it, or null where it does not: `{ name, key, kind, help, default,
 * required, parse(value, previous) }`, `key` the library's name the value is kept under.
 */
function forFrontEnd(p, frontEnd) {
  if (!FRONT_ENDS.includes(frontEnd)) throw new Error(`no front end ${frontEnd}`)
  const own = p.frontEnds[frontEnd]
  if (own === false) return null
  const { name = p.name, help = p.help, max, choices, ...rest } = own
  const kind = { ...p.kind }
  if (max !== undefined) kind.max = max
  if (choices !== undefined) kind.choices = choices
  // `default`: what the front end passes when the value is not given (its own default); the
  // library's default is only named in help, and the library applies it.
  const taken = { key: p.name, required: p.required, ...rest, name, help, kind, shownDefault: rest.default ?? p.default }
  taken.parse = (value, previous) => kind.parse(value, name, frontEnd, previous)
  return taken
}

/** The parameters of `call` (a list) that `frontEnd` takes, as it takes them. */
const takenBy = (call, frontEnd) => call.map((p) => forFrontEnd(p, frontEnd)).filter(Boolean)

module.exports = { param, withOptions, forFrontEnd, takenBy, FRONT_ENDS }
