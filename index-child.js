'use strict'
// The detached process a client hands the index's work to when its own process exits (index.js,
// `handOver`). Once that process is gone (a thread of it may hold the index's write lock until
// then), it brings the index up to date at a low priority, unless another process writes it
// already. Like every write of the index, it is safe to interrupt: it commits as it goes.
// It reads the stores and the cache as the client did: the client's options, and the environment
// it was started with. Arguments: the exiting process's id, the index's directory, the options.
const { setPriority } = require('node:os')
const { existsSync } = require('node:fs')

const [parent, dir, options] = process.argv.slice(2)

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

async function main() {
  // Before the addon's threads start, so that they inherit it.
  try {
    setPriority(10)
  } catch {
    // Not allowed here: at the priority it has.
  }
  // A process that takes longer to end is not waited for: `ifIdle` then leaves the index to it.
  const until = Date.now() + 5000
  while (alive(Number(parent)) && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  // Removed since (a temporary home, a cleared cache): there is nothing to fill.
  if (!existsSync(dir)) return
  const { createClient } = require('./index.js')
  const client = createClient({ ...JSON.parse(options), indexUpdates: 'wait', indexChild: false })
  await client.index.update({ ifIdle: true })
}

// What it did not write, the next search reads itself and hands on again.
main().catch(() => {})
