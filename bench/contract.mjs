// Objects against JSON text across the binding, per call, as a Node app sees it (in process).
// Each call is made both ways on the same native client:
//   text:    the native call answers JSON text (ASCII), JSON.parse'd and its moments revived as
//            Dates, as index.js does;
//   objects: the native call builds the same result as JS objects itself, moments as Dates
//            (`*Objects`: src/objects.rs; `get`, which takes this way, against `getText`).
// For each call and way: the first call in a new process (median of BENCH_FIRST processes, a
// client made before the clock starts) and the warm call on a used client (median of
// BENCH_WARM calls after one untimed).
//   node bench/contract.mjs <home> [huge session id]     # prints a markdown table
//   BENCH_ONLY=get node bench/contract.mjs ...            # only the calls whose name holds 'get'
//   node bench/contract.mjs --one <way> <call> <home> <huge id> <warm runs>   # one process (internal)
// The home needs Claude sessions (`scripts/gen_home.py --agents claude --huge-mb 200`, see
// bench/contract.sh). The index lives in BENCH_CACHE_DIR (default: off, every call reads the store).
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { NativeClient } = require('../binding.js')
const self = fileURLToPath(import.meta.url)

const reviveSummary = (s) => {
  s.createdAt = new Date(s.createdAt)
  s.updatedAt = new Date(s.updatedAt)
  return s
}
const reviveMessage = (m) => {
  if (m.timestamp !== undefined) m.timestamp = new Date(m.timestamp)
  return m
}
const reviveSession = (s) => {
  reviveSummary(s)
  for (const m of s.messages) reviveMessage(m)
  return s
}
const reviveReport = (r) => {
  for (const row of r.sessions ?? []) {
    row.firstActivity = new Date(row.firstActivity)
    row.lastActivity = new Date(row.lastActivity)
  }
  return r
}
const reviveBlocks = (r) => {
  for (const b of r.blocks) {
    b.startTime = new Date(b.startTime)
    b.endTime = new Date(b.endTime)
    if (b.actualEndTime !== null) b.actualEndTime = new Date(b.actualEndTime)
  }
  return r
}
const list = (v) => v.map(reviveSummary)

// call → [text method, objects method, arguments, reviver of the text's objects, size of the result]
const calls = (huge) => ({
  'list of 20': ['list', 'listObjects', { agent: 'claude', options: { limit: 20 } }, list, (v) => v.length],
  'search of 50': ['search', 'searchObjects', { query: { text: 'kubernetes', limit: 50 } }, list, (v) => v.length],
  'totalCost': ['totalCost', 'totalCostObjects', { options: {} }, (v) => v, (v) => v.sessionCount],
  'totalCost by day': ['totalCost', 'totalCostObjects', { options: { groupBy: 'day' } }, (v) => v, (v) => Object.keys(v.breakdowns).length],
  'list of every session': ['list', 'listObjects', { agent: 'claude', options: { limit: 1e6 } }, list, (v) => v.length],
  'cost.daily': ['costReport', 'costReportObjects', { report: 'daily', options: {} }, reviveReport, (v) => v.daily.length],
  'cost.sessions': ['costReport', 'costReportObjects', { report: 'sessions', options: {} }, reviveReport, (v) => v.sessions.length],
  'cost.blocks': ['costBlocks', 'costBlocksObjects', { options: {} }, reviveBlocks, (v) => v.blocks.length],
  'get of the huge session': ['getText', 'get', { agent: 'claude', sessionId: huge }, reviveSession, (v) => v.messages.length],
})

async function once(native, way, [text, objects, args, revive]) {
  const wire = JSON.stringify(args)
  if (way === 'objects') return native[objects](wire)
  return revive(JSON.parse(await native[text](wire)))
}

async function one(way, name, home, huge, warmRuns) {
  process.env.HOME = home
  const native = new NativeClient(JSON.stringify({ cacheDir: process.env.BENCH_CACHE_DIR || false, indexUpdates: 'wait' }))
  const call = calls(huge)[name]
  let t = performance.now()
  const result = await once(native, way, call)
  const first = performance.now() - t
  const warm = []
  for (let i = 0; i < warmRuns; i++) {
    t = performance.now()
    await once(native, way, call)
    warm.push(performance.now() - t)
  }
  const size = call[4](result)
  console.log(JSON.stringify({ first, warm: median(warm), size, rssMb: Math.round(process.resourceUsage().maxRSS / 1024) }))
}

function median(xs) {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}

function main(home, huge) {
  const processes = Number(process.env.BENCH_FIRST || 5)
  const warmRuns = Number(process.env.BENCH_WARM || 11)
  console.log('| call | size | first call: objects ms | text ms | ratio | warm: objects ms | text ms | ratio | peak RSS objects / text MB |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const name of Object.keys(calls(huge))) {
    if (name.startsWith('get') && !huge) continue
    if (process.env.BENCH_ONLY && !name.includes(process.env.BENCH_ONLY)) continue
    const heavy = name.startsWith('get')
    const runs = heavy ? Math.min(processes, 3) : processes
    const row = {}
    for (const way of ['objects', 'text']) {
      const out = []
      // Alternate nothing else in between: each process does one way of one call.
      for (let i = 0; i < runs; i++) {
        const line = execFileSync(process.execPath, [self, '--one', way, name, home, huge ?? '', String(heavy ? 2 : warmRuns)], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        })
        out.push(JSON.parse(line.trim().split('\n').pop()))
      }
      row[way] = {
        first: median(out.map((o) => o.first)),
        warm: median(out.map((o) => o.warm)),
        size: out[0].size,
        rss: median(out.map((o) => o.rssMb)),
      }
    }
    const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2))
    const r = (a, b) => (a / b).toFixed(2)
    const { objects: o, text: t } = row
    console.log(
      `| ${name} | ${o.size} | ${f(o.first)} | ${f(t.first)} | ${r(o.first, t.first)} | ${f(o.warm)} | ${f(t.warm)} | ${r(o.warm, t.warm)} | ${o.rss} / ${t.rss} |`,
    )
  }
}

const argv = process.argv.slice(2)
if (argv[0] === '--one') await one(argv[1], argv[2], argv[3], argv[4] || undefined, Number(argv[5]))
else main(argv[0], argv[1])
