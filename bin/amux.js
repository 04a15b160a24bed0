#!/usr/bin/env node
'use strict'
// amux, the executable package.json names. The command line itself is cli/ (cli/main.js wires
// its commands); the MCP server is mcp/, the UI ui/: three front ends over the one library.
require('../cli/main.js')
