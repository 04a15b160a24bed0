'use strict'
// Reading the values a call was given, the same way for every front end: a name no parameter has
// is refused (naming the nearest one), a required one must be there, each value goes through its
// parameter's parser, and what was not given is left to its default.

const { invalid } = require('./kinds.js')
const { nearest } = require('../human/nearest.js')

/** `object` without its undefined values, so the library's own defaults apply to what was not given. */
const defined = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined))

/** The error for a parameter `name` that is none of `known` (names), with the nearest one when it is close. */
function unknownParameter(name, known) {
  return invalid(`unknown parameter '${name}'${suggest(name, known)}`)
}

const required = (name) => invalid(`${name} is required`)

/**
 * The values `given` holds (a Map of name → value, as the front end spelt them) for the
 * parameters `taken` (from `takenBy`), under the library's names; `extra` are the names the front
 * end reads itself (none of the table's). An absent or empty value takes its default.
 */
function readValues(taken, given, extra = []) {
  const names = new Set(taken.map((p) => p.name))
  for (const name of given.keys()) {
    if (!names.has(name) && !extra.includes(name)) throw unknownParameter(name, [...names, ...extra])
  }
  const out = {}
  for (const p of taken) {
    const value = given.get(p.name)
    if (value === undefined || value === null || value === '') {
      if (p.required) throw required(p.name)
      if (p.default !== undefined) out[p.key] = p.default
      continue
    }
    out[p.key] = p.parse(value)
  }
  return out
}

// " (did you mean 'x'?)" when a known name is within two edits of `word`.
function suggest(word, known) {
  const best = nearest(word, known)
  return best === undefined ? '' : ` (did you mean '${best}'?)`
}

module.exports = { readValues, unknownParameter, required, defined, suggest }
