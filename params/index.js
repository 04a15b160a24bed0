'use strict'
// The parameters of the library's calls, defined once for the three front ends (the command line,
// the MCP server, the UI's API), which each make their own form of them: `calls` the tables,
// `kinds` the values and their parsers, `param`/`takenBy` an entry and how a front end takes it,
// `readValues` the reading of what a call was given. This folder requires only the public API and
// human/.

const calls = require('./calls.js')
const kinds = require('./kinds.js')
const { param, withOptions, forFrontEnd, takenBy, FRONT_ENDS } = require('./param.js')
const { readValues, unknownParameter, required, defined, suggest } = require('./read.js')

/** The library's filters (`since`, `until`, `model`, `tags`, `cwd`, …) among `values`, to spread into a call. */
const filtersOf = (values) => defined(Object.fromEntries(calls.filters.map((p) => [p.name, values[p.name]])))

module.exports = { calls, kinds, param, withOptions, forFrontEnd, takenBy, FRONT_ENDS, readValues, unknownParameter, required, defined, suggest, filtersOf }
