'use strict'
// Commands of the wider agent-mux that start a new agent run (resume, fork): its run API, which
// this read-only package does not contain. They exist so that the command line says so plainly
// rather than "unknown command".

const { AgentMuxError } = require('../../index.js')

/** Define `command` (`verb`: what it does, in its -ing form) as one that fails with CAPABILITY_ERROR. */
function runApiCommand(command, verb) {
  return command
    .description(`not available: ${verb} a session starts a new run, which this package cannot do`)
    .argument('[args...]')
    .allowUnknownOption()
    .action(() => {
      throw new AgentMuxError(
        'CAPABILITY_ERROR',
        `'${command.parent.name} ${command.name}' needs the agent-mux run API, which @a5c-ai/agent-mux does not include (it only reads sessions); ` +
          `use the agent's own CLI to continue a session`,
      )
    })
}

module.exports = { runApiCommand }
