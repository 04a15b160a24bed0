'use strict'
// amux sessions resume: not in this package (resuming starts a run); it says so.

const { runApiCommand } = require('../../lib/run-api.js')

module.exports = (command) => runApiCommand(command, 'resuming')
