'use strict'
// What the tools share: their input schemas, made from the parameters' table (params/) as MCP
// takes them (strict: an argument no tool takes is an error, not ignored), and the reading of a
// call's arguments through the table's parsers, so that a bad one is the AgentMuxError, with the
// message, that the command line and the UI's API give for it. The schema is what clients are
// shown; the parsers are what decides.

const z = require('zod')
const { BUILT_IN_AGENTS } = require('../index.js')
const { takenBy, readValues, defined, filtersOf, kinds } = require('../params/index.js')
const { invalid } = kinds

/** The zod type of one parameter as MCP takes it (`forFrontEnd(p, 'mcp')`). */
function zodOf(p) {
  const k = p.kind
  let type
  switch (k.type) {
    case 'agent':
      type = z.enum(BUILT_IN_AGENTS)
      break
    case 'choice':
      type = z.enum(k.choices)
      break
    case 'count':
      type = z.number().int().min(k.min)
      if (Number.isFinite(k.max)) type = type.max(k.max)
      break
    case 'number':
      type = z.number().positive()
      break
    case 'flag':
      type = z.boolean()
      break
    case 'texts':
      type = z.array(z.string().max(k.max))
      break
    case 'date':
    case 'text':
      type = z.string().min(1)
      if (k.max) type = type.max(k.max)
      break
    default:
      throw new Error(`no MCP schema for a parameter of kind ${k.type}`)
  }
  type = type.describe(p.help)
  if (p.default !== undefined) return type.default(p.default)
  return p.required ? type : type.optional()
}

/**
 * A tool's parameters, `call` a table of params/calls.js (or a tool's own, made with `param`):
 * `params` as MCP takes them, and `input` their strict schema.
 */
function toolInput(call) {
  const params = takenBy(call, 'mcp')
  const input = z.strictObject(Object.fromEntries(params.map((p) => [p.name, zodOf(p)])))
  return { params, input }
}

/** A call's arguments read through its parameters' parsers, under the library's names. */
function readArgs(params, raw) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid('the arguments must be an object')
  return readValues(params, new Map(Object.entries(raw)))
}

// What every tool that lists or reads sessions says of the caller's own (mcp/own-session.js).
const OWN_SESSION_NOTE = `The session this call is made from (your own, live) is left out; pass includeOwnSession: true to include it.`

// Output shapes.
const sessionFields = {
  id: z.string().describe('the unified id (agent:native-id): what read_session takes'),
  agent: z.string(),
  title: z.string(),
  cwd: z.string().optional(),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
  archived: z.literal(true).optional().describe("present when the agent deleted the session's source: amux kept a copy, which answers as the session did"),
}

module.exports = { z, toolInput, readArgs, defined, filtersOf, sessionFields, OWN_SESSION_NOTE }
