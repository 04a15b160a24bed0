'use strict'
// amux sessions fork: not in this package (forking starts a run); it says so.

const { runApiCommand } = require('../../lib/run-api.js')

module.exports = (command) => runApiCommand(command, 'forking')
