// Keep's goals, side by side on one home (the home is read in place and one Claude file gets one
// appended line; run it on a copy):
// - the kept copy's size against the stores' (goal <= 0.15);
// - `index.update()` on a new cache with keep on against keep off (goal <= 1.3x);
// - the call after one appended message, keep on, against a warm call (goal <= 1.2x), for both
//   kinds of caller: a new process (each amux command: a new client, no watcher) against a new
//   process's warm call, and a client that lives (`watch: true`, as `amux mcp`/`amux ui`) against
//   its own warm call.
//   node bench/keep.mjs <home> [name=addon.node ...]
//   RUNS (default 5) calls per warm figure, medians; ONLY=update: the update's figures only.
// Without an addon named, the package's own; with several (before/after a change), each runs the
// whole bench in a process of its own, one after the other, each with the load average before.
// The data and cache directories are fresh temporary ones (never the user's).
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const home = resolve(process.argv[2] ?? 'bench/data/home')
const named = process.argv.slice(3)
if (named.length) {
  for (const [name, addon] of named.map((n) => n.split('='))) {
    const load = loadavg().map((l) => l.toFixed(2)).join(' ')
    console.log(`== ${name} (${addon}), load ${load}`)
    const env = { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: resolve(addon) }
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), home], { stdio: 'inherit', env })
  }
  console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  process.exit(0)
}
const require = createRequire(import.meta.url)
const { createClient } = require('../index.js')
const runs = Number(process.env.RUNS ?? 5)
const work = mkdtempSync(join(tmpdir(), 'amux-keep-bench-'))
process.env.HOME = home
process.env.AGENT_MUX_CONFIG_DIR = join(work, 'config')

const du = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0])
const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)]
const seconds = (ms) => (ms / 1000).toFixed(2) + ' s'

async function timed(fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/** `index.update()` on a fresh cache and data directory, keep on or off: its time. */
async function update(keep, name) {
  process.env.AGENT_MUX_CACHE_DIR = join(work, `cache-${name}`)
  process.env.AGENT_MUX_DATA_DIR = join(work, `data-${name}`)
  const client = createClient({ keep, indexChild: false })
  const ms = await timed(() => client.index.update())
  await client.close()
  return ms
}

/** A warm `listAll` in a new client: its median time over `runs` calls. */
async function warmList(keep) {
  const out = []
  for (let i = 0; i < runs; i++) {
    const client = createClient({ keep, indexChild: false, indexUpdates: 'wait' })
    out.push(await timed(() => client.sessions.listAll({ limit: 100 })))
    await client.close()
  }
  return median(out)
}

/** The largest Claude session file, to append to. */
function largestClaudeFile() {
  let best = null
  const walk = (d) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      const st = statSync(p)
      if (st.isDirectory()) walk(p)
      else if (p.endsWith('.jsonl') && (!best || st.size > best.size)) best = { p, size: st.size }
    }
  }
  walk(join(home, '.claude', 'projects'))
  return best.p
}

const stores = du(home)
console.log(`home: ${home}, ${(stores / 1e6).toFixed(0)} MB of stores`)
// The update's halves in turn, off first, so that both read the home from the page cache.
const off = await update(false, 'off')
const on = await update(true, 'on')
const kept = du(join(work, 'data-on', 'kept'))
console.log(`kept: ${(kept / 1e6).toFixed(1)} MB = ${(kept / stores).toFixed(3)} of the stores (goal <= 0.15)`)
console.log(`index.update on a new home: keep off ${seconds(off)}, keep on ${seconds(on)} = ${(on / off).toFixed(2)}x (goal <= 1.3x)`)
if (process.env.ONLY === 'update') {
  rmSync(work, { recursive: true, force: true })
  process.exit(0)
}

// The keep-on cache and data directories from here on.
process.env.AGENT_MUX_CACHE_DIR = join(work, 'cache-on')
process.env.AGENT_MUX_DATA_DIR = join(work, 'data-on')
const warmOff = await warmList(false)
const warmOn = await warmList(true)
const file = largestClaudeFile()
const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
/** The call after one appended message, keep on or off: its median over `runs` appends. */
async function afterAppend(keep) {
  const out = []
  for (let i = 0; i < runs; i++) {
    appendFileSync(file, lines[lines.length - 1] + '\n')
    const client = createClient({ keep, indexChild: false, indexUpdates: 'wait' })
    out.push(await timed(() => client.sessions.listAll({ limit: 100 })))
    await client.close()
  }
  return median(out)
}
const appendedOff = await afterAppend(false)
const appended = await afterAppend(true)
console.log('a new process (each amux command), listAll:')
console.log(`  warm: keep off ${seconds(warmOff)}, keep on ${seconds(warmOn)} = ${(warmOn / warmOff).toFixed(2)}x`)
console.log(`  after one appended message: keep off ${seconds(appendedOff)} = ${(appendedOff / warmOff).toFixed(2)}x its warm call, keep on ${seconds(appended)} = ${(appended / warmOn).toFixed(2)}x its warm call (goal <= 1.2x), ${(appended / appendedOff).toFixed(2)}x keep off's`)

/** A client that lives and watches: its warm call and its call after one appended message, medians. */
async function living(keep) {
  const client = createClient({ keep, watch: true, indexChild: false, indexUpdates: 'wait' })
  const call = () => timed(() => client.sessions.listAll({ limit: 100 }))
  await call()
  await call()
  const warm = []
  const after = []
  for (let i = 0; i < runs; i++) {
    warm.push(await call())
    appendFileSync(file, lines[lines.length - 1] + '\n')
    after.push(await call())
  }
  await client.close()
  return [median(warm), median(after)]
}
const [livingWarmOff, livingAfterOff] = await living(false)
const [livingWarmOn, livingAfterOn] = await living(true)
console.log('a client that lives (watch: true), listAll:')
console.log(`  warm: keep off ${seconds(livingWarmOff)}, keep on ${seconds(livingWarmOn)} = ${(livingWarmOn / livingWarmOff).toFixed(2)}x`)
console.log(`  after one appended message: keep off ${seconds(livingAfterOff)} = ${(livingAfterOff / livingWarmOff).toFixed(2)}x its warm call, keep on ${seconds(livingAfterOn)} = ${(livingAfterOn / livingWarmOn).toFixed(2)}x its warm call (goal <= 1.2x)`)
console.log(`kept after the appends: ${(du(join(work, 'data-on', 'kept')) / 1e6).toFixed(1)} MB`)
rmSync(work, { recursive: true, force: true })
