// One process, as a Node app runs the library: the first call timed from just before `require` to
// the settled promise (node's own start excluded, the addon's load included), then the same call
// on the used client (warm, the better of two). Prints one JSON line {first, warm} in ms.
//   node bench/index-calls.cjs <package root> search <text>
//   node bench/index-calls.cjs <package root> list <agent>
//   node bench/index-calls.cjs <package root> append <text> <jsonl file>   (five pairs: a warm
//     call, then the call after one line of the file is appended again; medians {warm, afterAppend})
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
    // Pairs, each on an index up to date: a warm call, then one line appended and the next
    // call. A single pair against the better of two warm calls measured the noise.
    const fs = require('fs')
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n')
    const pairs = []
    for (let i = 0; i < 5; i++) {
      await client.index.update()
      const before = await timed()
      fs.appendFileSync(file, lines[lines.length - 1] + '\n')
      pairs.push([before, await timed()])
    }
    const med = (k) => pairs.map((p) => p[k]).sort((a, b) => a - b)[pairs.length >> 1]
    console.log(JSON.stringify({ warm: +med(0).toFixed(1), afterAppend: +med(1).toFixed(1) }))
    return
  }
  console.log(JSON.stringify({ first: +first.toFixed(1), warm: +warm.toFixed(1) }))
}
main()
