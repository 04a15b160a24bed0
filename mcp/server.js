'use strict'
// The MCP server of `amux mcp`: the tools (one module each under tools/) over one client of the
// library. The SDK's low-level Server is used rather than McpServer so that arguments are checked
// here, by the parameters' table: a bad one comes back as the AgentMuxError code and the one-line
// reason the command line and the UI give for it, instead of the SDK's own wording.

const { Server, ProtocolError, ProtocolErrorCode } = require('@modelcontextprotocol/server')
const { AgentMuxError } = require('../index.js')
const { z, readArgs } = require('./schemas.js')
const { OwnSession } = require('./own-session.js')

const TOOLS = [
  require('./tools/search-sessions.js'),
  require('./tools/read-session.js'),
  require('./tools/list-sessions.js'),
  require('./tools/cost-report.js'),
  require('./tools/recent-activity.js'),
  require('./tools/files-touched.js'),
]

const INSTRUCTIONS = `Past sessions of the coding agents on this machine (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, OpenCode, Pi, omp, OpenClaw, Hermes), read-only. To find how something was done before: search_sessions, then read_session with the hit's id and the same query as \`around\`.`

// How long the client's roots are waited for before a call goes on without them.
const ROOTS_WAIT_MS = 2000

// Every tool only reads sessions the agents left on this machine.
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

const jsonSchema = (schema, io) => {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' })
  return rest
}

/** A text as a server reading a team database says it: its sessions are every machine's. */
const forTeam = (text) => text.replace(/ on this machine/g, ' of every machine synced into the team database')

/** A tool as tools/list lists it (`team`: the server reads a team database). */
function definition(tool, team) {
  return {
    name: tool.name,
    title: tool.title,
    description: team ? forTeam(tool.description) : tool.description,
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
 * stay warm between calls); `log` writes a line to stderr; `caller`: the `env` and `cwd` the
 * calling agent started the server with (this process's by default), which tell its own session;
 * `team`: the client reads a team database (the descriptions then say so).
 */
function createServer({ client, version, log, caller = {}, team = false }) {
  const server = new Server(
    { name: 'agent-mux', title: 'agent-mux: past agent sessions', version },
    { capabilities: { tools: {} }, instructions: team ? forTeam(INSTRUCTIONS) : INSTRUCTIONS },
  )
  const own = new OwnSession(caller)
  // The client's roots are where it works too: asked for once it is initialized and whenever it
  // says they changed. A client that has none, or does not answer, leaves the server's cwd alone.
  let rootsRead = Promise.resolve()
  const readRoots = () => {
    if (!server.getClientCapabilities()?.roots) return
    rootsRead = server.listRoots(undefined, { timeout: ROOTS_WAIT_MS }).then(
      ({ roots }) => own.setRoots(roots),
      (error) => log(`the client's roots could not be read: ${error.message}`),
    )
  }
  server.oninitialized = readRoots
  server.setNotificationHandler('notifications/roots/list_changed', readRoots)
  const byName = new Map(TOOLS.map((t) => [t.name, t]))
  const definitions = TOOLS.map((t) => definition(t, team))
  const outputSchemas = new Map(definitions.map((d) => [d.name, d.outputSchema]))
  server.setRequestHandler('tools/list', () => ({ tools: definitions }))
  server.setRequestHandler('tools/call', async (request) => {
    const { name, arguments: raw = {} } = request.params
    const tool = byName.get(name)
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`)
    try {
      const args = readArgs(tool.params, raw)
      await rootsRead
      const { text, structured } = await tool.run(args, { client, own })
      const result = { content: [{ type: 'text', text }], structuredContent: structured }
      return server.projectCallToolResult(result, outputSchemas.get(name))
    } catch (error) {
      return failure(error, log)
    }
  })
  return server
}

module.exports = { createServer, TOOLS }
