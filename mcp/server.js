'use strict'
// The MCP server of `amux mcp`: the tools (one module each under tools/) over one client of the
// library. The SDK's low-level Server is used rather than McpServer so that arguments are checked
// here, by the parameters' table: a bad one comes back as the AgentMuxError code and the one-line
// reason the command line and the UI give for it, instead of the SDK's own wording.

const { Server, ProtocolError, ProtocolErrorCode } = require('@modelcontextprotocol/server')
const { AgentMuxError } = require('../index.js')
const { z, readArgs } = require('./schemas.js')

const TOOLS = [
  require('./tools/search-sessions.js'),
  require('./tools/read-session.js'),
  require('./tools/list-sessions.js'),
  require('./tools/cost-report.js'),
]

const INSTRUCTIONS = `Past sessions of the coding agents on this machine (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, OpenCode, Pi, omp, OpenClaw, Hermes), read-only. To find how something was done before: search_sessions, then read_session with the hit's id and the same query as \`around\`.`

// Every tool only reads sessions the agents left on this machine.
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

const jsonSchema = (schema, io) => {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' })
  return rest
}

/** A tool as tools/list lists it. */
function definition(tool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output'),
    annotations: { title: tool.title, ...ANNOTATIONS },
  }
}

/** A failed call as a tool result: `CODE: reason` on one line, flagged as an error. */
function failure(error, log) {
  const known = error instanceof AgentMuxError
  const code = known ? error.code : 'INTERNAL'
  const reason = String(error?.message ?? error).replace(/\s*\n\s*/g, ' ')
  if (!known) log(`internal error: ${error?.stack ?? reason}`)
  return { content: [{ type: 'text', text: `${code}: ${reason}` }], isError: true }
}

/**
 * The server for one connection. `client` is the library client every call shares (its caches
 * stay warm between calls); `log` writes a line to stderr.
 */
function createServer({ client, version, log }) {
  const server = new Server(
    { name: 'agent-mux', title: 'agent-mux: past agent sessions', version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  )
  const byName = new Map(TOOLS.map((t) => [t.name, t]))
  const definitions = TOOLS.map(definition)
  const outputSchemas = new Map(definitions.map((d) => [d.name, d.outputSchema]))
  server.setRequestHandler('tools/list', () => ({ tools: definitions }))
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: raw = {} } = request.params
    const tool = byName.get(name)
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
    try {
      const { text, structured } = await tool.run(readArgs(tool.params, raw), { client })
      const result = { content: [{ type: 'text', text }], structuredContent: structured }
      return server.projectCallToolResult(result, outputSchemas.get(name))
    } catch (error) {
      return failure(error, log)
    }
  })
  return server
}

module.exports = { createServer, TOOLS }
