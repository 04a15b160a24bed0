'use strict'
// amux mcp: every agent's past sessions as MCP tools for the agents themselves, served on stdio
// until the client closes it (the server is mcp/, a front end of its own).

module.exports = (command) =>
  command
    .description("serve every agent's past sessions as MCP tools on stdio: search_sessions, read_session, list_sessions, cost_report")
    .addHelpText('after', '\nAdd it to an agent as a stdio MCP server whose command is `amux mcp` (README: "amux mcp").\n')
    .action(() => require('../../mcp/index.js').serve())
