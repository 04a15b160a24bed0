'use strict'
// amux ui: every agent's sessions in a local web page (ui/server): search, read, diff and cost.
// It prints the URL (with its token) and serves until interrupted.

const { Option, InvalidArgumentError } = require('../lib/cli.js')

module.exports = (command) =>
  command
    .description('browse, search, read, diff and cost every session in a local web page (read-only)')
    .addOption(new Option('--port <n>', 'listen on this port (default: a free one)').argParser(port))
    .addOption(new Option('--host <address>', 'listen on this address (default: 127.0.0.1; any other lets other machines reach it)'))
    .addOption(new Option('--no-open', 'print the URL without opening a browser'))
    .addHelpText('after', '\nThe URL carries a random token: a request without it, or addressed to another host, gets 403.\n')
    .action(ui)

function port(value) {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('Not a port number (0 to 65535)')
  return Number(value)
}

async function ui(o) {
  await require('../../ui/server/run.js').runUi({ host: o.host, port: o.port, open: !o.noOpen, source: require('../lib/api.js').sourceInUse() })
}
