'use strict'
// `amux mcp`: every agent's past sessions as MCP tools, served over stdio to the agent that
// started it. One library client serves every call, so its caches and the index stay warm.
// stdout carries the protocol and nothing else; what the server has to say goes to stderr.
// Everything it answers goes on to the agent's model provider, so the client redacts secrets in
// every text (titles, messages, snippets) unless told not to.

const { serveStdio } = require('@modelcontextprotocol/server/stdio')
const { createClient } = require('../index.js')
const { version } = require('../package.json')
const { createServer, TOOLS } = require('./server.js')
const { stdioTransport } = require('./transport.js')

/**
 * Serve MCP on this process's stdin and stdout until the client closes stdin; `redact: false`
 * hands secrets on; `source`: a team database's URL to read instead of this machine.
 */
function serve({ redact = true, source } = {}) {
  const log = (line) => process.stderr.write(`amux mcp: ${line}\n`)
  // Anything printed by mistake would corrupt the protocol: console output goes to stderr.
  console.log = console.info = console.debug = console.error
  // A server lives: it learns what changed in the stores from the OS's file events.
  const client = createClient({ redact, watch: true, ...(source ? { source } : {}) })
  serveStdio(() => createServer({ client, version, log, team: Boolean(source) }), {
    transport: stdioTransport(),
    onerror: (error) => log(error.message.replace(/\s*\n\s*/g, ' ')),
  })
  log(`serving ${TOOLS.map((t) => t.name).join(', ')} on stdio (agent-mux ${version}${redact ? '' : ', secrets not redacted'}${source ? ', from a team database' : ''})`)
}

module.exports = { serve }
