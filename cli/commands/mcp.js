'use strict'
// amux mcp: every agent's past sessions as MCP tools for the agents themselves, served on stdio
// until the client closes it (the server is mcp/, a front end of its own). What it answers goes
// to another agent and from there to its model's provider: secrets are redacted unless
// --no-redact.

const { Option } = require('../lib/cli.js')

module.exports = (command) =>
  command
    .description("serve every agent's past sessions as MCP tools on stdio: search_sessions, read_session, list_sessions, cost_report")
    .addOption(new Option('--no-redact', 'hand on secrets (API keys, tokens, passwords, private keys) as the sessions hold them, instead of [REDACTED:<rule>:<tag>]'))
    .addHelpText(
      'after',
      "\nAdd it to an agent as a stdio MCP server whose command is `amux mcp` (README: \"amux mcp\").\nEvery text of every tool is redacted by default: what the tools return leaves this machine\nwith the agent's requests to its model. The calling agent's own live session is left out of\nthe results; a tool's includeOwnSession: true brings it back.\n",
    )
    .action((o) => require('../../mcp/index.js').serve({ redact: !o.noRedact, source: require('../lib/api.js').sourceInUse() }))
