'use strict'
// What the tools share: argument schemas (strict: an argument no tool takes is an error, not
// ignored), reading dates as the CLI does, and turning a bad argument into the AgentMuxError the
// rest of the package would throw for it.

const z = require('zod')
const { AgentMuxError, BUILT_IN_AGENTS } = require('../../../index.js')
const args = require('../args.js')

const agent = (what) => z.enum(BUILT_IN_AGENTS).describe(what)

const DATE_HELP = 'ISO 8601 (2025-01-31, 2025-01-31T09:30Z; local time without an offset) or an age before now (30m, 12h, 7d, 2w)'
const since = () => z.string().describe(`only sessions created at or after this: ${DATE_HELP}`)
const until = () => z.string().describe(`only sessions created at or before this (a bare date includes that whole day): ${DATE_HELP}`)
const cwd = () => z.string().describe('only sessions whose working directory is exactly this absolute path')
const limit = (dflt, max) => z.number().int().min(1).max(max).default(dflt).describe(`at most this many results (default ${dflt})`)

/** `since`/`until` of a tool's arguments as Dates, read as `amux --since/--until` reads them. */
function dates(input) {
  const out = {}
  for (const [key, parse] of [['since', args.since], ['until', args.until]]) {
    if (input[key] === undefined) continue
    try {
      out[key] = parse(input[key])
    } catch (error) {
      throw new AgentMuxError('VALIDATION_ERROR', `${key} '${input[key]}': ${error.message}`)
    }
  }
  return out
}

/** Only the keys whose value is given, so the API's own defaults apply to the others. */
const defined = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined))

// Output shapes.
const costRecord = z.object({
  totalUsd: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  thinkingTokens: z.number().optional(),
  cachedTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
})

const sessionFields = {
  id: z.string().describe('the unified id (agent:native-id): what read_session takes'),
  agent: z.string(),
  title: z.string(),
  cwd: z.string().optional(),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
}

/**
 * The one-line reason for arguments that failed `schema`, as the AgentMuxError the API throws for
 * the same mistake: an agent it does not know is AGENT_NOT_FOUND, anything else VALIDATION_ERROR.
 */
function argumentError(tool, schema, issues, input) {
  const issue = issues[0]
  const where = issue.path.join('.')
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(schema.shape).join(', ')
    const keys = issue.keys.map((k) => `'${k}'`).join(', ')
    return new AgentMuxError('VALIDATION_ERROR', `unknown argument ${keys}: ${tool} takes ${known}`)
  }
  if (where === 'agent' && issue.code === 'invalid_value') {
    return new AgentMuxError('AGENT_NOT_FOUND', `unknown agent '${input.agent}' (agents: ${BUILT_IN_AGENTS.join(', ')})`)
  }
  const reason = issue.message.replace(/^Invalid input: /, '').replace(/\s*\n\s*/g, ' ')
  return new AgentMuxError('VALIDATION_ERROR', where ? `${where}: ${reason}` : reason)
}

module.exports = { z, agent, since, until, cwd, limit, dates, defined, costRecord, sessionFields, argumentError }
