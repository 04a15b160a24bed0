'use strict'
// amux index clear: the index deleted (the next call that needs it builds it again).

const { client } = require('../../lib/api.js')
const { print } = require('../../lib/output.js')

module.exports = (command) =>
  command
    .description('delete the index (the next call that needs it builds it again)')
    .action(clear)

async function clear() {
  const cleared = await client().index.clear()
  print(cleared ? 'index deleted' : 'the index is off (AGENT_MUX_NO_CACHE)')
}
