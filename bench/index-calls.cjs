// One process, as a Node app runs the library: the first call timed from just before `require` to
// the settled promise (node's own start excluded, the addon's load included), then the same call
// on the used client (warm, the better of two). Prints one JSON line {first, warm} in ms.
//   node bench/index-calls.cjs <package root> search <text>
//   node bench/index-calls.cjs <package root> list <agent>
//   node bench/index-calls.cjs <package root> append <text> <jsonl file>   (warm, then the call
//     after one line of the file is appended again: {warm, afterAppend})
// HOME and AGENT_MUX_CACHE_DIR come from the environment (bench/index.sh sets them).
'use strict'
const [root, op, arg, file] = process.argv.slice(2)
const t0 = performance.now()
const { createClient } = require(root)
const client = createClient({ cacheDir: process.env.AGENT_MUX_CACHE_DIR })
const call = () =>
  op === 'list'
    ? client.sessions.list(arg, { limit: 100000 })
    : client.sessions.search({ text: arg, limit: 50 })

async function timed() {
  const t = performance.now()
  await call()
  return performance.now() - t
}

async function main() {
  await call()
  const first = performance.now() - t0
  const warm = Math.min(await timed(), await timed())
  if (op === 'append') {
    const fs = require('fs')
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
    fs.appendFileSync(file, lines[lines.length - 1] + '\n')
    const afterAppend = await timed()
    console.log(JSON.stringify({ warm: +warm.toFixed(1), afterAppend: +afterAppend.toFixed(1) }))
    return
  }
  console.log(JSON.stringify({ first: +first.toFixed(1), warm: +warm.toFixed(1) }))
}
main()
